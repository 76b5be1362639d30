/**
 * Reads and writes a stack's config for the CLI, through Pulumi's Automation API (the real `pulumi` CLI), which is
 * loaded on first use ({@link automation}).
 *
 * Secrets are written with `pulumi config set --secret <key>` and the value on stdin, never on a command line: a
 * process's arguments are readable by every user of the machine (`/proc/<pid>/cmdline`, `ps`).
 */
import { spawn } from "node:child_process";
import { type Stats, statSync } from "node:fs";
import { constants } from "node:os";
import { dirname, join, resolve as resolvePath } from "node:path";
import type { Stack, Workspace } from "@pulumi/pulumi/automation/index.js";
import { messageOf } from "../../kernel/errors.js";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { CliError } from "./output.js";

/**
 * Pulumi's Automation API, imported when a command first needs it: with what it loads (npm's libraries, TypeScript)
 * it is most of the CLI's code, which `--version`, `--help`, `emulator` and `trigger` never use
 * (tests/cli/lazy-loading.test.ts). The release executable serves it from an asset of its own
 * (scripts/release/executable.ts).
 */
function automation(): Promise<typeof import("@pulumi/pulumi/automation/index.js")> {
  return import("@pulumi/pulumi/automation/index.js");
}

/**
 * The names the `pulumi` CLI accepts for a project file, in the order it tries them in each directory (the Go SDK's
 * `encoding.Exts`: `.json`, `.yaml`, `.yml`).
 */
const PROJECT_FILES = ["Pulumi.json", "Pulumi.yaml", "Pulumi.yml"] as const;

/**
 * The `pulumi` executable could not be started because it is not on PATH. Its own class so that callers which
 * tolerate a failed Pulumi call (login reading a stack that may not exist yet) can still stop at once on this one.
 */
export class PulumiNotFoundError extends CliError {
  /** Builds the one-line message that says how to install Pulumi (exit code 1). */
  constructor() {
    super(
      "failed",
      "the Pulumi CLI (`pulumi`) was not found on PATH: install it (https://www.pulumi.com/docs/install/) or add its directory to PATH, then check with `pulumi version`",
    );
    this.name = "PulumiNotFoundError";
  }
}

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
 * Finds the Pulumi project a command works on, by the `pulumi` CLI's own rule (`DetectProjectPathFrom`): the nearest
 * directory, from the start directory up to the file-system root, that holds `Pulumi.json`, `Pulumi.yaml` or
 * `Pulumi.yml`. Directories that cannot be read count as holding none, as in Pulumi. Runs no `pulumi` command.
 *
 * @param cwd the `--cwd` flag value, if any (default: the current directory); relative paths are taken from the
 *   current directory
 * @returns the absolute path of the project directory (where `Pulumi.<stack>.yaml` files live)
 * @throws CliError (exit 2) when `--cwd` does not exist or is not a directory, or when no project file is found in
 *   the start directory or any parent (the message names the start directory and says to use `--cwd <dir>`)
 */
export function findProjectDir(cwd: string | undefined): string {
  const start = resolvePath(cwd ?? process.cwd());
  if (cwd !== undefined) {
    const stats = statOrUndefined(start);
    if (!stats)
      throw new CliError(
        "usage",
        `--cwd ${start} does not exist: pass the directory that holds your Pulumi project's Pulumi.yaml`,
      );
    if (!stats.isDirectory())
      throw new CliError(
        "usage",
        `--cwd ${start} is not a directory: pass the directory that holds your Pulumi project's Pulumi.yaml`,
      );
  }
  for (let dir = start; ; dir = dirname(dir)) {
    if (PROJECT_FILES.some((name) => statOrUndefined(join(dir, name))?.isFile())) return dir;
    if (dirname(dir) === dir) break;
  }
  throw new CliError(
    "usage",
    `no Pulumi.yaml in ${start} or any parent directory: run ${CLI_EXECUTABLE} from your Pulumi project's directory, or pass --cwd <dir> with that directory`,
  );
}

/** A project's name and runtime, as its project file gives them. */
export interface ProjectFacts {
  /** `name`: the namespace of the program's own config (`new pulumi.Config()`). */
  name: string;
  /** `runtime` (or `runtime.name`): `nodejs`, `python`, `go`, `java`, `yaml`, ... */
  runtime: string;
}

/**
 * Reads the `name` and `runtime` of a project file, as Pulumi's Automation API reads it (`Workspace.projectSettings`:
 * JSON, or YAML by a YAML parser, so flow mappings, block scalars and anchors too).
 *
 * @param workspace the project's workspace, e.g. the `workspace` of a stack of {@link openStack}
 * @throws CliError (exit 2) when the file lacks either, or cannot be read (the message carries the parser's first line)
 */
