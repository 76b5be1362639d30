/**
 * The version of the installed pulumi-helpdesk package, read from its own `package.json` at run time, so the native
 * provider plugin's `GetPluginInfo`, its schema and the native resource classes never drift from what was installed.
 *
 * The file is found by walking up from this module (`sdk/` in the sources, `dist/sdk/` when built) to the first
 * `package.json` named `pulumi-helpdesk`.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's name, as `package.json` states it. */
export const PACKAGE_NAME = "pulumi-helpdesk";

let cached: { root: string; version: string } | undefined;

/** Finds the package root and version once. */
function locate(): { root: string; version: string } {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === "string") return (cached = { root: dir, version: pkg.version });
    } catch {
      // no package.json here (or not readable): go on upwards
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${PACKAGE_NAME}: cannot find its own package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/**
 * @returns the package version, e.g. `"0.1.0"` (semver, as npm installed it)
 * @throws Error when no `package.json` of pulumi-helpdesk is found above this module (a broken installation)
 */
export function packageVersion(): string {
  return locate().version;
}

/**
 * @returns the absolute path of the package's root directory (where its `package.json` is)
 * @throws Error as {@link packageVersion}
 */
export function packageRoot(): string {
  return locate().root;
}
