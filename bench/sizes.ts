/**
 * What the benchmarks that time one command at several sizes N share (bench/import.ts, bench/migrate.ts): the
 * emulator and the sign-in, one fresh stack per N in a temporary folder with a file:// backend (and a Pulumi home of
 * its own, bench/stack-config.ts `backendEnv`), signed in as `pulumi-helpdesk login` would leave it, removed after.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator } from "pulumi-helpdesk/emulator";
import { signInAutoApproved } from "pulumi-helpdesk/emulator/client";
// The built package, as stack-config.ts says why.
import { TOKEN_CACHE_DIR_VARIABLE } from "../dist/auth/environment.js";
import { CONFIG_KEYS } from "../dist/kernel/config.js";
import { BENCH_CLIENT, backendEnv } from "./stack-config.ts";
import { timed } from "./timed.ts";

/** The stack of one size, ready: its stack `bench` exists and holds the help desk's base URL and access token. */
export interface SizedStack {
  /** The temporary folder of this size (removed after it): holds `program/`, `state/`, `token-cache/`. */
  work: string;
  /** The project folder, `work/program`, the working folder of every command. */
  program: string;
  /** The environment of every command: the backend's, the token cache's, no colour. */
  env: NodeJS.ProcessEnv;
  /** The emulator's base URL. */
  baseUrl: string;
  /** The access token of the benchmark's client. */
  accessToken: string;
}

/**
 * Runs `measure` once per size, each in a fresh stack `bench` whose project `makeProject` writes, against one emulator
 * that auto-approves {@link BENCH_CLIENT}; everything is removed after each size, the emulator at the end.
 *
 * @param name the benchmark's name, e.g. `bench:import` (the progress lines on stderr start with it)
 * @param sizes the values of N, smallest first (the floor of the ratios)
 * @param makeProject writes the project (Pulumi.yaml, a program) into the empty folder it is given
 * @param measure times what the benchmark times, and returns its row
 * @returns the rows, one per size, in the order of `sizes`
 * @throws Error when a command fails (the benchmark fails: timings of a failed run mean nothing)
 */
export async function eachSize<Row>(
  name: string,
  sizes: readonly number[],
  makeProject: (dir: string) => void,
  measure: (n: number, stack: SizedStack) => Promise<Row>,
): Promise<Row[]> {
  const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [BENCH_CLIENT] });
  const rows: Row[] = [];
  try {
    const { accessToken } = await signInAutoApproved({ baseUrl: emulator.url, ...BENCH_CLIENT });
    for (const n of sizes) {
      const work = mkdtempSync(join(tmpdir(), `helpdesk-${name.replace(":", "-")}-`));
      try {
        const program = join(work, "program");
        mkdirSync(program);
        mkdirSync(join(work, "state"));
        makeProject(program);
        const env = {
          ...process.env,
          ...backendEnv(join(work, "state")),
          [TOKEN_CACHE_DIR_VARIABLE.name]: join(work, "token-cache"),
          NO_COLOR: "1",
        };
        process.stderr.write(`${name}: N=${n}: a fresh stack\n`);
        await timed("pulumi", ["stack", "init", "bench", "--non-interactive"], program, env);
        await timed("pulumi", ["config", "set", CONFIG_KEYS.baseUrl, emulator.url, "--stack", "bench"], program, env);
        await timed(
          "pulumi",
          ["config", "set", "--secret", CONFIG_KEYS.accessToken, "--stack", "bench"],
          program,
          env,
          accessToken,
        );
        rows.push(await measure(n, { work, program, env, baseUrl: emulator.url, accessToken }));
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }
  } finally {
    await emulator.close();
  }
  return rows;
}

/** The `Duration:` that `pulumi import` prints (its own run, within a command's time), or `?`. */
export function pulumiImportDuration(stderr: string): string {
  return /^Duration: (\S+)/m.exec(stderr)?.[1] ?? "?";
}
