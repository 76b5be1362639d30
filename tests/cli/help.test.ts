/**
 * The built CLI's help states the settings' rules as their homes define them: the precedence (flag, then the stack's
 * config, then the environment: kernel/settings.ts `SETTING_PRECEDENCE`, which the resolution follows), every
 * setting's flag and environment variable (`SETTINGS`), and the environment variables of the other homes (the token
 * cache, the plugin's launcher script, `CI`, `NO_COLOR`). The expected texts are derived here from those homes, and the
 * help is read from `node dist/bin/pulumi-helpdesk.js`, as a person runs it; a closed stdout ends the CLI quietly.
 */

import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { refreshableTokenOrigin, TOKEN_CACHE_DIR_VARIABLE } from "../../auth/environment.js";
import { LAUNCHER_VARIABLES } from "../../cli/plugin/command.js";
import { NO_COLOR_VARIABLE } from "../../cli/shared/output.js";
import { NON_INTERACTIVE_VARIABLE } from "../../cli/shared/prompt.js";
import { CLIENT_SETTING_NAMES } from "../../cli/shared/settings.js";
import { DEFAULT_CLIENT } from "../../emulator/index.js";
import { required } from "../../kernel/required.js";
import {
  pickSetting,
  SETTING_NAMES,
  SETTING_PRECEDENCE,
  SETTINGS,
  type SettingName,
  type SettingSpec,
  type SourceOrigin,
  settingReaderOf,
} from "../../kernel/settings.js";

const bin = fileURLToPath(new URL("../../dist/bin/pulumi-helpdesk.js", import.meta.url));
const launcher = fileURLToPath(new URL("../../plugin/pulumi-resource-helpdesk", import.meta.url));

/** Runs the built CLI to completion. */
function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const ran = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

