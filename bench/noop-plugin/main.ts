/**
 * The no-op native plugin: the benchmark's floor for the native Webhook (bench/bench.ts kind `native-noop`). It is the
 * real plugin (the built `dist/provider/native/server.js`: the same Node.js, grpc-js, protobuf stubs, Handshake,
 * CheckConfig, Configure, Check and Diff) except that `Create` and `Delete` do no work: no API request, no token, no
 * HTTP client. `Create` responds with an id shaped like the emulator's (`wh_` + 16 characters) and the outputs the real
 * one records (`event`, `url`, `state: "active"`), so the checkpoint the engine rewrites after every step holds the
 * same bytes per resource as the native kind's: the two kinds differ only in the provider's work.
 *
 * Why a plugin of its own and not a switch in the shipped plugin: a switch that makes `Create` report success without
 * creating anything must never be reachable by users; this file lives in bench/, which is not packed.
 *
 * Run by bench/noop-plugin/pulumi-resource-helpdesk with Node's type stripping; prints its port as every plugin does.
 */
import { randomBytes } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { resourceProviderService } from "../../dist/provider/native/server.js";
import { emptyPb, providerGrpc, providerPb, toProperties, toStruct } from "../../dist/provider/native/proto.js";
import type { ResourceProviderServer } from "../../dist/provider/native/proto.js";
import { UNKNOWN } from "../../dist/kernel/pulumi-wire.js";

/** Lower-case base32, as the emulator's ids (emulator/secrets.ts). */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** An id of the emulator's shape and length, e.g. `wh_k3j5...` (3 + 16 characters). */
function webhookId(): string {
  return `wh_${[...randomBytes(16)].map((byte) => ALPHABET[byte % 32]).join("")}`;
}

const engineAddress = process.argv
  .slice(2)
  .filter((arg) => !arg.startsWith("-"))
  .at(-1);
const real = resourceProviderService(engineAddress) as Partial<ResourceProviderServer>;

const create: ResourceProviderServer["create"] = (call, callback) => {
  const { event, url } = toProperties(call.request.getProperties());
  const preview = call.request.getPreview();
  const id = preview ? "" : webhookId();
  const state = preview ? UNKNOWN : "active";
  callback(null, new providerPb.CreateResponse().setId(id).setProperties(toStruct({ event, url, state })));
};
const remove: ResourceProviderServer["delete"] = (_call, callback) => callback(null, new emptyPb.Empty());

const server = new grpc.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
server.addService(providerGrpc.ResourceProviderService, {
  ...real,
  create,
  delete: remove,
} as grpc.UntypedServiceImplementation);
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) {
    process.stderr.write(`no-op plugin: cannot serve: ${error.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${port}\n`);
});
