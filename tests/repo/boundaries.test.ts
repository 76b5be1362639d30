/**
 * The rooms' import boundaries are lint rules (.dependency-cruiser.cjs, run by `npm run lint` and so by `npm test`);
 * this holds that the rules bite and cover every room: in a scratch tree laid out as the repository's rooms, each
 * planted import that crosses a boundary, type-only ones included, and a planted cycle (reported once), is reported by
 * its rule, while the imports the rooms may make are not.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type ICruiseResult, type IForbiddenRuleType } from "dependency-cruiser";
import { describe, expect, it } from "vitest";
import { SHIPPED_ROOMS } from "../../scripts/lib/rooms.cjs";

/** The rules of the lint configuration. */
const RULES = (createRequire(import.meta.url)("../../.dependency-cruiser.cjs") as { forbidden: IForbiddenRuleType[] })
  .forbidden;

/**
 * The violations the lint rules find among `files` written to a scratch folder.
 *
 * @param files repository-relative path -> TypeScript source
 * @returns `<rule>: <from> -> <to>`, sorted
 */
async function violations(files: Record<string, string>): Promise<string[]> {
  const scratch = mkdtempSync(join(tmpdir(), "helpdesk-boundaries-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    }
    const result = await cruise(
      Object.keys(files).map((path) => path.split("/")[0]!),
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

const EXPORT = "export interface Shape { readonly name: string }\n";
const uses = (path: string): string => `import type { Shape } from "${path}";\nexport type Used = Shape;\n`;

describe("the rooms' import boundaries", () => {
  it("every shipped room is held by a rule of its own", () => {
    const held = RULES.map((rule) => String((rule.from as { path?: string }).path ?? ""));
    expect(SHIPPED_ROOMS.filter((room) => !held.some((path) => path.startsWith(`^${room}/`)))).toEqual([]);
  });

  it("a planted import across a boundary, type-only, is reported by its rule", async () => {
    const found = await violations({
      "kernel/errors.ts": EXPORT,
      "auth/grant.ts": uses("../kernel/errors.js"),
      "provider/core/webhooks.ts": uses("../native/server.js"),
      "provider/native/server.ts": uses("../dynamic/index.js"),
      "provider/dynamic/index.ts": EXPORT,
      "policy/policies.ts": uses("../provider/dynamic/index.js"),
      "cli/main.ts": uses("../provider/dynamic/index.js"),
      "emulator/app.ts": uses("../emulator-client/index.js"),
      "emulator-client/index.ts": uses("../emulator/app.js"),
      "program/index.ts": uses("../auth/grant.js"),
    });
    expect(found).toEqual([
      "cli-reaches-no-provider-no-policy: cli/main.ts -> provider/dynamic/index.ts",
      "emulator-client-uses-only-the-route-shapes-of-the-emulator: emulator-client/index.ts -> emulator/app.ts",
      "emulator-uses-kernel-only: emulator/app.ts -> emulator-client/index.ts",
      "native-front-end-never-loads-the-dynamic-one: provider/native/server.ts -> provider/dynamic/index.ts",
      "no-circular: emulator-client/index.ts -> emulator/app.ts",
      "policy-uses-kernel-only: policy/policies.ts -> provider/dynamic/index.ts",
      "program-uses-kernel-only: program/index.ts -> auth/grant.ts",
      "provider-core-reaches-no-front-end: provider/core/webhooks.ts -> provider/native/server.ts",
    ]);
  });

  it("a command is one folder: a planted import of another wing, or of an action by the program, is reported", async () => {
    const found = await violations({
      "cli/shared/output.ts": uses("../login/login.js"),
      "cli/login/login.ts": EXPORT,
      "cli/login/command.ts": uses("../status/status.js"),
      "cli/status/status.ts": uses("../adopt/pulumi-import.js"),
      "cli/adopt/pulumi-import.ts": uses("../import/webhook-file.js"),
      "cli/import/webhook-file.ts": uses("../adopt/declarations.js"),
      "cli/adopt/declarations.ts": EXPORT,
      "cli/main.ts": uses("./login/login.js"),
    });
    expect(found).toEqual([
      "cli-adopt-serves-import-and-migrate: cli/status/status.ts -> cli/adopt/pulumi-import.ts",
      "cli-main-adds-commands-only: cli/main.ts -> cli/login/login.ts",
      "cli-shared-uses-no-wing: cli/shared/output.ts -> cli/login/login.ts",
      "cli-wings-reach-no-other-wing: cli/adopt/pulumi-import.ts -> cli/import/webhook-file.ts",
      "cli-wings-reach-no-other-wing: cli/login/command.ts -> cli/status/status.ts",
    ]);
  });

  it("the imports the rooms may make are not reported", async () => {
    const found = await violations({
      "kernel/errors.ts": EXPORT,
      "auth/grant.ts": uses("../kernel/errors.js"),
      "provider/core/webhooks.ts": uses("../../auth/grant.js"),
      "provider/native/main.ts": uses("../core/webhooks.js"),
      "policy/analyzer.ts": uses("../kernel/errors.js"),
      "emulator/types.ts": EXPORT,
      "emulator-client/index.ts": uses("../emulator/types.js"),
      "cli/main.ts": uses("./login/command.js"),
      "cli/login/command.ts": uses("../shared/options.js"),
      "cli/shared/options.ts": uses("../../emulator-client/index.js"),
      "cli/import/import.ts": uses("../adopt/pulumi-import.js"),
      "cli/adopt/pulumi-import.ts": uses("../shared/options.js"),
      "bin/pulumi-resource-helpdesk.ts": uses("../provider/native/main.js"),
    });
    expect(found).toEqual([]);
  });
});
