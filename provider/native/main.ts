/**
 * The entry of the native provider plugin `pulumi-resource-helpdesk`: run by the launcher
 * `plugin/pulumi-resource-helpdesk` through `bin/pulumi-resource-helpdesk.ts`, as the release executable is when
 * invoked under the plugin's name. A side-effect module without top-level await (the release
 * bundle is CommonJS, which has none).
 *
 * Start-up as every Pulumi resource plugin (pulumi/pulumi `sdk/go/common/resource/plugin/plugin.go` `newPlugin`,
 * `buildPluginArguments`): the engine runs the plugin with optional flags (`--logtostderr`, `-v=<n>`,
 * `--tracing <endpoint>`) followed by its own gRPC address; the plugin serves `pulumirpc.ResourceProvider` on a port
 * of 127.0.0.1 and prints that port, alone on a line, on stdout. Then stdout is no longer read as the port; the engine
 * shows what the plugin writes to stderr. The process ends when the engine kills it, or by itself within 5 s of the
 * engine no longer responding at the address it gave ({@link watchEngine}), as Pulumi's Go providers do.
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../../kernel/node-guard.js";
import { messageOf } from "../../kernel/errors.js";
import { PLUGIN_EXECUTABLE } from "../../kernel/names.js";
import { unaryClient } from "../../rpc/unary-client.js";
import { GRPC_STATUS, GrpcStatusError } from "../../rpc/wire.js";
import { serve } from "./server.js";

/**
 * The engine address among the plugin's arguments: the last argument that is not a flag or a flag's value.
 *
 * @param args `process.argv.slice(2)`, e.g. `["--logtostderr", "-v=9", "127.0.0.1:40123"]`
 * @returns e.g. `"127.0.0.1:40123"`, or undefined when none was given (a plugin started by hand)
 */
export function engineAddressOf(args: readonly string[]): string | undefined {
  const positional: string[] = [];
  const rest = args.values();
  for (const arg of rest) {
    if (arg === "--tracing")
      rest.next(); // the flag's value, skipped
    else if (!arg.startsWith("-")) positional.push(arg);
  }
  return positional.at(-1);
}

/** How often the engine is asked whether it is there, in milliseconds. */
export const ENGINE_CHECK_INTERVAL_MS = 1_000;
/** How long the engine may go without responding before the plugin exits, in milliseconds. */
export const ENGINE_SILENCE_LIMIT_MS = 3_000;

/**
 * Watches the engine that started the plugin: every `intervalMs` it sends the engine the standard gRPC health check
 * (`grpc.health.v1.Health/Check`, an empty request, deadline `intervalMs`). Any gRPC response, even UNIMPLEMENTED,
 * means the engine is there; no response (UNAVAILABLE: nothing listens; DEADLINE_EXCEEDED: it hangs) means it is not.
 * When no response has come for `silenceLimitMs` since the last one (or since the watch began), `onGone` is called once
 * and the watch stops. Exit therefore follows the engine's end within `silenceLimitMs` + 2 × `intervalMs`.
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
    const responded = (): void => {
      lastResponse = Date.now();
    };
    client
      .call("/grpc.health.v1.Health/Check", new Uint8Array(0), intervalMs)
      .then(responded, (error: unknown) => {
        const silent =
          error instanceof GrpcStatusError &&
          (error.code === GRPC_STATUS.UNAVAILABLE || error.code === GRPC_STATUS.DEADLINE_EXCEEDED);
        if (!silent) responded();
      })
      .finally(() => {
        inFlight = false;
      });
  };
  const timer = setInterval(check, intervalMs);
  timer.unref();
  check();
  return stop;
}

const args = process.argv.slice(2);
const engineAddress = engineAddressOf(args);
serve(engineAddress).then(
  ({ port }) => {
    process.stdout.write(`${port}\n`);
    if (engineAddress) {
      watchEngine(engineAddress, (silentMs) => {
        process.stderr.write(
          `${PLUGIN_EXECUTABLE}: the engine at ${engineAddress} has not responded for ${(silentMs / 1000).toFixed(1)} s; exiting\n`,
        );
        process.exit(0);
      });
    }
  },
  (error: unknown) => {
    process.stderr.write(`${PLUGIN_EXECUTABLE}: cannot serve: ${messageOf(error)}\n`);
    process.exit(1);
  },
);
