/**
 * Child processes, for the tests and the benchmark (no shipped room imports this). Runs commands to completion,
 * starts long-running ones and waits for what they print, and finds processes by what they run among the descendants
 * of one process (read from /proc), so a test only ever signals processes it started itself, never those of another
 * suite running on the same machine.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { required } from "../../kernel/required.ts";

/** The end of a command. */
export interface Ran {
  code: number | null;
  /** The signal that ended it, if any. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to completion. Never rejects for a non-zero exit (the test asserts and shows the output).
 *
 * @param options.onStderr receives the whole stderr so far after each chunk (e.g. to wait for a printed URL)
 * @param options.input written to its standard input, then closed (how a secret reaches `pulumi config set`);
 *   without it, standard input is closed from the start
 */
export function runCommand(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; onStderr?: (text: string) => void; input?: string },
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (options.input !== undefined) {
      // A command that exits without reading all its input closes the pipe: that is its business (its exit code
      // and output say how it went), not an error of the run.
      const stdin = required(child.stdin, "the child's stdin pipe");
      stdin.on("error", () => undefined);
      stdin.end(options.input);
    }
    let stdout = "";
    let stderr = "";
    required(child.stdout, "the child's stdout pipe").on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    required(child.stderr, "the child's stderr pipe").on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      options.onStderr?.(stderr);
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A long-running child process started by {@link startProcess}, its output collected as it comes. */
export interface RunningProcess {
  child: ChildProcess;
  /** What it wrote on stdout so far. */
  stdout(): string;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Both, in the order they came (what a server's log shows). */
  output(): string;
  /** Settles when the process has exited (its pipes may still be draining); never rejects. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Settles when it has exited and its pipes are closed, with all it printed; never rejects. */
  ended: Promise<Ran>;
  /**
   * Waits until `pattern` matches what the process printed on `stream` so far (`output`: on both, in order), e.g.
   * the port a plugin prints, the URL a server prints.
   *
   * @param what what is waited for, for the error message
   * @param timeoutMs how long to wait, in milliseconds (default 60 s)
   * @returns the match
   * @throws Error with the process's output when it exits first or the time runs out
   */
  waitFor(
    stream: "stdout" | "stderr" | "output",
    pattern: RegExp,
    what: string,
    timeoutMs?: number,
  ): Promise<RegExpExecArray>;
  /** Sends `signal` (default SIGTERM) unless it has exited, and waits for its exit (idempotent). */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts a long-running command (a plugin, an analyzer, a server, the CLI waiting for a browser) and collects its
 * output: the one spawn-and-collect loop of the long-running processes of tests and benchmarks, as
 * {@link runCommand} is of those run to completion.
 *
 * @param options.stdin `pipe` to write to its standard input (`child.stdin`); default `ignore`
 */
export function startProcess(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: "ignore" | "pipe" } = {},
): RunningProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: [options.stdin ?? "ignore", "pipe", "pipe"],
  });
  const printed = { stdout: "", stderr: "", output: "" };
  const listeners = new Set<() => void>();
  for (const stream of ["stdout", "stderr"] as const)
    required(child[stream], `the child's ${stream} pipe`).on("data", (chunk: Buffer) => {
      printed[stream] += chunk.toString();
      printed.output += chunk.toString();
      for (const listener of listeners) listener();
    });
  // A command that cannot start (ENOENT) emits "error" and no "exit": it ends all the same, with no code.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", (error) => {
      printed.stderr += `${command}: ${error.message}\n`;
      printed.output += `${command}: ${error.message}\n`;
      resolve({ code: null, signal: null });
    });
  });
  const ended = new Promise<Ran>((resolve) => {
    const end = (code: number | null, signal: NodeJS.Signals | null): void =>
      resolve({ code, signal, stdout: printed.stdout, stderr: printed.stderr });
    child.once("close", end);
    child.once("error", () => end(null, null));
  });
  const started = `${command} ${args.join(" ")}`;
  return {
    child,
    stdout: () => printed.stdout,
    stderr: () => printed.stderr,
    output: () => printed.output,
    exited,
    ended,
    waitFor(stream, pattern, what, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const settle = (error?: Error, match?: RegExpExecArray): void => {
          clearTimeout(timer);
          listeners.delete(check);
          if (match) resolve(match);
          else reject(error);
        };
        const check = (): void => {
          const match = pattern.exec(printed[stream]);
          if (match) settle(undefined, match);
        };
        const timer = setTimeout(
          () =>
            settle(new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${started}):\n${printed.output}`)),
          timeoutMs,
        );
        listeners.add(check);
        void exited.then(({ code, signal }) => {
          check();
          if (listeners.has(check))
            settle(new Error(`${started} exited (code ${code}, signal ${signal}) before ${what}:\n${printed.output}`));
        });
        check();
      });
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** A failure message that shows what a command printed. */
export function shown(what: string, ran: Ran): string {
  return `${what} exited with ${ran.code ?? ran.signal}\n--- stdout\n${ran.stdout.slice(-4000)}\n--- stderr\n${ran.stderr.slice(-4000)}`;
}

/** A process as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The command line, arguments joined by spaces. */
  commandLine: string;
}

/** Every process visible in /proc (those that exit while being read are left out). */
function processes(): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses, so split after the last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      found.push({ pid: Number(entry), ppid, commandLine });
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}

/**
 * The descendants of `root` (children, their children, ...) whose command line matches `pattern`.
 *
 * @param root the ancestor, e.g. `process.pid` (the test's own process)
 */
export function descendantsMatching(root: number, pattern: RegExp): ProcessInfo[] {
  const all = processes();
  const children = new Map<number, ProcessInfo[]>();
  for (const info of all) children.set(info.ppid, [...(children.get(info.ppid) ?? []), info]);
  const found: ProcessInfo[] = [];
  const queue = [...(children.get(root) ?? [])];
  for (let info = queue.shift(); info; info = queue.shift()) {
    if (pattern.test(info.commandLine)) found.push(info);
    queue.push(...(children.get(info.pid) ?? []));
  }
  return found;
}

/**
 * Every process on the machine (descendant or not: a plugin outlives the `pulumi` that started it, and is then
 * nobody's child) whose command line contains `text`, e.g. a test's own folder.
 *
 * @param text a literal substring of the command line
 */
export function processesRunning(text: string): ProcessInfo[] {
  return processes().filter((info) => info.pid !== process.pid && info.commandLine.includes(text));
}

/** Resolves once `condition` returns a truthy value (polled every `intervalMs`); rejects after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  condition: () => T | Promise<T>,
  timeoutMs = 60_000,
  intervalMs = 50,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * A process's peak resident memory so far (`VmHWM` of `/proc/<pid>/status`, Linux), in MiB.
 *
 * @param pid the process, or `self` for this one
 */
export function peakRssMiB(pid: number | "self"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(required(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1], `VmHWM in /proc/${pid}/status`)) / 1024;
}
