/**
 * The CLI of the release executable, loaded from the executable's own assets: what `bin/release.ts`'s `import("./pulumi-helpdesk.js")`
 * becomes in the executable's main script (scripts/release/executable.ts maps it here when bundling). The CLI
 * (`bin/pulumi-helpdesk.ts` and everything it imports: commander, undici, the emulator...) is bundled on its own into
 * the asset `cli.cjs`, with V8's code cache for it in `cli.cache` (empty when built for another architecture), so that
 * the plugin and the analyzer, which the engine starts for every `pulumi preview`, `up` and `destroy`, do not carry it:
 * V8 reads a main script's source and code cache in full at every start, and the CLI is most of the bytes. Pulumi's
 * Automation API, most of the CLI's own bytes, is an asset of its own again (`automation.cjs`), read and run only when
 * the CLI first asks for it, so that `--version` and `--help` stay near Node.js's own start.
 *
 * Each asset is compiled as a CommonJS module body, given the executable's own `require` (built-in modules only, as the
 * main script's: nothing is resolved from disk; the CLI's also serves the Automation API's asset) and run at once; a
 * cache V8 refuses (another V8 or other flags) is compiled from source instead. Source: Node.js 24 "Single executable
 * applications" (`sea.getAsset`), `vm.Script`.
 */
import { getAsset } from "node:sea";
import { constants, Script } from "node:vm";
import { AUTOMATION, AUTOMATION_REQUIRE_ID, CLI, commonJsWrapper, type ScriptAsset } from "./sea-assets.ts";

/**
 * Runs a bundle of the executable's assets as a CommonJS module.
 *
 * @param asset the bundle and its code cache
 * @param requireIn what the bundle's `require` is
 * @returns its `module.exports`
 */
function runAsset(asset: ScriptAsset, requireIn: NodeJS.Require): unknown {
  const cache = Buffer.from(getAsset(asset.cache));
  const script = new Script(commonJsWrapper(getAsset(asset.script, "utf8")), {
    filename: asset.script,
    ...(cache.length > 0 ? { cachedData: cache } : {}),
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} };
  (
    script.runInThisContext() as (
      exports: object,
      require: NodeJS.Require,
      module: object,
      filename: string,
      dirname: string,
    ) => void
  )(module.exports, requireIn, module, asset.script, ".");
  return module.exports;
}

/** The Automation API once run: a second `require` of it gets the same module, as Node.js's loader would. */
let automation: unknown;

/** The CLI's `require`: the executable's, and the Automation API's asset by {@link AUTOMATION_REQUIRE_ID}. */
const cliRequire = Object.assign((id: string): unknown => {
  if (id !== AUTOMATION_REQUIRE_ID) return require(id);
  automation ??= runAsset(AUTOMATION, require);
  return automation;
}, require) as NodeJS.Require;

runAsset(CLI, cliRequire);
