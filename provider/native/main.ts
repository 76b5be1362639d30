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
 * engine no longer responding at the address it gave (`rpc/engine-watch.ts`), as Pulumi's Go providers do.
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../../kernel/node-guard.js";
import { messageOf } from "../../kernel/errors.js";
import { PLUGIN_EXECUTABLE } from "../../kernel/names.js";
import { engineAddressOf, exitWithEngine } from "../../rpc/engine-watch.js";
import { serve } from "./server.js";

const engineAddress = engineAddressOf(process.argv.slice(2));
serve(engineAddress).then(
  ({ port }) => {
    process.stdout.write(`${port}\n`);
    exitWithEngine(PLUGIN_EXECUTABLE, engineAddress);
  },
  (error: unknown) => {
    process.stderr.write(`${PLUGIN_EXECUTABLE}: cannot serve: ${messageOf(error)}\n`);
    process.exit(1);
  },
);
