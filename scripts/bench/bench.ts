/**
 * The benchmark (`npm run bench`, run by scripts/bench/run.sh after set-up). It measures what the Webhook provider
 * costs on top of the floor of any Pulumi dynamic resource, with the real Pulumi CLI (Automation API), a file://
 * backend in a temporary directory and the emulator on 127.0.0.1:
 *
 *   1. `pulumi up` and `pulumi destroy` of N = 10, 100, 300 Webhooks (bench/programs/webhook) and of N no-op dynamic
 *      resources (bench/programs/noop), in the same run, interleaved; ratio webhook / no-op and growth 10 → 300;
 *   2. `pulumi preview` with no changes at the largest N;
 *   3. state bytes per resource and of its `__provider`, read from the backend's checkpoint file;
 *   4. HTTP requests and TCP connections the emulator saw per up / destroy, and the requests per second the emulator
 *      sustains for `POST /v1/webhooks` from a small bounded loader (undici Pool, fixed duration and connections);
 *   5. peak memory (VmHWM) of the dynamic provider process during up.
 *
 * Timings are printed, never asserted. Each timed figure is the median of 3 runs (`--quick`: N = 10, 100, once each).
 * Results: a table on stdout, JSON in bench-results/bench.json. Progress goes to stderr.
 *
 * Runs with Node's type stripping: erasable TypeScript only; project code comes from the built package.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { Client, Pool, request } from "undici";
import { LocalWorkspace, type ConfigMap, type Stack } from "@pulumi/pulumi/automation/index.js";
import { signInAutoApproved as signIn, startEmulator, type RunningEmulator } from "pulumi-helpdesk/emulator";
import { CONFIG_KEYS } from "pulumi-helpdesk";

// ---------------------------------------------------------------------------------------------------------------
// Settings

const root = resolve(import.meta.dirname, "../..");
const quick = process.argv.includes("--quick");
for (const arg of process.argv.slice(2)) {
  if (arg !== "--quick") {
    console.error(`unknown option ${arg} (allowed: --quick)`);
    process.exit(2);
  }
}
const SIZES = quick ? [10, 100] : [10, 100, 300];
const REPS = quick ? 1 : 3;
const SMALL = SIZES[0]!;
const LARGE = SIZES[SIZES.length - 1]!;
/** The load test: fixed connections and duration, after a warm-up whose requests are not counted. */
const LOAD = { connections: 32, durationMs: 5000, warmupMs: 2000, rounds: REPS };
/** The script the dynamic provider process runs: `node .../@pulumi/pulumi/cmd/dynamic-provider/index.js <engine>`. */
const DYNAMIC_PROVIDER_SCRIPT = /[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/;
/** How often the provider process's /proc/<pid>/status is read during up. */
const SAMPLE_INTERVAL_MS = 100;

const client = { clientId: "bench-client", clientSecret: "bench-client-secret-value", redirectUri: "http://127.0.0.1:1/callback", name: "bench" };

interface Kind {
  /** Column name. */
  name: "webhook" | "noop";
  /** Program directory (Pulumi.yaml). */
  dir: string;
  /** `name` of its Pulumi.yaml (the checkpoint lives under .pulumi/stacks/<project>/). */
  project: string;
  /** Resource type token in state. */
  type: string;
}

const KINDS: Kind[] = [
  { name: "webhook", dir: join(root, "bench/programs/webhook"), project: "helpdesk-bench-webhook", type: "pulumi-nodejs:dynamic/helpdesk:Webhook" },
  { name: "noop", dir: join(root, "bench/programs/noop"), project: "helpdesk-bench-noop", type: "pulumi-nodejs:dynamic/bench:Noop" },
];

// ---------------------------------------------------------------------------------------------------------------
// Small helpers

const log = (message: string): void => void process.stderr.write(`${message}\n`);
const seconds = (ms: number): number => ms / 1000;
const mib = (kib: number): number => kib / 1024;

function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

/** One request to the emulator's inspection routes on a connection of its own, closed afterwards (so the stats
 * counters see exactly one connection per inspection call, never a reused one from before a reset). */
async function inspect(baseUrl: string, method: "GET" | "POST", path: string): Promise<unknown> {
  const dispatcher = new Client(baseUrl);
  try {
    const response = await request(`${baseUrl}${path}`, { method, dispatcher });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${method} ${path} answered ${response.statusCode}: ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  } finally {
    await dispatcher.close();
  }
}

interface HttpCount {
  /** API requests (every route outside /_emulator). */
  requests: number;
  /** TCP connections accepted, less the one the stats request itself opened. */
  connections: number;
  byRoute: Record<string, number>;
}

async function resetStats(baseUrl: string): Promise<void> {
  await inspect(baseUrl, "POST", "/_emulator/reset-stats");
}

async function readStats(baseUrl: string): Promise<HttpCount> {
  const stats = (await inspect(baseUrl, "GET", "/_emulator/stats")) as { requests: number; connections: number; byRoute: Record<string, number> };
  const byRoute = Object.fromEntries(Object.entries(stats.byRoute).filter(([route]) => !route.includes("/_emulator")));
  return { requests: Object.values(byRoute).reduce((a, b) => a + b, 0), connections: stats.connections - 1, byRoute };
}

async function heldWebhookCount(baseUrl: string): Promise<number> {
  return ((await inspect(baseUrl, "GET", "/_emulator/webhooks")) as { webhooks: unknown[] }).webhooks.length;
}

// ---------------------------------------------------------------------------------------------------------------
// Peak memory of the dynamic provider process

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined; // gone, or not ours to read
  }
}

