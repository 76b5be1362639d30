/**
 * A fleet at team scale: 10 stacks of 30 webhooks each, brought up at the same time and then destroyed at the same
 * time with the Automation API module of examples/fleet, on one PostgreSQL state backend, against one emulator that
 * responds with 30% of the requests with 429 (and `Retry-After: 1`) and delays every request by 100 ms. Checked on both
 * sides: every webhook a checkpoint records exists on the emulator with its event and url, none exists that no
 * checkpoint records, and none is left after destroy. Prints the wall times and the API requests per webhook.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigMap } from "@pulumi/pulumi/automation/index.js";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenSet } from "../../auth/oauth.js";
import { type FaultOptions, type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved } from "../../emulator-client/index.js";
import {
  destroyFleet,
  FLEET_PROGRAM_DIR,
  type FleetOptions,
  type FleetStack,
  type StackOutcome,
  upFleet,
} from "../../examples/fleet/fleet.ts";
import { CONFIG_KEYS } from "../../kernel/config.js";
import { EVENTS } from "../../kernel/events.js";
import { required } from "../../kernel/required.ts";
import { emulatorStats, heldWebhooks } from "../support/emulator.js";
import { type PostgresServer, postgresAvailable, startPostgres } from "../support/postgres.js";
import { pulumiAvailable } from "../support/pulumi.js";
import {
  checkpointsInPostgres,
  pulumiEnv,
  type RecordedWebhook,
  removeStack,
  webhookLines,
} from "../support/pulumi-cli.js";

const STACKS = 10;
const WEBHOOKS_PER_STACK = 30;
const TOTAL = STACKS * WEBHOOKS_PER_STACK;
const FAULTS: FaultOptions = { rate429: 0.3, latencyMs: 100 };
const client = {
  clientId: "fleet-client",
  clientSecret: "fleet-client-secret",
  redirectUri: "http://127.0.0.1:1/callback",
};

/** A small seeded generator (mulberry32): the emulator's fault draws are the same sequence on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Retries a sign-in that the emulator's injected 429s may refuse (the token endpoint is faulted too). */
async function signInThroughFaults(baseUrl: string): Promise<TokenSet> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await signInAutoApproved({ baseUrl, ...client });
    } catch (error) {
      if (attempt >= 20) throw error;
    }
  }
}

const run = randomBytes(3).toString("hex");
const stacks: FleetStack[] = Array.from({ length: STACKS }, (_, s) => ({
  name: `fleet-${run}-${String(s).padStart(2, "0")}`,
  webhooks: Array.from({ length: WEBHOOKS_PER_STACK }, (_, w) => ({
    name: `hook-${String(w).padStart(2, "0")}`,
    event: required(EVENTS[(s + w) % EVENTS.length], "an event"),
    url: `https://hooks.example.test/team-${s}/${w}`,
  })),
}));

