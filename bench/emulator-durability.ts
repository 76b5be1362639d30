/**
 * The emulator's durability benchmark (issue 12): what committing every change before acknowledging it costs, beside
 * the emulator of a base revision (default `HEAD`, built from `git archive` into a temporary directory), in the same
 * run.
 *
 *   1. Throughput: `POST /v1/webhooks` requests per second, p50 and p99 latency (bench/load.ts: 32 connections, 5 s
 *      after a 2 s warm-up), for the base emulator in memory and with its JSON data file (rewritten whole 25 ms after
 *      a change: not durable), and for this tree's emulator in memory and with its SQLite data file at
 *      `synchronous=full` (the default: survives a power loss) and `normal` (survives a process crash). The
 *      variants take turns, round after round, so a change in the machine's load falls on all of them.
 *   2. Size: the data file after 10,000 webhooks and 100,000 deliveries (10 events × 1,000 webhooks, each event
 *      triggered 10 times, delivered to a receiver in this process), with the default delivery log limit and with
 *      one that keeps all 100,000 entries; the emulator stopped cleanly first (SIGTERM), so the write-ahead log is
 *      checkpointed into the file.
 *
 * Every emulator runs in a process of its own (emulator-durability-process.ts). Figures are printed, never asserted:
 * a table on stdout, JSON in bench-results/emulator-durability.json, progress on stderr. Build dist/ first
 * (`bash scripts/build.sh`).
 *
 * Usage: node bench/emulator-durability.ts [--quick] [--base <git revision>]
 *   --quick: one throughput round of 2 s, and a tenth of the webhooks and deliveries (a smoke check).
 */

