/**
 * Warnings of the native provider plugin, shown by the engine as warnings of the resource being operated on: the
 * engine's `pulumirpc.Engine/Log` service (pulumi/pulumi `proto/pulumi/engine.proto`), at the address the engine
 * passes as the plugin's argument and again in `Handshake`. The resource is tracked per operation with
 * `AsyncLocalStorage`, so parallel operations each name their own URN. Without an engine address (a plugin started
 * by hand), or when a `Log` call fails or takes longer than {@link LOG_DEADLINE_MS}, the warning goes to stderr, which
 * the engine also shows. The calls go through the executable's own gRPC client (`rpc/unary-client.ts`, which says why
 * not grpc-js).
 *
 * Which engine: the one that started the plugin (its argument) and nothing else; for a plugin started by hand (an
 * engine attaches to it: `PULUMI_DEBUG_PROVIDERS`), the first engine that introduces itself (`Handshake`, `Attach`),
 * until it no longer answers. Another local process that sends its own address cannot take the warnings (webhook ids,
 * events; audit M1) from a live engine.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { isLoopbackHost } from "../../kernel/loopback.js";
import { answers } from "../../rpc/engine-watch.js";
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

/** How long an engine that introduced itself has to answer before another may replace it, in milliseconds. */
const STILL_THERE_DEADLINE_MS = 1_000;

/** The engine warnings go to: its address, a client of it, and whether it is the one that started the plugin. */
interface Engine {
  readonly address: string;
  readonly client: UnaryClient;
  readonly started: boolean;
}

let engine: Engine | undefined;
/** The engine introductions in order: one settles before the next is weighed. */
let introductions: Promise<void> = Promise.resolve();

/**
 * Whether an engine address is `host:port` on this machine (`kernel/loopback.ts`). The engine's own server listens on
 * 127.0.0.1 (pulumi/pulumi v3.259 `pkg/host/host_server.go`: `127.0.0.1:<port>`); `Handshake` and `Attach` arrive on
 * the plugin's unauthenticated loopback port, so an address elsewhere cannot be the engine's, and following it would
 * send the warnings (webhook ids, events) off the machine.
 */
function isLoopbackAddress(address: string): boolean {
  const parts = /^(\[[0-9a-fA-F:.]+\]|[^:]+):(\d{1,5})$/.exec(address);
  const host = parts?.[1];
  return host !== undefined && isLoopbackHost(host);
}

/** Routes warnings to the engine at `address` from now on. */
function useEngine(address: string, started: boolean): void {
  engine?.client.close();
  engine = { address, client: unaryClient(address), started };
  setWarningSink(sendWarning);
}

/**
 * Routes the provider core's warnings (`provider/core/warnings.ts`) to the engine that started the plugin, at the
 * address of its argument: that engine keeps them for the plugin's life (the plugin ends with it,
 * `rpc/engine-watch.ts`). An address that is not loopback is ignored (see {@link isLoopbackAddress}).
 *
 * @param address the engine's gRPC address, `host:port`; empty or undefined keeps stderr
 */
export function logToEngine(address: string | undefined): void {
  if (!address || !isLoopbackAddress(address)) return;
  useEngine(address, true);
}

/**
 * Weighs an engine address a `Handshake` or an `Attach` gives (pulumi/pulumi v3.259 `provider_plugin.go` sends both
 * with the engine's own address: `Handshake` first, then, for a plugin it attached to, `Attach`). The first one, when
 * the plugin has no engine of its argument, is followed; a different one later only once the engine followed no longer
 * answers (a plugin started by hand, serving one `pulumi` run after another). An address that is not loopback is
 * ignored. Settles once weighed (at most {@link STILL_THERE_DEADLINE_MS} later).
 *
 * @param address the address the call gives, `host:port`; empty keeps what is
 */
export function engineIntroduced(address: string): Promise<void> {
  introductions = introductions.then(async () => {
    if (!address || !isLoopbackAddress(address) || address === engine?.address) return;
    if (engine !== undefined && (engine.started || (await answers(engine.client, STILL_THERE_DEADLINE_MS)))) return;
    useEngine(address, false);
  });
  return introductions;
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
  const current = engine?.client;
  if (!current) {
    process.stderr.write(`warning: ${message}\n`);
    return Promise.resolve();
  }
  const request = new enginePb.LogRequest();
  request.setSeverity(enginePb.LogSeverity.WARNING);
  request.setMessage(message);
  request.setUrn(urn);
  return current.call(ENGINE_LOG_PATH, request.serializeBinary(), LOG_DEADLINE_MS).then(
    () => undefined,
    () => {
      process.stderr.write(`warning: ${message}\n`);
    },
  );
}
