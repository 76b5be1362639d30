/**
 * How fast the native provider plugin is ready: the time from starting `pulumi-resource-helpdesk` to the line with its
 * port on stdout (what the Pulumi engine waits for before its first call, pulumi/pulumi
 * `sdk/go/common/resource/plugin/plugin.go`), and its resident memory at that moment. Three starts are measured,
 * interleaved, `STARTS` times each:
 *
 * - `executable`: the self-contained release executable (`scripts/release/executable.ts`, Node SEA), run with an empty
 *   `PATH`, as Pulumi runs it from its plugin cache;
 * - `launcher`: the npm package's launcher (`plugin/pulumi-resource-helpdesk`), which runs `node` on the built
 *   `dist/bin/pulumi-resource-helpdesk.js`;
 * - `floor`: the same Node.js printing a line and nothing else, what any plugin written for Node.js costs at least.
 *
 * Printed as median, min and max with ratios to the floor; never asserted (the goal, 0.3 s for the executable on a
 * 2-core machine, is issue 21's and is read off the table).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PLUGIN_EXECUTABLE } from "../dist/kernel/names.js"; // from the build, as scripts/release/executable.ts says
import { buildExecutable } from "../scripts/release/executable.ts";
import { readProc } from "./memory.ts";

/** Starts of each kind. */
export const STARTS = 10;

/** One kind of start: what to run and with which environment. */
interface StartKind {
  name: "executable" | "launcher" | "floor";
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** One start: milliseconds to the first line, and resident memory then (KiB). */
interface Start {
  ms: number;
  rssKiB: number;
}

/**
 * Starts `kind` once, waits for its first line on stdout, reads its VmRSS, and kills it.
 *
 * @throws Error when it exits or prints nothing within 30 s
 */
function startOnce(kind: StartKind): Promise<Start> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(kind.command, kind.args, { env: kind.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => fail(new Error(`${kind.name}: no port within 30 s`)), 30_000);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stdout.includes("\n")) return;
      const ms = performance.now() - started;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readProc(child.pid!, "status") ?? "");
      clearTimeout(timer);
      child.once("exit", () => resolve({ ms, rssKiB: rss ? Number(rss[1]) : Number.NaN }));
      child.kill("SIGKILL");
    });
    child.on("error", fail);
    child.on("exit", (code) => {
      if (!stdout.includes("\n")) fail(new Error(`${kind.name} exited (${code}) before printing its port: ${stderr.slice(0, 300)}`));
    });
  });
}

/** The median of a non-empty list. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** What {@link measurePluginStart} measured, by kind. */
export type PluginStartResults = Record<StartKind["name"], { startsMs: number[]; rssKiB: number[] }>;

/**
 * Measures the three kinds of start, interleaved, and prints the table.
 *
 * @param root the repository root (the launcher is `<root>/plugin/pulumi-resource-helpdesk`, the build in `<root>/dist`)
 * @param log progress lines (stderr)
 * @returns every start's time and memory
 */
export async function measurePluginStart(root: string, log: (line: string) => void): Promise<PluginStartResults> {
  log("plugin start: building (or reusing) the release executable");
  const executable = await buildExecutable();
  const emptyPath = mkdtempSync(join(tmpdir(), "helpdesk-bench-empty-path-"));
  try {
    const kinds: StartKind[] = [
      { name: "executable", command: executable.path, args: [], env: { PATH: emptyPath, HOME: process.env.HOME } },
      { name: "launcher", command: join(root, "plugin", PLUGIN_EXECUTABLE), args: [], env: { ...process.env, PULUMI_HELPDESK_NODE: process.execPath } },
      { name: "floor", command: process.execPath, args: ["-e", 'process.stdout.write("1\\n"); setInterval(() => {}, 1000);'], env: process.env },
    ];
    const results = Object.fromEntries(kinds.map((kind) => [kind.name, { startsMs: [] as number[], rssKiB: [] as number[] }])) as PluginStartResults;
    for (let i = 0; i < STARTS; i++) {
      for (const kind of kinds) {
        const start = await startOnce(kind);
        results[kind.name].startsMs.push(start.ms);
        results[kind.name].rssKiB.push(start.rssKiB);
      }
    }
    const floor = median(results.floor.startsMs);
    const cell = (value: number, digits: number): string => value.toFixed(digits).padStart(10);
    console.log(`\nplugin start to port (${STARTS} starts each, interleaved; ms)   median       min       max   RSS MiB   /floor`);
    for (const kind of kinds) {
      const { startsMs, rssKiB } = results[kind.name];
      console.log(
        `  ${kind.name.padEnd(55)}${cell(median(startsMs), 0)}${cell(Math.min(...startsMs), 0)}${cell(Math.max(...startsMs), 0)}${cell(median(rssKiB) / 1024, 1)}${cell(median(startsMs) / floor, 2)}`,
      );
    }
    console.log(
      "executable: the release's self-contained plugin (Node SEA, PATH empty); launcher: the npm package's\n" +
        `plugin/${PLUGIN_EXECUTABLE} running node on dist/; floor: the same Node.js printing one line. Goal: executable <= 300 ms.`,
    );
    return results;
  } finally {
    rmSync(emptyPath, { recursive: true, force: true });
  }
}
