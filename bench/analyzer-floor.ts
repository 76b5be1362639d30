/**
 * Where a governed preview's time goes: the policy pack's analyzer against the floor of any analyzer, in one run
 * (`node bench/analyzer-floor.ts [--reps 5] [--replays 5] [--base <executable>]`, after `. scripts/lib/env.sh` and a
 * build; docs/benchmark.md has the figures). The floor is `bench/analyzer-floor` (Go, built here with the machine's
 * `go`): a null analyzer that gives the engine the real pack's `GetAnalyzerInfo` and responds to everything else with an
 * empty message, on the engine's own gRPC library. Two measurements:
 *
 * - previews of 300 compliant native webhooks (bench/policy.ts's program, config and pack config), interleaved:
 *   without a pack, with the floor, with the release executable's `pulumi-analyzer-helpdesk` (and `--base`'s);
 *   the floor's ratio is what the engine itself spends per analyzer call (marshalling, its logs, its gRPC client);
 * - a replay of the calls the engine made in one such preview (recorded by the floor), one after the other as the
 *   engine sends them, by a Go gRPC client (`analyzer-floor replay`): per resource, the wall time of its two calls
 *   and the analyzer's CPU, and AnalyzeStack's, in the analyzer's first round (as in a preview: nothing warmed up).
 *
 * Each preview's CPU time is printed beside its wall time: the user and system time of `pulumi` and of every process
 * it started and waited for (the language host, the program, the plugin, the analyzer), from this process's
 * `cutime` and `cstime` in `/proc/self/stat`; on a busy machine it varies less than the wall time.
 *
 * Printed, never asserted.
 */

import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { startEmulator } from "pulumi-helpdesk/emulator";
import { ANALYZER_EXECUTABLE } from "../dist/kernel/names.js"; // from the build, as scripts/release/executable.ts says
import { required } from "../dist/kernel/required.js";
import { repoRoot } from "../scripts/lib/repo-root.ts";
import { releaseFolder } from "./plugin-start.ts";
import { governedStack, POLICY_COUNT } from "./policy.ts";
import { median } from "./results.ts";
import { BENCH_CLIENT } from "./stack-config.ts";

/** The value after `--name`, or `fallback`. */
function option(name: string, fallback: string | undefined): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
}

/** CPU time (ms) of the children this process has waited for, from `/proc/self/stat` (Linux; USER_HZ 100). */
function childrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** Writes an executable shell script `folder/pulumi-analyzer-helpdesk` that runs `command` with `env` set. */
function analyzerScript(folder: string, env: Record<string, string>, command: string[]): string {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, ANALYZER_EXECUTABLE);
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  writeFileSync(
    file,
    `#!/bin/sh\n${[...assignments, "exec", ...command.map((part) => JSON.stringify(part))].join(" ")} "$@"\n`,
  );
  chmodSync(file, 0o755);
  return file;
}

/** Asks an analyzer for its `GetAnalyzerInfo` and `GetPluginInfo` responses, encoded, and writes them to `dir`. */
async function captureInfo(analyzer: string, dir: string): Promise<void> {
  const child = spawn(analyzer, ["127.0.0.1:1"], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise<string>((done) =>
      child.stdout.once("data", (chunk: Buffer) => done(String(chunk).trim())),
    );
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    for (const method of ["GetAnalyzerInfo", "GetPluginInfo"]) {
      const bytes = await new Promise<Buffer>((done, fail) =>
        client.makeUnaryRequest(
          `/pulumirpc.Analyzer/${method}`,
          (request: Buffer) => request,
          (response: Buffer) => response,
          Buffer.alloc(0),
          (error, response) => (error ? fail(error) : done(required(response, `the response of ${method}`))),
        ),
      );
      writeFileSync(join(dir, `${method}.bin`), bytes);
    }
    client.close();
  } finally {
    child.kill("SIGKILL");
  }
}

