/**
 * The room receiver/'s import rules (.dependency-cruiser.cjs) bite: in a scratch tree laid out as the repository's
 * rooms, a kit that imports another room, a module of kernel/ beyond the delivery's, or a `node:` module (but for its
 * types) is reported by its rule, and so is one of those kernel modules loading a `node:` module; the imports the kits
 * make are not.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type ICruiseResult, type IForbiddenRuleType } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

const RULES = (createRequire(import.meta.url)("../../.dependency-cruiser.cjs") as { forbidden: IForbiddenRuleType[] })
  .forbidden;

/** The violations the lint rules find among `files` (repository-relative path → source) in a scratch folder. */
async function violations(files: Record<string, string>): Promise<string[]> {
  const scratch = mkdtempSync(join(tmpdir(), "helpdesk-receiver-room-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    }
    const result = await cruise(
      [...new Set(Object.keys(files).map((path) => path.split("/")[0] ?? ""))],
      { baseDir: scratch, tsPreCompilationDeps: true, validate: true, ruleSet: { forbidden: RULES } },
      { extensions: [".ts", ".js"], extensionAlias: { ".js": [".ts", ".js"] } },
    );
    return (result.output as ICruiseResult).summary.violations
      .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
      .sort();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const EXPORT = "export const x = 1;\n";
const uses = (path: string): string => `import { x } from "${path}";\nexport const y = x;\n`;

describe("the room receiver/'s import rules", () => {
  it("report another room, a kernel module beyond the delivery's, and a node: module", async () => {
    const found = await violations({
      "kernel/delivery-token.ts": EXPORT,
      "kernel/package-version.ts": EXPORT,
      "kernel/record-schemas.ts": 'import { readFileSync } from "node:fs";\nexport const x = readFileSync;\n',
      "auth/grant.ts": EXPORT,
      "receiver/nodejs/verify.ts": uses("../../kernel/package-version.js"),
      "receiver/nodejs/receive.ts": uses("../../auth/grant.js"),
      "receiver/nodejs/node.ts": 'import { createServer } from "node:http";\nexport const y = createServer;\n',
      "receiver/nodejs/fetch.ts": uses("../../kernel/record-schemas.js"),
    });
    expect(found).toEqual([
      "receiver-loads-no-node-module: kernel/record-schemas.ts -> fs",
      "receiver-loads-no-node-module: receiver/nodejs/node.ts -> http",
      "receiver-uses-kernel-only: receiver/nodejs/receive.ts -> auth/grant.ts",
      "receiver-uses-the-delivery-modules-of-kernel: receiver/nodejs/verify.ts -> kernel/package-version.ts",
    ]);
  });

  it("let a kit import the delivery's kernel modules and node:http's types", async () => {
    const found = await violations({
      "kernel/delivery-token.ts": EXPORT,
      "kernel/events.ts": EXPORT,
      "receiver/nodejs/verify.ts": uses("../../kernel/delivery-token.js"),
      "receiver/nodejs/receive.ts": `${uses("../../kernel/events.js")}import type { IncomingMessage } from "node:http";\nexport type M = IncomingMessage;\n`,
      "receiver/nodejs/node.ts": uses("./verify.js"),
    });
    expect(found).toEqual([]);
  });
});
