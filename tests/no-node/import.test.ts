/**
 * `pulumi-helpdesk import --from` as a Python or YAML user runs it, with no Node.js anywhere on PATH: the release's
 * executable (unpacked from its archive) is the CLI, `pulumi` and the language host are the only other tools, the
 * plugin cache is empty and automatic plugin acquisition is on, with `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` pointing
 * at a local mirror of the release folder (see no-node-desks.ts).
 *
 * Three webhooks made directly with `POST /v1/webhooks` are adopted from a CSV file into a project that declares
 * nothing yet: the import names the plugin's version and download URL, so Pulumi downloads the plugin itself (the
 * mirror is asked for this machine's archive); the emulator receives no POST; the state holds their ids, protected (the
 * default), and no url in plain text; the third url carries a delivery token, adopted with it (declared with
 * `useDeliveryToken` and the token read from the secret config `helpdeskDeliveryTokens`; in no output, encrypted only);
 * the printed declarations, as the program (with the language's `protect` option),
 * make `pulumi preview --expect-no-changes` pass; `pulumi destroy`, after `pulumi state unprotect --all` as the README
 * says, deletes exactly those three.
 */

import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { registeredUrl } from "../../kernel/delivery-token.js";
import { type Ran, runCommand, shown } from "../../scripts/lib/processes.ts";
import { createDirectly, creations, csvOf, type ExistingWebhook, expectAdoptedInState } from "../support/adoption.js";
import { heldWebhooks } from "../support/emulator.js";
import { pulumi, removeStack } from "../support/pulumi-cli.js";
import { sharedRelease } from "../support/release.js";
import {
  ARCHIVE,
  cachedPlugins,
  linkTools,
  type Mirror,
  nodeOrNpmFound,
  pulumiToolsReady,
  releaseWheelVenv,
  serveRelease,
  unpackRelease,
  VERSION,
} from "./no-node-desks.js";

/** The delivery token the third webhook was registered with. */
const TOKEN = `hdt_no-node-${randomBytes(24).toString("base64url")}`;

/** A language of the suite: its hosts, its project file, and where the printed declarations go. */
interface Adopter {
  title: string;
  hosts: string[];
  runtime: "python" | "yaml";
  /** How the printed declarations say `protect`. */
  protectOption: RegExp;
  /** How they declare the delivery token of the third webhook (the first in the token list). */
  tokenDeclared: RegExp;
  /** Readies the program folder (a project that declares nothing yet); returns more PATH folders. */
  prepare(work: string, programDir: string): Promise<string[]>;
  /** Makes the printed declarations the program. */
  declare(programDir: string, printed: string): void;
}