export async function readProjectFacts(workspace: Workspace): Promise<ProjectFacts> {
  const workDir = workspace.workDir;
  let settings: { name?: unknown; runtime?: unknown };
  try {
    settings = (await workspace.projectSettings()) as { name?: unknown; runtime?: unknown };
  } catch (error) {
    throw new CliError("usage", `cannot read the project file in ${workDir}: ${firstLine(error)}`);
  }
  const name = typeof settings?.name === "string" && settings.name !== "" ? settings.name : undefined;
  const given = settings?.runtime;
  const runtimeName = typeof given === "object" && given !== null ? (given as { name?: unknown }).name : given;
  const runtime = typeof runtimeName === "string" && runtimeName !== "" ? runtimeName : undefined;
  if (!name || !runtime)
    throw new CliError("usage", `the project file in ${workDir} names no project ${name ? "runtime" : "name"}`);
  return { name, runtime };
}

/**
 * Which stack of which project a command works on: the project is found by {@link findProjectDir} before any
 * `pulumi` command runs; the stack is `--stack` when given, else the project's currently selected stack
 * (`pulumi stack select`).
 *
 * @param stack the `--stack` flag value, if any
 * @param cwd the `--cwd` flag value, if any (default: the current directory)
 * @returns the stack name and the project directory (absolute; the directory holding `Pulumi.yaml`)
 * @throws CliError (exit 2) when `--cwd` is wrong, no project is found, or no stack is given or selected;
 *   PulumiNotFoundError (exit 1) when the selected stack must be read and `pulumi` is not on PATH
 */
export async function resolveStackRef(stack: string | undefined, cwd: string | undefined): Promise<StackRef> {
  const workDir = findProjectDir(cwd);
  if (stack) return { stackName: stack, workDir };
  const { LocalWorkspace } = await automation();
  let current: string | undefined;
  try {
    current = (await (await LocalWorkspace.create({ workDir })).stack())?.name;
  } catch (error) {
    throw pulumiFailure(error, `cannot read the selected stack in ${workDir}`, "usage");
  }
  if (!current)
    throw new CliError("usage", "no stack selected: pass --stack <name> (or run `pulumi stack select <name>` first)");
  return { stackName: current, workDir };
}

/**
 * Selects the stack, creating it when it does not exist.
 *
 * @param ref the stack and its project directory (from {@link resolveStackRef})
 * @param create create the stack when it does not exist (default); with `false` a missing stack is an error
 * @throws PulumiNotFoundError when `pulumi` is not on PATH; CliError (exit 1) when the stack cannot be opened (missing
 *   and not to be created, backend unreachable; the message carries the first line of Pulumi's error)
 */
export async function openStack(ref: StackRef, create = true): Promise<Stack> {
  const { LocalWorkspace } = await automation();
  try {
    const args = { stackName: ref.stackName, workDir: ref.workDir };
    return create ? await LocalWorkspace.createOrSelectStack(args) : await LocalWorkspace.selectStack(args);
  } catch (error) {
    throw pulumiFailure(error, `cannot open stack "${ref.stackName}" in ${ref.workDir}`);
  }
}

/**
 * Reads every config value of the stack, secrets decrypted.
 *
 * @returns a map from namespaced key to value
 */
export async function readStackConfig(stack: Stack): Promise<Record<string, string>> {
  const all = await readStackConfigEntries(stack);
  return Object.fromEntries(Object.entries(all).map(([key, entry]) => [key, entry.value]));
}

/**
 * Reads every config entry of the stack, secrets decrypted, each with whether it is a secret.
 *
 * @returns a map from namespaced key to its value and secret flag
 */
export async function readStackConfigEntries(
  stack: Stack,
): Promise<Record<string, { value: string; secret: boolean }>> {
  const all = await stack.getAllConfig();
  return Object.fromEntries(
    Object.entries(all).map(([key, entry]) => [key, { value: entry.value, secret: entry.secret ?? false }]),
  );
}

/**
 * Writes config entries: plain ones in one Automation API call, secret ones one by one through stdin.
 *
 * @throws CliError when `pulumi` fails (its stderr's first line is included; it never echoes values)
 */
