/**
 * The Pulumi plugin protocol as the policy pack's analyzer (`policy/server.ts`) uses it: the generated messages of
 * `pulumirpc.Analyzer` that ship in `@pulumi/pulumi/proto/` (`analyzer_pb.js`, `plugin_pb.js`), the paths of its
 * methods (checked against the generated service's declarations, `analyzer_grpc_pb.d.ts`), and `google-protobuf`'s
 * `Struct`, `Value` and `Empty`: the same stubs the native provider plugin serves with (`provider/native/proto.ts`),
 * never `@pulumi/pulumi`'s index nor `@pulumi/policy`. The generated service itself (`analyzer_grpc_pb.js`) is not
 * loaded: it loads `@grpc/grpc-js`, which the analyzer does not serve with (`rpc/unary-server.ts` says why).
 *
 * Every import here is static, so a bundler follows them (the release executable is one bundled file). The stubs are
 * CommonJS: their default import is their `module.exports`. Messages must be built with the very `google-protobuf`
 * copy the stubs serialize with (one copy: a dependency of this package with the range `@pulumi/pulumi` asks for).
 *
 * Source: pulumi/pulumi `proto/pulumi/analyzer.proto`, `plugin.proto` (v3.259).
 */

import type * as AnalyzerGrpc from "@pulumi/pulumi/proto/analyzer_grpc_pb.js";
import type * as AnalyzerPb from "@pulumi/pulumi/proto/analyzer_pb.js";
import analyzerPbModule from "@pulumi/pulumi/proto/analyzer_pb.js";
import pluginPbModule from "@pulumi/pulumi/proto/plugin_pb.js";
import emptyPbModule from "google-protobuf/google/protobuf/empty_pb.js";
import type * as StructPb from "google-protobuf/google/protobuf/struct_pb.js";
import structPbModule from "google-protobuf/google/protobuf/struct_pb.js";

/** `pulumirpc` analyzer messages: `AnalyzeRequest`, `AnalyzeResponse`, `AnalyzerInfo`, ... (analyzer.proto). */
export const analyzerPb = analyzerPbModule;
/** `pulumirpc.PluginInfo` (plugin.proto). */
export const pluginPb = pluginPbModule;
/** `google.protobuf.Struct` and `Value`, the copy the stubs use. */
export const structPb = structPbModule;
/** `google.protobuf.Empty`, the copy the stubs use. */
export const emptyPb = emptyPbModule;

/** The methods of the `pulumirpc.Analyzer` service (analyzer.proto), by their names in the generated declarations. */
export type AnalyzerMethod =
  | "handshake"
  | "configureStack"
  | "getAnalyzerInfo"
  | "getPluginInfo"
  | "configure"
  | "analyze"
  | "analyzeStack"
  | "remediate"
  | "cancel";

/** Each method's HTTP/2 path, which the compiler holds equal to the generated service's (`analyzer_grpc_pb.d.ts`). */
export const ANALYZER_PATHS = {
  handshake: "/pulumirpc.Analyzer/Handshake",
  configureStack: "/pulumirpc.Analyzer/ConfigureStack",
  getAnalyzerInfo: "/pulumirpc.Analyzer/GetAnalyzerInfo",
  getPluginInfo: "/pulumirpc.Analyzer/GetPluginInfo",
  configure: "/pulumirpc.Analyzer/Configure",
  analyze: "/pulumirpc.Analyzer/Analyze",
  analyzeStack: "/pulumirpc.Analyzer/AnalyzeStack",
  remediate: "/pulumirpc.Analyzer/Remediate",
  cancel: "/pulumirpc.Analyzer/Cancel",
} as const satisfies { readonly [Method in AnalyzerMethod]: (typeof AnalyzerGrpc.AnalyzerService)[Method]["path"] };
/** A `pulumirpc.AnalyzeStackRequest` (AnalyzeStack). */
export type AnalyzeStackRequest = AnalyzerPb.AnalyzeStackRequest;
/** A `pulumirpc.AnalyzeRequest` (Analyze, Remediate). */
export type AnalyzeRequest = AnalyzerPb.AnalyzeRequest;
/** A `pulumirpc.AnalyzerResource` (one resource of AnalyzeStack). */
export type AnalyzerResource = AnalyzerPb.AnalyzerResource;
/** A `pulumirpc.AnalyzerProviderResource`. */
export type AnalyzerProviderResource = AnalyzerPb.AnalyzerProviderResource;
/** A `pulumirpc.AnalyzeDiagnostic`. */
export type AnalyzeDiagnostic = AnalyzerPb.AnalyzeDiagnostic;
/** A `pulumirpc.ConfigureAnalyzerRequest`. */
export type ConfigureAnalyzerRequest = AnalyzerPb.ConfigureAnalyzerRequest;
/** A `google.protobuf.Struct` message. */
export type Struct = StructPb.Struct;
