/**
 * A focused driver for the native provider's `up`/`destroy` cost at one N (default 300), the question of issue 21:
 * where does the native plugin's time go, next to the engine's floor? It runs only `up` and `destroy`, kinds
 * interleaved in one run (which goes first rotates per repetition), against the emulator on 127.0.0.1, with a
 * file:// backend in a temporary directory, as bench/bench.ts does. Kinds (`--kinds`, comma-separated):
 *
 *   - native: the native Webhook program (bench/programs/native), checkpoints on, as users run it;
 *   - native-limit: the same with `PULUMI_SKIP_CHECKPOINTS=true`: the provider's cost without the checkpoint's;
 *   - native-noop: the same program run by the no-op plugin (bench/noop-plugin: create and delete do no work), checkpoints
 *     on: the native kind's floor;
 *   - noop, limit: bench.ts's no-op dynamic program, with and without checkpoints.
 *
 * Every kind has a backend directory of its own and the same stack name, so URNs (and the checkpoint's bytes per
 * resource) are the same length in every kind of one program.
 *
 * Options: `--n 300`, `--reps 3`, `--base DIR` (adds the kind native-base: the native kind with the plugin of
 * another build, a package root holding `dist/` and `package.json`, e.g. a copy of `dist/` made before a change: a
 * before/after comparison in one run), `--parallel P` (pulumi's `--parallel`), `--timing` (the plugin's gRPC calls
 * timed by bench/plugin-timing.ts: count, total and median wall time per method, the most calls in flight),
 * `--cpu-prof` (the plugin under `node --cpu-prof`, profiles kept in the printed directory).
 * Timings are printed, never asserted. Run: `node bench/native-profile.ts --n 300 --reps 3 --timing`
 * (after `bash scripts/setup.sh` and `. scripts/lib/env.sh`).
 */

import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation/index.js";
import { startEmulator } from "pulumi-helpdesk/emulator";
import { required } from "../dist/kernel/required.js";
import { repoRoot } from "../scripts/lib/repo-root.ts";
import { type Cleanup, runCleanups, stackCleanup } from "./cleanups.ts";
import { heldWebhookCount, readStats, resetStats } from "./emulator-stats.ts";
import { median, rotated } from "./results.ts";
import { BENCH_CLIENT, backendEnv, signedInConfig } from "./stack-config.ts";

const { values: options } = parseArgs({
  options: {
    n: { type: "string", default: "300" },
    reps: { type: "string", default: "3" },
    kinds: { type: "string", default: "native,native-limit,native-noop,noop,limit" },
    parallel: { type: "string" },
    base: { type: "string" },
    timing: { type: "boolean", default: false },
    "cpu-prof": { type: "boolean", default: false },
    "show-state": { type: "boolean", default: false },
  },
});
const N = Number(options.n);
const REPS = Number(options.reps);
const log = (message: string): void => void process.stderr.write(`${message}\n`);

interface Kind {
  name: string;
  dir: string;
  native: boolean;
  env: Record<string, string>;
}
const nativeDir = join(repoRoot, "bench/programs/native");
const noopDir = join(repoRoot, "bench/programs/noop");
const ALL_KINDS: Kind[] = [
  { name: "native", dir: nativeDir, native: true, env: {} },
  { name: "native-limit", dir: nativeDir, native: true, env: { PULUMI_SKIP_CHECKPOINTS: "true" } },
  { name: "native-noop", dir: join(repoRoot, "bench/programs/native-noop"), native: true, env: {} },
  { name: "noop", dir: noopDir, native: false, env: {} },
  { name: "limit", dir: noopDir, native: false, env: { PULUMI_SKIP_CHECKPOINTS: "true" } },
];
if (options.base !== undefined)
  ALL_KINDS.push({
    name: "native-base",
    dir: nativeDir,
    native: true,
    env: { PULUMI_HELPDESK_PACKAGE_ROOT: resolve(options.base) },
  });
const kinds = [...options.kinds.split(","), ...(options.base === undefined ? [] : ["native-base"])].map((name) => {
  const kind = ALL_KINDS.find((candidate) => candidate.name === name);
  if (!kind) throw new Error(`unknown kind ${name} (known: ${ALL_KINDS.map((k) => k.name).join(", ")})`);
  return kind;
});

const scratch = mkdtempSync(join(tmpdir(), "helpdesk-native-profile-"));
const cleanups: Cleanup[] = [() => rmSync(scratch, { recursive: true, force: true })];

