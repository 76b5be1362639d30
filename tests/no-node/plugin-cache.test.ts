/**
 * The plugin cache stands alone: the README's offline route ("Installing the plugin without a network", the block
 * after {@link MARKER}, run by bash as it is written, in a folder holding the release's archive and SHA256SUMS) checks
 * the archive against SHA256SUMS and installs it into an empty `PULUMI_HOME`: the archive's files and nothing that
 * points back into this repository (no launcher, no `package-root`). A changed archive, or a SHA256SUMS whose line for
 * it was changed, is refused by the same commands, and nothing is installed (Pulumi itself ignores `--checksum` given
 * with `--file`). With automatic plugin acquisition off, no Node.js on PATH and the program outside the repository,
 * `pulumi preview` of a YAML program runs the plugin from the cache: it checks the webhook against the stack's config.
 * And `pulumi-helpdesk plugin install` run from the release's executable installs that executable alone, which is the
 * CLI under its first argument's name.
 */

import {
  appendFileSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved } from "../../emulator-client/index.js";
import { type Ran, runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { pulumi, removeStack } from "../support/pulumi-cli.js";
import { sharedRelease } from "../support/release.js";
import {
  ARCHIVE,
  ARCHIVE_FILES,
  installedPluginFiles,
  linkTools,
  nodeOrNpmFound,
  pulumiToolsReady,
  unpackRelease,
  VERSION,
} from "./no-node-desks.js";

/** The line in README.md that marks the offline route's block as run by this test. */
const MARKER = "<!-- tested: tests/no-node/plugin-cache.test.ts -->";

/**
 * The commands of the README's offline route: the fenced bash block right after {@link MARKER}.
 *
 * @throws Error when the marker or its block is missing
 */
function offlineRoute(): string {
  const lines = readFileSync(join(repoRoot, "README.md"), "utf8").split("\n");
  const at = lines.findIndex((line) => line.trim() === MARKER);
  if (at < 0 || lines[at + 1] !== "```bash") throw new Error(`README.md has no \`\`\`bash block right after ${MARKER}`);
  const end = lines.indexOf("```", at + 2);
  return lines.slice(at + 2, end).join("\n");
}

describe.skipIf(!pulumiToolsReady(["pulumi-language-yaml"]))(
  "a plugin installed from the release archive, with no Node.js",
  () => {
    const stack = "cache";
    let work: string;
    let programDir: string;
    let pulumiHome: string;
    let env: NodeJS.ProcessEnv;
    let emulator: RunningEmulator;

    /**
     * Runs the README's offline route in a folder of its own (`HELPDESK_RELEASE`) holding the release's SHA256SUMS and
     * archive, each the release's or changed by `tamper`, into the Pulumi home `home`.
     */
    async function offlineInstall(name: string, home: string, tamper?: { archive?: true; sums?: true }): Promise<Ran> {
      const release = await sharedRelease();
      const folder = join(work, name);
      mkdirSync(folder);
      const sums = readFileSync(join(release, "SHA256SUMS"), "utf8");
      // Another hash on the archive's line (the one the audit's probe gave `--checksum`).
      const changed = sums
        .split("\n")
        .map((line) => (line.endsWith(`  ${ARCHIVE}`) ? `${"0".repeat(64)}  ${ARCHIVE}` : line))
        .join("\n");
      expect(changed).not.toBe(sums);
      writeFileSync(join(folder, "SHA256SUMS"), tamper?.sums ? changed : sums);
      if (tamper?.archive) {
        copyFileSync(join(release, ARCHIVE), join(folder, ARCHIVE));
        appendFileSync(join(folder, ARCHIVE), "\0");
      } else {
        symlinkSync(join(release, ARCHIVE), join(folder, ARCHIVE));
      }
      return runCommand("/bin/bash", ["-c", offlineRoute()], {
        cwd: work,
        env: { ...env, PULUMI_HOME: home, HELPDESK_RELEASE: folder },
      });
    }

    /** The helpdesk plugins in a Pulumi home's plugin cache. */
    const helpdeskPlugins = (home: string): string[] =>
      existsSync(join(home, "plugins"))
        ? readdirSync(join(home, "plugins")).filter((name) => name.includes("helpdesk"))
        : [];

    async function run(args: string[]): Promise<string> {
      const ran = await pulumi(args, programDir, env);
      if (ran.code !== 0) throw new Error(shown(`pulumi ${args.join(" ")}`, ran));
      return ran.stdout;
    }

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), "helpdesk-plugin-cache-"));
      pulumiHome = join(work, "pulumi-home");
      programDir = join(work, "program");
      for (const dir of [pulumiHome, programDir, join(work, "state")]) mkdirSync(dir);
      env = {
        PATH: [linkTools(join(work, "bin"), ["pulumi", "pulumi-language-yaml", "grep", "sha256sum"])].join(delimiter),
        HOME: process.env.HOME,
        TMPDIR: process.env.TMPDIR,
        PULUMI_HOME: pulumiHome,
        PULUMI_BACKEND_URL: `file://${join(work, "state")}`,
        PULUMI_CONFIG_PASSPHRASE: "plugin-cache-test-passphrase",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        NO_COLOR: "1",
        CI: "true",
      };
      const installed = await offlineInstall("genuine", pulumiHome);
      if (installed.code !== 0) throw new Error(shown("the README's offline route", installed));
      expect(installed.stdout).toContain(`${ARCHIVE}: OK`);
      writeFileSync(
        join(programDir, "Pulumi.yaml"),
        [
          "name: helpdesk-plugin-cache",
          "runtime: yaml",
          "resources:",
          "  opened:",
          "    type: helpdesk:index:Webhook",
          "    properties:",
          "      event: ticket_opened",
          "      url: https://hooks.example.test/opened",
          "",
        ].join("\n"),
      );
      const client = {
        clientId: "cache-client",
        clientSecret: "cache-client-secret-value",
        redirectUri: "http://127.0.0.1:1/callback",
        name: "cache",
      };
      emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
      const tokens = await signInAutoApproved({ baseUrl: emulator.url, ...client });
      await run(["stack", "init", stack]);
      await run(["config", "set", "helpdesk:baseUrl", emulator.url, "--stack", stack]);
      // key=value in one argument: a token may start with "-" (base64url), which `config set` would read as a flag.
      await run(["config", "set-all", "--stack", stack, "--secret", `helpdesk:accessToken=${tokens.accessToken}`]);
    }, 300_000);

    afterAll(async () => {
      if (env) await removeStack(stack, programDir, env);
      await emulator?.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it.each([
      {
        title: "the README's offline route refuses a changed archive: sha256sum says FAILED, nothing is installed",
        name: "changed-archive",
        change: { archive: true } as const,
      },
      {
        title:
          "the README's offline route refuses an archive whose line in SHA256SUMS was changed, and installs nothing",
        name: "changed-sums",
        change: { sums: true } as const,
      },
    ])("$title", async ({ name, change }) => {
      const home = join(work, `pulumi-home-${name}`);
      mkdirSync(home);
      const ran = await offlineInstall(name, home, change);
      expect(ran.code, shown("the README's offline route", ran)).not.toBe(0);
      expect(ran.stdout).toContain(`${ARCHIVE}: FAILED`);
      expect(helpdeskPlugins(home)).toEqual([]);
    });

    it("holds the archive's files only: the executable, its CLI and policy pack links, LICENSE", () => {
      expect(installedPluginFiles(pulumiHome)).toEqual(ARCHIVE_FILES);
      const plugin = join(pulumiHome, "plugins", `resource-helpdesk-v${VERSION}`);
      expect(lstatSync(join(plugin, "pulumi-resource-helpdesk")).isFile()).toBe(true);
      expect(readlinkSync(join(plugin, "pulumi-helpdesk"))).toBe("pulumi-resource-helpdesk");
    });

    it("pulumi-helpdesk plugin install, run from the release's executable, installs that executable alone", async () => {
      const unpacked = await unpackRelease(join(work, "unpacked"));
      const otherHome = join(work, "other-pulumi-home");
      mkdirSync(otherHome);
      const ran = await runCommand(join(unpacked, "pulumi-helpdesk"), ["plugin", "install"], {
        cwd: work,
        env: { ...env, PULUMI_HOME: otherHome },
      });
      if (ran.code !== 0) throw new Error(shown("pulumi-helpdesk plugin install", ran));
      const plugin = join(otherHome, "plugins", `resource-helpdesk-v${VERSION}`);
      expect(readdirSync(plugin).filter((name) => !name.startsWith("."))).toEqual(["pulumi-resource-helpdesk"]);
      expect(
        readFileSync(join(plugin, "pulumi-resource-helpdesk")).equals(
          readFileSync(join(unpacked, "pulumi-resource-helpdesk")),
        ),
      ).toBe(true);
      // The CLI there, as the README says: the executable with the CLI's name as its first argument.
      const cli = await runCommand(join(plugin, "pulumi-resource-helpdesk"), ["pulumi-helpdesk", "--version"], {
        cwd: work,
        env,
      });
      expect(cli.code, shown("pulumi-resource-helpdesk pulumi-helpdesk --version", cli)).toBe(0);
      expect(cli.stdout.trim()).toBe(VERSION);
    });

    it("pulumi preview runs the cached plugin where no node can be found", async () => {
      expect(await nodeOrNpmFound(work, env)).toBe("none");
      const preview = await run(["preview", "--stack", stack]);
      expect(preview).toMatch(/\+\s+helpdesk:index:Webhook\s+opened\s+create/);
    });
  },
);