function parentOf(pid: number): number | undefined {
  const stat = readProc(pid, "stat");
  if (stat === undefined) return undefined;
  // pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'.
  const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

function descendsFromThisProcess(pid: number): boolean {
  for (let current: number | undefined = pid, hops = 0; current !== undefined && current > 1 && hops < 32; hops++) {
    if (current === process.pid) return true;
    current = parentOf(current);
  }
  return false;
}

/**
 * Samples VmHWM (peak resident set) of every `node .../@pulumi/pulumi/cmd/dynamic-provider` process started below
 * this driver (driver → pulumi → pulumi-resource-pulumi-nodejs → node dynamic-provider) while an operation runs.
 */
class ProviderMemorySampler {
  private timer: NodeJS.Timeout | undefined;
  private readonly providers = new Set<number>();
  private readonly rejected = new Set<number>();
  /** Highest VmHWM seen, KiB. */
  peakKiB = 0;

  start(): void {
    this.timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
  }

  stop(): { peakKiB: number; processes: number } {
    clearInterval(this.timer);
    this.sample();
    return { peakKiB: this.peakKiB, processes: this.providers.size };
  }

  private sample(): void {
    for (const entry of readdirSync("/proc")) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || this.providers.has(pid) || this.rejected.has(pid)) continue;
      const argv = readProc(pid, "cmdline")?.split("\0") ?? [];
      // The provider itself, not the launcher's `node -e "...require.resolve('@pulumi/pulumi/cmd/dynamic-provider')"`.
      // Not cached as rejected: a forked shell may still exec into the provider.
      if (!argv.some((arg) => DYNAMIC_PROVIDER_SCRIPT.test(arg))) continue;
      if (descendsFromThisProcess(pid)) this.providers.add(pid);
      else this.rejected.add(pid);
    }
    for (const pid of this.providers) {
      const match = /^VmHWM:\s+(\d+) kB/m.exec(readProc(pid, "status") ?? "");
      if (match) this.peakKiB = Math.max(this.peakKiB, Number(match[1]));
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// State size

interface StateSize {
  /** Bytes of the checkpoint file. */
  fileBytes: number;
  /** Resources of the kind's type in it. */
  resources: number;
  /** Mean bytes of one resource entry, compact JSON. */
  entryBytes: number;
  /** Mean bytes of its `__provider` (inputs + outputs: the serialized provider is stored twice). */
  providerBytes: number;
  /** How many times `__provider` appears in one resource entry. */
  providerCopies: number;
}

function checkpointPath(stateDir: string, kind: Kind, stackName: string): string {
  return join(stateDir, ".pulumi", "stacks", kind.project, `${stackName}.json`);
}

function measureState(path: string, kind: Kind): StateSize {
  const text = readFileSync(path, "utf8");
  const checkpoint = JSON.parse(text) as { checkpoint: { latest?: { resources?: Array<Record<string, unknown>> } } };
  const entries = (checkpoint.checkpoint.latest?.resources ?? []).filter((resource) => resource.type === kind.type);
  let entryBytes = 0;
  let providerBytes = 0;
  let providerCopies = 0;
  for (const entry of entries) {
    entryBytes += Buffer.byteLength(JSON.stringify(entry));
    for (const field of ["inputs", "outputs"]) {
      const provider = (entry[field] as Record<string, unknown> | undefined)?.__provider;
      if (typeof provider === "string") {
        providerBytes += Buffer.byteLength(provider);
        providerCopies++;
      }
    }
  }
  const n = Math.max(entries.length, 1);
  return { fileBytes: Buffer.byteLength(text), resources: entries.length, entryBytes: entryBytes / n, providerBytes: providerBytes / n, providerCopies: providerCopies / n };
}

// ---------------------------------------------------------------------------------------------------------------
// The load test: POST /v1/webhooks at a fixed concurrency for a fixed time

interface LoadRound {
  requestsPerSecond: number;
  completed: number;
  non201: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU the loader (this process) and the emulator process used over the counted window, in % of one core. */
  loaderCpuPercent: number;
  emulatorCpuPercent: number;
}

function processCpuMs(pid: number): number {
  const stat = readProc(pid, "stat");
  if (stat === undefined) return Number.NaN;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (USER_HZ = 100 on Linux)
  return ticks * 10;
}

/**
 * A small bounded load generator on undici's Pool, instead of autocannon, to avoid a new dependency: `connections`
 * workers each keep one request in flight on their own keep-alive connection until the time is up; the requests
 * that complete in the counted window (after the warm-up) give the rate.
 */
async function loadRound(baseUrl: string, token: string, emulatorPid: number): Promise<LoadRound> {
  const pool = new Pool(baseUrl, { connections: LOAD.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const started = performance.now();
  const windowStart = started + LOAD.warmupMs;
  const windowEnd = windowStart + LOAD.durationMs;
  const latencies: number[] = [];
  let sequence = 0;
  let non201 = 0;
  let errors = 0;
  let cpuAtStart: { loader: number; emulator: number } | undefined;
  const cpuNow = (): { loader: number; emulator: number } => {
    const usage = process.cpuUsage();
    return { loader: (usage.user + usage.system) / 1000, emulator: processCpuMs(emulatorPid) };
  };
  const warmupTimer = setTimeout(() => (cpuAtStart = cpuNow()), LOAD.warmupMs);

  async function worker(): Promise<void> {
    while (performance.now() < windowEnd) {
      const body = JSON.stringify({ event: "ticket_opened", url: `https://hooks.example.test/load/${sequence++}` });
      const sent = performance.now();
      try {
        const response = await pool.request({ path: "/v1/webhooks", method: "POST", headers, body });
        await response.body.dump();
        const done = performance.now();
        if (done >= windowStart && done < windowEnd) {
          if (response.statusCode === 201) latencies.push(done - sent);
          else non201++;
        }
      } catch {
        errors++;
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: LOAD.connections }, () => worker()));
  } finally {
    clearTimeout(warmupTimer);
    await pool.close();
  }
  const cpuAtEnd = cpuNow();
  const windowMs = LOAD.durationMs + (performance.now() - windowEnd); // cpu covers the tail of in-flight requests too
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / seconds(LOAD.durationMs),
    completed: latencies.length,
    non201,
    errors,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    loaderCpuPercent: cpuAtStart ? (100 * (cpuAtEnd.loader - cpuAtStart.loader)) / windowMs : Number.NaN,
    emulatorCpuPercent: cpuAtStart ? (100 * (cpuAtEnd.emulator - cpuAtStart.emulator)) / windowMs : Number.NaN,
  };
}

/** Starts scripts/bench/emulator-process.ts and waits for its URL. */
async function startEmulatorProcess(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(root, "scripts/bench/emulator-process.ts"), JSON.stringify([client])], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolvePromise, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the emulator process exited with code ${code} before listening`)));
    lines.once("line", (line) => resolvePromise((JSON.parse(line) as { url: string }).url));
  });
  return { url, child };
}

// ---------------------------------------------------------------------------------------------------------------
// The run

interface OperationSample {
  ms: number;
  http?: HttpCount;
}

interface Samples {
  up: OperationSample[];
  destroy: OperationSample[];
  preview: OperationSample[];
  providerPeakKiB: number[];
  providerProcesses: number[];
  state?: StateSize;
}

interface BenchStack {
  kind: Kind;
  stack: Stack;
  deployed: boolean;
}

/** The 1-minute load average, to tell a quiet machine from a busy one when reading the figures. */
function readLoadAverage(): number {
  try {
    return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return Number.NaN;
  }
}

const startedAt = new Date();
const loadAverageAtStart = readLoadAverage();
const benchStarted = performance.now();
const abort = new AbortController();
const cleanups: Array<() => Promise<void> | void> = [];
let emulator: RunningEmulator | undefined;

async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      log(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`\n${signal}: stopping the current operation and cleaning up`);
    abort.abort(new Error(`interrupted by ${signal}`));
  });
}

function samplesOf(results: Map<string, Samples>, kind: Kind, n: number): Samples {
  const key = `${kind.name}:${n}`;
  let samples = results.get(key);
  if (!samples) {
    samples = { up: [], destroy: [], preview: [], providerPeakKiB: [], providerProcesses: [] };
    results.set(key, samples);
  }
  return samples;
}

async function run(): Promise<void> {
  const results = new Map<string, Samples>();

  // The emulator and a sign-in, as `pulumi-helpdesk login` would do it.
  emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
  const running = emulator;
  cleanups.push(() => running.close());
  const tokens = await signIn({ baseUrl: emulator.url, ...client });
  log(`emulator on ${emulator.url}; signed in as ${client.clientId}`);

  // One stack per program in one throw-away file:// backend, with the same stack config.
  const stateDir = mkdtempSync(join(tmpdir(), "helpdesk-bench-state-"));
  cleanups.push(() => rmSync(stateDir, { recursive: true, force: true }));
  const stackName = `bench${randomBytes(4).toString("hex")}`;
  const envVars = {
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
  const config: ConfigMap = {
    [CONFIG_KEYS.baseUrl]: { value: emulator.url },
    [CONFIG_KEYS.clientId]: { value: client.clientId },
    [CONFIG_KEYS.redirectUri]: { value: client.redirectUri },
    [CONFIG_KEYS.clientSecret]: { value: client.clientSecret, secret: true },
    [CONFIG_KEYS.accessToken]: { value: tokens.accessToken, secret: true },
    [CONFIG_KEYS.refreshToken]: { value: tokens.refreshToken ?? "", secret: true },
    ...(tokens.expiresAt ? { [CONFIG_KEYS.tokenExpiresAt]: { value: tokens.expiresAt } } : {}),
    "bench:count": { value: String(SMALL) },
  };
  const stacks: BenchStack[] = [];
  for (const kind of KINDS) {
    const stackFile = join(kind.dir, `Pulumi.${stackName}.yaml`);
    // Registered before the stack exists, so a failure half-way still removes the Pulumi.<stack>.yaml.
    cleanups.push(() => rmSync(stackFile, { force: true }));
    const stack = await LocalWorkspace.createOrSelectStack({ stackName, workDir: kind.dir }, { envVars });
    const entry: BenchStack = { kind, stack, deployed: false };
    cleanups.push(async () => {
      if (entry.deployed) {
        log(`cleanup: destroying what is left of the ${kind.name} stack`);
        await stack.destroy({ color: "never" });
      }
      await stack.workspace.removeStack(stackName, { force: true });
    });
    await stack.setAllConfig(config);
    stacks.push(entry);
  }
  const pulumiVersion = (await stacks[0]!.stack.workspace.pulumiVersion) ?? "unknown";

  // 1-3, 5: up / preview / destroy, kinds interleaved, their order alternating from one repetition to the next.
  for (let rep = 0; rep < REPS; rep++) {
    for (const n of SIZES) {
      const order = rep % 2 === 0 ? stacks : [...stacks].reverse();
      for (const entry of order) {
        const { kind, stack } = entry;
        const samples = samplesOf(results, kind, n);
        await stack.setConfig("bench:count", { value: String(n) });

        await resetStats(emulator.url);
        const sampler = new ProviderMemorySampler();
        sampler.start();
        let up: { ms: number };
        try {
          entry.deployed = true;
          up = await timed(() => stack.up({ color: "never", signal: abort.signal }));
        } finally {
          const memory = sampler.stop();
          if (memory.processes !== 1) log(`note: ${memory.processes} dynamic provider processes seen during this up (expected 1)`);
          samples.providerPeakKiB.push(memory.peakKiB);
          samples.providerProcesses.push(memory.processes);
        }
        samples.up.push({ ms: up.ms, http: await readStats(emulator.url) });
        if (kind.name === "webhook") {
          const held = await heldWebhookCount(emulator.url);
          if (held !== n) throw new Error(`after up of ${n} webhooks the emulator holds ${held}`);
        }
        samples.state ??= measureState(checkpointPath(stateDir, kind, stackName), kind);
        if (samples.state.resources !== n) throw new Error(`the ${kind.name} checkpoint holds ${samples.state.resources} resources, expected ${n}`);

        let previewNote = "";
        if (n === LARGE) {
          await resetStats(emulator.url);
          const preview = await timed(() => stack.preview({ color: "never", signal: abort.signal }));
          const changes = Object.entries(preview.value.changeSummary).filter(([op, count]) => op !== "same" && count > 0);
          if (changes.length > 0) throw new Error(`preview after up shows changes: ${JSON.stringify(preview.value.changeSummary)}`);
          samples.preview.push({ ms: preview.ms, http: await readStats(emulator.url) });
          previewNote = `, preview ${seconds(preview.ms).toFixed(1)} s`;
        }

        await resetStats(emulator.url);
        const destroy = await timed(() => stack.destroy({ color: "never", signal: abort.signal }));
        entry.deployed = false;
        samples.destroy.push({ ms: destroy.ms, http: await readStats(emulator.url) });
        if (kind.name === "webhook") {
          const held = await heldWebhookCount(emulator.url);
          if (held !== 0) throw new Error(`after destroy the emulator still holds ${held} webhooks`);
        }
        log(
          `rep ${rep + 1}/${REPS} N=${n} ${kind.name.padEnd(7)}: up ${seconds(up.ms).toFixed(1)} s${previewNote}, destroy ${seconds(destroy.ms).toFixed(1)} s, ` +
            `provider peak ${mib(samples.providerPeakKiB.at(-1)!).toFixed(0)} MiB`,
        );
      }
    }
  }

  // 4: the emulator's sustained rate for POST /v1/webhooks, from a loader in this process against an emulator in its own.
  log(`load test: POST /v1/webhooks, ${LOAD.connections} connections, ${seconds(LOAD.durationMs)} s (+${seconds(LOAD.warmupMs)} s warm-up) x ${LOAD.rounds}`);
  const loadEmulator = await startEmulatorProcess();
  cleanups.push(
    () =>
      new Promise<void>((resolvePromise) => {
        if (loadEmulator.child.exitCode !== null) return resolvePromise();
        loadEmulator.child.once("exit", () => resolvePromise());
        loadEmulator.child.kill("SIGTERM");
      }),
  );
  const loadTokens = await signIn({ baseUrl: loadEmulator.url, ...client });
  const load: LoadRound[] = [];
  for (let round = 0; round < LOAD.rounds; round++) {
    if (abort.signal.aborted) throw abort.signal.reason;
    const result = await loadRound(loadEmulator.url, loadTokens.accessToken, loadEmulator.child.pid!);
    load.push(result);
    log(`  round ${round + 1}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, non-201 ${result.non201}, errors ${result.errors}`);
  }

  report(results, load, pulumiVersion);
}

// ---------------------------------------------------------------------------------------------------------------
// The report

interface Row {
  figure: string;
  webhook: number | string;
  noop: number | string;
  ratio: number | string;
  /** Decimals for numbers in the webhook/no-op columns. */
  digits?: number;
}

function report(results: Map<string, Samples>, load: LoadRound[], pulumiVersion: string): void {
  const of = (kind: "webhook" | "noop", n: number): Samples => results.get(`${kind}:${n}`)!;
  const med = (kind: "webhook" | "noop", n: number, op: "up" | "destroy" | "preview"): number => median(of(kind, n)[op].map((sample) => seconds(sample.ms)));
  const ratio = (a: number, b: number): number => a / b;
  const timesLabel = REPS === 1 ? "1 run" : `median of ${REPS}`;
  const rows: Row[] = [];

  for (const op of ["up", "destroy"] as const) {
    for (const n of SIZES) {
      const w = med("webhook", n, op);
      const o = med("noop", n, op);
      rows.push({ figure: `${op} N=${n} (s, ${timesLabel})`, webhook: w, noop: o, ratio: ratio(w, o), digits: 2 });
    }
  }
  const growth = (kind: "webhook" | "noop", op: "up" | "destroy"): number => med(kind, LARGE, op) / LARGE / (med(kind, SMALL, op) / SMALL);
  for (const op of ["up", "destroy"] as const) {
    const w = growth("webhook", op);
    const o = growth("noop", op);
    rows.push({ figure: `${op} time/resource N=${LARGE} vs N=${SMALL} (x)`, webhook: w, noop: o, ratio: ratio(w, o), digits: 2 });
  }
  // The slope: what one more resource costs, without the fixed cost of starting the CLI, the program and the provider.
  for (const op of ["up", "destroy"] as const) {
    const w = (1000 * (med("webhook", LARGE, op) - med("webhook", SMALL, op))) / (LARGE - SMALL);
    const o = (1000 * (med("noop", LARGE, op) - med("noop", SMALL, op))) / (LARGE - SMALL);
    rows.push({ figure: `${op} marginal ms/resource N=${SMALL}->${LARGE}`, webhook: w, noop: o, ratio: ratio(w, o), digits: 1 });
  }
  {
    const w = med("webhook", LARGE, "preview");
    const o = med("noop", LARGE, "preview");
    rows.push({ figure: `preview no changes N=${LARGE} (s)`, webhook: w, noop: o, ratio: ratio(w, o), digits: 2 });
  }

  const stateW = { small: of("webhook", SMALL).state!, large: of("webhook", LARGE).state! };
  const stateO = { small: of("noop", SMALL).state!, large: of("noop", LARGE).state! };
  const marginal = (state: { small: StateSize; large: StateSize }): number => (state.large.fileBytes - state.small.fileBytes) / (LARGE - SMALL);
  rows.push({ figure: "state bytes/resource (file, marginal)", webhook: marginal(stateW), noop: marginal(stateO), ratio: ratio(marginal(stateW), marginal(stateO)), digits: 0 });
  rows.push({ figure: "state bytes/resource (entry, compact JSON)", webhook: stateW.large.entryBytes, noop: stateO.large.entryBytes, ratio: ratio(stateW.large.entryBytes, stateO.large.entryBytes), digits: 0 });
  rows.push({
    figure: `  of which __provider (x${stateW.large.providerCopies})`,
    webhook: stateW.large.providerBytes,
    noop: stateO.large.providerBytes,
    ratio: ratio(stateW.large.providerBytes, stateO.large.providerBytes),
    digits: 0,
  });
  rows.push({ figure: `state file N=${LARGE} (KiB)`, webhook: stateW.large.fileBytes / 1024, noop: stateO.large.fileBytes / 1024, ratio: ratio(stateW.large.fileBytes, stateO.large.fileBytes), digits: 1 });

  for (const n of SIZES) {
    const w = mib(median(of("webhook", n).providerPeakKiB));
    const o = mib(median(of("noop", n).providerPeakKiB));
    rows.push({ figure: `provider peak RSS, up N=${n} (MiB)`, webhook: w, noop: o, ratio: ratio(w, o), digits: 1 });
  }

  const http = (kind: "webhook" | "noop", n: number, op: "up" | "destroy" | "preview"): string => {
    const list = of(kind, n)[op];
    if (list.length === 0) return "-";
    return `${median(list.map((s) => s.http!.requests))} / ${median(list.map((s) => s.http!.connections))}`;
  };
  for (const n of SIZES) rows.push({ figure: `HTTP requests / connections per up N=${n}`, webhook: http("webhook", n, "up"), noop: http("noop", n, "up"), ratio: "-" });
  rows.push({ figure: `HTTP requests / connections per destroy N=${LARGE}`, webhook: http("webhook", LARGE, "destroy"), noop: http("noop", LARGE, "destroy"), ratio: "-" });
  rows.push({ figure: `HTTP requests / connections per preview N=${LARGE}`, webhook: http("webhook", LARGE, "preview"), noop: http("noop", LARGE, "preview"), ratio: "-" });

  const rps = median(load.map((round) => round.requestsPerSecond));
  rows.push({ figure: `emulator POST /v1/webhooks (req/s, ${LOAD.connections} conn, ${seconds(LOAD.durationMs)} s)`, webhook: rps, noop: "-", ratio: "-", digits: 0 });
  if (load.length > 1) {
    const values = load.map((round) => round.requestsPerSecond);
    rows.push({ figure: "  req/s min - max of the rounds", webhook: `${Math.min(...values).toFixed(0)} - ${Math.max(...values).toFixed(0)}`, noop: "-", ratio: "-" });
  }
  rows.push({ figure: "  latency p50 / p99 (ms)", webhook: `${median(load.map((r) => r.p50Ms)).toFixed(1)} / ${median(load.map((r) => r.p99Ms)).toFixed(1)}`, noop: "-", ratio: "-" });
  rows.push({
    figure: "  CPU loader / emulator (% of a core)",
    webhook: `${median(load.map((r) => r.loaderCpuPercent)).toFixed(0)} / ${median(load.map((r) => r.emulatorCpuPercent)).toFixed(0)}`,
    noop: "-",
    ratio: "-",
  });

  // The largest cost the provider adds over the floor, by ratio: times at the largest N (smaller N are dominated by the
  // CLI's fixed start-up and too noisy), provider memory at every N (loading the implementation is a fixed cost), state.
  const candidates = [
    { name: `up at N=${LARGE}`, w: med("webhook", LARGE, "up"), o: med("noop", LARGE, "up"), unit: "s" },
    { name: `destroy at N=${LARGE}`, w: med("webhook", LARGE, "destroy"), o: med("noop", LARGE, "destroy"), unit: "s" },
    { name: `preview (no changes) at N=${LARGE}`, w: med("webhook", LARGE, "preview"), o: med("noop", LARGE, "preview"), unit: "s" },
    ...SIZES.map((n) => ({ name: `provider peak memory at N=${n}`, w: mib(median(of("webhook", n).providerPeakKiB)), o: mib(median(of("noop", n).providerPeakKiB)), unit: "MiB" })),
    { name: "state per resource", w: marginal(stateW), o: marginal(stateO), unit: "bytes" },
  ];
  const largest = candidates.reduce((best, c) => (c.w / c.o > best.w / best.o ? c : best));
  const largestLine =
    `largest cost the provider adds over the no-op floor: ${largest.name}, x${(largest.w / largest.o).toFixed(2)} ` +
    `(+${(largest.w - largest.o).toFixed(largest.unit === "s" ? 2 : 0)} ${largest.unit}: ${largest.w.toFixed(largest.unit === "s" ? 2 : 1)} vs ${largest.o.toFixed(largest.unit === "s" ? 2 : 1)})`;

  // Print.
  const fmt = (value: number | string, digits = 2): string => (typeof value === "number" ? (Number.isFinite(value) ? value.toFixed(digits) : "n/a") : value);
  const width = Math.max(...rows.map((row) => row.figure.length)) + 2;
  const lines = [
    `${"figure".padEnd(width)}${"webhook".padStart(12)}${"no-op".padStart(12)}${"ratio".padStart(8)}`,
    ...rows.map(
      (row) => `${row.figure.padEnd(width)}${fmt(row.webhook, row.digits).padStart(12)}${fmt(row.noop, row.digits).padStart(12)}${fmt(row.ratio, 2).padStart(8)}`,
    ),
  ];
  const totalSeconds = seconds(performance.now() - benchStarted);
  console.log("");
  console.log(lines.join("\n"));
  console.log("");
  console.log(largestLine);
  console.log(`ratio = webhook / no-op; growth (x) <= ~1 means linear or better. HTTP = API requests / TCP connections the emulator saw.`);
  const loadAverage = { before: loadAverageAtStart, after: readLoadAverage() };
  console.log(
    `${quick ? "quick run" : "full run"} in ${totalSeconds.toFixed(0)} s on ${cpus().length} cores, node ${process.version}, pulumi ${pulumiVersion}; ` +
      `load average (1 min) ${loadAverage.before} before, ${loadAverage.after} after (other processes share these cores)`,
  );

  // JSON.
  const outDir = join(root, "bench-results");
  mkdirSync(outDir, { recursive: true });
  const json = {
    startedAt: startedAt.toISOString(),
    quick,
    totalSeconds,
    environment: { node: process.version, pulumi: pulumiVersion, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? "unknown", loadAverage },
    settings: { sizes: SIZES, reps: REPS, load: LOAD, memorySampleIntervalMs: SAMPLE_INTERVAL_MS },
    table: rows.map(({ digits: _digits, ...row }) => row),
    largestCost: { ...largest, ratio: largest.w / largest.o, line: largestLine },
    samples: Object.fromEntries(results),
    load,
  };
  writeFileSync(join(outDir, "bench.json"), `${JSON.stringify(json, null, 2)}\n`);
  console.log(`results written to ${join("bench-results", "bench.json")}`);
}

// ---------------------------------------------------------------------------------------------------------------

let failed = false;
try {
  await run();
} catch (error) {
  failed = true;
  const message = error instanceof Error ? error.message : String(error);
  log(`\nbenchmark failed: ${message.length > 3000 ? `${message.slice(0, 3000)}\n[... cut]` : message}`);
} finally {
  log("cleaning up: stacks, Pulumi.<stack>.yaml files, temp dirs, emulators");
  await cleanUp();
  for (const kind of KINDS) {
    const left = readdirSync(kind.dir).filter((file) => /^Pulumi\..+\.yaml$/.test(file) && file !== "Pulumi.yaml");
    if (left.length > 0 && existsSync(kind.dir)) log(`note: ${kind.dir} still holds ${left.join(", ")} (not written by this run?)`);
  }
}
process.exit(failed || interrupted ? 1 : 0);
