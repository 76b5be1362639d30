/**
 * Runs one command of a benchmark and times it (bench/import.ts, bench/migrate.ts). Never synchronously: the
 * emulator those benchmarks start answers from the benchmark's own event loop.
 */
import { spawn } from "node:child_process";

/**
 * Runs a command, failing the benchmark when it fails.
 *
 * @param command the executable; @param args its arguments; @param cwd its working directory; @param env its
 *   environment; @param input what to write to its standard input
 * @returns its stdout, its stderr and how long it took, in seconds
 * @throws Error when it exits with a code other than 0 (the message ends with its stderr's last 4,000 characters)
 */
export function timed(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  input = "",
): Promise<{ seconds: number; stdout: string; stderr: string }> {
  const began = process.hrtime.bigint();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const seconds = Number(process.hrtime.bigint() - began) / 1e9;
      if (code === 0) resolvePromise({ seconds, stdout, stderr });
      else reject(new Error(`${command} ${args.join(" ")} exited with ${code}:\n${stderr.slice(-4000)}`));
    });
    child.stdin.end(input);
  });
}
