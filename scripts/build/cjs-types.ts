/**
 * Writes `dist/cjs-types/`: a copy of every emitted `.d.ts` under a `package.json` that says `"type": "commonjs"`.
 *
 * Why: the package is ES modules only (one build, no dual-package hazard), and Node >= 22.12 lets CommonJS programs
 * `require()` it. TypeScript, though, decides a declaration file's module format from the nearest `package.json`:
 * under `moduleResolution: node16/nodenext`, TypeScript < 5.8 refuses a `require` of a declaration it believes is ESM
 * (TS1479), and `moduleResolution: node` (node10) ignores `exports` and needs `types`/`typesVersions`. The
 * `require` condition of `exports`, `types` and `typesVersions` point here, so a CommonJS program sees CommonJS
 * declarations of the same API, which is what `require(esm)` hands it at run time (the module namespace object).
 *
 * Run by scripts/build.sh after tsc; Node runs this file directly (type stripping).
 */
import { cpSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const dist = new URL("../../dist/", import.meta.url).pathname;
const target = join(dist, "cjs-types");

/** Every `.d.ts` file under `dir`, recursively. */
function declarations(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path === target ? [] : declarations(path);
    return name.endsWith(".d.ts") ? [path] : [];
  });
}

const files = declarations(dist);
if (files.length === 0) throw new Error(`no declarations under ${dist}: run tsc first`);
for (const file of files) cpSync(file, join(target, relative(dist, file)));
writeFileSync(join(target, "package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
console.error(`cjs-types: ${files.length} declaration files`);
