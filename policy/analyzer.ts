/**
 * The policy pack as a binary analyzer plugin: what the release executable is when invoked as
 * `pulumi-analyzer-helpdesk` (`bin/release.ts`, `bin/pulumi-analyzer-helpdesk.ts`), which `pulumi preview --policy-pack <folder>/pulumi-analyzer-helpdesk`
 * launches directly, as it launches a provider (pulumi/pulumi v3.259 `pkg/resource/plugin/analyzer_plugin.go`: an
 * executable file given as the pack is run with the engine's address as its argument). It serves the table of
 * `policy/policies.ts` with the Analyzer server of `policy/server.ts`, which responds as the folder form
 * (`policy/pack.ts`, on `@pulumi/policy`) does and loads neither `@pulumi/policy` nor the Pulumi SDK: prints its port
 * on stdout, then serves until the engine ends it or stops answering. No Node.js is needed where the executable runs. A side-effect
 * module without top-level await (the release bundle is CommonJS).
 *
 * The engine's address (the first argument) is used only to end with the engine (`rpc/engine-watch.ts`, as the native
 * plugin does): the policies log nothing to the engine.
 */

import { messageOf } from "../kernel/errors.js";
import { ANALYZER_EXECUTABLE } from "../kernel/names.js";
import { engineAddressOf, exitWithEngine } from "../rpc/engine-watch.js";
import { serveAnalyzer } from "./server.js";

serveAnalyzer().then(
  ({ port }) => {
    process.stdout.write(`${port}\n`);
    exitWithEngine(ANALYZER_EXECUTABLE, engineAddressOf(process.argv.slice(2)));
  },
  (error: unknown) => {
    process.stderr.write(`${ANALYZER_EXECUTABLE}: cannot serve: ${messageOf(error)}\n`);
    process.exit(1);
  },
);
