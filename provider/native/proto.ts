/**
 * The Pulumi plugin protocol as the native provider plugin uses it: the generated gRPC stubs and messages that ship in
 * `@pulumi/pulumi/proto/` (`provider_grpc_pb.js`, `provider_pb.js`, `plugin_pb.js`, `engine_grpc_pb.js`,
 * `engine_pb.js`), and `google-protobuf`'s `Struct`, `Empty` and `Any`.
 *
 * Only these modules are loaded, never `@pulumi/pulumi`'s index (which takes most of a second to load). Every import
 * here is static, so a bundler follows them (the release executable is one bundled file: `scripts/release/`).
 * The stubs are CommonJS: their default import is their `module.exports`.
 *
 * Messages must be built with the very `google-protobuf` copy the stubs serialize with. `google-protobuf` is a
 * dependency of this package with the range `@pulumi/pulumi` asks for, so npm installs one copy that both resolve
 * (in the bundle, one module). Source: pulumi/pulumi `proto/pulumi/provider.proto`, `plugin.proto`, `engine.proto`
 * (v3.259).
 */
import providerGrpcModule from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import providerPbModule from "@pulumi/pulumi/proto/provider_pb.js";
import pluginPbModule from "@pulumi/pulumi/proto/plugin_pb.js";
import engineGrpcModule from "@pulumi/pulumi/proto/engine_grpc_pb.js";
import enginePbModule from "@pulumi/pulumi/proto/engine_pb.js";
import structPbModule from "google-protobuf/google/protobuf/struct_pb.js";
import emptyPbModule from "google-protobuf/google/protobuf/empty_pb.js";
import type * as ProviderGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import type * as ProviderPb from "@pulumi/pulumi/proto/provider_pb.js";
import type * as StructPb from "google-protobuf/google/protobuf/struct_pb.js";

/** `pulumirpc.ResourceProvider` service definition and client (provider.proto). */
export const providerGrpc = providerGrpcModule;
/** `pulumirpc` provider messages: `CheckRequest`, `DiffResponse`, `ConfigureResponse`, ... (provider.proto). */
export const providerPb = providerPbModule;
/** `pulumirpc.PluginInfo`, `PluginAttach` (plugin.proto). */
export const pluginPb = pluginPbModule;
/** `pulumirpc.Engine` client: the engine's `Log` service (engine.proto). */
export const engineGrpc = engineGrpcModule;
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

/** The handlers of the `pulumirpc.ResourceProvider` service, typed by the generated declarations. */
export type ResourceProviderServer = ProviderGrpc.IResourceProviderServer;
/** A `pulumirpc.ConfigureRequest`. */
export type ConfigureRequest = ProviderPb.ConfigureRequest;
