/**
 * Reads and writes a stack's config for the CLI, through Pulumi's Automation API (the real `pulumi` CLI).
 *
 * Secrets are written with `pulumi config set --secret <key>` and the value on stdin, never on a command line: a
 * process's arguments are readable by every user of the machine (`/proc/<pid>/cmdline`, `ps`).
 */
import { spawn } from "node:child_process";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation/index.js";
import { CliError } from "./output.js";

/** Which stack of which project: the stack name and the directory holding `Pulumi.yaml`. */
export interface StackRef {
  /** Stack name, e.g. `dev` (or `org/project/dev` on backends that have organisations). */
  stackName: string;
  /** Project directory (contains `Pulumi.yaml`); the stack's `Pulumi.<stack>.yaml` is written there. */
  workDir: string;
}

/** One config entry to write. */
export interface ConfigEntry {
  /** Namespaced key, e.g. `helpdesk:accessToken`. */
  key: string;
  /** The value (plain text; encrypted by Pulumi when `secret`). */
  value: string;
  /** Store encrypted (Pulumi secret). */
  secret: boolean;
}

/**
 * Which stack a command works on: `--stack` when given, else the project's currently selected stack
 * (`pulumi stack select`).
 *
 * @param stack the `--stack` flag value, if any
 * @param cwd the `--cwd` flag value, if any (default: the current directory)
 * @throws CliError (exit 2) when no stack is given or selected
 */
export async function resolveStackRef(stack: string | undefined, cwd: string | undefined): Promise<StackRef> {
  const workDir = cwd ?? process.cwd();
  if (stack) return { stackName: stack, workDir };
  let current: string | undefined;
  try {
    current = (await (await LocalWorkspace.create({ workDir })).stack())?.name;
  } catch (error) {
    throw new CliError(`cannot read the selected stack in ${workDir}: ${firstLine(error)}`, 2);
  }
  if (!current) throw new CliError("no stack selected: pass --stack <name> (or run `pulumi stack select <name>` first)", 2);
  return { stackName: current, workDir };
}

/**
 * Selects the stack, creating it when it does not exist.
 *
 * @throws CliError when the directory has no Pulumi project or the backend cannot be reached (the message says which)
 */
export async function openStack(ref: StackRef, create = true): Promise<Stack> {
  try {
    const args = { stackName: ref.stackName, workDir: ref.workDir };
    return create ? await LocalWorkspace.createOrSelectStack(args) : await LocalWorkspace.selectStack(args);
  } catch (error) {
    throw new CliError(`cannot open stack "${ref.stackName}" in ${ref.workDir}: ${firstLine(error)}`);
  }
}

/**
 * Reads every config value of the stack, secrets decrypted.
 *
 * @returns a map from namespaced key to value
 */
export async function readStackConfig(stack: Stack): Promise<Record<string, string>> {
  const all = await stack.getAllConfig();
  return Object.fromEntries(Object.entries(all).map(([key, entry]) => [key, entry.value]));
}

/**
 * Writes config entries: plain ones in one Automation API call, secret ones one by one through stdin.
 *
 * @throws CliError when `pulumi` fails (its stderr's first line is included; it never echoes values)
 */
export async function writeStackConfig(stack: Stack, ref: StackRef, entries: readonly ConfigEntry[]): Promise<void> {
  const plain = entries.filter((entry) => !entry.secret);
  if (plain.length > 0) {
    await stack.setAllConfig(Object.fromEntries(plain.map((entry) => [entry.key, { value: entry.value, secret: false }])));
  }
  for (const entry of entries.filter((e) => e.secret)) {
    await runPulumi(["config", "set", "--secret", "--stack", ref.stackName, entry.key], ref.workDir, entry.value);
  }
}

/**
 * Removes config keys from the stack (missing keys are ignored).
 */
export async function removeStackConfig(stack: Stack, keys: readonly string[]): Promise<void> {
  const present = new Set(Object.keys(await stack.getAllConfig()));
  const toRemove = keys.filter((key) => present.has(key));
  if (toRemove.length > 0) await stack.removeAllConfig(toRemove);
}

function runPulumi(args: string[], cwd: string, stdin: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("pulumi", args, { cwd, stdio: ["pipe", "ignore", "pipe"], env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" } });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (error) => reject(new CliError(`cannot run pulumi: ${error.message}`)));
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new CliError(`pulumi ${args.slice(0, 3).join(" ")} failed: ${stderr.trim().split("\n")[0] ?? ""}`)),
    );
    child.stdin.end(stdin);
  });
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const stderr = /stderr: ([^\n]+)/.exec(text)?.[1];
  return (stderr ?? text.split("\n").find((line) => line.trim() !== "") ?? text).trim();
}
