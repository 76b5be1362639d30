/**
 * The assets of the release executable beside its main script (Node.js single executable applications, `assets` in
 * the SEA config, read with `sea.getAsset`): the CLI's bundle and V8's code cache for it. Shared by the build
 * (scripts/release/executable.ts) and the loader in the executable (scripts/release/sea-cli.ts).
 */

/** The CLI's bundle (`bin/pulumi-helpdesk.ts` and all it imports), CommonJS. */
export const CLI_ASSET = "cli.cjs";
/** V8's code cache of the {@link CLI_ASSET} wrapped by {@link commonJsWrapper}; empty when there is none (another architecture). */
export const CLI_CACHE_ASSET = "cli.cache";

/**
 * The wrapper that makes a CommonJS module body a function, as Node.js's own loader wraps a module; a first line
 * `#!...` (the CLI entry's, which esbuild keeps) is left out, as that loader leaves it out (V8 reads one only at the
 * very start of a script).
 */
export function commonJsWrapper(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source.replace(/^#!.*/, "")}\n})`;
}
