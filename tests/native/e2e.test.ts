/**
 * The native provider plugin end to end: the real Pulumi CLI (Automation API) runs tests/native/program, a TypeScript
 * program using `pulumi-helpdesk/native`, and finds `pulumi-resource-helpdesk` through its Pulumi.yaml
 * `plugins.providers` path. Three real emulators on 127.0.0.1 are three help desks: the default provider (the stack
 * config as `pulumi-helpdesk login` writes it) uses the first; two explicit `Provider`s use the second and third, each
 * signed in with the real `pulumi-helpdesk login --namespace a` / `--namespace b` (the program reads `a:*`, `b:*`),
 * the third with an expired access token that its provider instance must renew. Everything is checked on the emulators'
 * side. Then: adoption with the `import` option, `pulumi refresh`, `pulumi import` refused, and `pulumi destroy`.
 */

import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenSet } from "../../auth/oauth.js";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { required } from "../../kernel/required.js";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { freePort, loginAutoApproved, runCli } from "../support/cli.js";
import { emulatorStats, heldWebhooks } from "../support/emulator.js";
import {
  cliEnvOf,
  configAsLoginWrites,
  createTestStack,
  pulumiAvailable,
  readStateFile,
  type TestStack,
} from "../support/pulumi.js";

const programDir = fileURLToPath(new URL("./program", import.meta.url));
const projectName = "helpdesk-native";

interface Desk {
  name: string;
  client: { clientId: string; clientSecret: string; redirectUri: string; name: string };
  emulator: RunningEmulator;
  /** The tokens its sign-in stored in the stack config. */
  tokens: Pick<TokenSet, "accessToken" | "refreshToken">;
}

interface HookSpec {
  name: string;
  event: string;
  url: string;
  provider?: string;
  secretUrl?: boolean;
  importId?: string;
}

const secretUrl = "https://hooks.example.test/a/secret-path-5f1e2d";
const declared: HookSpec[] = [
  { name: "default-opened", event: "ticket_opened", url: "https://hooks.example.test/default" },
  { name: "a-closed", event: "ticket_closed", url: secretUrl, provider: "a", secretUrl: true },
  { name: "b-replied", event: "customer_replied", url: "https://hooks.example.test/b", provider: "b" },
];

/** Registers a webhook directly through the API (as someone would in the help desk), returning its id. */
async function createOutsidePulumi(desk: Desk, event: string, url: string): Promise<string> {
  const response = await fetch(`${desk.emulator.url}/v1/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${desk.tokens.accessToken}`, "content-type": "application/json" },
    body: JSON.stringify({ event, url }),
  });
  expect(response.status).toBe(201);
  const body = (await response.json()) as { webhook: { id?: string } };
  expect(body.webhook.id).toBeTruthy();
  return required(body.webhook.id, "the created webhook's id");
}

/** The count of token-endpoint requests an emulator answered. */
async function tokenRequests(emulator: RunningEmulator): Promise<number> {
  const { byRoute } = await emulatorStats(emulator);
  return Object.entries(byRoute)
    .filter(([route]) => route.includes("/oauth/token"))
    .reduce((sum, [, count]) => sum + count, 0);
}

