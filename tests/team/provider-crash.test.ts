/**
 * Crashes in the middle of `pulumi up`, while webhook creates are in flight (the emulator delays every request by
 * 2 s, and `--parallel 4` keeps four creates in flight at a time), on the PostgreSQL state backend:
 *
 * 1. The dynamic provider process (`node .../@pulumi/pulumi/cmd/dynamic-provider/index.js`) is killed with SIGKILL.
 *    The engine survives: it fails the in-flight creates ("error reading from server: EOF"), names each of them, and
 *    records no pending operation. The help desk has created those webhooks anyway (the requests had arrived), so they
 *    are orphans. The next `pulumi up` needs no `cancel` or `refresh`, and creates them a second time: the orphans
 *    stay. The test measures them, shows that they are exactly the webhooks of the resources the failed run named, and
 *    removes them as a user would (by their url, in the help desk).
 * 2. The whole `pulumi up` (CLI, language host, provider) is killed with SIGKILL, as when a CI job is cancelled or a
 *    machine is lost. The checkpoint keeps a `creating` pending operation for each in-flight create, and the lock stays
 *    in the backend. The way back: `pulumi cancel` (removes the lock); delete, in the help desk, the webhook of each
 *    pending create (found by its url); `pulumi refresh --clear-pending-creates`; `pulumi up`: state and help desk
 *    agree, with no orphan.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved } from "../../emulator-client/index.js";
import { FLEET_PROGRAM_DIR, type FleetWebhook, WEBHOOKS_CONFIG_KEY } from "../../examples/fleet/fleet.ts";
import { required } from "../../kernel/required.ts";
import { descendantsMatching, type Ran, shown, waitFor } from "../../scripts/lib/processes.ts";
import { emulatorStats, type HeldWebhook, heldWebhooks, setFaults } from "../support/emulator.js";
import { type PostgresServer, postgresAvailable, startPostgres } from "../support/postgres.js";
import { pulumiAvailable } from "../support/pulumi.js";
import {
  DIY_LOCK_ERROR,
  exportState,
  pulumi,
  pulumiEnv,
  type RecordedState,
  removeStack,
  webhookLines,
} from "../support/pulumi-cli.js";

const client = {
  clientId: "crash-client",
  clientSecret: "crash-client-secret",
  redirectUri: "http://127.0.0.1:1/callback",
};
const HOOKS = 12;
const PARALLEL = 4;
const LATENCY_MS = 2000;
const run = randomBytes(3).toString("hex");

const hooksOf = (stack: string): FleetWebhook[] =>
  Array.from({ length: HOOKS }, (_, i) => ({
    name: `hook-${i}`,
    event: "ticket_assigned",
    url: `https://hooks.example.test/${stack}/${i}`,
  }));

/** One scenario's own help desk (an emulator), stack and environment: the two scenarios run at the same time. */
interface Scenario {
  stack: string;
  emulator: RunningEmulator;
  /** The environment of this scenario's `pulumi` runs. */
  env: NodeJS.ProcessEnv;
  /** Runs `pulumi <args> --non-interactive` in the program's directory with this scenario's environment. */
  cli(args: string[]): Promise<Ran>;
  /** What the stack's checkpoint records (`pulumi stack export`). */
  state(): Promise<RecordedState>;
  /** This stack's webhooks in the help desk. */
  held(): Promise<HeldWebhook[]>;
  /** Deletes a webhook in the help desk, as a person does in its web page. */
  deleteWebhook(id: string): Promise<void>;
  /**
   * Starts `pulumi up` with slow creates, waits until a first wave of creates is answered and the next `PARALLEL`
   * ones are in flight, kills the processes `victims` picks among the run's, and waits until the help desk has
   * answered every request it had received.
   *
   * @returns the run's end, and the POSTs the help desk received from it
   */
  upAndKill(victims: (upPid: number) => number[]): Promise<{ ran: Ran; posted: number }>;
}