/** A setting's flag as a person types it: its name in kebab case. */
const flagOf = (name: string): string => `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;

/** The word each source goes by in the help's precedence sentence. */
const WORD: Record<SourceOrigin, RegExp> = {
  explicit: /\bflags?\b/,
  config: /\bconfig\b/,
  environment: /\benvironment\b/,
};

/**
 * The precedence as the resolution behaves: a setting given by every source, the winner taken away one by one.
 * (So the help is held to what the code does, not only to the constant that names the order.)
 */
function observedPrecedence(): SourceOrigin[] {
  const all: { explicit?: string; config?: string; environment?: string } = {
    explicit: "https://explicit.example",
    config: "https://config.example",
    environment: "https://env.example",
  };
  const order: SourceOrigin[] = [];
  for (;;) {
    const picked = pickSetting("baseUrl", {
      explicit: settingReaderOf({ baseUrl: all.explicit }),
      config: settingReaderOf({ baseUrl: all.config }),
      env: all.environment ? { [SETTINGS.baseUrl.env]: all.environment } : {},
    });
    if (!picked) return order;
    order.push(picked.origin);
    delete all[picked.origin];
  }
}

/**
 * Checks that `sentence` names the sources in the precedence's order.
 *
 * @param sentence the help's sentence on where settings come from
 */
function expectPrecedence(sentence: string): void {
  const expected = observedPrecedence();
  expect(expected).toEqual([...SETTING_PRECEDENCE]);
  const clauses = sentence.split(/, else /);
  expect(clauses, sentence).toHaveLength(expected.length);
  expected.forEach((origin, index) => {
    expect(clauses[index], `${origin} in "${sentence}"`).toMatch(WORD[origin]);
    for (const other of expected.filter((o) => o !== origin))
      expect(clauses[index], `only ${origin} in clause ${index + 1}`).not.toMatch(WORD[other]);
  });
}

/** The variables with a row in the top-level help's "Environment:" block, in order. */
function environmentRows(help: string): string[] {
  const block = help.slice(help.indexOf("\nEnvironment:\n") + "\nEnvironment:\n".length);
  return [...block.matchAll(/^ {2}(\S+)/gm)].map(([, name]) => required(name, "a variable's name"));
}

describe("pulumi-helpdesk --help", () => {
  const help = cli("--help");

  it("exits 0 and prints to stdout", () => {
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain("Usage: pulumi-helpdesk");
  });

  it("states the settings' precedence: flag, then the stack's config, then the environment", () => {
    const [settings = ""] = help.stdout.slice(help.stdout.indexOf("Settings: each comes from ")).split("\n\n");
    const paragraph = settings.replace(/\s+/g, " ");
    const sentence = paragraph.slice("Settings: each comes from ".length, paragraph.indexOf("; the first"));
    expectPrecedence(sentence);
  });

  it("lists every variable the settings table, the token cache, the plugin's launcher and the CLI read, and no other", () => {
    const fromTable = SETTING_NAMES.flatMap((name) => {
      const env = (SETTINGS[name] as SettingSpec).env;
      return env ? [env] : [];
    });
    const expected = [
      ...fromTable,
      TOKEN_CACHE_DIR_VARIABLE.name,
      ...LAUNCHER_VARIABLES.map((variable) => variable.name),
      `${NON_INTERACTIVE_VARIABLE.name}=${NON_INTERACTIVE_VARIABLE.value}`,
      NO_COLOR_VARIABLE.name,
    ];
    expect(environmentRows(help.stdout)).toEqual(expected);
    // No variable of the project's own named anywhere else in the help.
    const named = new Set(help.stdout.match(/\b(?:PULUMI_)?HELPDESK_[A-Z_]+\b/g));
    expect([...named].filter((name) => !expected.includes(name))).toEqual([]);
    // The rows tell what each setting's variable fills: the login flag of a login setting, the provider's settings.
    for (const name of SETTING_NAMES) {
      const env = (SETTINGS[name] as SettingSpec).env;
      if (!env) continue;
      const row = required(
        help.stdout.split("\n").find((line) => line.startsWith(`  ${env} `)),
        `the row of ${env}`,
      );
      expect(row, env).toContain(`${name}${SETTINGS[name].secret ? " (secret)" : ""}:`);
      if ((CLIENT_SETTING_NAMES as readonly SettingName[]).includes(name))
        expect(row).toContain(`login ${flagOf(name)}`);
      expect(row.includes("the provider"), env).toBe(SETTINGS[name].provider);
    }
    // An access token from the environment is never refreshed (auth/environment.ts), so refresh is no reader of it.
    const tokenRow = required(
      help.stdout.split("\n").find((line) => line.startsWith(`  ${SETTINGS.accessToken.env} `)),
      "the access token's row",
    );
    expect(refreshableTokenOrigin("environment")).toBe(false);
    expect(tokenRow).toContain("never refreshed");
    expect(tokenRow).not.toContain("and refresh");
  });

  it("the plugin's launcher reads exactly the variables the help lists for it", () => {
    const script = readFileSync(launcher, "utf8")
      .split("\n")
      .filter((line) => !line.startsWith("#"))
      .join("\n");
    const read = new Set(
      [...script.matchAll(/\$\{?(PULUMI_HELPDESK_[A-Z_]+)/g)].map(([, name]) => required(name, "a variable's name")),
    );
    expect([...read].sort()).toEqual(LAUNCHER_VARIABLES.map((variable) => variable.name).sort());
  });
});

describe("pulumi-helpdesk login --help", () => {
  const help = cli("login", "--help");

  it("states the same precedence for login's settings", () => {
    expect(help.code, help.stderr).toBe(0);
    const line = required(
      help.stdout.split("\n").find((text) => text.startsWith("Settings come from ")),
      "the line of the settings' precedence",
    );
    expectPrecedence(line.slice("Settings come from ".length).replace(/\.$/, ""));
  });

  it("gives each client setting's flag with its environment variable", () => {
    const options = help.stdout
      .slice(help.stdout.indexOf("Options:"), help.stdout.indexOf("\n\n", help.stdout.indexOf("Options:")))
      .replace(/\s+/g, " ");
    for (const name of CLIENT_SETTING_NAMES) {
      expect(options).toMatch(new RegExp(`${flagOf(name)} <\\w+> [^(]*\\(env ${SETTINGS[name].env}\\b`));
    }
  });

  it("uses only its own flags in its examples", () => {
    const options = new Set(help.stdout.slice(0, help.stdout.indexOf("Examples:")).match(/--[a-z][a-z-]*/g));
    const examples = help.stdout.slice(help.stdout.indexOf("Examples:")).match(/--[a-z][a-z-]*/g) ?? [];
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.filter((flag) => !options.has(flag))).toEqual([]);
  });
});

describe("pulumi-helpdesk emulator --help", () => {
  it("shows the defaults of the client it registers, as the emulator defines them", () => {
    const help = cli("emulator", "--help");
    expect(help.code, help.stderr).toBe(0);
    const options = help.stdout.replace(/\s+/g, " ");
    for (const [flag, value] of [
      ["--client-id", DEFAULT_CLIENT.clientId],
      ["--client-secret", DEFAULT_CLIENT.clientSecret],
      ["--redirect-uri", DEFAULT_CLIENT.redirectUri],
    ] as const) {
      const at = options.indexOf(`${flag} <`);
      expect(at, flag).toBeGreaterThan(0);
      expect(options.slice(at, options.indexOf(" --", at + flag.length)), flag).toContain(`(default: "${value}")`);
    }
  });
});

describe("a closed stdout", () => {
  it("ends the CLI quietly, exit code 0 (`pulumi-helpdesk help login | head -3`)", async () => {
    const child = spawn(process.execPath, [bin, "help", "login"], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy(); // the reader is gone before the CLI writes
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", (exit) => resolve(exit)));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("help for a command asked for exits 0 (`help login`), as `login --help` does", () => {
    expect(cli("help", "login").code).toBe(0);
    expect(cli("login", "--help").code).toBe(0);
  });
});