describe.skipIf(!pulumiAvailable())(
  "native provider plugin: pulumi up / refresh / import / destroy with three help desks",
  () => {
    const desks: Desk[] = [];
    let test: TestStack;
    let hooks: HookSpec[] = [...declared];
    let ids: Record<string, string> = {};
    /** The environment of `pulumi-helpdesk` runs on the test's stack (its backend, passphrase and token cache). */
    let cliEnv: NodeJS.ProcessEnv;
    const desk = (name: string): Desk =>
      required(
        desks.find((d) => d.name === name),
        `help desk ${name}`,
      );
    const setHooks = async (next: HookSpec[]): Promise<void> => {
      hooks = next;
      await test.stack.setConfig("native:hooks", { value: JSON.stringify(next) });
    };

    beforeAll(async () => {
      // The program imports the built package (pulumi-helpdesk/native) and the launcher runs the built plugin.
      for (const built of ["dist/native/index.js", "dist/bin/pulumi-resource-helpdesk.js"]) {
        if (!existsSync(new URL(`../../${built}`, import.meta.url)))
          throw new Error(`${built} is missing: run \`npm run build\` first`);
      }
      for (const name of ["default", "a", "b"]) {
        const redirectUri =
          name === "default" ? "http://127.0.0.1:1/callback" : `http://127.0.0.1:${await freePort()}/callback`;
        const client = {
          clientId: `native-${name}`,
          clientSecret: `native-${name}-client-secret-value`,
          redirectUri,
          name,
        };
        const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
        // The explicit providers' tokens are known once `login --namespace` below has stored them.
        desks.push({
          name,
          client,
          emulator,
          tokens:
            name === "default"
              ? await signIn({ baseUrl: emulator.url, ...client })
              : { accessToken: "", refreshToken: undefined },
        });
      }
      const explicit = desks.filter((d) => d.name !== "default");
      test = await createTestStack(programDir, {
        ...configAsLoginWrites(desk("default").emulator.url, desk("default").client, desk("default").tokens),
        "native:providers": { value: JSON.stringify(explicit.map((d) => d.name)) },
        "native:hooks": { value: JSON.stringify(hooks) },
      });
      // Each explicit provider's help desk: the real `pulumi-helpdesk login --namespace <name>` on the test's stack.
      cliEnv = cliEnvOf(test);
      for (const d of explicit) {
        await loginAutoApproved(
          { dir: programDir, env: cliEnv },
          { stack: test.stack.name, baseUrl: d.emulator.url, client: d.client, namespace: d.name },
        );
        const stored = await test.stack.getAllConfig();
        const accessToken = required(stored[`${d.name}:accessToken`], `config ${d.name}:accessToken`);
        d.tokens = {
          accessToken: accessToken.value,
          refreshToken: required(stored[`${d.name}:refreshToken`], `config ${d.name}:refreshToken`).value,
        };
        expect(accessToken.secret).toBe(true);
      }
      // Provider b's access token "expired" long ago: its instance must renew it with the refresh grant.
      await test.stack.setConfig("b:tokenExpiresAt", { value: "2000-01-01T00:00:00Z" });
    });

    afterAll(async () => {
      await test?.stack.destroy().catch(() => undefined);
      await test?.dispose();
      for (const d of desks) await d.emulator.close();
    });

    it("up creates each webhook on its own help desk, renewing provider b's expired token", async () => {
      const before = { a: await tokenRequests(desk("a").emulator), b: await tokenRequests(desk("b").emulator) };
      const result = await test.stack.up();
      expect(result.summary.result).toBe("succeeded");
      ids = result.outputs.ids?.value as Record<string, string>;
      for (const spec of declared) {
        const held = await heldWebhooks(desk(spec.provider ?? "default").emulator);
        expect(held.map(({ id, event, url, state }) => ({ id, event, url, state }))).toEqual([
          { id: ids[spec.name], event: spec.event, url: spec.url, state: "active" },
        ]);
      }
      // Provider b renewed its token at its own help desk; the others did not need to.
      // (The sign-in of each desk's setup made one token request already.)
      expect(await tokenRequests(desk("b").emulator)).toBe(before.b + 1);
      expect(await tokenRequests(desk("a").emulator)).toBe(before.a);
    });

    it("the CLI sees provider b's renewal under --namespace b: status says the cache is newer, refresh stores it in b:*", async () => {
      const where = { dir: programDir, env: cliEnv };
      const status = await runCli(["status", "--stack", test.stack.name, "--namespace", "b", "--json"], where);
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({
        namespace: "b",
        baseUrl: desk("b").emulator.url,
        newerTokensCached: true,
      });
      const before = await tokenRequests(desk("b").emulator);
      const refreshed = await runCli(["refresh", "--stack", test.stack.name, "--namespace", "b"], where);
      expect(refreshed.code, refreshed.stderr).toBe(0);
      expect(refreshed.stderr).toContain('(namespace "b") from the local token cache');
      expect(await tokenRequests(desk("b").emulator)).toBe(before); // stored from the cache, nothing spent
      const stored = await test.stack.getAllConfig();
      const value = (key: string): string => required(stored[key], `config ${key}`).value;
      expect(value("b:accessToken")).not.toBe(desk("b").tokens.accessToken);
      expect(Date.parse(value("b:tokenExpiresAt"))).toBeGreaterThan(Date.now());
      expect(value("a:accessToken")).toBe(desk("a").tokens.accessToken);
      expect(value("helpdesk:accessToken")).toBe(desk("default").tokens.accessToken);
      desk("b").tokens = { accessToken: value("b:accessToken"), refreshToken: value("b:refreshToken") };
    });

    it("a second up changes nothing", async () => {
      const result = await test.stack.up();
      expect(result.summary.resourceChanges?.create ?? 0).toBe(0);
      expect(result.summary.resourceChanges?.replace ?? 0).toBe(0);
      expect(result.summary.resourceChanges?.delete ?? 0).toBe(0);
    });

    it("the persisted state holds no plaintext credential, and the secret url only as ciphertext", async () => {
      const state = readStateFile(test, projectName);
      for (const d of desks) {
        expect(state).not.toContain(d.tokens.accessToken);
        expect(d.tokens.refreshToken).toBeTruthy();
        expect(state).not.toContain(d.tokens.refreshToken);
        expect(state).not.toContain(d.client.clientSecret);
      }
      expect(state).not.toContain(secretUrl);
      const deployment = JSON.parse(state) as {
        checkpoint: {
          latest: {
            resources: Array<{
              urn: string;
              type: string;
              outputs?: Record<string, unknown>;
              inputs?: Record<string, unknown>;
            }>;
          };
        };
      };
      const resources = deployment.checkpoint.latest.resources;
      const a = required(
        resources.find((r) => r.urn.endsWith("::a-closed")),
        "the resource a-closed",
      );
      expect(a.type).toBe("helpdesk:index:Webhook");
      expect(JSON.stringify(a.outputs?.url)).toContain("ciphertext");
      const providers = resources.filter((r) => r.type === "pulumi:providers:helpdesk");
      expect(providers.length).toBe(3); // default, a, b
      for (const provider of providers) expect(JSON.stringify(provider.inputs?.accessToken)).toContain("ciphertext");
    });

    it("the import option adopts an existing webhook with the declared event and url, without a request", async () => {
      const id = await createOutsidePulumi(desk("a"), "agent_invited", "https://hooks.example.test/adopted");
      await setHooks([
        ...hooks,
        {
          name: "adopted",
          event: "agent_invited",
          url: "https://hooks.example.test/adopted",
          provider: "a",
          importId: id,
        },
      ]);
      const result = await test.stack.up();
      expect(result.summary.result).toBe("succeeded");
      expect(result.summary.resourceChanges?.import).toBe(1);
      const outputs = result.outputs;
      expect((outputs.ids?.value as Record<string, string> | undefined)?.adopted).toBe(id);
      expect((outputs.states?.value as Record<string, string> | undefined)?.adopted).toBe("unknown");
      const held = await heldWebhooks(desk("a").emulator);
      expect(held.filter((hook) => hook.id === id)).toHaveLength(1);
      expect(held).toHaveLength(2);
      // A later up with the import option still in place is a no-op.
      const again = await test.stack.up();
      expect(again.summary.resourceChanges?.import ?? 0).toBe(0);
      expect(again.summary.resourceChanges?.update ?? 0).toBe(0);
    });

    it("refresh keeps the recorded state (the API cannot read a webhook) and says so: one warning per provider instance, no url", async () => {
      const before = readStateFile(test, projectName);
      const events: EngineEvent[] = [];
      const result = await test.stack.refresh({ onEvent: (event) => events.push(event) });
      expect(result.summary.result).toBe("succeeded");
      // One warning of each provider resource (the engine's Log service, at its Cancel), counting that instance's webhooks.
      const warnings = events.flatMap((event) =>
        event.diagnosticEvent?.message.includes("refresh cannot ask the help desk") ? [event.diagnosticEvent] : [],
      );
      const byProvider = Object.fromEntries(
        warnings.map((warning) => [warning.urn?.split("::").pop(), warning.message.match(/kept (\d+) webhooks?/)?.[1]]),
      );
      expect(warnings.every((warning) => warning.severity === "warning")).toBe(true);
      expect(warnings).toHaveLength(3);
      const count = (provider: string | undefined) => String(hooks.filter((hook) => hook.provider === provider).length);
      expect(byProvider).toEqual({
        a: count("a"),
        b: count("b"),
        [Object.keys(byProvider).find((name) => name?.startsWith("default")) ?? "default"]: count(undefined),
      });
      for (const hook of hooks) expect(`${result.stdout}${result.stderr}`).not.toContain(hook.url);
      const after = JSON.parse(readStateFile(test, projectName)) as {
        checkpoint: { latest: { resources: Array<{ urn: string; id?: string; outputs?: Record<string, unknown> }> } };
      };
      const previous = JSON.parse(before) as typeof after;
      const outputsOf = (s: typeof after) =>
        Object.fromEntries(
          s.checkpoint.latest.resources
            .filter((r) => r.id)
            .map((r) => [r.urn, { id: r.id, event: r.outputs?.event, state: r.outputs?.state }]),
        );
      expect(outputsOf(after)).toEqual(outputsOf(previous));
    });

    it("`pulumi import` is refused with a message that points to `pulumi-helpdesk import --from` and the import option", async () => {
      const id = await createOutsidePulumi(desk("default"), "note_added", "https://hooks.example.test/cli-import");
      const env = {
        ...process.env,
        PULUMI_BACKEND_URL: `file://${test.stateDir}`,
        PULUMI_CONFIG_PASSPHRASE: "test-passphrase",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      };
      const ran = await runCommand(
        "pulumi",
        [
          "import",
          "helpdesk:index:Webhook",
          "cli-imported",
          id,
          "--yes",
          "--stack",
          test.stack.name,
          "--non-interactive",
        ],
        { cwd: programDir, env },
      );
      expect(ran.code, shown("pulumi import", ran)).not.toBe(0);
      expect(`${ran.stdout}${ran.stderr}`).toContain("import` resource option");
      expect(`${ran.stdout}${ran.stderr}`).toContain("pulumi-helpdesk import --from <file>");
      // Nothing recorded: the webhook is not in the stack.
      expect(readStateFile(test, projectName)).not.toContain(id);
    });

    it("destroy removes every webhook from every help desk, the adopted one included", async () => {
      // One webhook was deleted in the help desk meanwhile: destroy still succeeds, with the core's warning shown
      // through the engine's Log service.
      const gone = await fetch(`${desk("a").emulator.url}/v1/webhooks/${ids["a-closed"]}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${desk("a").tokens.accessToken}` },
      });
      expect(gone.status).toBe(204);
      const result = await test.stack.destroy();
      expect(result.summary.result).toBe("succeeded");
      // A diagnostic of that resource (the engine's Log service, with the URN), not a line of plugin stderr.
      expect(result.stdout).toMatch(
        /helpdesk:index:Webhook \(a-closed\):\s+warning: webhook \S+ \(ticket_closed\) was already gone/,
      );
      expect(await heldWebhooks(desk("a").emulator)).toEqual([]);
      expect(await heldWebhooks(desk("b").emulator)).toEqual([]);
      // The default desk keeps only the webhook that `pulumi import` refused to take.
      expect((await heldWebhooks(desk("default").emulator)).map((hook) => hook.url)).toEqual([
        "https://hooks.example.test/cli-import",
      ]);
    });
  },
);
