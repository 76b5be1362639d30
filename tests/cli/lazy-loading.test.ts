/**
 * `pulumi-helpdesk --version`, `--help` and every command's `--help` load only the program and the commands' own
 * definitions (cli/main.ts, each wing's `command.ts`, cli/shared/): no action of a command, no emulator server (only
 * its defaults, emulator/defaults.ts), no provider, policy pack or emulator client, no Pulumi Automation API, no hono
 * and no `node:sqlite`. Every command the help lists is walked, subcommands too, so a new command is held to this
 * without a change here. Read from the built CLI as a person runs it (dist/bin/pulumi-helpdesk.js), with a module
 * hook (`module.registerHooks`, given by `--import`) that records every module Node.js resolves.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../../dist/bin/pulumi-helpdesk.js", import.meta.url));
const dist = new URL("../../dist/", import.meta.url).href;

/** The hook: every resolved URL, once, written to the file `$LOADED_MODULES` when the process exits. */
const HOOK = `import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";
const loaded = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    loaded.add(resolved.url);
    return resolved;
  },
});
process.on("exit", () => writeFileSync(process.env.LOADED_MODULES, [...loaded].join("\\n")));
`;

/** The hook and the lists of the runs. */
let folder: string;
/** How many runs wrote their list. */
let runs = 0;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), "helpdesk-lazy-loading-"));
  writeFileSync(join(folder, "hook.mjs"), HOOK);
});

afterAll(() => rmSync(folder, { recursive: true, force: true }));

/**
 * Runs the built CLI with the hook.
 *
 * @returns its exit code, its output, and the modules it loaded: files of dist/ by their path there (`cli/main.js`),
 *   the others by their URL (`node:sqlite`, `file:///.../node_modules/commander/...`)
 */
function modulesLoadedBy(...args: string[]): {
  code: number | null;
  stdout: string;
  stderr: string;
  modules: string[];
} {
  const hook = join(folder, "hook.mjs");
  const list = join(folder, `loaded-${++runs}.txt`);
  const ran = spawnSync(process.execPath, ["--import", pathToFileURL(hook).href, bin, ...args], {
    encoding: "utf8",
    env: { ...process.env, LOADED_MODULES: list, NO_COLOR: "1" },
  });
  const modules = readFileSync(list, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((url) => (url.startsWith(dist) ? url.slice(dist.length) : url));
  return { code: ran.status, stdout: ran.stdout, stderr: ran.stderr, modules };
}

/** What no help and no version may load, each with why it is heavy. */
const HEAVY: readonly { what: string; pattern: RegExp }[] = [
  { what: "the emulator's server (only its defaults)", pattern: /^emulator\/(?!defaults\.js$|types\.js$)/ },
  { what: "the emulator's clients", pattern: /^emulator-client\// },
  { what: "the provider", pattern: /^provider\// },
  { what: "the policy pack", pattern: /^policy\// },
  { what: "Pulumi's Automation API (or any of @pulumi/pulumi)", pattern: /\/node_modules\/@pulumi\// },
  { what: "hono", pattern: /\/node_modules\/(hono|@hono\/[^/]+)\// },
  { what: "SQLite", pattern: /^node:sqlite$/ },
];

/**
 * The CLI's own modules a help may load: the program, the shared options, help and output, each command's
 * definition, and the two facts its help states (the import file's columns, the adopted urls' config key).
 */
const DEFINITIONS = /^cli\/(main|shared\/[\w-]+|[\w-]+\/command|import\/columns|adopt\/declarations)\.js$/;

/**
 * Checks what one run loaded: the program (so the hook saw it), nothing of {@link HEAVY}, and of the CLI only
 * {@link DEFINITIONS}.
 */
function expectOnlyDefinitions(args: readonly string[]): { stdout: string } {
  const { code, stderr, stdout, modules } = modulesLoadedBy(...args);
  expect(code, `${args.join(" ")}: ${stderr}`).toBe(0);
  expect(modules, args.join(" ")).toContain("cli/main.js");
  for (const { what, pattern } of HEAVY)
    expect(
      modules.filter((url) => pattern.test(url)),
      `${args.join(" ")}: ${what}`,
    ).toEqual([]);
  const ours = modules.filter((url) => url.startsWith("cli/"));
  expect(
    ours.filter((path) => !DEFINITIONS.test(path)),
    `${args.join(" ")}: the CLI's modules beyond the definitions`,
  ).toEqual([]);
  return { stdout };
}

/** The commands a help lists (its "Commands:" block), but `help`. */
function commandsListed(help: string): string[] {
  const [block = ""] = help.slice(help.indexOf("\nCommands:\n") + 1).split("\n\n");
  return [...block.matchAll(/^ {2}([a-z][\w-]*)/gm)]
    .map(([, name = ""]) => name)
    .filter((name) => name !== "" && name !== "help");
}

describe("what the CLI loads to print its version and help", () => {
  it.each([[["--version"]], [["help", "login"]]])("%j loads only the definitions of the commands", (args) => {
    expectOnlyDefinitions(args);
  });

  it("--help, and every command's and subcommand's --help, load only the definitions of the commands", () => {
    const seen: string[] = [];
    const walk = (path: readonly string[]): void => {
      const { stdout } = expectOnlyDefinitions([...path, "--help"]);
      seen.push(path.join(" "));
      for (const name of commandsListed(stdout)) walk([...path, name]);
    };
    walk([]);
    // The walk found the commands (so an empty list is not taken for a pass).
    expect(seen).toEqual(expect.arrayContaining(["", "login", "import", "emulator", "plugin", "plugin install"]));
  });

  it("a command's action is loaded when it runs (`trigger` with an unknown event loads trigger.ts)", () => {
    const { code, modules } = modulesLoadedBy("trigger", "no_such_event");
    expect(code).toBe(2);
    expect(modules).toContain("cli/trigger/trigger.js");
  });
});