describe.skipIf(!(pulumiAvailable() && postgresAvailable()))(
  `a fleet of ${STACKS} stacks × ${WEBHOOKS_PER_STACK} webhooks, all at once`,
  () => {
    let server: PostgresServer;
    let emulator: RunningEmulator;
    let scratch: string;
    let options: FleetOptions;
    let env: NodeJS.ProcessEnv;
    const report: string[] = [];

    /** Every webhook that any stack's checkpoint records, read from the backend's table in one query. */
    const recorded = async (): Promise<RecordedWebhook[]> => {
      const checkpoints = await checkpointsInPostgres(server, "helpdesk-fleet", `fleet-${run}-`);
      expect([...checkpoints.keys()].sort()).toEqual(stacks.map((stack) => stack.name));
      for (const state of checkpoints.values()) expect(state.pendingOperations).toEqual([]);
      return [...checkpoints.values()].flatMap((state) => state.webhooks);
    };

    beforeAll(async () => {
      server = await startPostgres();
      emulator = await startEmulator({
        port: 0,
        autoApprove: true,
        clients: [client],
        faults: FAULTS,
        random: seeded(12),
      });
      const tokens = await signInThroughFaults(emulator.url);
      scratch = mkdtempSync(join(tmpdir(), "helpdesk-fleet-"));
      env = pulumiEnv(server.backendUrl, join(scratch, "token-cache"));
      // One sign-in for the whole fleet, as stack config (a platform team may also inject HELPDESK_ACCESS_TOKEN).
      const config: ConfigMap = {
        [CONFIG_KEYS.baseUrl]: { value: emulator.url },
        [CONFIG_KEYS.accessToken]: { value: tokens.accessToken, secret: true },
        // 600 operations at a 30% 429 rate: the default 10 retries would fail one of them in about 1,000 runs
        // (0.3^11 × 600); 20 make that 1 in 10^8. Agreement is under test here, not retry exhaustion.
        "helpdesk:maxRetries": { value: "20" },
      };
      options = {
        envVars: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
        config,
      };
    });

    afterAll(async () => {
      if (report.length > 0) console.log(report.join("\n"));
      // The emulator and the database are thrown away: removing the stacks' config files is all that is left to do.
      if (env) await Promise.all(stacks.map((stack) => removeStack(stack.name, FLEET_PROGRAM_DIR, env)));
      await emulator?.close();
      await server?.stop();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    /**
     * Runs one fleet operation against freshly zeroed emulator statistics, checks each stack's outcome, and reports
     * the wall time and the requests per webhook of `route`.
     */
    const measured = async (
      name: string,
      route: string,
      change: string,
      operation: () => Promise<StackOutcome[]>,
    ): Promise<StackOutcome[]> => {
      await (await request(`${emulator.url}/_emulator/reset-stats`, { method: "POST" })).body.dump();
      const started = performance.now();
      const outcomes = await operation();
      const seconds = (performance.now() - started) / 1000;
      const stats = await emulatorStats(emulator);
      expect(outcomes.map((o) => [o.stack, o.ok, o.changes?.[change]])).toEqual(
        stacks.map((s) => [s.name, true, WEBHOOKS_PER_STACK + 1]),
      );
      const requests = stats.byRoute[route] ?? 0;
      const spread = outcomes.map((o) => o.seconds);
      report.push(
        `fleet ${name}: ${STACKS} stacks × ${WEBHOOKS_PER_STACK} webhooks at once, faults ${JSON.stringify(FAULTS)}: wall ${seconds.toFixed(1)} s ` +
          `(stacks ${Math.min(...spread).toFixed(1)}-${Math.max(...spread).toFixed(1)} s); ${route} ${requests} = ${(requests / TOTAL).toFixed(2)} per webhook; ` +
          `${stats.connections} TCP connections`,
      );
      expect(requests, "the injected 429s were met, and retried").toBeGreaterThan(TOTAL);
      return outcomes;
    };

    it("upFleet brings all stacks up at once; every webhook in state exists on the help desk and none other", async () => {
      const outcomes = await measured("up", "POST /v1/webhooks", "create", () => upFleet(stacks, options));
      const state = await recorded();
      expect(state).toHaveLength(TOTAL);
      expect(new Set(state.map((hook) => hook.id)).size).toBe(TOTAL);
      expect(webhookLines(await heldWebhooks(emulator))).toEqual(webhookLines(state));
      // Each stack's program reported the ids that its checkpoint holds.
      const reported = outcomes.flatMap((outcome) => Object.values(outcome.ids ?? {}));
      expect(reported.sort()).toEqual(state.map((hook) => hook.id).sort());
    });

    it("destroyFleet destroys all stacks at once and leaves no webhook", async () => {
      await measured("destroy", "DELETE /v1/webhooks/:id", "delete", () => destroyFleet(stacks, options));
      expect(await heldWebhooks(emulator)).toEqual([]);
      expect(await recorded()).toEqual([]);
    });
  },
);
