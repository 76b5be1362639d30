/**
 * The Pulumi plugin protocol as the native provider plugin serves it: the generated messages that ship in
 * `@pulumi/pulumi/proto/` (`provider_pb.js`, `plugin_pb.js`, `engine_pb.js`), the paths of the provider's methods
 * and of the engine's `Log` (checked against the generated services' declarations), and `google-protobuf`'s `Struct`
 * and `Empty`. The generated services (`provider_grpc_pb.js`, `engine_grpc_pb.js`) are not loaded here: they load
 * `@grpc/grpc-js`, which the plugin neither serves with nor calls its engine with (`rpc/unary-server.ts` and
 * `rpc/unary-client.ts` say why).
 *
 * Only these modules are loaded, never `@pulumi/pulumi`'s index (which takes most of a second to load). Every import
 * here is static, so a bundler follows them (the release executable is one bundled file: `scripts/release/`).
 * The stubs are CommonJS: their default import is their `module.exports`.
 *
 * Messages must be built with the very `google-protobuf` copy the stubs serialize with. `google-protobuf` is a
 * dependency of this package with the range `@pulumi/pulumi` asks for, so npm installs one copy that both resolve
 * (in the bundle, one module). Source: pulumi/pulumi `proto/pulumi/provider.proto`, `plugin.proto`, `engine.proto`
 * (v3.259).
 * @home the plugin's `CheckResponse` and `DiffResponse`
 */

// A type only, erased: `@grpc/grpc-js` is a development dependency (the tests' and the benchmark's gRPC), which nothing
// shipped loads.
import type { handleUnaryCall } from "@grpc/grpc-js";
import type * as EngineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb.js";
import enginePbModule from "@pulumi/pulumi/proto/engine_pb.js";
import pluginPbModule from "@pulumi/pulumi/proto/plugin_pb.js";
import type * as ProviderGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import type * as ProviderPb from "@pulumi/pulumi/proto/provider_pb.js";
import providerPbModule from "@pulumi/pulumi/proto/provider_pb.js";
import emptyPbModule from "google-protobuf/google/protobuf/empty_pb.js";
import type * as StructPb from "google-protobuf/google/protobuf/struct_pb.js";
import structPbModule from "google-protobuf/google/protobuf/struct_pb.js";

/** `pulumirpc` provider messages: `CheckRequest`, `DiffResponse`, `ConfigureResponse`, ... (provider.proto). */
export const providerPb = providerPbModule;
/** `pulumirpc.PluginInfo`, `PluginAttach` (plugin.proto). */
export const pluginPb = pluginPbModule;
/** `pulumirpc.LogRequest`, `LogSeverity` (engine.proto). */
export const enginePb = enginePbModule;
/** `google.protobuf.Struct` with `fromJavaScript` / `toJavaScript`, the copy the stubs use. */
export const structPb = structPbModule;
/** `google.protobuf.Empty`, the copy the stubs use. */
export const emptyPb = emptyPbModule;

/** A `google.protobuf.Struct` message. */
export type Struct = StructPb.Struct;
/** A property map as `Struct.toJavaScript()` gives it and `Struct.fromJavaScript()` takes it. */
export type PropertyMap = Record<string, unknown>;

/**
 * Converts a request's `Struct` (or its absence) to a plain property map.
 *
 * @param struct e.g. `CheckRequest.getNews()`; undefined when the engine sent none
 * @returns the properties, `{}` when there were none; secrets stay wrapped, unknowns stay sentinels
 */
export function toProperties(struct: Struct | undefined): PropertyMap {
  return struct ? (struct.toJavaScript() as PropertyMap) : {};
}

/**
 * Converts a property map to a `Struct` for a response.
 *
 * @param properties JSON-clean values (no `undefined`: a key whose value is undefined is dropped first)
 */
export function toStruct(properties: PropertyMap): Struct {
  const clean = Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== undefined));
  return structPb.Struct.fromJavaScript(clean as Parameters<typeof structPb.Struct.fromJavaScript>[0]);
}

/**
 * The methods of `pulumirpc.ResourceProvider` (provider.proto) the plugin serves, by their names in the generated
 * declarations. Parameterize, Invoke, Call, Construct and List are not served: the server responds UNIMPLEMENTED,
 * which is what the v3.259 engine expects of a provider without parameterization, functions, methods, components or
 * listing.
 */
export type ProviderMethod =
  | "handshake"
  | "attach"
  | "getPluginInfo"
  | "getSchema"
  | "getMapping"
  | "getMappings"
  | "cancel"
  | "checkConfig"
  | "diffConfig"
  | "configure"
  | "check"
  | "diff"
  | "create"
  | "read"
  | "update"
  | "delete";

/** The engine's `Log` method's HTTP/2 path, which the compiler holds equal to the generated service's (`engine_grpc_pb.d.ts`). */
export const ENGINE_LOG_PATH = "/pulumirpc.Engine/Log" satisfies (typeof EngineGrpc.EngineService)["log"]["path"];

