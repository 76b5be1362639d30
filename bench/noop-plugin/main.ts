/**
 * The no-op native plugin: the benchmark's floor for the native Webhook (bench/bench.ts kind `native-noop`). It is the
 * real plugin (the built `dist/provider/native/server.js`: the same Node.js, gRPC server, protobuf stubs, Handshake,
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
import { UNKNOWN } from "../../dist/kernel/pulumi-wire.js";
import { emptyPb, PROVIDER_PATHS, providerPb, toProperties, toStruct } from "../../dist/provider/native/proto.js";
import { resourceProviderService } from "../../dist/provider/native/server.js";
import { serveUnary } from "../../dist/rpc/unary-server.js";
import { PULUMI_MAX_MESSAGE_BYTES } from "../../dist/rpc/wire.js";

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
const methods = new Map(resourceProviderService(engineAddress));

methods.set(PROVIDER_PATHS.create, (bytes) => {
  const request = providerPb.CreateRequest.deserializeBinary(bytes);
  const { event, url } = toProperties(request.getProperties());
  const preview = request.getPreview();
  const id = preview ? "" : webhookId();
  const state = preview ? UNKNOWN : "active";
  return new providerPb.CreateResponse().setId(id).setProperties(toStruct({ event, url, state })).serializeBinary();
});
methods.set(PROVIDER_PATHS.delete, () => new emptyPb.Empty().serializeBinary());

serveUnary(methods, {
  maxRequestBytes: new Map([...methods.keys()].map((path) => [path, PULUMI_MAX_MESSAGE_BYTES])),
}).then(
  ({ port }) => process.stdout.write(`${port}\n`),
  (error: unknown) => {
    process.stderr.write(`no-op plugin: cannot serve: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
