/**
 * The main job on a shared state backend, as a team runs it: Pulumi's DIY PostgreSQL backend on a real PostgreSQL
 * server (a throw-away cluster on 127.0.0.1), `pulumi-helpdesk login` through the OAuth exchange against the
 * emulator, then `pulumi up` and `pulumi destroy` with the real CLI, checking the emulator's webhooks after each. And
 * two people running `pulumi up` on the same stack at once: the backend's lock lets one run, and the other stops with
 * Pulumi's lock error before it changes anything.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CLIENT, type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { completeAuthorizationAutoApproved } from "../../emulator-client/index.js";
import { FLEET_PROGRAM_DIR, type FleetWebhook, WEBHOOKS_CONFIG_KEY } from "../../examples/fleet/fleet.ts";
import { shown, waitFor } from "../../scripts/lib/processes.ts";
import { freePort, loginArgs, startCli, type TestProject } from "../support/cli.js";
import { emulatorStats, heldWebhooks, setFaults } from "../support/emulator.js";
import { type PostgresServer, postgresAvailable, startPostgres } from "../support/postgres.js";
import { pulumiAvailable } from "../support/pulumi.js";
import {
  checkpointsInPostgres,
  DIY_LOCK_ERROR,
  exportState,
  pulumi,
  pulumiEnv,
  removeStack,
  webhookLines,
} from "../support/pulumi-cli.js";

const project = "helpdesk-fleet"; // the name in examples/fleet/program/Pulumi.yaml
const stack = `team-${randomBytes(4).toString("hex")}`;
const hooks = (from: number, to: number): FleetWebhook[] =>
  Array.from({ length: to - from }, (_, i) => ({
    name: `hook-${from + i}`,
    event: "ticket_opened",
    url: `https://hooks.example.test/team/${from + i}`,
  }));

describe.skipIf(!(pulumiAvailable() && postgresAvailable()))(
  "the main job on Pulumi's PostgreSQL state backend",
  () => {
    let server: PostgresServer;
    let emulator: RunningEmulator;
    let scratch: string;
    let env: NodeJS.ProcessEnv;

    const up = () => pulumi(["up", "--yes", "--skip-preview", "--stack", stack], FLEET_PROGRAM_DIR, env);
    const setWebhooks = async (list: FleetWebhook[]) => {
      const set = await pulumi(
        ["config", "set", WEBHOOKS_CONFIG_KEY, JSON.stringify(list), "--stack", stack],
        FLEET_PROGRAM_DIR,
        env,
      );
      expect(set.code, shown("pulumi config set", set)).toBe(0);
    };
    /**
     * Keys of Pulumi's table (`pulumi_state`, which Pulumi creates itself) for this stack: its checkpoint
     * (`<db>/.pulumi/stacks/<project>/<stack>.json`) or its locks (`<db>/.pulumi/locks/organization/<project>/<stack>/<id>.json`).
     */
    const rows = (folder: "stacks" | "locks") =>
      server.query(
        `SELECT key FROM pulumi_state WHERE key LIKE '%/.pulumi/${folder}/%${project}/${stack}${folder === "locks" ? "/" : "."}%' ORDER BY key`,
      );

    /** Every webhook the checkpoint records exists on the emulator with its event and url, and nothing else does. */
    const expectAgreement = async (count: number) => {
      const state = await exportState(stack, FLEET_PROGRAM_DIR, env);
      const held = await heldWebhooks(emulator);
      expect(state.pendingOperations).toEqual([]);
      expect(state.webhooks).toHaveLength(count);
      expect(webhookLines(held)).toEqual(webhookLines(state.webhooks));
    };

    beforeAll(async () => {
      server = await startPostgres();
      scratch = mkdtempSync(join(tmpdir(), "helpdesk-team-"));
      env = pulumiEnv(server.backendUrl, join(scratch, "token-cache"));
    });

    afterAll(async () => {
      // The emulator and the database are thrown away: removing the stack's config file is all that is left to do.
      if (env) await removeStack(stack, FLEET_PROGRAM_DIR, env);
      await emulator?.close();
      await server?.stop();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    it("pulumi-helpdesk login creates the stack in PostgreSQL and stores the credentials in its config", async () => {
      const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
      emulator = await startEmulator({ port: 0, autoApprove: true, clients: [{ ...DEFAULT_CLIENT, redirectUri }] });
      const where: TestProject = { dir: FLEET_PROGRAM_DIR, env, stackFile: () => "", dispose: () => undefined };
      const login = startCli(
        loginArgs({ stack, baseUrl: emulator.url, client: { clientId: DEFAULT_CLIENT.clientId, redirectUri } }, 120),
        where,
        { HELPDESK_CLIENT_SECRET: DEFAULT_CLIENT.clientSecret },
      );
      login.child.stdin.end();
      await completeAuthorizationAutoApproved(await login.authorizeUrl);
      const done = await login.done;
      expect(done.code, `login exited with ${done.code}\n${done.stderr}`).toBe(0);
      // Pulumi created its table itself and keeps the stack's checkpoint in it.
      expect(
        (await rows("stacks")).filter((key) => key.endsWith(`/.pulumi/stacks/${project}/${stack}.json`)),
      ).toHaveLength(1);
      const baseUrl = await pulumi(["config", "get", "helpdesk:baseUrl", "--stack", stack], FLEET_PROGRAM_DIR, env);
      expect(baseUrl.stdout.trim()).toBe(emulator.url);
    });

    it("pulumi up registers the declared webhooks, and the checkpoint in PostgreSQL records their ids", async () => {
      await setWebhooks(hooks(0, 3));
      const ran = await up();
      expect(ran.code, shown("pulumi up", ran)).toBe(0);
      const held = await heldWebhooks(emulator);
      expect(held.map(({ event, url }) => ({ event, url })).sort((a, b) => a.url.localeCompare(b.url))).toEqual(
        hooks(0, 3).map(({ event, url }) => ({ event, url })),
      );
      // The checkpoint as the database holds it (base64 JSON in Pulumi's `pulumi_state` table), read with psql.
      const checkpoint = (await checkpointsInPostgres(server, project, stack)).get(stack);
      expect(checkpoint?.webhooks.map((hook) => hook.id).sort()).toEqual(held.map((hook) => hook.id).sort());
      await expectAgreement(3);
    });

    it("two pulumi up of the same stack at once: the second stops with Pulumi's lock error, and state and help desk agree", async () => {
      await setWebhooks(hooks(0, 8));
      // Slow creates keep the first run (and its lock) alive while the second one starts.
      await setFaults(emulator, { latencyMs: 3000 });
      const postsBefore = (await emulatorStats(emulator)).byRoute["POST /v1/webhooks"] ?? 0;
      let firstDone = false;
      const first = up().finally(() => (firstDone = true));
      const [lock] = await waitFor(
        "the first run's lock row",
        async () => ((await rows("locks")).length > 0 ? await rows("locks") : undefined),
        60_000,
        25,
      );
      const second = await up();
      expect(firstDone, "the first run still holds the lock while the second one is refused").toBe(false);
      expect(second.code, shown("the second pulumi up", second)).not.toBe(0);
      expect(second.stderr).toContain(DIY_LOCK_ERROR);
      // It names the lock, with the database's credentials masked.
      expect(second.stderr).toContain(`postgres://****:****@127.0.0.1:${server.port}/${lock}`);
      expect(second.stderr).not.toContain(new URL(server.backendUrl).password);
      const firstRun = await first;
      expect(firstRun.code, shown("the first pulumi up", firstRun)).toBe(0);
      await setFaults(emulator, {});
      // Only the first run sent creates: one per new webhook.
      expect(((await emulatorStats(emulator)).byRoute["POST /v1/webhooks"] ?? 0) - postsBefore).toBe(5);
      expect(await rows("locks")).toEqual([]);
      await expectAgreement(8);
      console.log(`lock error of the second pulumi up:\n${second.stderr.trim()}`);
    });

    it("the database password can stay out of the backend URL (PGPASSWORD), and then out of Pulumi's messages", async () => {
      // Pulumi repeats the backend URL when it cannot open the database ("unable to open state database \"postgres://
      // user:password@...\""), password included; lib/pq, its driver, also reads PGPASSWORD and PGSSLMODE.
      const { username, password, pathname } = new URL(server.backendUrl);
      const bare = `postgres://${username}@127.0.0.1:${server.port}${pathname}`;
      const works = await pulumi(["stack", "ls"], FLEET_PROGRAM_DIR, {
        ...env,
        PULUMI_BACKEND_URL: bare,
        PGPASSWORD: password,
        PGSSLMODE: "disable",
      });
      expect(works.code, shown("pulumi stack ls", works)).toBe(0);
      expect(works.stdout).toContain(stack);
      const refused = await pulumi(["stack", "ls"], FLEET_PROGRAM_DIR, {
        ...env,
        PULUMI_BACKEND_URL: bare,
        PGPASSWORD: "a-wrong-password",
        PGSSLMODE: "disable",
      });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`unable to open state database "${bare}"`);
      expect(refused.stderr).toContain("password authentication failed");
      expect(refused.stderr + refused.stdout).not.toContain("a-wrong-password");
    });

    it("pulumi destroy removes every webhook", async () => {
      const ran = await pulumi(["destroy", "--yes", "--skip-preview", "--stack", stack], FLEET_PROGRAM_DIR, env);
      expect(ran.code, shown("pulumi destroy", ran)).toBe(0);
      expect(await heldWebhooks(emulator)).toEqual([]);
      await expectAgreement(0);
    });
  },
);
