/**
 * The Pulumi plugin protocol as the native provider plugin uses it: the generated gRPC stubs and messages that ship in
 * `@pulumi/pulumi/proto/` (`provider_grpc_pb.js`, `provider_pb.js`, `plugin_pb.js`, `engine_grpc_pb.js`,
 * `engine_pb.js`), and `google-protobuf`'s `Struct`, `Empty` and `Any` as `@pulumi/pulumi` itself loads them.
 *
 * The stubs are CommonJS that `require("google-protobuf")` and `require("@grpc/grpc-js")` from `@pulumi/pulumi`'s own
 * directory. Messages must be built with the very `google-protobuf` copy the stubs serialize with, so `Struct` and
 * friends are required from the stubs' directory too (`createRequire` anchored there), not from ours: one copy,
 * whatever npm hoisted. Source: pulumi/pulumi `proto/pulumi/provider.proto`, `plugin.proto`, `engine.proto` (v3.259).
 */
import { createRequire } from "node:module";
import type * as ProviderGrpc from "@pulumi/pulumi/proto/provider_grpc_pb.js";
import type * as ProviderPb from "@pulumi/pulumi/proto/provider_pb.js";
import type * as PluginPb from "@pulumi/pulumi/proto/plugin_pb.js";
import type * as EngineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb.js";
import type * as EnginePb from "@pulumi/pulumi/proto/engine_pb.js";
import type * as StructPb from "google-protobuf/google/protobuf/struct_pb.js";
import type * as EmptyPb from "google-protobuf/google/protobuf/empty_pb.js";

const fromHere = createRequire(import.meta.url);
/** `require` anchored in `@pulumi/pulumi/proto/`, so dependencies resolve as the generated stubs resolve them. */
const fromStubs = createRequire(fromHere.resolve("@pulumi/pulumi/proto/provider_pb.js"));

/** `pulumirpc.ResourceProvider` service definition and client (provider.proto). */
export const providerGrpc = fromStubs("./provider_grpc_pb.js") as typeof ProviderGrpc;
/** `pulumirpc` provider messages: `CheckRequest`, `DiffResponse`, `ConfigureResponse`, ... (provider.proto). */
export const providerPb = fromStubs("./provider_pb.js") as typeof ProviderPb;
/** `pulumirpc.PluginInfo`, `PluginAttach` (plugin.proto). */
export const pluginPb = fromStubs("./plugin_pb.js") as typeof PluginPb;
/** `pulumirpc.Engine` client: the engine's `Log` service (engine.proto). */
export const engineGrpc = fromStubs("./engine_grpc_pb.js") as typeof EngineGrpc;
/** `pulumirpc.LogRequest`, `LogSeverity` (engine.proto). */
export const enginePb = fromStubs("./engine_pb.js") as typeof EnginePb;
/** `google.protobuf.Struct` with `fromJavaScript` / `toJavaScript`, the copy the stubs use. */
export const structPb = fromStubs("google-protobuf/google/protobuf/struct_pb.js") as typeof StructPb;
/** `google.protobuf.Empty`, the copy the stubs use. */
export const emptyPb = fromStubs("google-protobuf/google/protobuf/empty_pb.js") as typeof EmptyPb;

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
