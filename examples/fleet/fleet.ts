/**
 * A fleet of help-desk webhook stacks, driven with Pulumi's Automation API: what a platform team runs to give each
 * team its own stack of webhooks, all brought up (or destroyed) at the same time.
 *
 * Every stack runs the same Pulumi program (`./program`, or your own through `workDir`) with its own config
 * `fleet:webhooks`; the shared settings (the help desk's base URL and the credentials that `pulumi-helpdesk login`
 * issued, the state backend) come from the options. One failing stack never stops the others: each stack's outcome
 * is reported, and {@link FleetError} lists the ones that failed.
 *
 * Why a local program rather than an inline one: an inline program runs in this process, and each Webhook serializes
 * its provider from the module this process loaded. Under a test runner that transforms modules (vitest, vite) that
 * serialization captures the runner's own import machinery and fails (measured:
 * `'__vite_ssr_dynamic_import__' ... could not be serialized`). A local program runs in Pulumi's Node.js host, as
 * `pulumi up` runs it, wherever this module is called from.
 *
 * @example
 * ```ts
 * import { upFleet, destroyFleet } from "./fleet.ts";
 *
 * const options = {
 *   // The database password in PGPASSWORD, never in the URL: Pulumi prints the URL when it cannot open the database.
 *   envVars: { PULUMI_BACKEND_URL: "postgres://pulumi@db.internal:5432/pulumi", PGPASSWORD: "...", PGSSLMODE: "require", PULUMI_CONFIG_PASSPHRASE: "..." },
 *   config: { "helpdesk:baseUrl": { value: "https://helpdesk.example.com" }, "helpdesk:accessToken": { value: token, secret: true } },
 * };
 * await upFleet([{ name: "support-eu", webhooks: [{ name: "opened", event: "ticket_opened", url: "https://eu.example.com/hook" }] }], options);
 * await destroyFleet(["support-eu"], options);
 * ```
 */
