/**
 * Writes docs/design.md's table "One rule, one home" from the code: every docstring in the shipped rooms that holds a
 * line `@home <the rule>` makes a row, naming the file and the export the docstring stands on (the module, when it
 * opens the file). The table sits between the markers `<!-- generated: homes -->` and `<!-- /generated: homes -->`
 * (scripts/docs/readme.ts `fillBlocks`); tests/repo/homes.test.ts fails while it differs from what this writes. After
 * adding, moving or changing a home, run
 *
 *   node scripts/docs/homes.ts
 *
 * It reads the TypeScript source as text (no build needed).
 */

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { required } from "../../kernel/required.ts";
import { SHIPPED_ROOMS } from "../lib/rooms.cjs";
import { fillBlocks } from "./readme.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The rooms whose docstrings are read: the shipped rooms (scripts/lib/rooms.cjs), in the order their rows appear
 * (kernel/ first: most homes are there; program/ and bin/ last).
 */
export const HOME_ROOMS = [...SHIPPED_ROOMS.filter((room) => room !== "program" && room !== "bin"), "program", "bin"];

/** One row: a rule and where it lives. */
export interface Home {
  readonly rule: string;
  /** repository-relative path */
  readonly file: string;
  /** the export the docstring stands on; undefined for the module itself */
  readonly name: string | undefined;
}

/** The `@home` rows of one file's text. */
export function homesIn(file: string, text: string): Home[] {
  const homes: Home[] = [];
  for (const match of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const rules = [...match[0].matchAll(/^\s*\*\s*@home\s+(.+?)\s*$/gm)].map(([, rule]) =>
      required(rule, "a @home rule"),
    );
    if (rules.length === 0) continue;
    const after = text.slice(match.index + match[0].length);
    const name = /^\s*export\s+(?:async\s+)?(?:const|function|class|interface|type)\s+(\w+)/.exec(after)?.[1];
    for (const rule of rules) homes.push({ rule, file, name });
  }
  return homes;
}

/** Every `@home` row of the shipped rooms, room by room, files in path order. */
export function readHomes(root: string = ROOT): Home[] {
  return HOME_ROOMS.flatMap((room) =>
    readdirSync(join(root, room), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
      .map((entry) => relative(root, join(entry.parentPath, entry.name)))
      .sort()
      .flatMap((file) => homesIn(file, readFileSync(join(root, file), "utf8"))),
  );
}

/** The markdown table of {@link readHomes}. */
export function homesTable(homes: readonly Home[]): string {
  const rows = homes.map((home) => `| ${home.rule} | \`${home.file}\`${home.name ? ` \`${home.name}\`` : ""} |`);
  return ["| rule | home |", "|---|---|", ...rows, ""].join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = join(ROOT, "docs/design.md");
  writeFileSync(file, fillBlocks(readFileSync(file, "utf8"), { homes: homesTable(readHomes()) }));
  console.error("docs/design.md: the table of homes written");
}