function describeAdoption(language: Adopter): void {
  describe.skipIf(!pulumiToolsReady(language.hosts))(language.title, () => {
    const stack = `adopt${Math.random().toString(16).slice(2, 8)}`;
    const project = `helpdesk-adopt-${language.runtime}`;
    const client = {
      clientId: "adopt-client",
      clientSecret: "adopt-client-secret-value",
      redirectUri: "http://127.0.0.1:1/callback",
      name: "adopt",
    };
    let work: string;
    let programDir: string;
    let pulumiHome: string;
    let cli: string;
    let mirror: Mirror;
    let emulator: RunningEmulator;
    let env: NodeJS.ProcessEnv;
    let adopted: ExistingWebhook[];
    let bystander: ExistingWebhook;

    const run = async (args: string[], stdin?: string): Promise<Ran> => {
      const ran =
        stdin === undefined
          ? await pulumi([...args, "--stack", stack], programDir, env)
          : await runCommand("pulumi", [...args, "--stack", stack], { cwd: programDir, env, input: stdin });
      if (ran.code !== 0) throw new Error(shown(`pulumi ${args.join(" ")}`, ran));
      return ran;
    };
    const state = (): string =>
      readFileSync(join(work, "state", ".pulumi", "stacks", project, `${stack}.json`), "utf8");

    beforeAll(async () => {
      const release = await sharedRelease();
      work = mkdtempSync(join(tmpdir(), "helpdesk-no-node-adopt-"));
      const unpacked = await unpackRelease(join(work, "helpdesk"));
      cli = join(unpacked, "pulumi-helpdesk");
      mirror = await serveRelease(release);
      programDir = join(work, "program");
      mkdirSync(programDir);
      const tools = linkTools(join(work, "bin"), ["pulumi", ...language.hosts]);
      const more = await language.prepare(work, programDir);
      pulumiHome = join(work, "pulumi-home");
      for (const folder of [pulumiHome, join(work, "tmp"), join(work, "state")]) mkdirSync(folder);
      env = {
        PATH: [tools, ...more].join(delimiter),
        HOME: process.env.HOME,
        TMPDIR: join(work, "tmp"),
        PULUMI_HOME: pulumiHome,
        PULUMI_BACKEND_URL: `file://${join(work, "state")}`,
        PULUMI_CONFIG_PASSPHRASE: "no-node-adopt-passphrase",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `.*=${mirror.url}`,
        HELPDESK_TOKEN_CACHE_DIR: join(work, "token-cache"),
        NO_COLOR: "1",
        CI: "true",
      };
      emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
      const { accessToken } = await signIn({ baseUrl: emulator.url, ...client });
      await run(["stack", "init"]);
      await run(["config", "set", "helpdesk:baseUrl", emulator.url]);
      await run(["config", "set", "--secret", "helpdesk:accessToken"], accessToken);
      adopted = await createDirectly(emulator, accessToken, [
        { event: "ticket_opened", url: "https://hooks.example.test/nn/opened?token=nn-secret-1" },
        { event: "ticket_closed", url: "https://hooks.example.test/nn/nn-secret-2" },
        {
          event: "customer_replied",
          url: registeredUrl("https://hooks.example.test/nn/nn-secret-3", "customer_replied", TOKEN),
        },
      ]);
      [bystander] = (await createDirectly(emulator, accessToken, [
        { event: "note_added", url: "https://hooks.example.test/nn/not-listed" },
      ])) as [ExistingWebhook];
    }, 600_000);

    afterAll(async () => {
      if (env) {
        await pulumi(["state", "unprotect", "--all", "--yes", "--stack", stack], programDir, env).catch(
          () => undefined,
        );
        await pulumi(["destroy", "--yes", "--skip-preview", "--stack", stack], programDir, env).catch(() => undefined);
        await removeStack(stack, programDir, env);
      }
      await emulator?.close();
      await mirror?.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it("no node can be found, and the plugin cache is empty", async () => {
      expect(await nodeOrNpmFound(work, env)).toBe("none");
      expect(cachedPlugins(pulumiHome)).toEqual([]);
    });

    it("the release's pulumi-helpdesk import adopts the three webhooks: the plugin downloaded, no POST, ids in the state, no url", async () => {
      const posts = await creations(emulator);
      writeFileSync(join(work, "webhooks.csv"), csvOf(adopted));
      const ran = await runCommand(cli, ["import", "--stack", stack, "--from", join(work, "webhooks.csv")], {
        cwd: programDir,
        env,
      });
      expect(ran.code, shown("pulumi-helpdesk import", ran)).toBe(0);
      expect(mirror.requests).toContain(`GET /${ARCHIVE}`);
      expect(readdirSync(join(pulumiHome, "plugins"))).toContain(`resource-helpdesk-v${VERSION}`);
      expect(await creations(emulator)).toBe(posts);
      expectAdoptedInState(state(), adopted);
      const resources = (
        JSON.parse(state()) as { checkpoint: { latest: { resources: Array<{ type: string; protect?: boolean }> } } }
      ).checkpoint.latest.resources;
      expect(
        resources.filter((resource) => resource.type === "helpdesk:index:Webhook").map((resource) => resource.protect),
      ).toEqual([true, true, true]);
      expect(ran.stdout).toMatch(language.protectOption);
      for (const hook of adopted) expect(`${ran.stdout}${ran.stderr}`).not.toContain(hook.url);
      expect(ran.stdout).toMatch(language.tokenDeclared);
      expect(`${ran.stdout}${ran.stderr}`).not.toContain(TOKEN);
      expect(state()).not.toContain(TOKEN);
      language.declare(programDir, ran.stdout);
    });

    it("with the printed declarations as the program, pulumi preview --expect-no-changes passes", async () => {
      const preview = await run(["preview", "--expect-no-changes"]);
      expect(`${preview.stdout}${preview.stderr}`).not.toContain(TOKEN);
    });

    it("destroy, after pulumi state unprotect --all, deletes exactly the three adopted webhooks", async () => {
      await run(["state", "unprotect", "--all", "--yes"]);
      await run(["destroy", "--yes", "--skip-preview"]);
      expect((await heldWebhooks(emulator)).map((hook) => hook.id)).toEqual([bystander.id]);
    });
  });
}

describeAdoption({
  title: "pulumi-helpdesk import in a Python project with no Node.js (the release's CLI, the plugin from a mirror)",
  hosts: ["pulumi-language-python", "pulumi-language-python-exec"],
  runtime: "python",
  protectOption: /, opts=pulumi\.ResourceOptions\(protect=True\)\)$/m,
  tokenDeclared:
    /, use_delivery_token=True, delivery_token=helpdesk_delivery_tokens\.apply\(lambda tokens: tokens\[0\]\), opts=/,
  prepare: async (work, programDir) => {
    const venvBin = await releaseWheelVenv(work);
    writeFileSync(join(programDir, "Pulumi.yaml"), "name: helpdesk-adopt-python\nruntime: python\n");
    writeFileSync(join(programDir, "__main__.py"), "import pulumi\n");
    return [venvBin];
  },
  declare: (programDir, printed) => writeFileSync(join(programDir, "__main__.py"), `${printed}\n`),
});

describeAdoption({
  title: "pulumi-helpdesk import in a YAML project with no Node.js (the release's CLI, the plugin from a mirror)",
  hosts: ["pulumi-language-yaml"],
  runtime: "yaml",
  protectOption: /^ {6}protect: true$/m,
  tokenDeclared: /^ {6}useDeliveryToken: true\n {6}deliveryToken:\n {8}fn::select: \[0, /m,
  prepare: async (_work, programDir) => {
    writeFileSync(join(programDir, "Pulumi.yaml"), "name: helpdesk-adopt-yaml\nruntime: yaml\n");
    return [];
  },
  declare: (programDir, printed) => appendFileSync(join(programDir, "Pulumi.yaml"), `${printed}\n`),
});
