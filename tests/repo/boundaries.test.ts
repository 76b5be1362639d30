/**
 * The rooms' import boundaries and the rules of packages are lint rules (.dependency-cruiser.cjs, and knip.jsonc for
 * unused dependencies, run by `npm run lint` and so by `npm test`); this holds that the rules bite and cover every
 * room: in a scratch tree laid out as the repository's rooms, each planted import that crosses a boundary, type-only
 * ones included, a planted cycle (reported once), a devDependency loaded by shipped code, a package package.json does
 * not list, and a dependency no shipped module loads are reported by their rule, while the imports the rooms may make
 * are not.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type ICruiseResult, type IForbiddenRuleType } from "dependency-cruiser";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { SHIPPED_ROOMS } from "../../scripts/lib/rooms.cjs";

/** The rules of the lint configuration. */
const RULES = (createRequire(import.meta.url)("../../.dependency-cruiser.cjs") as { forbidden: IForbiddenRuleType[] })
  .forbidden;

/**
 * Runs `check` on `files` written to a scratch folder, which is removed afterwards.
 *
 * @param files path in the scratch folder -> its text
 */
async function inScratch<T>(files: Record<string, string>, check: (scratch: string) => Promise<T> | T): Promise<T> {
  const scratch = mkdtempSync(join(tmpdir(), "helpdesk-boundaries-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), text);
    }
    return await check(scratch);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The violations the lint rules find among `files` written to a scratch folder.
 *
 * @param files repository-relative path -> TypeScript source; `package.json` and `node_modules/` (see {@link packages})
 *   are read, not cruised
 * @returns `<rule>: <from> -> <to>`, sorted
 */
async function violations(files: Record<string, string>): Promise<string[]> {
  const roots = new Set(
    Object.keys(files).map((path) => {
      const [room = path] = path.split("/");
      return room;
    }),
  );
  roots.delete("package.json");
  roots.delete("node_modules");
  return inScratch(files, async (scratch) => {
    const result = await cruise(
      [...roots],
      {
        baseDir: scratch,
        tsPreCompilationDeps: true,
        validate: true,
        ruleSet: { forbidden: RULES },
        doNotFollow: { path: "node_modules" },
      },
      { extensions: [".ts", ".js"], extensionAlias: { ".js": [".ts", ".js"] } },
    );
    return (result.output as ICruiseResult).summary.violations
      .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
      .sort();
  });
}

/**
 * Installed packages for a scratch folder: each `node_modules/<name>/` with a package.json, a value and a type.
 *
 * @param names the packages
 */
function packages(...names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => [
      [`node_modules/${name}/package.json`, JSON.stringify({ name, version: "1.0.0", main: "index.js" })],
      [`node_modules/${name}/index.js`, "export const value = 1;\n"],
      [`node_modules/${name}/index.d.ts`, "export declare const value: number;\nexport type Shape = number;\n"],
    ]),
  );
}

/** A module that loads `name`'s value at run time. */
const loads = (name: string): string => `import { value } from "${name}";\nexport const used = value;\n`;

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
      "rpc/unary-server.ts": uses("../auth/grant.js"),
      "rpc/wire.ts": EXPORT,
      "provider/core/retry.ts": uses("../../rpc/wire.js"),
      "cli/status/status.ts": uses("../../rpc/wire.js"),
    });
    expect(found).toEqual([
      "cli-reaches-no-provider-no-policy: cli/main.ts -> provider/dynamic/index.ts",
      "emulator-client-uses-only-the-route-shapes-of-the-emulator: emulator-client/index.ts -> emulator/app.ts",
      "emulator-uses-kernel-only: emulator/app.ts -> emulator-client/index.ts",
      "native-front-end-never-loads-the-dynamic-one: provider/native/server.ts -> provider/dynamic/index.ts",
      "no-circular: emulator-client/index.ts -> emulator/app.ts",
      "policy-uses-kernel-and-rpc-only: policy/policies.ts -> provider/dynamic/index.ts",
      "program-uses-kernel-only: program/index.ts -> auth/grant.ts",
      "provider-core-reaches-no-front-end: provider/core/webhooks.ts -> provider/native/server.ts",
      "rpc-used-by-plugin-and-analyzer-only: cli/status/status.ts -> rpc/wire.ts",
      "rpc-used-by-plugin-and-analyzer-only: provider/core/retry.ts -> rpc/wire.ts",
      "rpc-uses-kernel-only: rpc/unary-server.ts -> auth/grant.ts",
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
      "rpc/wire.ts": uses("../kernel/errors.js"),
      "rpc/unary-server.ts": uses("./wire.js"),
      "policy/server.ts": uses("../rpc/unary-server.js"),
      "provider/native/server.ts": uses("../../rpc/wire.js"),
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

  it("a planted devDependency loaded by shipped code, and a package package.json does not list, are reported", async () => {
    const found = await violations({
      "package.json": JSON.stringify({
        dependencies: { dep: "1.0.0" },
        devDependencies: { dev: "1.0.0", peer: "1.0.0" },
        peerDependencies: { peer: "1.0.0" },
      }),
      ...packages("dep", "dev", "peer", "stray"),
      "provider/native/server.ts": loads("dev"),
      "rpc/unary-server.ts": loads("dev"),
      "cli/main.ts": loads("stray"),
      // What may be: a dependency, a peer dependency (also a devDependency, installed here for the tests), a
      // devDependency named by a type-only import, and any devDependency outside the shipped rooms.
      "kernel/errors.ts": loads("dep"),
      "program/index.ts": loads("peer"),
      "provider/native/proto.ts": uses("dev"),
      "tests/repo/boundaries.test.ts": loads("dev"),
    });
    expect(found).toEqual([
      "no-non-package-json: cli/main.ts -> node_modules/stray/index.js",
      "not-to-dev-dep: provider/native/server.ts -> node_modules/dev/index.js",
      "not-to-dev-dep: rpc/unary-server.ts -> node_modules/dev/index.js",
    ]);
  });
});

describe("no unused dependency (knip.jsonc, npm run lint:dependencies)", () => {
  it("reports a planted dependency nothing loads and one only a type-only import names, not one a shipped module loads", async () => {
    const run = await inScratch(
      {
        "package.json": JSON.stringify({
          name: "scratch",
          type: "module",
          dependencies: { loaded: "1.0.0", unused: "1.0.0", "only-typed": "1.0.0" },
          devDependencies: { "tests-only": "1.0.0" },
        }),
        ...packages("loaded", "unused", "only-typed", "tests-only"),
        "bin/start.ts": `${loads("loaded")}${uses("only-typed")}`,
        "tests/repo/boundaries.test.ts": loads("tests-only"),
      },
      (scratch) =>
        spawnSync(
          "npm",
          [
            "run",
            "--silent",
            "lint:dependencies",
            "--",
            "--directory",
            scratch,
            "--config",
            join(repoRoot, "knip.jsonc"),
          ],
          { cwd: repoRoot, encoding: "utf8" },
        ),
    );
    expect(run.status, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^Unused dependencies \(2\)\n/);
    const reported = run.stdout
      .split("\n")
      .slice(1)
      .map((line) => line.split(/\s+/)[0]);
    expect(reported.filter(Boolean).sort()).toEqual(["only-typed", "unused"]);
  });
});
