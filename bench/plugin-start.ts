/**
 * How fast the release executable is ready under each of its names: the time from starting it to its first line on
 * stdout (for the plugin and the analyzer, their port: what the Pulumi engine waits for before its first call,
 * pulumi/pulumi `sdk/go/common/resource/plugin/plugin.go`), and its resident memory at that moment. Seven kinds of
 * start are measured, interleaved, `STARTS` times each (eleven with a base: below):
 *
 * - `plugin`: the self-contained release executable (`scripts/release/executable.ts`, Node SEA) as
 *   `pulumi-resource-helpdesk`, run with an empty `PATH`, as Pulumi runs it from its plugin cache;
 * - `analyzer`: the same executable as `pulumi-analyzer-helpdesk` (the policy pack), as `--policy-pack` runs it;
 * - `cli --version`, `cli --help`: the same executable as `pulumi-helpdesk --version` and `pulumi-helpdesk --help`;
 * - `npm cli --version`: the npm package's CLI, `node dist/bin/pulumi-helpdesk.js --version`;
 * - `launcher`: the npm package's launcher (`plugin/pulumi-resource-helpdesk`), which runs `node` on the built
 *   `dist/bin/pulumi-resource-helpdesk.js`;
 * - `floor`: the same Node.js printing a line and nothing else, what any program written for Node.js costs at least.
 *
 * Each start's CPU time at its first line is read too (`utime` + `stime` of `/proc/<pid>/stat`, Linux): on a busy
 * machine it varies less than the wall time. Printed as median, min and max with ratios to the floor; never asserted
 * (the goals, plugin and analyzer (issue 36) and the CLI's `--version` and `--help` (issue 43) at most 2 times the
 * floor, are read off the table).
 *
 * Run alone: `node bench/plugin-start.ts [--base <executable>] [--starts N]` (after `. scripts/lib/env.sh`); `--base` adds another
 * build's release executable (e.g. main's: the file `node scripts/release/executable.ts` prints in its checkout) as
 * `plugin (base)`, `analyzer (base)`, `cli --version (base)` and `cli --help (base)`, interleaved with the rest: a before
 * and after in one run.
 */

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ANALYZER_EXECUTABLE, CLI_EXECUTABLE, PLUGIN_EXECUTABLE } from "../dist/kernel/names.js"; // from the build, as scripts/release/executable.ts says
import { required } from "../dist/kernel/required.js";
import { startProcess } from "../scripts/lib/processes.ts";
import { buildExecutable } from "../scripts/release/executable.ts";
import { readProc } from "./memory.ts";
import { median } from "./results.ts";

/** Starts of each kind (`npm run bench`; `--starts` when run alone): odd, so that the median is one of them. */
export const STARTS = 11;

/** One kind of start: what to run and with which environment. */
interface StartKind {
  name:
    | "plugin"
    | "analyzer"
    | "cli --version"
    | "cli --help"
    | "npm cli --version"
    | "launcher"
    | "floor"
    | "plugin (base)"
    | "analyzer (base)"
    | "cli --version (base)"
    | "cli --help (base)";
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

/** One start: milliseconds to the first line, the process's CPU time then (ms), and its resident memory then (KiB). */
interface Start {
  ms: number;
  cpuMs: number;
  rssKiB: number;
}

/** Clock ticks per second of `/proc/<pid>/stat`'s times (Linux's USER_HZ, 100 on every architecture Pulumi runs on). */
const USER_HZ = 100;

/** A process's CPU time so far (user + system, ms) from `/proc/<pid>/stat`; NaN once it is gone. */
function cpuMsOf(pid: number): number {
  const stat = readProc(pid, "stat");
  if (stat === undefined) return Number.NaN;
  // The fields after the command's name (which may hold spaces, hence the last ")"): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
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
    // VmRSS and CPU when it still runs (the plugin, the analyzer; `--version` may be gone already).
    const pid = required(started.child.pid, `the pid of ${kind.name}`);
    const rss = /VmRSS:\s+(\d+) kB/.exec(readProc(pid, "status") ?? "");
    const cpuMs = cpuMsOf(pid);
    return { ms, cpuMs, rssKiB: rss ? Number(rss[1]) : Number.NaN };
  } finally {
    await started.stop("SIGKILL");
  }
}

/** The median resident memory in MiB of the starts that were still running when read (NaN when none was). */
function rssMiB(rssKiB: number[]): number {
  const read = rssKiB.filter(Number.isFinite);
  return read.length > 0 ? median(read) / 1024 : Number.NaN;
}

/**
 * The mean of the finite values of a list (NaN when none is): for CPU times, which `/proc` counts in 10 ms ticks, a
 * mean is finer than a median.
 */
function finiteMean(values: number[]): number {
  const read = values.filter(Number.isFinite);
  return read.length > 0 ? read.reduce((sum, value) => sum + value, 0) / read.length : Number.NaN;
}