export async function writeStackConfig(stack: Stack, ref: StackRef, entries: readonly ConfigEntry[]): Promise<void> {
  const plain = entries.filter((entry) => !entry.secret);
  if (plain.length > 0) {
    await stack.setAllConfig(
      Object.fromEntries(plain.map((entry) => [entry.key, { value: entry.value, secret: false }])),
    );
  }
  for (const entry of entries.filter((e) => e.secret)) {
    await runPulumi(["config", "set", "--secret", "--stack", ref.stackName, entry.key], ref.workDir, {
      stdin: entry.value,
    });
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

/** The signals that end a command run from a terminal or by a supervisor: Ctrl-C, `kill`, a closed terminal. */
const ENDING_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** How `pulumi` is run: see {@link runPulumi}. */
export interface PulumiRunOptions {
  /** Text written to its standard input (how secrets reach it: never on its command line). */
  stdin?: string;
  /** Pass its output on to this process's stderr as it comes (a long run the person watches), instead of collecting it. */
  show?: boolean;
  /**
   * Called once, synchronously, when this process gets SIGINT, SIGTERM or SIGHUP while `pulumi` runs (removing what
   * must not outlive the command). Given, `pulumi` runs in a process group of its own (not on Windows), so that a
   * terminal's Ctrl-C reaches it once, passed on by this process: each such signal is passed on as it came (SIGHUP as
   * SIGTERM: Pulumi cancels on SIGINT and SIGTERM, a second one terminates it, and dies at once on SIGHUP); when
   * `pulumi` has exited this process ends by the first signal it got, as it would have without the handler.
   */
  onSignal?: () => void;
}

/**
 * Runs `pulumi <args>` in `cwd` (with `PULUMI_SKIP_UPDATE_CHECK=true`).
 *
 * @param args the arguments
 * @param cwd the project directory
 * @param options standard input, output shown, signal handling ({@link PulumiRunOptions})
 * @returns its standard output (empty with `show`); with `onSignal`, after a signal, it never settles: the process
 *   ends by that signal once `pulumi` has exited
 * @throws PulumiNotFoundError when `pulumi` is not on PATH; CliError (exit 1) when it fails: the message names the
 *   command and carries the first line of its stderr (it never echoes values), or with `show` says to read its output
 */
export function runPulumi(args: readonly string[], cwd: string, options: PulumiRunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const output = options.show ? process.stderr : "pipe";
    const onSignal = options.onSignal;
    const child = spawn("pulumi", args, {
      cwd,
      stdio: ["pipe", output, output],
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
      detached: onSignal !== undefined && process.platform !== "win32",
    });
    let received: NodeJS.Signals | undefined;
    const passOn = (signal: NodeJS.Signals): void => {
      if (received === undefined) {
        received = signal;
        onSignal?.();
      }
      child.kill(signal === "SIGHUP" ? "SIGTERM" : signal);
    };
    if (onSignal) for (const signal of ENDING_SIGNALS) process.on(signal, passOn);
    const endSignalHandling = (): void => {
      if (!onSignal) return;
      for (const signal of ENDING_SIGNALS) process.removeListener(signal, passOn);
      if (received === undefined) return;
      // With no listener left Node.js restores the default action: the process ends by the signal it got. Another
      // library's listener (signal-exit's) gets it asynchronously and ends the process itself; the timer keeps the
      // event loop alive until then, and ends it as a shell would report the signal should that listener not.
      const ended = received;
      process.kill(process.pid, ended);
      setTimeout(() => process.exit(128 + (constants.signals[ended] ?? 0)), 2000);
    };
    const stdout: Buffer[] = [];
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (error) => {
      endSignalHandling();
      reject(pulumiFailure(error, "cannot run pulumi"));
    });
    // A `pulumi` that exits before reading its standard input makes the write fail (EPIPE): its exit code says why.
    child.stdin?.on("error", () => undefined);
    child.on("close", (code) => {
      endSignalHandling();
      if (received !== undefined) return; // ending by the signal
      if (code === 0) resolve(Buffer.concat(stdout).toString("utf8"));
      else {
        const why = options.show ? `exit code ${code}, see its output above` : (stderr.trim().split("\n")[0] ?? "");
        reject(new CliError("failed", `pulumi ${args.slice(0, 3).join(" ")} failed: ${why}`));
      }
    });
    child.stdin?.end(options.stdin ?? "");
  });
}

/** The CliError for a failed `pulumi` call: PulumiNotFoundError when it could not be started, else `context: <first line>`. */
function pulumiFailure(error: unknown, context: string, code: "failed" | "usage" = "failed"): CliError {
  return isNotFoundOnPath(error) ? new PulumiNotFoundError() : new CliError(code, `${context}: ${firstLine(error)}`);
}

/**
 * Tells whether starting `pulumi` failed with ENOENT: a spawn error from `node:child_process`, or the Automation API's
 * CommandError wrapping execa's (`commandResult.err`). The directory is checked before any call (findProjectDir), so
 * ENOENT here means the executable, not the working directory.
 */
function isNotFoundOnPath(error: unknown): boolean {
  const cause = (error as { commandResult?: { err?: unknown } } | undefined)?.commandResult?.err ?? error;
  return typeof cause === "object" && cause !== null && (cause as { code?: unknown }).code === "ENOENT";
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // EACCES, ENOTDIR, ...: Pulumi treats an unreadable directory as holding no project.
  }
}

/**
 * The line of a failed `pulumi` call that tells a person why: Pulumi's own `error: ...` line from its stderr (the
 * Automation API's CommandError carries it in `commandResult.stderr`, and its message format differs between
 * `@pulumi/pulumi` versions), else the first non-empty line of the message.
 */
function firstLine(error: unknown): string {
  const stderr = (error as { commandResult?: { stderr?: unknown } } | undefined)?.commandResult?.stderr;
  const text = typeof stderr === "string" && stderr.trim() !== "" ? stderr : messageOf(error);
  const pulumiError = /^error: (.+)$/m.exec(text)?.[1] ?? /stderr: ([^\n]+)/.exec(text)?.[1];
  return (pulumiError ?? text.split("\n").find((line) => line.trim() !== "") ?? text).trim();
}
