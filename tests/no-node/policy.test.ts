/**
 * The policy pack where there is no Node.js: a Python program (pulumi_helpdesk from the release's wheel) and a YAML
 * program declare native webhooks, and `pulumi preview` / `pulumi up` run with `--policy-pack` naming the release's
 * executable under its analyzer name (`<archive>/pulumi-analyzer-helpdesk`), as a Python, Go, Java or YAML team runs
 * it. PATH holds the Pulumi CLI and the language's host (and, for Python, a fresh virtualenv); `node` and `npm`
 * cannot be found. The plugin is installed from the release archive (`pulumi plugin install --file`); the help desk is
 * an emulator, signed in to headlessly, whose config is set as `pulumi-helpdesk login` writes it.
 *
 * For each language, with the webhooks of tests/policy/program-hooks.ts: the violating program fails preview, each
 * violation naming its resource, with no url, path, query or token in the output; `up` with the pack creates nothing;
 * the compliant program passes and `up` creates it; `destroy` removes it.
 */

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved } from "../../emulator-client/index.js";
import { ANALYZER_EXECUTABLE, PULUMI_PACKAGE, WEBHOOK_TYPE } from "../../kernel/names.js";
import { POLICY_NAMES } from "../../policy/policies.js";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import {
  COMPLIANT,
  FORBIDDEN_IN_OUTPUT,
  PACK_CONFIG,
  type ProgramHook,
  SECRET_URL,
  VIOLATING,
  VIOLATORS,
} from "../policy/program-hooks.js";
import { heldWebhooks } from "../support/emulator.js";
import { configAsLoginWrites } from "../support/pulumi.js";
import { pulumi, removeStack } from "../support/pulumi-cli.js";
import { sharedRelease } from "../support/release.js";
import {
  ARCHIVE,
  linkTools,
  nodeOrNpmFound,
  pulumiToolsReady,
  releaseWheelVenv,
  unpackRelease,
  VERSION,
} from "./no-node-desks.js";

/** A language of the suite: its hosts, how it is given a list of webhooks. */
interface PolicyLanguage {
  hosts: string[];
  /** Writes the program (once); returns more PATH folders. */
  prepare(work: string, programDir: string): Promise<string[]>;
  /** Makes the program declare `hooks` (by config or by rewriting it). */
  declare(hooks: ProgramHook[], programDir: string, run: (args: string[]) => Promise<void>): Promise<void>;
}

/** A YAML program declaring `hooks` as native webhooks (JSON is YAML); secret urls come from the secret config `secretUrl` (a YAML program reads config it declares under `configuration`). */
function yamlProgram(hooks: ProgramHook[]): string {
  const resources = Object.fromEntries(
    hooks.map((hook) => [
      hook.name,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Pulumi YAML's interpolation of the program's variable
      { type: WEBHOOK_TYPE, properties: { event: hook.event, url: hook.secretUrl ? "${secretUrl}" : hook.url } },
    ]),
  );
  return JSON.stringify(
    { name: "policy-yaml-no-node", runtime: "yaml", configuration: { secretUrl: { type: "String" } }, resources },
    null,
    2,
  );
}

const LANGUAGES: Record<string, PolicyLanguage> = {
  python: {
    hosts: ["pulumi-language-python", "pulumi-language-python-exec"],
    async prepare(work, programDir) {
      const venvBin = await releaseWheelVenv(work);
      cpSync(join(repoRoot, "tests", "no-node", "policy-python"), programDir, { recursive: true });
      return [venvBin];
    },
    async declare(hooks, _programDir, run) {
      await run(["config", "set", "hooks", JSON.stringify(hooks)]);
    },
  },
  yaml: {
    hosts: ["pulumi-language-yaml"],
    async prepare(_work, programDir) {
      writeFileSync(join(programDir, "Pulumi.yaml"), yamlProgram([]));
      return [];
    },
    async declare(hooks, programDir) {
      writeFileSync(join(programDir, "Pulumi.yaml"), yamlProgram(hooks));
    },
  },
};

