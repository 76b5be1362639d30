/**
 * The entry of the native provider plugin `pulumi-resource-helpdesk` (run by the launcher `plugin/pulumi-resource-helpdesk`
 * as `node dist/provider/native/main.js <args>`).
 *
 * Start-up as every Pulumi resource plugin (pulumi/pulumi `sdk/go/common/resource/plugin/plugin.go` `newPlugin`,
 * `buildPluginArguments`): the engine runs the plugin with optional flags (`--logtostderr`, `-v=<n>`,
 * `--tracing <endpoint>`) followed by its own gRPC address; the plugin serves `pulumirpc.ResourceProvider` on a port
 * of 127.0.0.1 and prints that port, alone on a line, on stdout. Then stdout is no longer read as the port; the engine
 * shows what the plugin writes to stderr. The process ends when the engine kills it.
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../../sdk/node-guard.js";
import { serve } from "./server.js";

/**
 * The engine address among the plugin's arguments: the last argument that is not a flag or a flag's value.
 *
 * @param args `process.argv.slice(2)`, e.g. `["--logtostderr", "-v=9", "127.0.0.1:40123"]`
 * @returns e.g. `"127.0.0.1:40123"`, or undefined when none was given (a plugin started by hand)
 */
export function engineAddressOf(args: readonly string[]): string | undefined {
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--tracing") i++;
    else if (!arg.startsWith("-")) positional.push(arg);
  }
  return positional.at(-1);
}

const { port } = await serve(engineAddressOf(process.argv.slice(2)));
process.stdout.write(`${port}\n`);