describe.skipIf(!(pulumiAvailable() && postgresAvailable())).concurrent("a crash in the middle of pulumi up", () => {
  let server: PostgresServer;
  let scratch: string;
  const scenarios: Scenario[] = [];
  const report: string[] = [];

  /** A help desk, and a new stack whose config declares its webhooks; credentials come from the environment, as in CI. */
  const scenario = async (name: string): Promise<Scenario> => {
    const stack = `${name}-${run}`;
    const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
    const tokens = await signInAutoApproved({ baseUrl: emulator.url, ...client });
    const env = {
      ...pulumiEnv(server.backendUrl, join(scratch, name)),
      HELPDESK_BASE_URL: emulator.url,
      HELPDESK_ACCESS_TOKEN: tokens.accessToken,
    };
    const cli = (args: string[]) => pulumi(args, FLEET_PROGRAM_DIR, env);
    /** POSTs the help desk has answered (its statistics count a request by route when the response is done). */
    const posts = async () => (await emulatorStats(emulator)).byRoute["POST /v1/webhooks"] ?? 0;
    /**
     * Requests received and not answered yet: a request counts in `requests` when it arrives and in `byRoute` when
     * answered; the statistics request itself is the one not answered. Only the provider's requests are in flight.
     */
    const inFlight = async () => {
      const stats = await emulatorStats(emulator);
      return stats.requests - Object.values(stats.byRoute).reduce((sum, n) => sum + n, 0) - 1;
    };
    const created: Scenario = {
      stack,
      emulator,
      env,
      cli,
      state: () => exportState(stack, FLEET_PROGRAM_DIR, env),
      held: async () =>
        (await heldWebhooks(emulator)).filter((hook) => hook.url.startsWith(`https://hooks.example.test/${stack}/`)),
      async deleteWebhook(id) {
        const response = await request(`${emulator.url}/v1/webhooks/${id}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${tokens.accessToken}` },
        });
        await response.body.dump();
        expect(response.statusCode).toBe(204);
      },
      async upAndKill(victims) {
        await setFaults(emulator, { latencyMs: LATENCY_MS });
        const up = cli(["up", "--yes", "--skip-preview", "--parallel", String(PARALLEL), "--stack", stack]);
        await waitFor(
          "a first wave of creates answered and the next one in flight",
          async () => (await posts()) >= PARALLEL && (await inFlight()) >= PARALLEL,
          120_000,
        );
        const [upProcess] = descendantsMatching(process.pid, new RegExp(`^pulumi up .*--stack ${stack}\\b`));
        const pids = victims(required(upProcess, "the pulumi up process").pid);
        expect(pids.length).toBeGreaterThan(0);
        for (const pid of pids) process.kill(pid, "SIGKILL");
        const ran = await up;
        // No process is left to send a request; those in flight still run to their end on the help desk's side.
        await waitFor("the help desk to answer the requests in flight", async () => (await inFlight()) === 0, 30_000);
        await setFaults(emulator, {});
        return { ran, posted: await posts() };
      },
    };
    scenarios.push(created);
    const init = await cli(["stack", "init", stack]);
    expect(init.code, shown("pulumi stack init", init)).toBe(0);
    const set = await cli(["config", "set", WEBHOOKS_CONFIG_KEY, JSON.stringify(hooksOf(stack)), "--stack", stack]);
    expect(set.code, shown("pulumi config set", set)).toBe(0);
    return created;
  };

  const nameOfUrl = (url: string) => `hook-${url.split("/").pop()}`;

  /** Every webhook the checkpoint records exists in the help desk, and none other of this stack's. */
  const expectAgreement = async (scenario: Scenario, state: RecordedState) => {
    expect(webhookLines(await scenario.held())).toEqual(webhookLines(state.webhooks));
    expect(state.pendingOperations).toEqual([]);
  };

  beforeAll(async () => {
    server = await startPostgres();
    scratch = mkdtempSync(join(tmpdir(), "helpdesk-crash-"));
    // Open the state backend once before the two scenarios run at once: on a new PostgreSQL database Pulumi creates
    // its table on first use, and two processes doing that together fail (see examples/fleet/fleet.ts).
    const opened = await pulumi(["whoami"], FLEET_PROGRAM_DIR, pulumiEnv(server.backendUrl, join(scratch, "open")));
    expect(opened.code, shown("pulumi whoami", opened)).toBe(0);
  });

  afterAll(async () => {
    if (report.length > 0) console.log(report.sort().join("\n"));
    // The help desks and the database are thrown away: removing the stacks' config files is all that is left to do.
    for (const { stack, env, emulator } of scenarios) {
      await removeStack(stack, FLEET_PROGRAM_DIR, env);
      await emulator.close();
    }
    await server?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("provider process killed: the engine names the failed creates, the help desk made them anyway (orphans), the next up makes them again", async () => {
    const desk = await scenario("crash-provider");
    const { ran, posted } = await desk.upAndKill((upPid) =>
      descendantsMatching(upPid, /dynamic-provider\/index\.js/).map((p) => p.pid),
    );

    // What the user is told: each in-flight create failed, by resource name.
    expect(ran.code, shown("pulumi up", ran)).not.toBe(0);
    const output = ran.stdout + ran.stderr;
    // "error reading from server" (EOF, or connection reset) marks a create that was in flight; a create the engine
    // began after the crash fails with "connection refused" and never reached the help desk.
    const failed = [
      ...output.matchAll(/dynamic\/helpdesk:Webhook \((hook-\d+)\):\n\s+error: error reading from server: /g),
    ].map(([, name]) => required(name, "a resource's name"));
    const state = await desk.state();
    expect(state.pendingOperations, "the engine survived and closed every operation").toEqual([]);

    // What happened: the help desk holds every webhook whose POST arrived; the checkpoint only those answered in time.
    const held = await desk.held();
    const recordedIds = new Set(state.webhooks.map((hook) => hook.id));
    const orphans = held.filter((hook) => !recordedIds.has(hook.id));
    expect(held).toHaveLength(posted);
    expect(orphans.length).toBe(posted - state.webhooks.length);
    expect(orphans.length).toBeGreaterThan(0);
    expect(orphans.length).toBeLessThanOrEqual(PARALLEL);
    // The orphans are exactly the webhooks of the resources whose create the run reported as failed.
    expect(orphans.map((hook) => nameOfUrl(hook.url)).sort()).toEqual([...new Set(failed)].sort());

    // The next up needs no cancel or refresh: no lock is left, no operation is pending. It creates the missing ones.
    const next = await desk.cli(["up", "--yes", "--skip-preview", "--stack", desk.stack]);
    expect(next.code, shown("the next pulumi up", next)).toBe(0);
    const after = await desk.state();
    expect(after.webhooks).toHaveLength(HOOKS);
    const stillOrphaned = (await desk.held()).filter(
      (hook) => !after.webhooks.some((recorded) => recorded.id === hook.id),
    );
    expect(stillOrphaned.map((hook) => hook.id).sort()).toEqual(orphans.map((hook) => hook.id).sort());
    report.push(
      `provider killed mid-up: ${posted} POSTs received, ${state.webhooks.length} recorded, ${orphans.length} orphaned ` +
        `(reported failed: ${[...new Set(failed)].sort().join(", ")}); after the next up: ${HOOKS} recorded, ${stillOrphaned.length} still orphaned`,
    );

    // The clean-up a user does: for each resource the crashed run named, delete the help desk's webhook with its url
    // that the stack does not record (in the help desk's web page; here with the API).
    for (const orphan of stillOrphaned) await desk.deleteWebhook(orphan.id);
    await expectAgreement(desk, after);
  });

  it("whole pulumi up killed: pending creates name the orphans; cancel, their deletion, refresh --clear-pending-creates and up restore agreement", async () => {
    const desk = await scenario("crash-cli");
    const { ran, posted } = await desk.upAndKill((upPid) => [
      upPid,
      ...descendantsMatching(upPid, /./).map((p) => p.pid),
    ]);
    expect(ran.signal).toBe("SIGKILL");

    // What the user is told: the checkpoint's pending operations name each create that was in flight, with its inputs.
    const state = await desk.state();
    const held = await desk.held();
    const recordedIds = new Set(state.webhooks.map((hook) => hook.id));
    const orphans = held.filter((hook) => !recordedIds.has(hook.id));
    expect(held).toHaveLength(posted);
    expect(orphans.length).toBeGreaterThan(0);
    expect(state.pendingOperations.map((op) => op.type)).toEqual(orphans.map(() => "creating"));
    expect(state.pendingOperations.map((op) => op.inputs.url).sort()).toEqual(orphans.map((hook) => hook.url).sort());

    // The killed run's lock is still in the backend: the next up is refused until `pulumi cancel`.
    const refused = await desk.cli(["up", "--yes", "--skip-preview", "--stack", desk.stack]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(DIY_LOCK_ERROR);
    const cancel = await desk.cli(["cancel", "--yes", "--stack", desk.stack]);
    expect(cancel.code, shown("pulumi cancel", cancel)).toBe(0);

    // Each pending create names its url: delete the webhook the help desk made for it (in its web page; here with
    // the API), then drop the pending creates. (`--import-pending-creates <urn> <id>` would be the way to keep them,
    // but Pulumi v3.259 drops imported pending creates from the state instead of importing them: measured.)
    for (const op of state.pendingOperations)
      await desk.deleteWebhook(
        required(
          orphans.find((hook) => hook.url === op.inputs.url),
          "the webhook of a pending create",
        ).id,
      );
    const refresh = await desk.cli([
      "refresh",
      "--yes",
      "--skip-preview",
      "--clear-pending-creates",
      "--stack",
      desk.stack,
    ]);
    expect(refresh.code, shown("pulumi refresh --clear-pending-creates", refresh)).toBe(0);
    expect((await desk.state()).pendingOperations).toEqual([]);
    const next = await desk.cli(["up", "--yes", "--skip-preview", "--stack", desk.stack]);
    expect(next.code, shown("the next pulumi up", next)).toBe(0);
    const after = await desk.state();
    expect(after.webhooks).toHaveLength(HOOKS);
    await expectAgreement(desk, after);
    report.push(
      `pulumi up killed: ${posted} POSTs received, ${state.webhooks.length} recorded, ${state.pendingOperations.length} pending creates = ${orphans.length} orphans; ` +
        `after cancel, deleting them, refresh --clear-pending-creates and up: ${after.webhooks.length} recorded, 0 orphaned`,
    );
  });
});