for (const [language, spec] of Object.entries(LANGUAGES)) {
  describe.skipIf(!pulumiToolsReady(spec.hosts))(
    `the policy pack with no Node.js: a ${language} program, the release's ${ANALYZER_EXECUTABLE}`,
    () => {
      const stack = `policy${Math.random().toString(16).slice(2, 8)}`;
      const client = {
        clientId: "policy-client",
        clientSecret: "policy-client-secret-value",
        redirectUri: "http://127.0.0.1:1/callback",
        name: "policy",
      };
      let work: string;
      let programDir: string;
      let pack: string;
      let configFile: string;
      let env: NodeJS.ProcessEnv;
      let emulator: RunningEmulator;

      /** `pulumi <args> --stack <stack>` in the program's folder; throws with its output when it fails. */
      async function run(args: string[]): Promise<void> {
        const ran = await pulumi([...args, "--stack", stack], programDir, env);
        if (ran.code !== 0) throw new Error(shown(`pulumi ${args.join(" ")}`, ran));
      }

      /** `pulumi preview` or `up` with the pack: whether it succeeded, and everything it printed. */
      async function withPack(operation: "preview" | "up"): Promise<{ ok: boolean; output: string }> {
        const args = operation === "up" ? ["up", "--yes"] : ["preview"];
        const ran = await pulumi(
          [...args, "--policy-pack", pack, "--policy-pack-config", configFile, "--stack", stack],
          programDir,
          env,
        );
        return { ok: ran.code === 0, output: `${ran.stdout}\n${ran.stderr}` };
      }

      beforeAll(async () => {
        const release = await sharedRelease();
        work = mkdtempSync(join(tmpdir(), "helpdesk-policy-no-node-"));
        const unpacked = await unpackRelease(join(work, "helpdesk"));
        pack = join(unpacked, ANALYZER_EXECUTABLE);
        configFile = join(work, "policy-config.json");
        writeFileSync(configFile, JSON.stringify(PACK_CONFIG));
        programDir = join(work, "program");
        mkdirSync(programDir);
        const tools = linkTools(join(work, "bin"), ["pulumi", ...spec.hosts]);
        const more = await spec.prepare(work, programDir);
        for (const dir of ["tmp", "state", "pulumi-home"]) mkdirSync(join(work, dir));
        env = {
          PATH: [tools, ...more].join(delimiter),
          HOME: process.env.HOME,
          TMPDIR: join(work, "tmp"),
          PULUMI_HOME: join(work, "pulumi-home"),
          PULUMI_BACKEND_URL: `file://${join(work, "state")}`,
          PULUMI_CONFIG_PASSPHRASE: "policy-no-node-passphrase",
          PULUMI_SKIP_UPDATE_CHECK: "true",
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
          HELPDESK_TOKEN_CACHE_DIR: join(work, "token-cache"),
          PYTHONDONTWRITEBYTECODE: "1",
          NO_COLOR: "1",
          CI: "true",
        };
        const installed = await runCommand(
          "pulumi",
          ["plugin", "install", "resource", PULUMI_PACKAGE, VERSION, "--file", join(release, ARCHIVE)],
          { cwd: work, env },
        );
        if (installed.code !== 0) throw new Error(shown("pulumi plugin install", installed));
        emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
        const tokens = await signInAutoApproved({ baseUrl: emulator.url, ...client });
        await run(["stack", "init"]);
        const config = Object.entries(configAsLoginWrites(emulator.url, client, tokens));
        await run([
          "config",
          "set-all",
          ...config.flatMap(([key, { value, secret }]) => [secret ? "--secret" : "--plaintext", `${key}=${value}`]),
        ]);
        await run(["config", "set", "--secret", "secretUrl", SECRET_URL]);
      }, 300_000);

      afterAll(async () => {
        if (env) {
          await pulumi(["destroy", "--yes", "--skip-preview", "--stack", stack], programDir, env).catch(
            () => undefined,
          );
          await removeStack(stack, programDir, env);
        }
        await emulator?.close();
        if (work) rmSync(work, { recursive: true, force: true });
      });

      it("runs where no node and no npm can be found", async () => {
        expect(await nodeOrNpmFound(work, env)).toBe("none");
      });

      it("fails preview of the violating program, naming each violation's resource and no url", async () => {
        await spec.declare(VIOLATING, programDir, run);
        const outcome = await withPack("preview");
        expect(outcome.ok, outcome.output).toBe(false);
        for (const { name, policy } of VIOLATORS)
          expect(outcome.output, `${policy} on ${name}`).toMatch(new RegExp(`${policy}[\\s\\S]*"${name}"`));
        for (const part of FORBIDDEN_IN_OUTPUT) expect(outcome.output, part).not.toContain(part);
      });

      it("up with the pack creates nothing", async () => {
        const outcome = await withPack("up");
        expect(outcome.ok, outcome.output).toBe(false);
        expect(outcome.output).toContain(POLICY_NAMES.https); // stopped by the pack, not by anything else
        expect(await heldWebhooks(emulator)).toEqual([]);
        for (const part of FORBIDDEN_IN_OUTPUT) expect(outcome.output, part).not.toContain(part);
      });

      it("passes the compliant program, which up creates, and destroy removes", async () => {
        await spec.declare(COMPLIANT, programDir, run);
        const previewed = await withPack("preview");
        expect(previewed.ok, previewed.output).toBe(true);
        const created = await withPack("up");
        expect(created.ok, created.output).toBe(true);
        const held = (await heldWebhooks(emulator)).map(({ event, url }) => ({ event, url }));
        expect(held.sort((a, b) => a.event.localeCompare(b.event))).toEqual(
          COMPLIANT.map(({ event, url }) => ({ event, url })).sort((a, b) => a.event.localeCompare(b.event)),
        );
        await run(["destroy", "--yes", "--skip-preview"]);
        expect(await heldWebhooks(emulator)).toEqual([]);
      });
    },
  );
}
