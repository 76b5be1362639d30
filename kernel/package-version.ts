/**
 * What pulumi-helpdesk knows about itself from its `package.json`: its version (so the native provider plugin's
 * `GetPluginInfo`, its schema, the CLI's `--version` and the native resource classes never drift from what was
 * installed or released) and its repository (from which the plugin's download URL is derived). The one reader of
 * them:
 *
 * - in the release executable (one bundled file, `scripts/release/executable.ts`), they are built in at bundle time:
 *   the bundler replaces `__PULUMI_HELPDESK_PACKAGE__` with `{ "version": ..., "repository": ... }` taken from
 *   package.json (esbuild `define`), and no file is read at run time (no package lies beside the executable);
 * - everywhere else (`dist/`, the npm package, the sources under vitest), they are read from the package's own
 *   `package.json`, found by walking up from this module (`kernel/` in the sources, `dist/kernel/` when built) to the first
 *   `package.json` named `pulumi-helpdesk`.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package's name, as `package.json` states it.
 * @home the npm name (the CLI's, the cache folder's, the user agent's)
 */
export const PACKAGE_NAME = "pulumi-helpdesk";

/** The fields of package.json this module hands out. */
export interface PackageFacts {
  /** e.g. `"0.1.0"` */
  version: string;
  /** package.json's `repository`: a string (`"github:owner/name"`) or `{ type, url }`; undefined when absent */
  repository?: string | { type?: string; url?: string } | undefined;
}

/** Replaced by the bundler with the package's facts as an object literal; defined nowhere else. */
declare const __PULUMI_HELPDESK_PACKAGE__: PackageFacts | undefined;

/**
 * @returns the facts built into a bundle, or undefined when this module runs unbundled
 */
export function builtInFacts(): PackageFacts | undefined {
  return typeof __PULUMI_HELPDESK_PACKAGE__ === "object" ? __PULUMI_HELPDESK_PACKAGE__ : undefined;
}

let cached: (PackageFacts & { root: string }) | undefined;

/**
 * Reads the facts from a package.json's text (also used by the release build to make the bundle's built-in facts).
 *
 * @param text a package.json's contents
 * @returns its version and repository, or undefined when it is not pulumi-helpdesk's (another name, no version)
 */
export function factsOf(text: string): PackageFacts | undefined {
  const pkg = JSON.parse(text) as { name?: unknown; version?: unknown; repository?: PackageFacts["repository"] };
  if (pkg.name !== PACKAGE_NAME || typeof pkg.version !== "string") return undefined;
  return { version: pkg.version, repository: pkg.repository };
}

/** Finds the package root and facts once (unbundled only). */
function locate(): PackageFacts & { root: string } {
  if (cached) return cached;
  const built = builtInFacts();
  if (built)
    throw new Error(`${PACKAGE_NAME} ${built.version} is the self-contained executable here: it has no package folder`);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    let facts: PackageFacts | undefined;
    try {
      facts = factsOf(readFileSync(join(dir, "package.json"), "utf8"));
    } catch {
      // no package.json here (or not readable or not JSON): go on upwards
    }
    if (facts) {
      cached = { ...facts, root: dir };
      return cached;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`${PACKAGE_NAME}: cannot find its own package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/**
 * @returns the package's facts: those built into the executable, else package.json's
 * @throws Error when unbundled and no `package.json` of pulumi-helpdesk is found above this module (a broken
 *   installation)
 */
export function packageFacts(): PackageFacts {
  return builtInFacts() ?? locate();
}

/**
 * @home the version every artefact carries: npm package, plugin, SDKs, policy pack, the release's file names (from package.json; `tests/repo/readme.test.ts`, `tests/examples/` and `tests/sdk/` hold the READMEs, the changelog's newest section and the SDKs to it)
 * @returns the package version, e.g. `"0.1.0"` (semver)
 * @throws Error as {@link packageFacts}
 */
export function packageVersion(): string {
  return packageFacts().version;
}

/**
 * @returns the absolute path of the package's root directory (where its `package.json` is)
 * @throws Error as {@link packageFacts}, and always in the self-contained executable, which has no package folder
 */
export function packageRoot(): string {
  return locate().root;
}
