/**
 * The modules a source file reaches, for the layout tests (tests/emulator/layout.test.ts, tests/provider/layout.test.ts):
 * dependency-cruiser over this repository's TypeScript, type-only imports included, as tests/unit/import-cycles.test.ts
 * reads them.
 */
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult } from "dependency-cruiser";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The rooms of the repository's hand-written TypeScript that ships (docs/design.md "Rooms"); sdk/ is generated. */
export const SHIPPED_ROOMS = ["bin", "kernel", "program", "auth", "provider", "policy", "cli", "emulator", "emulator-client"] as const;

/** `includeOnly` for {@link reachedFrom}: the TypeScript of {@link SHIPPED_ROOMS}. */
export const SHIPPED_SOURCE = `^(${SHIPPED_ROOMS.join("|")})/.*\\.ts$`;

/**
 * The modules `entry` imports, directly or not, type-only imports included.
 *
 * @param entry a repository-relative path, e.g. `provider/native/main.ts`
 * @param includeOnly which modules count (a regular expression over repository-relative paths); default: this
 *   repository's TypeScript in {@link SHIPPED_ROOMS}
 * @returns their repository-relative paths (packages as `node_modules/...`), sorted
 */
export async function reachedFrom(entry: string, includeOnly = SHIPPED_SOURCE): Promise<string[]> {
  const result = await cruise(
    [entry],
    { baseDir: ROOT, tsPreCompilationDeps: true, doNotFollow: { path: "node_modules" }, includeOnly },
    { extensions: [".ts", ".js"], extensionAlias: { ".js": [".ts", ".js"] } },
  );
  return (result.output as ICruiseResult).modules.map((module) => module.source).sort();
}
