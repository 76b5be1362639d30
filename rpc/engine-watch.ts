/**
 * How the release executable's two plugins, the native provider plugin (`provider/native/main.ts`) and the analyzer
 * (`policy/analyzer.ts`), find the engine that started them and end with it: the one home of both, so neither outlives
 * its engine (audit I4: the analyzer had no watch, and stayed behind when its engine died).
 *
 * Start-up as every Pulumi plugin (pulumi/pulumi `sdk/go/common/resource/plugin/plugin.go` `newPlugin`,
 * `buildPluginArguments`): the engine runs the plugin with optional flags (`--logtostderr`, `-v=<n>`,
 * `--tracing <endpoint>`) followed by its own gRPC address, and for a policy pack the pack's folder after it
 * (`analyzer_plugin.go`: `[]string{host.ServerAddr(), "."}`). Pulumi's Go providers end within seconds of their engine
 * no longer answering; so do these.
 */
import { type UnaryClient, unaryClient } from "./unary-client.js";
import { GRPC_STATUS, GrpcStatusError } from "./wire.js";

/** `host:port`, the host a name, an IPv4 address or a bracketed IPv6 address. */
const ADDRESS = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/;

/**
 * The engine address among a plugin's arguments: the first argument that is not a flag or a flag's value and has the
 * form `host:port` (a policy pack's folder, which follows it, does not).
 *
 * @param args `process.argv.slice(2)`, e.g. `["--logtostderr", "-v=9", "127.0.0.1:40123"]` or `["127.0.0.1:40123", "."]`
 * @returns e.g. `"127.0.0.1:40123"`, or undefined when none was given (a plugin started by hand)
 */
export function engineAddressOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--tracing") i++;
    else if (!arg.startsWith("-") && ADDRESS.test(arg)) return arg;
  }
  return undefined;
}

/** How often the engine is asked whether it is there, in milliseconds. */
export const ENGINE_CHECK_INTERVAL_MS = 1_000;
/** How long the engine may go without responding before the plugin exits, in milliseconds. */
export const ENGINE_SILENCE_LIMIT_MS = 3_000;

/** The gRPC health check's path (grpc/grpc `doc/health-checking.md`), which any gRPC server answers, if only UNIMPLEMENTED. */
export const HEALTH_CHECK_PATH = "/grpc.health.v1.Health/Check";

/**
 * Whether a health check's outcome shows the server is there: any gRPC response, even UNIMPLEMENTED, does; no response
 * (UNAVAILABLE: nothing listens or the connection failed; DEADLINE_EXCEEDED: it hangs) does not.
 *
 * @param outcome what the call settled with: a response, or the error it rejected with
 */
export function answered(outcome: unknown): boolean {
  return !(
    outcome instanceof GrpcStatusError &&
    (outcome.code === GRPC_STATUS.UNAVAILABLE || outcome.code === GRPC_STATUS.DEADLINE_EXCEEDED)
  );
}

/**
 * Asks a server whether it is there: one health check ({@link answered} says what counts as an answer).
 *
 * @param client a client of the server
 * @param deadlineMs how long to wait, in milliseconds
 * @returns whether it answered
 */
export function answers(client: UnaryClient, deadlineMs: number): Promise<boolean> {
  return client.call(HEALTH_CHECK_PATH, new Uint8Array(0), deadlineMs).then(answered, answered);
}

/**
 * Watches the engine that started the plugin: every `intervalMs` it sends the engine the standard gRPC health check
 * (an empty request, deadline `intervalMs`; {@link answered} says what counts as an answer). When no answer has come
 * for `silenceLimitMs` since the last one (or since the watch began), `onGone` is called once and the watch stops.
 * Exit therefore follows the engine's end within `silenceLimitMs` + 2 × `intervalMs`.
 *
 * @param address the engine's gRPC address, `host:port` (from the plugin's arguments)
 * @param onGone called once when the engine has stopped responding, with how long it has been silent (ms)
 * @param options `intervalMs` (default 1000), `silenceLimitMs` (default 3000)
 * @returns a function that stops the watch
 */
export function watchEngine(
  address: string,
  onGone: (silentMs: number) => void,
  options: { intervalMs?: number; silenceLimitMs?: number } = {},
): () => void {
  const intervalMs = options.intervalMs ?? ENGINE_CHECK_INTERVAL_MS;
  const silenceLimitMs = options.silenceLimitMs ?? ENGINE_SILENCE_LIMIT_MS;
  const client = unaryClient(address);
  let lastResponse = Date.now();
  let inFlight = false;
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    client.close();
  };
  const check = (): void => {
    if (stopped) return;
    const silentMs = Date.now() - lastResponse;
    if (silentMs >= silenceLimitMs) {
      stop();
      onGone(silentMs);
      return;
    }
    if (inFlight) return;
    inFlight = true;
    void answers(client, intervalMs).then((there) => {
      inFlight = false;
      if (there) lastResponse = Date.now();
    });
  };
  const timer = setInterval(check, intervalMs);
  timer.unref();
  check();
  return stop;
}

/**
 * Ends this process (exit code 0) once the engine at `address` stops answering ({@link watchEngine}), saying so on
 * stderr, which the engine shows; does nothing without an address (a plugin started by hand lives until stopped).
 *
 * @param executable the plugin's name, first on its line, e.g. `pulumi-analyzer-helpdesk`
 * @param address the engine's address from the plugin's arguments ({@link engineAddressOf}), or undefined
 */
export function exitWithEngine(executable: string, address: string | undefined): void {
  if (!address) return;
  watchEngine(address, (silentMs) => {
    process.stderr.write(
      `${executable}: the engine at ${address} has not responded for ${(silentMs / 1000).toFixed(1)} s; exiting\n`,
    );
    process.exit(0);
  });
}