const reps = Number(option("reps", "5"));
const replays = Number(option("replays", "5"));
const base = option("base", undefined);
const work = mkdtempSync(join(tmpdir(), "helpdesk-bench-analyzer-floor-"));
const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [BENCH_CLIENT] });
try {
  const tool = join(work, "analyzer-floor");
  execFileSync("go", ["build", "-o", tool, "."], { cwd: join(repoRoot, "bench/analyzer-floor"), stdio: "inherit" });
  const release = await releaseFolder(work);
  const info = join(work, "info");
  mkdirSync(info);
  await captureInfo(join(release, ANALYZER_EXECUTABLE), info);
  const recorded = join(work, "calls.jsonl");
  const analyzers: Record<string, string> = {
    floor: analyzerScript(join(work, "floor"), { ANALYZER_FLOOR_DIR: info }, [tool, "serve"]),
    executable: join(release, ANALYZER_EXECUTABLE),
  };
  if (base) analyzers.base = analyzerScript(join(work, "base"), {}, [resolve(base), ANALYZER_EXECUTABLE]);
  const recorder = analyzerScript(
    join(work, "recorder"),
    { ANALYZER_FLOOR_DIR: info, ANALYZER_FLOOR_RECORD: recorded },
    [tool, "serve"],
  );

  const { stack, configFile } = await governedStack(repoRoot, work, "analyzer-floor", emulator.url);
  try {
    await stack.preview(); // warms the plugin cache and the program's first compilation
    await stack.preview({ policyPacks: [recorder], policyPackConfigs: [configFile] });

    console.log(`\nreplay of the ${POLICY_COUNT} resources' calls of one preview, first round of each analyzer start:`);
    for (let round = 0; round < replays; round++)
      for (const [kind, analyzer] of Object.entries(analyzers))
        console.log(`${kind}: ${execFileSync(tool, ["replay", recorded, analyzer, "1"], { encoding: "utf8" }).trim()}`);

    /** A kind of preview: its pack (none for `without`), and its samples: wall and CPU ms per rep. */
    const kindOf = (kind: string, analyzer?: string) => ({
      kind,
      pack: analyzer === undefined ? {} : { policyPacks: [analyzer], policyPackConfigs: [configFile] },
      times: [] as number[],
      cpus: [] as number[],
    });
    const floor = kindOf("without");
    const kinds = [floor, ...Object.entries(analyzers).map(([kind, analyzer]) => kindOf(kind, analyzer))];
    for (let rep = 0; rep < reps; rep++) {
      const walls: string[] = [];
      for (const { kind, pack, times, cpus } of kinds) {
        const [began, cpuBefore] = [performance.now(), childrenCpuMs()];
        await stack.preview({ color: "never", ...pack });
        const wall = performance.now() - began;
        times.push(wall);
        cpus.push(childrenCpuMs() - cpuBefore);
        walls.push(`${kind} ${(wall / 1000).toFixed(2)} s`);
      }
      process.stderr.write(`rep ${rep + 1}/${reps}: ${walls.join(", ")}\n`);
    }
    const without = median(floor.times);
    const withoutCpu = median(floor.cpus);
    console.log(
      `\npulumi preview of ${POLICY_COUNT} native webhooks, every policy, all compliant (median of ${reps}, interleaved; wall, and CPU of pulumi and its processes):`,
    );
    for (const { kind, times, cpus } of kinds)
      console.log(
        `  ${kind.padEnd(11)} wall ${(median(times) / 1000).toFixed(2)} s, ratio ${(median(times) / without).toFixed(3)} (${times.map((ms) => (ms / 1000).toFixed(2)).join(" ")}); CPU ${(median(cpus) / 1000).toFixed(2)} s, ratio ${(median(cpus) / withoutCpu).toFixed(3)}`,
      );
  } finally {
    await stack.workspace.removeStack("analyzer-floor", { force: true }).catch(() => undefined);
  }
} finally {
  await emulator.close();
  rmSync(work, { recursive: true, force: true });
}
