/**
 * How fast the release executable is ready under each of its names: the time from starting it to its first line on
 * stdout (for the plugin and the analyzer, their port: what the Pulumi engine waits for before its first call,
 * pulumi/pulumi `sdk/go/common/resource/plugin/plugin.go`), and its resident memory at that moment. Five starts are
 * measured, interleaved, `STARTS` times each:
 *
 * - `plugin`: the self-contained release executable (`scripts/release/executable.ts`, Node SEA) as
 *   `pulumi-resource-helpdesk`, run with an empty `PATH`, as Pulumi runs it from its plugin cache;
 * - `analyzer`: the same executable as `pulumi-analyzer-helpdesk` (the policy pack), as `--policy-pack` runs it;
 * - `cli`: the same executable as `pulumi-helpdesk --version`;
 * - `launcher`: the npm package's launcher (`plugin/pulumi-resource-helpdesk`), which runs `node` on the built
 *   `dist/bin/pulumi-resource-helpdesk.js`;
 * - `floor`: the same Node.js printing a line and nothing else, what any program written for Node.js costs at least.
 *
 * Printed as median, min and max with ratios to the floor; never asserted (issue 36's goal, plugin and analyzer at most
 * 2 times the floor, is read off the table).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { startProcess } from "../tests/support/processes.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ANALYZER_EXECUTABLE, CLI_EXECUTABLE, PLUGIN_EXECUTABLE } from "../dist/kernel/names.js"; // from the build, as scripts/release/executable.ts says
import { buildExecutable } from "../scripts/release/executable.ts";
import { readProc } from "./memory.ts";

/** Starts of each kind. */
export const STARTS = 10;

/** One kind of start: what to run and with which environment. */
interface StartKind {
  name: "plugin" | "analyzer" | "cli" | "launcher" | "floor";
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * The release archive's layout in `work/release`: the executable (built, or taken from the build cache) and its links
 * under the analyzer's and the CLI's names (scripts/release/release.ts). The executable is a copy: the build cache keeps
 * only its newest few, so another build on the machine during a long run could remove the cached file a link names
 * (a dangling `pulumi-analyzer-helpdesk` is then taken by `pulumi preview --policy-pack` for a folder without
 * `PulumiPolicy.yaml`).
 *
 * @returns the folder
 */
export async function releaseFolder(work: string): Promise<string> {
  const built = await buildExecutable();
  const folder = join(work, "release");
  mkdirSync(folder, { recursive: true });
  copyFileSync(built.path, join(folder, PLUGIN_EXECUTABLE));
  for (const name of [ANALYZER_EXECUTABLE, CLI_EXECUTABLE]) symlinkSync(PLUGIN_EXECUTABLE, join(folder, name));
  return folder;
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
async function startOnce(kind: StartKind): Promise<Start> {
  const began = performance.now();
  const started = startProcess(kind.command, kind.args, { env: kind.env });
  try {
    await started.waitFor("stdout", /\n/, `${kind.name}'s first line`, 30_000);
    const ms = performance.now() - began;
    // VmRSS when it still runs (the plugin, the analyzer; `--version` may be gone already).
    const rss = /VmRSS:\s+(\d+) kB/.exec(readProc(started.child.pid!, "status") ?? "");
    return { ms, rssKiB: rss ? Number(rss[1]) : Number.NaN };
  } finally {
    await started.stop("SIGKILL");
  }
}

/** The median of a non-empty list. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The median resident memory in MiB of the starts that were still running when read (NaN when none was). */
function rssMiB(rssKiB: number[]): number {
  const read = rssKiB.filter(Number.isFinite);
  return read.length > 0 ? median(read) / 1024 : Number.NaN;
}

/** What {@link measurePluginStart} measured, by kind. */
export type PluginStartResults = Record<StartKind["name"], { startsMs: number[]; rssKiB: number[] }>;

/**
 * Measures the five kinds of start, interleaved, and prints the table.
 *
 * @param root the repository root (the launcher is `<root>/plugin/pulumi-resource-helpdesk`, the build in `<root>/dist`)
 * @param log progress lines (stderr)
 * @returns every start's time and memory
 */
export async function measurePluginStart(root: string, log: (line: string) => void): Promise<PluginStartResults> {
  log("starts: building (or reusing) the release executable");
  const work = mkdtempSync(join(tmpdir(), "helpdesk-bench-starts-"));
  try {
    const release = await releaseFolder(work);
    const emptyPath = join(work, "empty-path");
    mkdirSync(emptyPath);
    const bare = { PATH: emptyPath, HOME: process.env.HOME };
    // The engine's address as the plugin's and the analyzer's argument, as the engine starts them (nothing listens there).
    const engine = "127.0.0.1:1";
    const kinds: StartKind[] = [
      {
        name: "floor",
        command: process.execPath,
        args: ["-e", 'process.stdout.write("1\\n"); setInterval(() => {}, 1000);'],
        env: process.env,
      },
      { name: "plugin", command: join(release, PLUGIN_EXECUTABLE), args: [engine], env: bare },
      { name: "analyzer", command: join(release, ANALYZER_EXECUTABLE), args: [engine], env: bare },
      { name: "cli", command: join(release, CLI_EXECUTABLE), args: ["--version"], env: bare },
      {
        name: "launcher",
        command: join(root, "plugin", PLUGIN_EXECUTABLE),
        args: [engine],
        env: { ...process.env, PULUMI_HELPDESK_NODE: process.execPath },
      },
    ];
    const results = Object.fromEntries(
      kinds.map((kind) => [kind.name, { startsMs: [] as number[], rssKiB: [] as number[] }]),
    ) as PluginStartResults;
    for (let i = 0; i < STARTS; i++) {
      for (const kind of kinds) {
        const start = await startOnce(kind);
        results[kind.name].startsMs.push(start.ms);
        results[kind.name].rssKiB.push(start.rssKiB);
      }
    }
    const floor = median(results.floor.startsMs);
    const cell = (value: number, digits: number): string => value.toFixed(digits).padStart(10);
    console.log(
      `\nstart to first line (${STARTS} starts each, interleaved; ms)                median       min       max   RSS MiB   /floor`,
    );
    for (const kind of kinds) {
      const { startsMs, rssKiB } = results[kind.name];
      console.log(
        `  ${kind.name.padEnd(55)}${cell(median(startsMs), 0)}${cell(Math.min(...startsMs), 0)}${cell(Math.max(...startsMs), 0)}${cell(rssMiB(rssKiB), 1)}${cell(median(startsMs) / floor, 2)}`,
      );
    }
    console.log(
      `plugin, analyzer, cli: the release's self-contained executable (Node SEA, PATH empty) as ${PLUGIN_EXECUTABLE} and\n` +
        `${ANALYZER_EXECUTABLE} (to their port), ${CLI_EXECUTABLE} --version; launcher: the npm package's plugin/${PLUGIN_EXECUTABLE}\n` +
        "running node on dist/; floor: the same Node.js printing one line. Goal (issue 36): plugin and analyzer <= 2.00 x floor.",
    );
    return results;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