/** Each method's HTTP/2 path, which the compiler holds equal to the generated service's (`provider_grpc_pb.d.ts`). */
export const PROVIDER_PATHS = {
  handshake: "/pulumirpc.ResourceProvider/Handshake",
  attach: "/pulumirpc.ResourceProvider/Attach",
  getPluginInfo: "/pulumirpc.ResourceProvider/GetPluginInfo",
  getSchema: "/pulumirpc.ResourceProvider/GetSchema",
  getMapping: "/pulumirpc.ResourceProvider/GetMapping",
  getMappings: "/pulumirpc.ResourceProvider/GetMappings",
  cancel: "/pulumirpc.ResourceProvider/Cancel",
  checkConfig: "/pulumirpc.ResourceProvider/CheckConfig",
  diffConfig: "/pulumirpc.ResourceProvider/DiffConfig",
  configure: "/pulumirpc.ResourceProvider/Configure",
  check: "/pulumirpc.ResourceProvider/Check",
  diff: "/pulumirpc.ResourceProvider/Diff",
  create: "/pulumirpc.ResourceProvider/Create",
  read: "/pulumirpc.ResourceProvider/Read",
  update: "/pulumirpc.ResourceProvider/Update",
  delete: "/pulumirpc.ResourceProvider/Delete",
} as const satisfies {
  readonly [Method in ProviderMethod]: (typeof ProviderGrpc.ResourceProviderService)[Method]["path"];
};

/** The request message of a method, as the generated declarations type its handler. */
export type ProviderRequest<Method extends ProviderMethod> =
  ProviderGrpc.IResourceProviderServer[Method] extends handleUnaryCall<infer Request, unknown> ? Request : never;

/** The response message of a method, as the generated declarations type its handler. */
export type ProviderResponse<Method extends ProviderMethod> =
  ProviderGrpc.IResourceProviderServer[Method] extends handleUnaryCall<never, infer Response> ? Response : never;

/** Each served method's request message class, to decode a request with (`deserializeBinary`). */
export const PROVIDER_REQUESTS: {
  readonly [Method in ProviderMethod]: { deserializeBinary(bytes: Uint8Array): ProviderRequest<Method> };
} = {
  handshake: providerPbModule.ProviderHandshakeRequest,
  attach: pluginPbModule.PluginAttach,
  getPluginInfo: emptyPbModule.Empty,
  getSchema: providerPbModule.GetSchemaRequest,
  getMapping: providerPbModule.GetMappingRequest,
  getMappings: providerPbModule.GetMappingsRequest,
  cancel: emptyPbModule.Empty,
  checkConfig: providerPbModule.CheckRequest,
  diffConfig: providerPbModule.DiffRequest,
  configure: providerPbModule.ConfigureRequest,
  check: providerPbModule.CheckRequest,
  diff: providerPbModule.DiffRequest,
  create: providerPbModule.CreateRequest,
  read: providerPbModule.ReadRequest,
  update: providerPbModule.UpdateRequest,
  delete: providerPbModule.DeleteRequest,
};
/** A `pulumirpc.ConfigureRequest`. */
export type ConfigureRequest = ProviderPb.ConfigureRequest;

/** One failing input of Check or CheckConfig: the property, and why (for people; never a secret's value). */
export interface CheckFailure {
  readonly property: string;
  readonly reason: string;
}

/** What Check (a webhook) and CheckConfig (the provider) decide: the inputs to record, and every failing input. */
export interface CheckOutcome {
  inputs: PropertyMap;
  failures: readonly CheckFailure[];
}

/** What Diff (a webhook) and DiffConfig (the provider) decide. */
export interface DiffOutcome {
  /** Whether anything changed. */
  changes: boolean;
  /** The changed properties that replace the resource. */
  replaces: string[];
  /** Every changed property (or one that may change: unknown). */
  diffs: string[];
}

/**
 * The one builder of a `pulumirpc.CheckResponse`, for Check and CheckConfig alike.
 *
 * @param outcome the inputs to record (as a `Struct`) and the failures (each a `CheckFailure` message)
 */
export function checkResponse({ inputs, failures }: CheckOutcome): ProviderPb.CheckResponse {
  const response = new providerPb.CheckResponse().setInputs(toStruct(inputs));
  response.setFailuresList(
    failures.map(({ property, reason }) => new providerPb.CheckFailure().setProperty(property).setReason(reason)),
  );
  return response;
}

/**
 * The one builder of a `pulumirpc.DiffResponse`, for Diff and DiffConfig alike: `DIFF_SOME` when anything changed,
 * else `DIFF_NONE`; never delete-before-replace (a new webhook, or provider, can stand beside the old one).
 *
 * @param outcome whether anything changed, the changed properties and those that replace
 */
export function diffResponse({ changes, diffs, replaces }: DiffOutcome): ProviderPb.DiffResponse {
  const response = new providerPb.DiffResponse();
  response.setChanges(
    changes ? providerPb.DiffResponse.DiffChanges.DIFF_SOME : providerPb.DiffResponse.DiffChanges.DIFF_NONE,
  );
  response.setDiffsList(diffs);
  response.setReplacesList(replaces);
  response.setDeletebeforereplace(false);
  return response;
}