import { fileURLToPath } from "node:url";
import { type ConfigMap, LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation/index.js";

/** The program of this example: one Webhook per entry of `fleet:webhooks`. */
export const FLEET_PROGRAM_DIR = fileURLToPath(new URL("./program", import.meta.url));

/** The config key (in the program's `fleet` namespace) that lists a stack's webhooks as JSON. */
export const WEBHOOKS_CONFIG_KEY = "fleet:webhooks";

/** One webhook of a stack: the Pulumi resource name, and the webhook's event and url. */
export interface FleetWebhook {
  name: string;
  event: string;
  url: string;
}

/** One stack of the fleet. */
export interface FleetStack {
  /** The stack name, unique in the backend (for example the team's name). */
  name: string;
  webhooks: FleetWebhook[];
  /** Config of this stack only, set after {@link FleetOptions.config}. */
  config?: ConfigMap;
}

/** How the fleet runs. */
export interface FleetOptions {
  /** Directory of the Pulumi program (its `Pulumi.yaml`); default {@link FLEET_PROGRAM_DIR}. */
  workDir?: string;
  /** Environment of every `pulumi` run: the state backend (`PULUMI_BACKEND_URL`), `PULUMI_CONFIG_PASSPHRASE`, ... */
  envVars?: Record<string, string>;
  /** Config set on every stack: `helpdesk:baseUrl` and the credentials (as secrets), `helpdesk:maxRetries`, ... */
  config?: ConfigMap;
  /** How many stacks run at once; default all of them. */
  concurrency?: number;
  /** Receives each stack's progress output from Pulumi, line by line. */
  onOutput?: (stack: string, text: string) => void;
}

/** What happened to one stack. */
export interface StackOutcome {
  stack: string;
  ok: boolean;
  /** Wall time of this stack's operation, in seconds. */
  seconds: number;
  /** Resource changes as Pulumi counted them, e.g. `{ create: 30 }`. */
  changes?: Record<string, number>;
  /** After `up`: the help desk's id of each webhook, by resource name. */
  ids?: Record<string, string>;
  /** Pulumi's error lines when the operation failed. */
  error?: string;
}

/** Thrown when at least one stack failed; every stack has run to its end by then. */
export class FleetError extends Error {
  readonly outcomes: StackOutcome[];

  constructor(operation: string, outcomes: StackOutcome[]) {
    const failed = outcomes.filter((outcome) => !outcome.ok);
    super(
      `${operation} failed for ${failed.length} of ${outcomes.length} stack(s):\n${failed.map((o) => `  ${o.stack}: ${o.error}`).join("\n")}`,
    );
    this.name = "FleetError";
    this.outcomes = outcomes;
  }
}

/**
 * Creates (or selects) every stack, sets its config and runs `pulumi up` on all of them at once.
 *
 * @returns one outcome per stack, in the order given
 * @throws FleetError when any stack failed (after all have finished); its `outcomes` hold every stack's result
 */
export async function upFleet(stacks: FleetStack[], options: FleetOptions = {}): Promise<StackOutcome[]> {
  return runFleet("up", stacks, options, async (stack, spec) => {
    await stack.setAllConfig({
      ...options.config,
      ...spec.config,
      [WEBHOOKS_CONFIG_KEY]: { value: JSON.stringify(spec.webhooks) },
    });
    const result = await stack.up({ onOutput: output(options, spec.name) });
    const ids = (result.outputs.ids?.value ?? {}) as Record<string, string>;
    return { changes: result.summary.resourceChanges ?? {}, ids };
  });
}

/**
 * Runs `pulumi destroy` on every stack at once.
 *
 * @param stacks the stacks (or their names)
 * @param options as for {@link upFleet}, plus `removeStacks`: also remove each destroyed stack from the backend (and
 *   its `Pulumi.<stack>.yaml`)
 * @throws FleetError when any stack failed (after all have finished); a failed stack is never removed
 */
export async function destroyFleet(
  stacks: Array<FleetStack | string>,
  options: FleetOptions & { removeStacks?: boolean } = {},
): Promise<StackOutcome[]> {
  const specs = stacks.map((stack) => (typeof stack === "string" ? { name: stack, webhooks: [] } : stack));
  return runFleet("destroy", specs, options, async (stack, spec) => {
    const result = await stack.destroy({ onOutput: output(options, spec.name) });
    if (options.removeStacks) await stack.workspace.removeStack(spec.name);
    return { changes: result.summary.resourceChanges ?? {} };
  });
}

type StackOperation = (stack: Stack, spec: FleetStack) => Promise<Pick<StackOutcome, "changes" | "ids">>;

/** Runs `operation` on every stack, at most `options.concurrency` at a time; settles all before it throws. */
async function runFleet(
  name: string,
  specs: FleetStack[],
  options: FleetOptions,
  operation: StackOperation,
): Promise<StackOutcome[]> {
  const outcomes: StackOutcome[] = new Array(specs.length);
  // One `pulumi version` check for the whole fleet, not one per stack.
  const pulumiCommand = await PulumiCommand.get();
  // Open the state backend once before the stacks run at once: on a new PostgreSQL database Pulumi creates its table
  // on first use, and processes doing that together fail ("duplicate key value violates unique constraint
  // pg_type_typname_nsp_index": PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against itself).
  const workspace = await LocalWorkspace.create({
    workDir: options.workDir ?? FLEET_PROGRAM_DIR,
    envVars: options.envVars,
    pulumiCommand,
  });
  await workspace.whoAmI();
  // One iterator that every worker takes its next stack from.
  const pending = specs.entries();
  const worker = async (): Promise<void> => {
    for (const [index, spec] of pending) {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      try {
        const stack = await LocalWorkspace.createOrSelectStack(
          { stackName: spec.name, workDir: options.workDir ?? FLEET_PROGRAM_DIR },
          { envVars: options.envVars, pulumiCommand },
        );
        outcomes[index] = { stack: spec.name, ok: true, ...(await operation(stack, spec)), seconds: seconds() };
      } catch (error) {
        outcomes[index] = { stack: spec.name, ok: false, seconds: seconds(), error: errorLines(error) };
      }
    }
  };
  const width = Math.max(1, Math.min(options.concurrency ?? specs.length, specs.length));
  await Promise.all(Array.from({ length: width }, worker));
  if (outcomes.some((outcome) => !outcome.ok)) throw new FleetError(name, outcomes);
  return outcomes;
}

function output(options: FleetOptions, stack: string): ((text: string) => void) | undefined {
  const sink = options.onOutput;
  return sink && ((text) => sink(stack, text));
}

/** The lines of a failed `pulumi` run that say why (its `error:` lines), else the end of its message. */
function errorLines(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const lines = text.split("\n").map((line) => line.trim());
  const errors = lines.filter((line) => /^error:/.test(line) || /\berror: /.test(line));
  return (errors.length > 0 ? [...new Set(errors)] : lines.filter(Boolean).slice(-5)).join(" | ");
}
