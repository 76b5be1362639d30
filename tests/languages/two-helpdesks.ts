/**
 * The suite shared by the language tests (yaml.test.ts, python.test.ts, typescript.test.ts): a program of
 * examples/<language> declares one webhook on the help desk of the stack's `helpdesk:*` config (the default provider)
 * and one on the help desk of its `eu:*` config (an explicit provider), through the native provider plugin
 * pulumi-resource-helpdesk. The `eu:*` config is written by the real `pulumi-helpdesk login --namespace eu` (the
 * emulator auto-approves; the test plays the browser). The real `pulumi` command runs the program against two real
 * emulators on 127.0.0.1, with a file:// backend; every check is made on the emulators' side or in what the backend
 * recorded. The program runs from a copy of examples/<language> with a `plugins:` section the test adds, naming this
 * repository's plugin launcher (tests/support/examples.ts): the examples name none. go.test.ts, whose program is not a `pulumi up` project but a Go program of its own (an Automation API
 * inline program), shares the help desks' set-up only ({@link signInTwoHelpdesks}).
 */

import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigMap } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenSet } from "../../auth/oauth.js";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved } from "../../emulator-client/index.js";
import { required } from "../../kernel/required.js";
import { shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { freePort, loginAutoApproved } from "../support/cli.js";
import { heldWebhooks } from "../support/emulator.js";
import { copyExampleWithLocalPlugin } from "../support/examples.js";
import { configAsLoginWrites } from "../support/pulumi.js";
import { pulumi, pulumiEnv, removeStack } from "../support/pulumi-cli.js";

/** What the plugin needs from the build: its launcher and the compiled entry it runs. */
export function pluginBuilt(): boolean {
  return (
    existsSync(join(repoRoot, "plugin", "pulumi-resource-helpdesk")) &&
    existsSync(join(repoRoot, "dist", "provider", "native", "main.js"))
  );
}

/** The config one login writes for the default provider (`helpdesk:*`), as `pulumi config set-all` arguments. */
function setAllArgs(
  baseUrl: string,
  client: { clientId: string; clientSecret: string; redirectUri: string },
  tokens: TokenSet,
): string[] {
  const config: ConfigMap = configAsLoginWrites(baseUrl, client, tokens);
  return Object.entries(config).flatMap(([key, { value, secret }]) => [
    secret ? "--secret" : "--plaintext",
    `${key}=${value}`,
  ]);
}

/** One help desk of the suite: its emulator, its OAuth client and the tokens its sign-in stored in the stack config. */
export interface Desk {
  emulator: RunningEmulator;
  client: { clientId: string; clientSecret: string; redirectUri: string; name: string };
  /** The tokens its sign-in stored in the stack config. */
  tokens: Pick<TokenSet, "accessToken" | "refreshToken">;
}

/**
 * Starts the two help desks of a stack and writes their config: the default one (`helpdesk:*`) signed in headlessly
 * and set as login writes it, the second (`eu:*`) by the real `pulumi-helpdesk login --namespace eu`, as the README
 * tells a person to do. The stack must exist.
 *
 * @param programDir the project folder (its Pulumi.yaml; `Pulumi.<stack>.yaml` is written there)
 * @param stack the stack name
 * @param env the environment of `pulumi` and `pulumi-helpdesk` runs (backend, passphrase)
 * @param run runs `pulumi <args> --stack <stack>` in `programDir` and returns its stdout (throws when it fails)
 * @param emulators receives each emulator as soon as it runs, for the caller to close (also after a failure)
 * @returns the default help desk, then the `eu` one
 * @throws Error when an emulator, the sign-in or the login fails, or login stored a setting that is not secret
 */
export async function signInTwoHelpdesks(
  programDir: string,
  stack: string,
  env: NodeJS.ProcessEnv,
  run: (args: string[]) => Promise<string>,
  emulators: RunningEmulator[],
): Promise<[Desk, Desk]> {
  // The default help desk: signed in headlessly, its config set as login writes it.
  const homeClient = {
    clientId: "default-client",
    clientSecret: "default-client-secret-value",
    redirectUri: "http://127.0.0.1:1/callback",
    name: "default",
  };
  const home = await startEmulator({ port: 0, autoApprove: true, clients: [homeClient] });
  emulators.push(home);
  const homeTokens = await signInAutoApproved({ baseUrl: home.url, ...homeClient });
  await run(["config", "set-all", ...setAllArgs(home.url, homeClient, homeTokens)]);
  // The second help desk: the real `pulumi-helpdesk login --namespace eu`.
  const euClient = {
    clientId: "eu-client",
    clientSecret: "eu-client-secret-value",
    redirectUri: `http://127.0.0.1:${await freePort()}/callback`,
    name: "eu",
  };
  const eu = await startEmulator({ port: 0, autoApprove: true, clients: [euClient] });
  emulators.push(eu);
  const login = await loginAutoApproved(
    { dir: programDir, env },
    { stack, baseUrl: eu.url, client: euClient, namespace: "eu" },
  );
  expect(login.stdout).toContain("eu:accessToken (secret)");
  const config = JSON.parse(await run(["config", "--show-secrets", "--json"])) as Record<
    string,
    { value?: string; secret?: boolean }
  >;
  for (const key of ["eu:accessToken", "eu:refreshToken", "eu:clientSecret"])
    expect(config[key]?.secret, key).toBe(true);
  return [
    { emulator: home, client: homeClient, tokens: homeTokens },
    {
      emulator: eu,
      client: euClient,
      tokens: {
        accessToken: required(config["eu:accessToken"]?.value, "config eu:accessToken"),
        refreshToken: required(config["eu:refreshToken"], "config eu:refreshToken").value,
      },
    },
  ];
}

/** Where the programs' webhooks deliver to (their config `receiverBaseUrl` left unset). */
const RECEIVERS = "https://hooks.example.test";

/**
 * Checks that each help desk holds exactly the program's one webhook, active, with the id the stack outputs name.
 *
 * @param desks the default help desk, then the `eu` one
 * @param outputs the stack outputs (`ticketsOpenedId`, `euCustomerRepliedId`, `euCustomerRepliedState`)
 */
export async function expectOneWebhookEach([home, eu]: [Desk, Desk], outputs: Record<string, string>): Promise<void> {
  expect((await heldWebhooks(home.emulator)).map(({ id, event, url, state }) => ({ id, event, url, state }))).toEqual([
    { id: outputs.ticketsOpenedId, event: "ticket_opened", url: `${RECEIVERS}/tickets/opened`, state: "active" },
  ]);
  expect((await heldWebhooks(eu.emulator)).map(({ id, event, url, state }) => ({ id, event, url, state }))).toEqual([
    { id: outputs.euCustomerRepliedId, event: "customer_replied", url: `${RECEIVERS}/eu/replies`, state: "active" },
  ]);
  expect(outputs.euCustomerRepliedState).toBe("active");
}

/**
 * Checks that a stack's recorded state holds the webhooks and no credential of either help desk in plain text.
 *
 * @param state the state as the backend recorded it (a checkpoint file, or `pulumi stack export` without
 *   `--show-secrets`)
 * @param desks the help desks whose access token, refresh token and client secret must not appear
 */
export function expectNoCredentialIn(state: string, desks: Desk[]): void {
  expect(state).toContain("helpdesk:index:Webhook");
  for (const { tokens, client } of desks) {
    expect(state).not.toContain(tokens.accessToken);
    expect(tokens.refreshToken).toBeTruthy();
    expect(state).not.toContain(tokens.refreshToken);
    expect(state).not.toContain(client.clientSecret);
  }
}

/**
 * Defines the suite.
 *
 * @param title the describe title
 * @param options.example the example's folder name (examples/<example>), run from a copy
 * @param options.ready whether the tools the language needs are there (tests/support/tools.ts `toolAvailable`)
 * @param options.prepare returns the environment of `pulumi` runs for this language (given the base environment)
 */
export function describeTwoHelpdesks(
  title: string,
  options: {
    example: string;
    ready: () => boolean;
    prepare: (env: NodeJS.ProcessEnv, workDir: string) => Promise<NodeJS.ProcessEnv>;
  },
): void {
  describe.skipIf(!options.ready())(title, () => {
    const desks: Desk[] = [];
    const emulators: RunningEmulator[] = [];
    const stack = `t${Math.random().toString(16).slice(2, 10)}`;
    let workDir: string;
    let programDir: string;
    let env: NodeJS.ProcessEnv;

    async function run(args: string[]): Promise<string> {
      const ran = await pulumi([...args, "--stack", stack], programDir, env);
      if (ran.code !== 0) throw new Error(shown(`pulumi ${args.join(" ")}`, ran));
      return ran.stdout;
    }

    beforeAll(async () => {
      workDir = mkdtempSync(join(tmpdir(), "helpdesk-language-"));
      mkdirSync(join(workDir, "state"));
      programDir = copyExampleWithLocalPlugin(options.example, join(workDir, "program"));
      env = await options.prepare(pulumiEnv(`file://${join(workDir, "state")}`, join(workDir, "token-cache")), workDir);
      await run(["stack", "init"]);
      desks.push(...(await signInTwoHelpdesks(programDir, stack, env, run, emulators)));
    });

    afterAll(async () => {
      if (env && programDir) {
        await pulumi(["destroy", "--yes", "--stack", stack], programDir, env).catch(() => undefined);
        await removeStack(stack, programDir, env);
      }
      for (const emulator of emulators) await emulator.close();
      if (workDir) rmSync(workDir, { recursive: true, force: true });
    });

    it("up registers one webhook on each help desk, through the default and the explicit provider", async () => {
      await run(["up", "--yes", "--skip-preview"]);
      await expectOneWebhookEach(
        desks as [Desk, Desk],
        JSON.parse(await run(["stack", "output", "--json"])) as Record<string, string>,
      );
    });

    it("a second up changes nothing", async () => {
      const preview = await run(["preview", "--expect-no-changes"]);
      expect(preview).not.toMatch(/\bto create\b|\bto replace\b|\bto delete\b/);
    });

    it("pulumi stack export holds no plaintext token or client secret of either help desk", async () => {
      expectNoCredentialIn(await run(["stack", "export"]), desks);
    });

    it("destroy removes both webhooks from their help desks", async () => {
      await run(["destroy", "--yes", "--skip-preview"]);
      for (const { emulator } of desks) expect(await heldWebhooks(emulator)).toEqual([]);
    });
  });
}
