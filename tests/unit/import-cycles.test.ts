/**
 * No import cycle in the repository's own TypeScript (the shipped rooms, bench/, scripts/, tests/; sdk/ is generated), type-only imports included: a cycle makes the order in which modules are evaluated depend on which one is
 * imported first (a class used before its module ran), and a type-only cycle is the same tangle of responsibilities
 * that the next value import turns into a real one.
 *
 * Found with dependency-cruiser, whose `tsPreCompilationDeps: true` reads the TypeScript source before compilation, so
 * `import type` and `export type ... from` count as edges. Specifiers end in `.js` (NodeNext) and name `.ts` files:
 * the resolver's `extensionAlias` maps them back.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { cruise, type ICruiseResult, type IViolation } from "dependency-cruiser";
import { SHIPPED_ROOMS } from "../support/dependencies.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The folders of the repository's own source. */
const SOURCE_FOLDERS = [...SHIPPED_ROOMS, "bench", "scripts", "tests"];

/**
 * Every import cycle among the TypeScript files under `folders` (relative to `baseDir`).
 * @returns each cycle once, as a list of paths from `baseDir` (each imports the next; the last is the first again),
 *   and every module read
 */
async function importCycles(folders: string[], baseDir: string): Promise<{ cycles: string[][]; modules: string[] }> {
  const result = await cruise(
    folders,
    {
      baseDir,
      tsPreCompilationDeps: true,
      // Dependencies (and what builds put beside the source) are not the repository's own source.
      // sdk/nodejs is generated (Pulumi's codegen/nodejs), never edited here: its types modules import each other.
      exclude: { path: "(^|/)(node_modules|dist)/|^sdk/nodejs/" },
      doNotFollow: { path: "node_modules" },
      includeOnly: "\\.(ts|mts|cts)$",
      validate: true,
      ruleSet: { forbidden: [{ name: "no-circular", severity: "error", from: {}, to: { circular: true } }] },
    },
    { extensions: [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".json"], extensionAlias: { ".js": [".ts", ".js"], ".mjs": [".mts", ".mjs"], ".cjs": [".cts", ".cjs"] } },
  );
  const output = result.output as ICruiseResult;
  const cycles = output.summary.violations
    .filter((violation: IViolation) => violation.rule.name === "no-circular")
    .map((violation: IViolation) => [violation.from, ...(violation.cycle ?? []).map((step) => step.name)]);
  return { cycles, modules: output.modules.map((module) => module.source) };
}

describe("import cycles", () => {
  const scratch = mkdtempSync(join(tmpdir(), "helpdesk-cycles-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("the check sees a cycle made of type-only imports (so a pass below means something)", async () => {
    writeFileSync(join(scratch, "a.ts"), 'import type { B } from "./b.js";\nexport interface A { b?: B }\n');
    writeFileSync(join(scratch, "b.ts"), 'import type { A } from "./a.js";\nexport interface B { a?: A }\n');
    writeFileSync(join(scratch, "c.ts"), 'import type { A } from "./a.js";\nexport type C = A;\n');
    const { cycles, modules } = await importCycles(["."], scratch);
    expect(modules.sort()).toEqual(["a.ts", "b.ts", "c.ts"]);
    // One cycle, reported once, from either end: a.ts → b.ts → a.ts (c.ts only hangs off it).
    expect(cycles).toHaveLength(1);
    expect([...new Set(cycles[0])].sort()).toEqual(["a.ts", "b.ts"]);
  });

  it("none in the repository's own source, type-only imports included", async () => {
    const { cycles, modules } = await importCycles(SOURCE_FOLDERS, ROOT);
    // The check reads the whole tree: every folder, this very file among them.
    expect(modules).toContain(relative(ROOT, fileURLToPath(import.meta.url)));
    for (const folder of SOURCE_FOLDERS) expect(modules.some((module) => module.startsWith(`${folder}/`)), folder).toBe(true);
    const shown = cycles.map((cycle) => `  ${cycle.join(" → ")}`).join("\n");
    if (cycles.length > 0) console.error(`import cycles (${cycles.length}):\n${shown}`);
    expect(cycles, `import cycles:\n${shown}`).toEqual([]);
  });
});