/** What {@link measurePluginStart} measured, by kind (the base's kinds only with a base). */
export type PluginStartResults = Partial<
  Record<StartKind["name"], { startsMs: number[]; cpuMs: number[]; rssKiB: number[] }>
>;

/**
 * Measures the seven kinds of start (eleven with a base), interleaved, and prints the table.
 *
 * @param root the repository root (the launcher is `<root>/plugin/pulumi-resource-helpdesk`, the build in `<root>/dist`)
 * @param log progress lines (stderr)
 * @param base another build's release executable, measured as the plugin, the analyzer and the CLI beside this one's
 * @param starts starts of each kind
 * @returns every start's time, CPU time and memory
 */
export async function measurePluginStart(
  root: string,
  log: (line: string) => void,
  base?: string,
  starts: number = STARTS,
): Promise<PluginStartResults> {
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
      { name: "cli --version", command: join(release, CLI_EXECUTABLE), args: ["--version"], env: bare },
      { name: "cli --help", command: join(release, CLI_EXECUTABLE), args: ["--help"], env: bare },
      {
        name: "npm cli --version",
        command: process.execPath,
        args: [join(root, "dist", "bin", `${CLI_EXECUTABLE}.js`), "--version"],
        env: process.env,
      },
      {
        name: "launcher",
        command: join(root, "plugin", PLUGIN_EXECUTABLE),
        args: [engine],
        env: { ...process.env, PULUMI_HELPDESK_NODE: process.execPath },
      },
    ];
    if (base !== undefined) {
      const baseFolder = join(work, "base");
      mkdirSync(baseFolder);
      copyFileSync(base, join(baseFolder, PLUGIN_EXECUTABLE));
      for (const name of [ANALYZER_EXECUTABLE, CLI_EXECUTABLE]) symlinkSync(PLUGIN_EXECUTABLE, join(baseFolder, name));
      kinds.push(
        { name: "plugin (base)", command: join(baseFolder, PLUGIN_EXECUTABLE), args: [engine], env: bare },
        { name: "analyzer (base)", command: join(baseFolder, ANALYZER_EXECUTABLE), args: [engine], env: bare },
        { name: "cli --version (base)", command: join(baseFolder, CLI_EXECUTABLE), args: ["--version"], env: bare },
        { name: "cli --help (base)", command: join(baseFolder, CLI_EXECUTABLE), args: ["--help"], env: bare },
      );
    }
    const results: PluginStartResults = {};
    const measured = Object.fromEntries(
      kinds.map((kind) => [kind.name, { startsMs: [] as number[], cpuMs: [] as number[], rssKiB: [] as number[] }]),
    ) as Required<PluginStartResults>;
    for (let i = 0; i < starts; i++) {
      for (const kind of kinds) {
        const start = await startOnce(kind);
        measured[kind.name].startsMs.push(start.ms);
        measured[kind.name].cpuMs.push(start.cpuMs);
        measured[kind.name].rssKiB.push(start.rssKiB);
      }
    }
    for (const kind of kinds) results[kind.name] = measured[kind.name];
    const floor = median(measured.floor.startsMs);
    const floorCpu = finiteMean(measured.floor.cpuMs);
    const cell = (value: number, digits: number): string => value.toFixed(digits).padStart(10);
    console.log(
      `\nstart to first line (${starts} starts each, interleaved; ms)                median       min       max   RSS MiB   /floor  CPU ms   /floor`,
    );
    for (const kind of kinds) {
      const { startsMs, cpuMs, rssKiB } = measured[kind.name];
      console.log(
        `  ${kind.name.padEnd(55)}${cell(median(startsMs), 0)}${cell(Math.min(...startsMs), 0)}${cell(Math.max(...startsMs), 0)}${cell(rssMiB(rssKiB), 1)}${cell(median(startsMs) / floor, 2)}${cell(finiteMean(cpuMs), 0)}${cell(finiteMean(cpuMs) / floorCpu, 2)}`,
      );
    }
    console.log(
      `plugin, analyzer, cli: the release's self-contained executable (Node SEA, PATH empty) as ${PLUGIN_EXECUTABLE} and\n` +
        `${ANALYZER_EXECUTABLE} (to their port), ${CLI_EXECUTABLE} --version and --help; npm cli: node dist/bin/${CLI_EXECUTABLE}.js;\n` +
        `launcher: the npm package's plugin/${PLUGIN_EXECUTABLE} running node on dist/; floor: the same Node.js printing one\n` +
        "line. Goals: plugin and analyzer (issue 36), cli --version and --help (issue 43) <= 2.00 x floor.\n" +
        "CPU: the process's user + system time at its first line (mean; /proc/<pid>/stat, 10 ms ticks).",
    );
    return results;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { base: { type: "string" }, starts: { type: "string" } } });
  const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
  await measurePluginStart(
    root,
    (line) => void process.stderr.write(`${line}\n`),
    values.base && resolve(values.base),
    values.starts === undefined ? STARTS : Number(values.starts),
  );
}
