/**
 * Warnings of the native provider plugin, shown by the engine as warnings of the resource being operated on: the
 * engine's `pulumirpc.Engine/Log` service (pulumi/pulumi `proto/pulumi/engine.proto`), at the address the engine
 * passes as the plugin's argument and again in `Handshake`. The resource is tracked per operation with
 * `AsyncLocalStorage`, so parallel operations each name their own URN. Without an engine address (a plugin started
 * by hand), or when a `Log` call fails, the warning goes to stderr, which the engine also shows. The calls go through
 * the executable's own gRPC client (`rpc/unary-client.ts`, which says why not grpc-js).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { isLoopbackHost } from "../../kernel/loopback.js";
import { type UnaryClient, unaryClient } from "../../rpc/unary-client.js";
import { setWarningSink } from "../core/warnings.js";
import { ENGINE_LOG_PATH, enginePb } from "./proto.js";

/** The URN of the resource whose operation is running, per async context. */
const currentUrn = new AsyncLocalStorage<string>();

/**
 * Runs one operation with `urn` as the resource that warnings raised inside it belong to.
 *
 * @param urn the resource URN from the request (empty for provider-level operations)
 * @param operation the operation
 */
export function withResource<T>(urn: string, operation: () => Promise<T>): Promise<T> {
  return currentUrn.run(urn, operation);
}

/**
 * How long the engine may take to take a warning, in milliseconds; then it goes to stderr instead (audit M1: a `Log`
 * that never settled held the call that warned). The engine's own `Log` answers at once; 3 s leaves `Cancel`, which
 * waits for its refresh warning, time to answer within the 5 s the engine gives it (`provider/core/refresh.ts`).
 */
export const LOG_DEADLINE_MS = 3_000;

let client: UnaryClient | undefined;
let clientAddress: string | undefined;

/**
 * Whether an engine address is `host:port` on this machine (`kernel/loopback.ts`). The engine's own server listens on
 * 127.0.0.1 (pulumi/pulumi v3.259 `pkg/host/host_server.go`: `127.0.0.1:<port>`); `Handshake` and `Attach` arrive on
 * the plugin's unauthenticated loopback port, so an address elsewhere cannot be the engine's, and following it would
 * send the warnings (webhook ids, events) off the machine.
 */
function isLoopbackAddress(address: string): boolean {
  const [, host] = /^(\[[0-9a-fA-F:.]+\]|[^:]+):(\d{1,5})$/.exec(address) ?? [];
  return host !== undefined && isLoopbackHost(host);
}

/**
 * Routes the provider core's warnings (`provider/core/warnings.ts`) to the engine at `address`. Called with the address of
 * the plugin's argument and again with the one of `Handshake`/`Attach` (the same engine; a new address replaces the
 * connection). An address that is not loopback is ignored (see {@link isLoopbackAddress}).
 *
 * @param address the engine's gRPC address, `host:port`; empty or undefined keeps stderr
 */
export function logToEngine(address: string | undefined): void {
  if (!address || address === clientAddress || !isLoopbackAddress(address)) return;
  client?.close();
  client = unaryClient(address);
  clientAddress = address;
  setWarningSink(sendWarning);
}

/** Sends one warning to the engine's Log service, or to stderr when there is no engine or the call fails. */
function sendWarning(message: string): void {
  void logWarning(message, currentUrn.getStore() ?? "");
}

/**
 * Sends one warning to the engine's Log service as a warning of `urn`, or to stderr when there is no engine or the
 * call fails; settles once the engine has taken it (or stderr has).
 *
 * @param message the warning, already free of credentials
 * @param urn the resource it belongs to (empty: the stack)
 */
export function logWarning(message: string, urn: string): Promise<void> {
  const engine = client;
  if (!engine) {
    process.stderr.write(`warning: ${message}\n`);
    return Promise.resolve();
  }
  const request = new enginePb.LogRequest();
  request.setSeverity(enginePb.LogSeverity.WARNING);
  request.setMessage(message);
  request.setUrn(urn);
  return engine.call(ENGINE_LOG_PATH, request.serializeBinary(), LOG_DEADLINE_MS).then(
    () => undefined,
    () => {
      process.stderr.write(`warning: ${message}\n`);
    },
  );
}
