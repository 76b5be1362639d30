/**
 * Test support: plays a GitHub workflow's jobs here, in the order their `needs` give, each as GitHub would run it
 * on a fresh runner: its own folder with a fresh clone of the repository (actions/checkout), a `HOME` of its own (so
 * the project's cache `~/.cache/pulumi-helpdesk`, Pulumi's home, pip's and Maven's settings start empty), a `PATH`
 * of the system's folders plus what the job's setup actions add, and its `run:` steps run as written, with the
 * step's `env:`. What stands in for GitHub:
 *
 * - `actions/checkout`: `git clone` of a bare copy of the repository made by the test (the job's `origin`);
 * - `actions/setup-node`, `actions/setup-go`, `actions/setup-java`: the folder of the machine's Node.js (the
 *   project's, `$HELPDESK_CACHE/node-v<version>`), Go and Java put first on `PATH`;
 * - `actions/upload-artifact`, `actions/download-artifact`: a folder per artifact, copied;
 * - every other action, and the steps that need GitHub's OIDC identity, by what the test gives in `standIns`.
 *
 * The download caches of npm and Go (content-addressed copies of what the registries serve) are the machine's, as
 * the network is the runner's: `npm_config_cache`, `GOMODCACHE`, `GOCACHE`, `GOENV` (tests/support/sandbox.ts
 * `sharedCaches`). Nothing else of the machine's caches is seen.
 */
import { cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { type Ran, runCommand } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";

/** A step of a job, as the workflow file says. */
export interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
  if?: string;
}

/** A job of a workflow, as the workflow file says. */
export interface Job {
  name?: string;
  needs?: string | string[];
  permissions?: Record<string, string>;
  environment?: string;
  strategy?: { matrix: { include: Array<Record<string, string>> } };
  steps: Step[];
}

/** A workflow file, parsed. */
export interface Workflow {
  name: string;
  permissions?: Record<string, string>;
  concurrency?: { group: string; "cancel-in-progress": boolean };
  on: unknown;
  jobs: Record<string, Job>;
}

/** @returns `.github/workflows/<file>`, parsed */
export function readWorkflow(file: string): Workflow {
  return parse(readFileSync(join(repoRoot, ".github", "workflows", file), "utf8")) as Workflow;
}

/** @returns the job's `needs` as a list */
export function needsOf(job: Job): string[] {
  return job.needs === undefined ? [] : Array.isArray(job.needs) ? job.needs : [job.needs];
}

/**
 * The jobs in an order GitHub could run them: each after every job it needs.
 *
 * @throws Error on a `needs` naming no job, or a cycle
 */
export function jobOrder(workflow: Workflow): string[] {
  const order: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (order.includes(name)) return;
    if (path.includes(name)) throw new Error(`needs cycle: ${[...path, name].join(" -> ")}`);
    const job = workflow.jobs[name];
    if (!job) throw new Error(`${path.at(-1)} needs ${name}, which is no job`);
    for (const need of needsOf(job)) visit(need, [...path, name]);
    order.push(name);
  };
  for (const name of Object.keys(workflow.jobs)) visit(name, []);
  return order;
}

/** The action a `uses:` names, without its pin: `actions/checkout`. */
export function actionOf(step: Step): string | undefined {
  return step.uses?.replace(/@.*$/, "");
}

/**
 * Replaces the `${{ matrix.<key> }}` expressions of a value (the only expressions the test evaluates; any other is
 * left, and the step's stand-in must not need it).
 */
export function withMatrix(value: string, matrix: Record<string, string>): string {
  return value.replace(/\$\{\{\s*matrix\.([a-z_-]+)\s*\}\}/g, (_, key: string) => matrix[key] ?? "");
}

/** One job being played: its folder, its checkout, its environment. */
export interface JobRun {
  job: string;
  matrix: Record<string, string>;
  /** the job's folder (its HOME is `<dir>/home`) */
  dir: string;
  /** the checkout: GitHub's `$GITHUB_WORKSPACE` */
  workspace: string;
  /** the environment every step starts from */
  env: NodeJS.ProcessEnv;
  /** what each step ran, in order */
  ran: Array<{ step: string; result: Ran }>;
}

/** The system's own folders, the `PATH` a runner starts with before any setup action. */
export const SYSTEM_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/**
 * Puts a folder first on the job's `PATH`.
 *
 * @throws Error when the folder does not exist (the machine lacks what the setup action would install)
 */
export function prependPath(run: JobRun, dir: string): void {
  if (!existsSync(dir)) throw new Error(`${run.job}: ${dir} is missing (what the job's setup action installs)`);
  run.env.PATH = `${dir}:${run.env.PATH}`;
}

/** The folder of each artifact an upload-artifact step made. */
export type Artifacts = Map<string, string>;

/** Copies an artifact into the job's workspace (download-artifact), or throws naming it. */
export function downloadArtifact(run: JobRun, artifacts: Artifacts, name: string, path: string): void {
  const from = artifacts.get(name);
  if (!from) throw new Error(`${run.job}: no artifact ${name} was uploaded by an earlier job`);
  cpSync(from, join(run.workspace, path), { recursive: true });
}

/** Copies a folder of the job's workspace as an artifact (upload-artifact); an empty or missing one fails. */
export function uploadArtifact(run: JobRun, artifacts: Artifacts, store: string, name: string, path: string): void {
  const from = join(run.workspace, path);
  if (!existsSync(from)) throw new Error(`${run.job}: upload-artifact ${name}: ${path} does not exist`);
  const to = join(store, name);
  mkdirSync(to, { recursive: true });
  cpSync(from, to, { recursive: true });
  artifacts.set(name, to);
}

/**
 * Runs a `run:` step as the runner would: `bash -e -c <run>` in the workspace, with the job's environment and the
 * step's `env:` (matrix expressions evaluated), then `extraEnv`, which must give a value for every other expression
 * of the step's `env:` (a secret, a variable, the job's token).
 *
 * @throws Error when a `${{ }}` of the step's `env:` is neither a matrix value nor given in `extraEnv`
 */
export async function runStep(
  run: JobRun,
  step: Step,
  extraArgs: string[] = [],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<Ran> {
  if (!step.run) throw new Error("not a run: step");
  const env: NodeJS.ProcessEnv = { ...run.env };
  for (const [key, value] of Object.entries(step.env ?? {})) {
    const evaluated = withMatrix(String(value), run.matrix);
    // A secret, a variable or the job's token is GitHub's: the test must give its own value for each.
    if (evaluated.includes("${{") && !(key in extraEnv))
      throw new Error(`${run.job}: the step's ${key} is ${value}, and the test gives no value for it`);
    env[key] = evaluated;
  }
  Object.assign(env, extraEnv);
  const script = [step.run, ...extraArgs.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`)].join(" ");
  const result = await runCommand("bash", ["-e", "-c", script], { cwd: run.workspace, env });
  run.ran.push({ step: step.name ?? step.run, result });
  return result;
}
