/**
 * Test support for suites that run the `pulumi` command itself (as a person or a CI job does) against a given state
 * backend, and read what the backend recorded with `pulumi stack export`.
 */

import { rmSync } from "node:fs";
import { join } from "node:path";
import { required } from "../../kernel/required.js";
import { type Ran, runCommand } from "../../scripts/lib/processes.ts";
import { withoutSettingVariables } from "./environment.js";
import type { PostgresServer } from "./postgres.js";

/**
 * The environment of a `pulumi` run on the given backend: offline settings, a passphrase for secrets, the
 * provider's own token cache directory, no colour, non-interactive.
 */
export function pulumiEnv(backendUrl: string, tokenCacheDir: string): NodeJS.ProcessEnv {
  return withoutSettingVariables(
    {
      ...process.env,
      PULUMI_BACKEND_URL: backendUrl,
      PULUMI_CONFIG_PASSPHRASE: "team-test-passphrase",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      HELPDESK_TOKEN_CACHE_DIR: tokenCacheDir,
      CI: "true",
      NO_COLOR: "1",
    },
    { runner: true },
  );
}

/** Runs `pulumi <args> --non-interactive` in `cwd` (never rejects for a non-zero exit). */
export function pulumi(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return runCommand("pulumi", [...args, "--non-interactive"], { cwd, env });
}

/**
 * Removes a stack from its backend even when it still has resources, a lock or pending operations (for a backend
 * and a help desk that are thrown away next), and its `Pulumi.<stack>.yaml` in `cwd`.
 */
export async function removeStack(stack: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  await pulumi(["stack", "rm", "--yes", "--force", "--stack", stack], cwd, env);
  rmSync(join(cwd, `Pulumi.${stack}.yaml`), { force: true });
}

/** Pulumi's refusal to run on a stack that another run has locked, in the DIY backends (pkg/backend/diy/lock.go). */
export const DIY_LOCK_ERROR =
  "the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.";

/**
 * Webhooks as sorted `id event url` lines: what the help desk holds and what a checkpoint records are in agreement
 * when their lines are equal.
 */
export function webhookLines(hooks: Array<{ id: string; event: string; url: string }>): string[] {
  return hooks.map((hook) => `${hook.id} ${hook.event} ${hook.url}`).sort();
}

/** A webhook as a stack's checkpoint records it. */
export interface RecordedWebhook {
  urn: string;
  /** The resource name (the last part of the URN). */
  name: string;
  /** The help desk's webhook id. */
  id: string;
  event: string;
  url: string;
}

/** A pending operation of a checkpoint: an operation the engine began and never saw end. */
export interface PendingOperation {
  type: string;
  urn: string;
  /** The resource's inputs as the engine sent them (for a Webhook: event and url). */
  inputs: Record<string, unknown>;
}

/** What a stack's checkpoint holds about webhooks. */
export interface RecordedState {
  webhooks: RecordedWebhook[];
  pendingOperations: PendingOperation[];
}

interface ExportedResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/** A deployment as Pulumi stores it: `pulumi stack export`'s `deployment`, a checkpoint file's `checkpoint.latest`. */
export interface Deployment {
  resources?: ExportedResource[];
  pending_operations?: Array<{ type: string; resource: ExportedResource }>;
}

/** The webhooks and pending operations of a deployment. */
export function recordedState(deployment: Deployment | undefined): RecordedState {
  const webhooks = (deployment?.resources ?? [])
    .filter((r) => r.type.endsWith(":Webhook"))
    .map((r) => ({
      urn: r.urn,
      name: required(r.urn.split("::").at(-1), `the name in ${r.urn}`),
      id: r.id ?? "",
      event: String(r.outputs?.event),
      url: String(r.outputs?.url),
    }));
  const pendingOperations = (deployment?.pending_operations ?? []).map((op) => ({
    type: op.type,
    urn: op.resource.urn,
    inputs: op.resource.inputs ?? {},
  }));
  return { webhooks, pendingOperations };
}

/** Reads a stack's checkpoint with `pulumi stack export` (secrets stay ciphertext). */
export async function exportState(stack: string, cwd: string, env: NodeJS.ProcessEnv): Promise<RecordedState> {
  const ran = await pulumi(["stack", "export", "--stack", stack], cwd, env);
  if (ran.code !== 0) throw new Error(`pulumi stack export failed: ${ran.stderr}`);
  return recordedState((JSON.parse(ran.stdout) as { deployment: Deployment }).deployment);
}

/**
 * Reads checkpoints straight from the table of Pulumi's DIY PostgreSQL backend (`pulumi_state`: a key per object,
 * the object as base64 in `data`), with one query: the stacks of `project` whose names start with `stackPrefix`.
 *
 * @returns the recorded state by stack name
 */
export async function checkpointsInPostgres(
  server: PostgresServer,
  project: string,
  stackPrefix: string,
): Promise<Map<string, RecordedState>> {
  const rows = await server.query(
    `SELECT key, data->>'data' FROM pulumi_state WHERE key LIKE '%/.pulumi/stacks/${project}/${stackPrefix}%.json' ORDER BY key`,
  );
  const found = new Map<string, RecordedState>();
  for (const row of rows) {
    const [key = "", blob = ""] = row.split("|");
    const stack = key.slice(key.lastIndexOf("/") + 1, -".json".length);
    const file = JSON.parse(Buffer.from(blob, "base64").toString("utf8")) as { checkpoint: { latest?: Deployment } };
    found.set(stack, recordedState(file.checkpoint.latest));
  }
  return found;
}
