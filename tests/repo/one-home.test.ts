/**
 * Every statement of a rule derives from its one home (docs/design.md "Rooms"): the settings table
 * (kernel/settings.ts) for the settings' variables, secretness and the names of their sources; kernel/commands.ts
 * for the remedy "sign in again"; the grant (auth/grant.ts) for when a token counts as expired. These tests read the
 * shipped source for restatements, and check that the places that used to decide for themselves now ask the home.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { accessTokenExpired } from "../../auth/grant.js";
import { REDACTED, redact } from "../../auth/redact.js";
import { pickClientSettings } from "../../cli/shared/settings.js";
import { describeStatus } from "../../cli/status/status.js";
import { signInAgain, stackCommand } from "../../kernel/commands.js";
import { stackConfigSettings } from "../../kernel/config.js";
import {
  resolveSettings,
  SECRET_SETTING_NAMES,
  SETTING_NAMES,
  SETTINGS,
  type SettingSpec,
  settingReaderOf,
} from "../../kernel/settings.js";
import { checkProviderConfig, providerTarget } from "../../provider/native/config.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { SHIPPED_ROOMS } from "../../scripts/lib/rooms.cjs";

/** The TypeScript files under a folder of the repository, recursively. */
function typescriptFiles(folder: string): string[] {
  return readdirSync(join(repoRoot, folder)).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(repoRoot, path)).isDirectory()) return typescriptFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** A file's code without its comments (block and whole-line comments: what documents, not what runs or prints). */
function codeOf(path: string): string {
  return readFileSync(join(repoRoot, path), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
}

/** Every shipped source file, and the benchmark's and the scripts' (they sign in and run the CLI too), and its code. */
const SOURCES = [...SHIPPED_ROOMS, "bench", "scripts"]
  .flatMap(typescriptFiles)
  .map((path) => ({ path, code: codeOf(path) }));

describe("statements derive from their home", () => {
  it("reads the shipped source (so a pass below means something)", () => {
    expect(SOURCES.map((source) => source.path)).toContain("kernel/settings.ts");
    expect(SOURCES.find((source) => source.path === "kernel/settings.ts")?.code).toContain(SETTINGS.accessToken.env);
  });

  it("no source but the settings table names a setting's environment variable in code", () => {
    const variables = SETTING_NAMES.flatMap((name) => {
      const env = (SETTINGS[name] as SettingSpec).env;
      return env ? [env] : [];
    });
    const found = SOURCES.filter((source) => source.path !== "kernel/settings.ts").flatMap((source) =>
      variables.filter((variable) => source.code.includes(variable)).map((variable) => `${source.path}: ${variable}`),
    );
    expect(found).toEqual([]);
  });

  it("no source but kernel/commands.ts spells a remedy's command (`pulumi-helpdesk login --stack ...`, with or without flags)", () => {
    const found = SOURCES.filter(
      (source) =>
        source.path !== "kernel/commands.ts" && /`pulumi-helpdesk (login|refresh|status|logout)\b/.test(source.code),
    );
    expect(found.map((source) => source.path)).toEqual([]);
  });

  it("the remedy names the stack and a namespace other than the default", () => {
    expect(signInAgain({ stack: "dev", namespace: "eu" })).toBe(
      "run `pulumi-helpdesk login --stack dev --namespace eu` to sign in again",
    );
    expect(stackCommand("refresh", { stack: "dev", namespace: "helpdesk" })).toBe(
      "`pulumi-helpdesk refresh --stack dev`",
    );
    expect(stackCommand("login")).toBe("`pulumi-helpdesk login --stack <stack>`");
  });
});

describe("one collector names a value's source the same way on every path", () => {
  const bad = "ftp://h.example";
  const env = { [SETTINGS.baseUrl.env]: bad };

  it("login: the flag, the namespace's config key, the variable", () => {
    const problem = (run: () => unknown): string => {
      try {
        run();
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error("expected a refusal");
    };
    expect(problem(() => pickClientSettings({ baseUrl: bad }, {}, {}))).toMatch(/^--base-url: /);
    expect(problem(() => pickClientSettings({}, { "eu:baseUrl": bad }, {}, "eu"))).toMatch(/^config eu:baseUrl: /);
    expect(problem(() => pickClientSettings({}, {}, env))).toMatch(new RegExp(`^env ${SETTINGS.baseUrl.env}: `));
  });

  it("the providers: the argument, the config key, the variable", () => {
    expect(() => resolveSettings({ explicit: settingReaderOf({ baseUrl: bad }) })).toThrowError(/^baseUrl: /);
    expect(() => resolveSettings({ config: stackConfigSettings({ "helpdesk:baseUrl": bad }) })).toThrowError(
      /^config helpdesk:baseUrl: /,
    );
    expect(() => resolveSettings({ env })).toThrowError(new RegExp(`^env ${SETTINGS.baseUrl.env}: `));
    expect(checkProviderConfig({ baseUrl: bad }).failures[0]?.reason).toMatch(/^baseUrl: /);
    expect(
      resolveSettings({
        config: stackConfigSettings({ "eu:accessToken": "t" }, "eu"),
        env: { [SETTINGS.clientId.env]: "c" },
      }).sourceNames,
    ).toEqual({
      accessToken: "config eu:accessToken",
      clientId: `env ${SETTINGS.clientId.env}`,
    });
  });
});

describe("secrets come from the table", () => {
  it("a native provider registers exactly its secret settings' values for redaction", () => {
    const inputs = Object.fromEntries(
      SETTING_NAMES.map((name) => [name, `value-of-${name}-${Math.random().toString(36).slice(2)}`]),
    );
    providerTarget({
      clientId: inputs.clientId,
      clientSecret: inputs.clientSecret,
      accessToken: inputs.accessToken,
      refreshToken: inputs.refreshToken,
    });
    for (const name of ["clientId", "clientSecret", "accessToken", "refreshToken"] as const) {
      expect(redact(`x ${inputs[name]} y`), name).toBe(
        (SECRET_SETTING_NAMES as readonly string[]).includes(name) ? `x ${REDACTED} y` : `x ${inputs[name]} y`,
      );
    }
  });
});

describe("the grant decides when a token counts as expired, for status too", () => {
  const cacheDir = mkdtempSync(join(tmpdir(), "helpdesk-one-home-"));
  afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

  it("status calls a token expired by the grant's rule, its margin included", () => {
    const now = Date.parse("2030-01-01T00:00:00.000Z");
    for (const seconds of [-600, -1, 0, 1, 30, 59, 61, 600]) {
      const expiresAt = new Date(now + seconds * 1000).toISOString();
      const status = describeStatus(
        "dev",
        { "helpdesk:accessToken": "a", "helpdesk:tokenExpiresAt": expiresAt },
        { now, cacheDir },
      );
      expect(status.accessToken.expired, `${seconds} s`).toBe(
        accessTokenExpired({ expiresAt, lifetimeSeconds: undefined }, now),
      );
      expect(status.accessToken.expiresInSeconds).toBe(seconds);
    }
    // Within the margin, the provider already refreshes it: expired for status too, although its expiry is ahead.
    const soon = describeStatus(
      "dev",
      { "helpdesk:accessToken": "a", "helpdesk:tokenExpiresAt": new Date(now + 30_000).toISOString() },
      { now, cacheDir },
    );
    expect(soon.accessToken).toMatchObject({ expired: true, expiresInSeconds: 30 });
  });
});
