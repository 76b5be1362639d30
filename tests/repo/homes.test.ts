/**
 * docs/design.md's table "One rule, one home" is written from the code: the `@home` lines of the shipped rooms'
 * docstrings (scripts/docs/homes.ts). It fails while the table is stale, and holds that the reader finds a home in a
 * module's docstring and in an export's.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { homesIn, homesTable, readHomes } from "../../scripts/docs/homes.ts";
import { fillBlocks } from "../../scripts/docs/readme.ts";

describe("the table of homes", () => {
  it("reads a module's home and an export's, each row once", () => {
    const text =
      '/**\n * The module.\n * @home rule A\n */\nimport x from "y";\n\n/**\n * The limit.\n * @home rule B\n */\nexport const LIMIT = 1;\n/** Not a home. */\nexport const OTHER = 2;\n';
    expect(homesIn("kernel/errors.ts", text)).toEqual([
      { rule: "rule A", file: "kernel/errors.ts", name: undefined },
      { rule: "rule B", file: "kernel/errors.ts", name: "LIMIT" },
    ]);
  });

  it("in docs/design.md is the one written from the code", () => {
    const homes = readHomes();
    expect(homes.map((home) => home.file)).toContain("kernel/settings.ts");
    const design = readFileSync(new URL("../../docs/design.md", import.meta.url), "utf8");
    expect(
      fillBlocks(design, { homes: homesTable(homes) }),
      "docs/design.md's table of homes is stale: run `node scripts/docs/homes.ts`",
    ).toBe(design);
  });
});
