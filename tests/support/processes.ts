/**
 * Test support: child processes. Runs commands to completion, and finds processes by what they run among the
 * descendants of one process (read from /proc), so a test only ever signals processes it started itself, never
 * those of another suite running on the same machine.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

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
    if (options.input !== undefined) child.stdin!.end(options.input);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      options.onStderr?.(stderr);
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
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
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
}
