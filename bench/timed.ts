/**
 * Runs one command of a benchmark and times it (bench/import.ts, bench/migrate.ts). Never synchronously: the
 * emulator those benchmarks start answers from the benchmark's own event loop.
 */
import { runCommand } from "../scripts/lib/processes.ts";

/**
 * Runs a command (scripts/lib/processes.ts `runCommand`, the one spawn-and-collect loop), failing the benchmark
 * when it fails.
 *
 * @param command the executable; @param args its arguments; @param cwd its working directory; @param env its
 *   environment; @param input what to write to its standard input (none: it reads an empty one)
 * @returns its stdout, its stderr and how long it took, in seconds
 * @throws Error when it exits with a code other than 0 (the message ends with its stderr's last 4,000 characters)
 */
export async function timed(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  input = "",
): Promise<{ seconds: number; stdout: string; stderr: string }> {
  const began = process.hrtime.bigint();
  const ran = await runCommand(command, args, { cwd, env, ...(input === "" ? {} : { input }) });
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  if (ran.code !== 0)
    throw new Error(`${command} ${args.join(" ")} exited with ${ran.code ?? ran.signal}:\n${ran.stderr.slice(-4000)}`);
  return { seconds, stdout: ran.stdout, stderr: ran.stderr };
}
