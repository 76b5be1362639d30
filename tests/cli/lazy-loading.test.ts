/**
 * `pulumi-helpdesk --version`, `--help` and every command's `--help` load only the program and the commands' own
 * definitions (cli/main.ts, each wing's `command.ts`, cli/shared/): no action of a command, no emulator server (only
 * its defaults, emulator/defaults.ts), no provider, policy pack or emulator client, no Pulumi Automation API, no hono
 * and no `node:sqlite`. Read from the built CLI as a person runs it (dist/bin/pulumi-helpdesk.js), with a module hook
 * (`module.registerHooks`, given by `--import`) that records every module Node.js resolves.
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
 * @returns its exit code, and the modules it loaded: files of dist/ by their path there (`cli/main.js`), the others by
 *   their URL (`node:sqlite`, `file:///.../node_modules/commander/...`)
 */
function modulesLoadedBy(...args: string[]): { code: number | null; stderr: string; modules: string[] } {
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
  return { code: ran.status, stderr: ran.stderr, modules };
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

/** Every command and subcommand. */
const COMMANDS = [
  ["login"],
  ["status"],
  ["refresh"],
  ["logout"],
  ["import"],
  ["migrate"],
  ["emulator"],
  ["trigger"],
  ["plugin"],
  ["plugin", "path"],
  ["plugin", "install"],
];

describe("what the CLI loads to print its version and help", () => {
  it.each([[["--version"]], [["--help"]], [["help", "login"]], ...COMMANDS.map((command) => [[...command, "--help"]])])(
    "%j loads no action, no emulator, no provider, no Automation API, no hono, no node:sqlite",
    (args) => {
      const { code, stderr, modules } = modulesLoadedBy(...args);
      expect(code, stderr).toBe(0);
      // The hook saw the program: what it did not report was not loaded.
      expect(modules).toContain("cli/main.js");
      for (const { what, pattern } of HEAVY)
        expect(
          modules.filter((url) => pattern.test(url)),
          what,
        ).toEqual([]);
      const ours = modules.filter((url) => url.startsWith("cli/"));
      expect(
        ours.filter((path) => !DEFINITIONS.test(path)),
        "modules of the CLI beyond the definitions",
      ).toEqual([]);
    },
  );

  it("a command's action is loaded when it runs (`trigger` with an unknown event loads trigger.ts)", () => {
    const { code, modules } = modulesLoadedBy("trigger", "no_such_event");
    expect(code).toBe(2);
    expect(modules).toContain("cli/trigger/trigger.js");
  });
});
