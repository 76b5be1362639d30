/**
 * Test support: the generated gRPC services of the provider and the engine (`@pulumi/pulumi/proto/`), on
 * `@grpc/grpc-js`: the real client the tests ask the plugin with, and the engine's `Log` service a test plays the
 * engine with. The plugin itself loads neither (`provider/native/proto.ts` says why); the tests load them from here.
 */

import engineGrpcModule from "@pulumi/pulumi/proto/engine_grpc_pb.js";
import providerGrpcModule from "@pulumi/pulumi/proto/provider_grpc_pb.js";

/** `pulumirpc.ResourceProvider` service definition and client (provider.proto). */
export const providerGrpc = providerGrpcModule;
/** `pulumirpc.Engine` service definition and client (engine.proto). */
export const engineGrpc = engineGrpcModule;
