/**
 * The assets of the release executable beside its main script (Node.js single executable applications, `assets` in
 * the SEA config, read with `sea.getAsset`): the CLI's bundle and the Automation API's, each with V8's code cache.
 * Shared by the build (scripts/release/executable.ts) and the loader in the executable (scripts/release/sea-cli.ts).
 */

/** A CommonJS bundle the executable carries as an asset, with V8's code cache for it. */
export interface ScriptAsset {
  /** The bundle's asset. */
  readonly script: string;
  /**
   * V8's code cache of the {@link script} wrapped by {@link commonJsWrapper}; empty when there is none (another
   * architecture).
   */
  readonly cache: string;
}

/** The CLI's bundle (`bin/pulumi-helpdesk.ts` and all it imports but {@link AUTOMATION}). */
export const CLI: ScriptAsset = { script: "cli.cjs", cache: "cli.cache" };

/**
 * Pulumi's Automation API (`@pulumi/pulumi/automation`, with npm's libraries and TypeScript: ~80% of the CLI's bytes),
 * which the CLI imports only when a command first needs it (cli/shared/stack-config.ts): a bundle of its own, read only
 * then, so that `--version`, `--help`, `emulator` and `trigger` do not read it.
 */
export const AUTOMATION: ScriptAsset = { script: "automation.cjs", cache: "automation.cache" };

/** The module the CLI imports the Automation API by, which its bundle takes from {@link AUTOMATION}. */
export const AUTOMATION_MODULE = "@pulumi/pulumi/automation/index.js";

/**
 * The id the CLI's bundle `require`s {@link AUTOMATION} by: the executable's loader (scripts/release/sea-cli.ts) serves
 * it, as no module of that name is resolved anywhere.
 */
export const AUTOMATION_REQUIRE_ID = `sea-asset:${AUTOMATION.script}`;

/**
 * The wrapper that makes a CommonJS module body a function, as Node.js's own loader wraps a module; a first line
 * `#!...` (the CLI entry's, which esbuild keeps) is left out, as that loader leaves it out (V8 reads one only at the
 * very start of a script).
 */
export function commonJsWrapper(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source.replace(/^#!.*/, "")}\n})`;
}