import { type ChildProcess, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { EVENTS } from "pulumi-helpdesk";
import { DEFAULT_CLIENT, type EmulatorOptions } from "pulumi-helpdesk/emulator";
import { EmulatorInspectionClient, signInAutoApproved } from "pulumi-helpdesk/emulator/client";
import { Pool } from "undici";
import { required } from "../dist/kernel/required.js";
import { startProcess } from "../scripts/lib/processes.ts";
import { repoRoot } from "../scripts/lib/repo-root.ts";
import { type LoadRound, type LoadSettings, loadRound } from "./load.ts";
import { median } from "./results.ts";

// ---------------------------------------------------------------------------------------------------------------
// Settings

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const baseIndex = args.indexOf("--base");
const baseRev = baseIndex >= 0 ? args[baseIndex + 1] : "HEAD";
for (const [i, arg] of args.entries()) {
  if (arg !== "--quick" && arg !== "--base" && args[i - 1] !== "--base") {
    console.error(`unknown option ${arg} (allowed: --quick, --base <revision>)`);
    process.exit(2);
  }
}
if (baseRev === undefined) {
  console.error("--base needs a git revision");
  process.exit(2);
}

const LOAD: LoadSettings & { rounds: number } = quick
  ? { connections: 32, durationMs: 2000, warmupMs: 1000, rounds: 1 }
  : { connections: 32, durationMs: 5000, warmupMs: 2000, rounds: 3 };
/** The size run: webhooks spread over this many events, each event triggered `TRIGGERS_PER_EVENT` times. */
const SIZE = quick
  ? { webhooks: 1000, events: 10, triggersPerEvent: 10 }
  : { webhooks: 10_000, events: 10, triggersPerEvent: 10 };
const DELIVERIES = SIZE.webhooks * SIZE.triggersPerEvent;

const log = (message: string): void => void process.stderr.write(`${message}\n`);

// ---------------------------------------------------------------------------------------------------------------
// The base revision's emulator, built once per commit into a temporary directory

/**
 * Builds the emulator of `rev` (its emulator/, kernel/ (sdk/ before the rooms moved) and auth/ from `git archive`, compiled with this tree's tsc and
 * node_modules) into `<tmpdir>/helpdesk-emulator-<commit>`, unless already there.
 * @returns the commit and the path of its `dist/emulator/index.js`
 */
function buildBase(rev: string): { commit: string; module: string } {
  const commit = execFileSync("git", ["rev-parse", "--verify", `${rev}^{commit}`], {
    cwd: repoRoot,
    encoding: "utf8",
  }).trim();
  const dir = join(tmpdir(), `helpdesk-emulator-${commit.slice(0, 12)}`);
  const module = join(dir, "dist/emulator/index.js");
  if (existsSync(module)) return { commit, module };
  log(`building the emulator of ${rev} (${commit.slice(0, 12)}) in ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // The rooms the emulator stands on, under the names they had at that commit (sdk/ held the kernel before kernel/).
  const rooms = execFileSync("git", ["ls-tree", "--name-only", commit], { cwd: repoRoot, encoding: "utf8" })
    .split("\n")
    .filter((name) => ["emulator", "kernel", "sdk", "auth"].includes(name));
  const archive = execFileSync("git", ["archive", commit, ...rooms, "tsconfig.json", "package.json"], {
    cwd: repoRoot,
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"));
  writeFileSync(
    join(dir, "tsconfig.bench.json"),
    JSON.stringify({
      extends: "./tsconfig.json",
      compilerOptions: { declaration: false },
      include: ["emulator/**/*.ts"],
    }),
  );
  execFileSync(process.execPath, [join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.bench.json"], {
    cwd: dir,
    stdio: "inherit",
  });
  return { commit, module };
}

// ---------------------------------------------------------------------------------------------------------------
// Emulator processes and the delivery receiver

interface EmulatorProcess {
  url: string;
  child: ChildProcess;
  /** SIGTERM (the emulator closes, committing or flushing its data file), then waits for the exit. */
  stop(): Promise<void>;
}

/** Starts emulator-durability-process.ts on `module` with `options` and waits for its URL. */
async function startEmulator(module: string, options: EmulatorOptions): Promise<EmulatorProcess> {
  // Its stdin a pipe: the process stops when the benchmark ends, however it ends.
  const started = startProcess(
    process.execPath,
    [join(import.meta.dirname, "emulator-durability-process.ts"), module, JSON.stringify(options)],
    { stdin: "pipe" },
  );
  const [, line = ""] = await started.waitFor("stdout", /^(.*)\n/, "the emulator process's URL");
  return { url: (JSON.parse(line) as { url: string }).url, child: started.child, stop: () => started.stop() };
}

/** An access token of the default client (both emulators register it). */
async function signIn(baseUrl: string): Promise<string> {
  return (
    await signInAutoApproved({
      baseUrl,
      clientId: DEFAULT_CLIENT.clientId,
      clientSecret: DEFAULT_CLIENT.clientSecret,
      redirectUri: DEFAULT_CLIENT.redirectUri,
    })
  ).accessToken;
}

/** Bytes of a data file and of the SQLite journals beside it (none after a clean stop). */
function fileBytes(file: string): number {
  let total = 0;
  for (const suffix of ["", "-wal", "-shm", "-journal"])
    if (existsSync(`${file}${suffix}`)) total += statSync(`${file}${suffix}`).size;
  return total;
}

/** A receiver responding every delivery 204 at once; counts what it received. */
async function startReceiver(): Promise<{ url: string; received(): number; close(): Promise<void> }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolvePromise) => server.listen(0, "127.0.0.1", resolvePromise));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The two measurements

interface Variant {
  name: string;
  module: string;
  /** Whether it keeps a data file (in a new temporary directory per run). */
  dataFile: boolean;
  options: EmulatorOptions;
}

/**
 * Runs `work` against a variant's emulator, signed in, on a data file in a new temporary directory (when the variant
 * keeps one), then stops it cleanly and measures the data file.
 * @returns what `work` returned, and the bytes of the data file after the stop (0 without one)
 */
async function withEmulator<T>(
  variant: Variant,
  work: (emulator: EmulatorProcess, token: string) => Promise<T>,
): Promise<{ result: T; fileBytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), "helpdesk-bench-durability-"));
  const file = variant.dataFile ? join(dir, "helpdesk.data") : undefined;
  try {
    const emulator = await startEmulator(variant.module, { ...variant.options, ...(file && { dataFile: file }) });
    let result: T;
    try {
      result = await work(emulator, await signIn(emulator.url));
    } finally {
      await emulator.stop();
    }
    return { result, fileBytes: file ? fileBytes(file) : 0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One throughput round of a variant (bench/load.ts), on a fresh data file. */
async function throughput(variant: Variant): Promise<LoadRound> {
  return (
    await withEmulator(variant, (emulator, token) =>
      loadRound(LOAD, emulator.url, token, required(emulator.child.pid, "the emulator's pid")),
    )
  ).result;
}

/** What the size run measured. */
interface SizeResult {
  webhooks: number;
  deliveriesReceived: number;
  logEntriesKept: number;
  fileBytes: number;
  seconds: number;
}

/** Creates `count` webhooks over 16 connections, spread over `SIZE.events` events, each pointing at `receiverUrl`. */
async function createWebhooks(baseUrl: string, token: string, count: number, receiverUrl: string): Promise<void> {
  const pool = new Pool(baseUrl, { connections: 16 });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < count) {
          const i = next++;
          const body = JSON.stringify({ event: EVENTS[i % SIZE.events], url: `${receiverUrl}/${i}` });
          const response = await pool.request({ path: "/v1/webhooks", method: "POST", headers, body });
          await response.body.dump();
          if (response.statusCode !== 201) throw new Error(`POST /v1/webhooks responded with ${response.statusCode}`);
        }
      }),
    );
  } finally {
    await pool.close();
  }
}

/**
 * Creates `SIZE.webhooks` webhooks pointing at a local receiver, triggers each event `SIZE.triggersPerEvent` times
 * (waiting for each trigger's deliveries), stops the emulator cleanly and measures its data file.
 */
async function size(variant: Variant): Promise<SizeResult> {
  const receiver = await startReceiver();
  const started = performance.now();
  try {
    const { result: state, fileBytes: bytes } = await withEmulator(variant, async (emulator, token) => {
      await createWebhooks(emulator.url, token, SIZE.webhooks, receiver.url);
      let expected = 0;
      for (let round = 0; round < SIZE.triggersPerEvent; round++) {
        for (const event of EVENTS.slice(0, SIZE.events)) {
          await new EmulatorInspectionClient(emulator.url).trigger(event);
          expected += SIZE.webhooks / SIZE.events;
          while (receiver.received() < expected) await new Promise((r) => setTimeout(r, 20));
        }
        log(`    ${variant.name}: ${receiver.received()} deliveries`);
      }
      await new Promise((r) => setTimeout(r, 500)); // the last outcomes are logged after the receiver answered
      return new EmulatorInspectionClient(emulator.url).state();
    });
    return {
      webhooks: state.webhooks.length,
      deliveriesReceived: receiver.received(),
      logEntriesKept: state.deliveries,
      fileBytes: bytes,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await receiver.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Run

const startedAt = new Date();
const [loadBefore = Number.NaN] = loadavg();
const base = buildBase(baseRev);
const current = join(repoRoot, "dist/emulator/index.js");
if (!existsSync(current)) {
  console.error("dist/emulator/index.js is missing: run `bash scripts/build.sh` first");
  process.exit(1);
}
const baseName = `${baseRev} (${base.commit.slice(0, 9)})`;
const VARIANTS: Variant[] = [
  { name: `${baseName}: memory`, module: base.module, dataFile: false, options: {} },
  { name: `${baseName}: JSON file, 25 ms debounce`, module: base.module, dataFile: true, options: {} },
  { name: "this tree: memory", module: current, dataFile: false, options: {} },
  { name: "this tree: SQLite, synchronous=full", module: current, dataFile: true, options: { synchronous: "full" } },
  {
    name: "this tree: SQLite, synchronous=normal",
    module: current,
    dataFile: true,
    options: { synchronous: "normal" },
  },
];

log(
  `throughput: POST /v1/webhooks, ${LOAD.connections} connections, ${LOAD.durationMs / 1000} s (+${LOAD.warmupMs / 1000} s warm-up) x ${LOAD.rounds} rounds, variants in turn`,
);
const rounds = new Map<string, LoadRound[]>(VARIANTS.map((v) => [v.name, []]));
for (let round = 0; round < LOAD.rounds; round++) {
  for (const variant of VARIANTS) {
    const result = await throughput(variant);
    required(rounds.get(variant.name), `the rounds of ${variant.name}`).push(result);
    log(
      `  round ${round + 1} ${variant.name}: ${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.p99Ms.toFixed(1)} ms`,
    );
  }
}

log(`size: ${SIZE.webhooks} webhooks, ${DELIVERIES} deliveries`);
const SIZE_VARIANTS: Variant[] = [
  { ...required(VARIANTS[1], "the base's JSON variant"), name: `${baseName}: JSON file (log: newest 1000 overall)` },
  {
    ...required(VARIANTS[3], "this tree's SQLite variant"),
    name: "this tree: SQLite (log: newest 1000 per account, the default)",
  },
  {
    ...required(VARIANTS[3], "this tree's SQLite variant"),
    name: `this tree: SQLite (log limit ${DELIVERIES}: all kept)`,
    options: { deliveryLogLimit: DELIVERIES },
  },
];
const sizes = new Map<string, SizeResult>();
for (const variant of SIZE_VARIANTS) {
  log(`  ${variant.name}`);
  sizes.set(variant.name, await size(variant));
}

// ---------------------------------------------------------------------------------------------------------------
// Report

const pad = (text: string, width: number): string => text.padEnd(width);
const num = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "n/a";
const width = Math.max(...[...VARIANTS, ...SIZE_VARIANTS].map((v) => v.name.length)) + 2;
const throughputRows = VARIANTS.map((variant) => {
  const results = required(rounds.get(variant.name), `the rounds of ${variant.name}`);
  const of = (pick: (r: LoadRound) => number) => median(results.map(pick));
  return {
    variant: variant.name,
    requestsPerSecond: of((r) => r.requestsPerSecond),
    p50Ms: of((r) => r.p50Ms),
    p99Ms: of((r) => r.p99Ms),
    emulatorCpuPercent: of((r) => r.emulatorCpuPercent),
    non201: results.reduce((sum, r) => sum + r.non201 + r.errors, 0),
    rounds: results,
  };
});
const lines = [
  `POST /v1/webhooks, ${LOAD.connections} connections, ${LOAD.durationMs / 1000} s x ${LOAD.rounds} (median of rounds)`,
  `${pad("emulator", width)}${"req/s".padStart(9)}${"p50 ms".padStart(9)}${"p99 ms".padStart(9)}${"CPU %".padStart(8)}${"non-201".padStart(9)}`,
  ...throughputRows.map(
    (r) =>
      `${pad(r.variant, width)}${num(r.requestsPerSecond).padStart(9)}${num(r.p50Ms, 1).padStart(9)}${num(r.p99Ms, 1).padStart(9)}${num(r.emulatorCpuPercent).padStart(8)}${String(r.non201).padStart(9)}`,
  ),
  "",
  `data file after ${num(SIZE.webhooks)} webhooks and ${num(DELIVERIES)} deliveries (after a clean stop)`,
  `${pad("emulator", width)}${"webhooks".padStart(10)}${"delivered".padStart(11)}${"log kept".padStart(10)}${"bytes".padStart(14)}${"seconds".padStart(9)}`,
  ...SIZE_VARIANTS.map((v) => {
    const s = required(sizes.get(v.name), `the size of ${v.name}`);
    return `${pad(v.name, width)}${num(s.webhooks).padStart(10)}${num(s.deliveriesReceived).padStart(11)}${num(s.logEntriesKept).padStart(10)}${num(s.fileBytes).padStart(14)}${num(s.seconds, 1).padStart(9)}`;
  }),
  "",
  `${cpus().length} CPUs, load average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? Number.NaN).toFixed(1)} after; base ${baseRev} = ${base.commit}`,
];
process.stdout.write(`${lines.join("\n")}\n`);
mkdirSync(join(repoRoot, "bench-results"), { recursive: true });
writeFileSync(
  join(repoRoot, "bench-results/emulator-durability.json"),
  `${JSON.stringify({ startedAt, quick, base: { rev: baseRev, commit: base.commit }, load: LOAD, size: SIZE, throughput: throughputRows, sizes: Object.fromEntries(sizes), cpus: cpus().length, loadAverage: { before: loadBefore, after: loadavg()[0] } }, null, 2)}\n`,
);
log("JSON: bench-results/emulator-durability.json");