/** The Node.js the plugin's launcher runs (PULUMI_HELPDESK_NODE): the timing preload and/or --cpu-prof, per kind. */
function pluginNode(kind: Kind): Record<string, string> {
  if (!kind.native || (!options.timing && !options["cpu-prof"])) return {};
  const out = join(scratch, "plugin", kind.name);
  mkdirSync(out, { recursive: true });
  const flags = [
    ...(options.timing || options["cpu-prof"] ? ["--import", join(repoRoot, "bench/plugin-timing.ts")] : []),
    ...(options["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${out}`] : []),
  ];
  const wrapper = join(out, "node");
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${flags.map((f) => JSON.stringify(f)).join(" ")} "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  return { PULUMI_HELPDESK_NODE: wrapper, HELPDESK_PLUGIN_TIMING_DIR: out };
}

/** CPU seconds (user + system) of a `process.cpuUsage()` difference: the driver, i.e. the emulator and the Automation API. */
function cpuSeconds(usage: NodeJS.CpuUsage): string {
  return ((usage.user + usage.system) / 1e6).toFixed(2);
}

interface Timing {
  maxInFlight: number;
  cpuMs: number;
  methods: Record<string, { ms: number[] }>;
}

/** Reads and removes the timing files the plugin wrote during one operation. */
function takeTimings(kind: Kind): Timing[] {
  const out = join(scratch, "plugin", kind.name);
  if (!existsSync(out)) return [];
  const files = readdirSync(out).filter((file) => file.startsWith("timing-"));
  const timings = files.map((file) => JSON.parse(readFileSync(join(out, file), "utf8")) as Timing);
  for (const file of files) rmSync(join(out, file));
  return timings;
}

function describeTimings(timings: Timing[]): string {
  return timings
    .map((timing) => {
      const methods = Object.entries(timing.methods)
        .filter(([, m]) => m.ms.length > 0)
        .map(
          ([name, m]) =>
            `${name} ${m.ms.length}x sum ${(m.ms.reduce((a, b) => a + b, 0) / 1000).toFixed(2)} s med ${median(m.ms).toFixed(1)} ms max ${Math.max(...m.ms).toFixed(0)} ms`,
        );
      return `    plugin cpu ${(timing.cpuMs / 1000).toFixed(2)} s, max in flight ${timing.maxInFlight}; ${methods.join("; ")}`;
    })
    .join("\n");
}

/** Prints the checkpoint's size and its last resource and provider entries (`--show-state`). */
function showState(stateDir: string, kind: Kind): void {
  const project = kind.dir === noopDir ? "helpdesk-bench-noop" : "helpdesk-bench-native";
  const stacks = join(stateDir, ".pulumi", "stacks", project);
  for (const file of readdirSync(stacks).filter((f) => f.endsWith(".json"))) {
    const text = readFileSync(join(stacks, file), "utf8");
    const resources = (JSON.parse(text) as { checkpoint: { latest: { resources: Array<{ type: string }> } } })
      .checkpoint.latest.resources;
    log(`  ${file}: ${text.length} bytes, ${resources.length} resources`);
    log(JSON.stringify(resources.filter((r) => r.type.startsWith("pulumi:providers:")).at(-1), null, 1));
    log(JSON.stringify(resources.at(-1), null, 1));
  }
}

async function run(): Promise<void> {
  const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [BENCH_CLIENT] });
  cleanups.push(() => emulator.close());
  const config = await signedInConfig(emulator.url, N);
  const stackName = `prof${randomBytes(4).toString("hex")}`;
  const backend = backendEnv(join(scratch, "state"));
  const stacks: Array<{ kind: Kind; stack: Stack; stateDir: string; deployed: boolean }> = [];
  for (const kind of kinds) {
    const name = stackName;
    const stateDir = join(scratch, "state", kind.name);
    mkdirSync(stateDir, { recursive: true });
    cleanups.push(() => rmSync(join(kind.dir, `Pulumi.${name}.yaml`), { force: true }));
    const stack = await LocalWorkspace.createOrSelectStack(
      { stackName: name, workDir: kind.dir },
      {
        envVars: {
          ...backend,
          PULUMI_BACKEND_URL: `file://${stateDir}`,
          ...kind.env,
          ...pluginNode(kind),
          HELPDESK_TOKEN_CACHE_DIR: join(scratch, "tokens"),
        },
      },
    );
    const entry = { kind, stack, stateDir, deployed: false };
    cleanups.push(stackCleanup(entry, name, log));
    await stack.setAllConfig(config);
    stacks.push(entry);
  }
  const parallel = options.parallel === undefined ? {} : { parallel: Number(options.parallel) };
  const times = new Map<string, { up: number[]; destroy: number[] }>(
    kinds.map((kind) => [kind.name, { up: [], destroy: [] }]),
  );
  log(`N=${N}, ${REPS} reps, kinds ${kinds.map((k) => k.name).join(", ")}; scratch ${scratch}`);
  for (let rep = 0; rep < REPS; rep++) {
    const order = rotated(stacks, rep);
    for (const entry of order) {
      const { kind, stack, stateDir } = entry;
      await resetStats(emulator.url);
      entry.deployed = true;
      let started = performance.now();
      let cpu = process.cpuUsage();
      await stack.up({ color: "never", ...parallel });
      const up = performance.now() - started;
      const upDriverCpu = cpuSeconds(process.cpuUsage(cpu));
      const upStats = await readStats(emulator.url);
      const upTimings = takeTimings(kind);
      if (options["show-state"] && rep === 0) showState(stateDir, kind);
      if (kind.dir === nativeDir && (await heldWebhookCount(emulator.url)) !== N)
        throw new Error(`${kind.name}: the emulator does not hold ${N} webhooks after up`);
      await resetStats(emulator.url);
      started = performance.now();
      cpu = process.cpuUsage();
      await stack.destroy({ color: "never", ...parallel });
      const destroy = performance.now() - started;
      const destroyDriverCpu = cpuSeconds(process.cpuUsage(cpu));
      entry.deployed = false;
      const destroyStats = await readStats(emulator.url);
      const destroyTimings = takeTimings(kind);
      const samples = required(times.get(kind.name), `the samples of ${kind.name}`);
      samples.up.push(up);
      samples.destroy.push(destroy);
      log(
        `rep ${rep + 1} ${kind.name.padEnd(12)} up ${(up / 1000).toFixed(2)} s (${upStats.requests} req, ${upStats.connections} conn, driver cpu ${upDriverCpu} s), ` +
          `destroy ${(destroy / 1000).toFixed(2)} s (${destroyStats.requests} req, ${destroyStats.connections} conn, driver cpu ${destroyDriverCpu} s); load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]}`,
      );
      if (upTimings.length > 0) log(`  up:\n${describeTimings(upTimings)}`);
      if (destroyTimings.length > 0) log(`  destroy:\n${describeTimings(destroyTimings)}`);
    }
  }
  const floor = (name: string): { up: number; destroy: number } | undefined => {
    const t = times.get(name);
    return t ? { up: median(t.up), destroy: median(t.destroy) } : undefined;
  };
  console.log(
    `\nN=${N}, median of ${REPS} (s); ratios, same run: native (and native-base) / native-noop, native-limit / limit, native-noop / limit`,
  );
  for (const [name, t] of times) {
    const pair =
      name === "native" || name === "native-base"
        ? floor("native-noop")
        : name === "native-limit" || name === "native-noop"
          ? floor("limit")
          : undefined;
    const ratio = (ms: number, base: number | undefined): string =>
      base === undefined ? "" : ` (${(ms / base).toFixed(2)}x)`;
    console.log(
      `${name.padEnd(13)} up ${(median(t.up) / 1000).toFixed(2)}${ratio(median(t.up), pair?.up)}  destroy ${(median(t.destroy) / 1000).toFixed(2)}${ratio(median(t.destroy), pair?.destroy)}` +
        `   [up ${t.up.map((ms) => (ms / 1000).toFixed(2)).join(" ")}; destroy ${t.destroy.map((ms) => (ms / 1000).toFixed(2)).join(" ")}]`,
    );
  }
  if (options["cpu-prof"]) {
    const kept = mkdtempSync(join(tmpdir(), "helpdesk-plugin-cpuprof-"));
    for (const kind of kinds.filter((k) => k.native)) {
      const out = join(scratch, "plugin", kind.name);
      for (const file of existsSync(out) ? readdirSync(out).filter((f) => f.endsWith(".cpuprofile")) : []) {
        writeFileSync(join(kept, `${kind.name}-${file}`), readFileSync(join(out, file)));
      }
    }
    console.log(`plugin CPU profiles: ${kept}`);
  }
}

try {
  await run();
} finally {
  await runCleanups(cleanups, log);
}
