/**
 * The benchmark (`npm run bench`, run by bench/run.sh after set-up). It measures what the Webhook costs, as the
 * dynamic resource and as the native provider plugin's resource, next to the floor of any Pulumi dynamic resource and
 * to the engine's own limit, with the real Pulumi CLI (Automation API), a file:// backend in a temporary directory and
 * the emulator on 127.0.0.1. Six kinds, in the same run, interleaved:
 *
 *   - webhook: N dynamic Webhooks, `pulumi-helpdesk` (bench/programs/webhook);
 *   - native: N native Webhooks, `pulumi-helpdesk/native` on the default provider, run by the plugin
 *     pulumi-resource-helpdesk that the program's Pulumi.yaml points at (bench/programs/native); same names, inputs
 *     and stack config as webhook;
 *   - no-op, the floor: N dynamic resources whose provider does nothing, written inline as Pulumi's docs show
 *     (bench/programs/noop);
 *   - limit: the same no-op program with `PULUMI_SKIP_CHECKPOINTS=true`, so the file backend does not rewrite the
 *     whole state after every step: what the engine costs without that (never a setting for users);
 *   - native-noop, the native floor: the native program (bench/programs/native-noop) run by the no-op plugin
 *     (bench/noop-plugin: the real plugin whose create and delete do no work), with checkpoints, in a backend of its
 *     own under the native kind's project and stack name, so its checkpoint holds the same bytes per resource as the
 *     native kind's: the two differ only in the provider's work. The dynamic floor is no floor for the native kind:
 *     its serialized provider makes each checkpoint about five times larger, and checkpoints dominate `up` at N=300;
 *   - native-limit: the native program with `PULUMI_SKIP_CHECKPOINTS=true`, to set against limit: the provider's
 *     cost, the plugin's process included, with the checkpoints out of the way.
 *
 * For N = 10, 100, 300: `pulumi up`, a no-change `pulumi preview` and `pulumi destroy` (median of 3 runs; `--quick`:
 * N = 10, 100, once each), the marginal cost of one more resource between the two largest N, state bytes per resource
 * and of its `__provider` (state-size.ts; a native resource has none), the API requests and TCP connections the
 * emulator saw (emulator-stats.ts), the peak memory of the kind's provider process during up: the dynamic provider
 * process, or for native the plugin's (memory.ts), and the requests per second the emulator sustains for
 * `POST /v1/webhooks` (load.ts); then what the policy pack costs a preview of 300 (without a pack, the release
 * executable's analyzer, the npm folder pack: policy.ts), and how fast the release executable is ready as the plugin,
 * the analyzer and the CLI, with the npm launcher, against a Node.js floor (plugin-start.ts), and what the security
 * review's attacks on the plugin's and the analyzer's gRPC cost them (attacks.ts), and what the TypeScript receiver kit
 * costs a delivery against `JSON.parse` of its body (receiver.ts), and last what the delivery token costs `up` and
 * `destroy` of 300 webhooks, dynamic and native, with tokens against without (delivery-token.ts; `--quick`: 100).
 * Timings are printed, never asserted (report.ts): tables on stdout, JSON in bench-results/bench.json, policy.json,
 * plugin-start.json, attacks.json, receiver.json and delivery-token.json, progress on stderr.
 *
 * Runs with Node's type stripping: erasable TypeScript only; project code comes from the built package (dist/): do not
 * rebuild it while the benchmark runs.
 */

import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation/index.js";
import { startEmulator } from "pulumi-helpdesk/emulator";
import { signInAutoApproved as signIn } from "pulumi-helpdesk/emulator/client";
// The type tokens from the build, as the project code above (kernel/names.ts is not a package entry).
import { DYNAMIC_WEBHOOK_TYPE, WEBHOOK_TYPE } from "../dist/kernel/names.js";
import { required } from "../dist/kernel/required.js";
import { repoRoot } from "../scripts/lib/repo-root.ts";
import { measureAttacks } from "./attacks.ts";
import { type Cleanup, runCleanups, stackCleanup } from "./cleanups.ts";
import { DELIVERY_TOKEN_SETTINGS, measureDeliveryToken, writeDeliveryTokenResults } from "./delivery-token.ts";
import { heldWebhookCount, readStats, resetStats } from "./emulator-stats.ts";
import { type LoadRound, loadRound, startEmulatorProcess } from "./load.ts";
import { PROVIDER_PROCESSES, ProviderMemorySampler, type ProviderProcessKind } from "./memory.ts";
import { measurePluginStart } from "./plugin-start.ts";
import { measurePolicyPreviews } from "./policy.ts";
import { measureReceiver } from "./receiver.ts";
import { report } from "./report.ts";
import { type KindName, type Results, rotated, samplesOf } from "./results.ts";
import { BENCH_CLIENT, backendEnv, signedInConfig } from "./stack-config.ts";
import { checkpointPath, measureState } from "./state-size.ts";

// ---------------------------------------------------------------------------------------------------------------
// Settings

const quick = process.argv.includes("--quick");
for (const arg of process.argv.slice(2)) {
  if (arg !== "--quick") {
    console.error(`unknown option ${arg} (allowed: --quick)`);
    process.exit(2);
  }
}
const SIZES = quick ? [10, 100] : [10, 100, 300];
const REPS = quick ? 1 : 3;
/** The load test: fixed connections and duration, after a warm-up whose requests are not counted. */
const LOAD = { connections: 32, durationMs: 5000, warmupMs: 2000, rounds: REPS };

interface Kind {
  name: KindName;
  /** Program directory (Pulumi.yaml). */
  dir: string;
  /** `name` of its Pulumi.yaml (the checkpoint lives under .pulumi/stacks/<project>/). */
  project: string;
  /** Resource type token in state. */
  type: string;
  /** Added to the run's stack name: two kinds run the no-op program, each in a stack of its own. */
  stackSuffix: string;
  /**
   * A backend directory of its own (a name under the run's state directory), or undefined for the shared one: the
   * native floor's stack has the native kind's project and stack name, so that URNs, and bytes per resource, match.
   */
  backend?: string;
  /** Environment of its Pulumi operations besides the backend's. */
  env: Record<string, string>;
  /** The process that runs its provider, whose peak memory is sampled during up. */
  providerProcess: ProviderProcessKind;
  /** Whether its resources are webhooks in the emulator (then the emulator's count is checked after up and destroy). */
  createsWebhooks: boolean;
}

const dynamic = { providerProcess: PROVIDER_PROCESSES.dynamic };
const noop = {
  ...dynamic,
  dir: join(repoRoot, "bench/programs/noop"),
  project: "helpdesk-bench-noop",
  type: "pulumi-nodejs:dynamic/bench:Noop",
  createsWebhooks: false,
};
const KINDS: Kind[] = [
  {
    name: "webhook",
    ...dynamic,
    dir: join(repoRoot, "bench/programs/webhook"),
    project: "helpdesk-bench-webhook",
    type: DYNAMIC_WEBHOOK_TYPE,
    stackSuffix: "",
    env: {},
    createsWebhooks: true,
  },
  {
    name: "native",
    providerProcess: PROVIDER_PROCESSES.native,
    dir: join(repoRoot, "bench/programs/native"),
    project: "helpdesk-bench-native",
    type: WEBHOOK_TYPE,
    stackSuffix: "",
    env: {},
    createsWebhooks: true,
  },
  { name: "noop", ...noop, stackSuffix: "", env: {} },
  { name: "limit", ...noop, stackSuffix: "-limit", env: { PULUMI_SKIP_CHECKPOINTS: "true" } },
  {
    name: "native-noop",
    providerProcess: PROVIDER_PROCESSES.nativeNoop,
    dir: join(repoRoot, "bench/programs/native-noop"),
    project: "helpdesk-bench-native",
    type: WEBHOOK_TYPE,
    stackSuffix: "",
    backend: "native-noop",
    env: {},
    createsWebhooks: false,
  },
  {
    name: "native-limit",
    providerProcess: PROVIDER_PROCESSES.native,
    dir: join(repoRoot, "bench/programs/native"),
    project: "helpdesk-bench-native",
    type: WEBHOOK_TYPE,
    // The suffix the limit kind's stack has too: the two stand side by side in the report.
    stackSuffix: "-limit",
    env: { PULUMI_SKIP_CHECKPOINTS: "true" },
    createsWebhooks: true,
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Run state, clean-up and interruption

const log = (message: string): void => void process.stderr.write(`${message}\n`);
const seconds = (ms: number): string => (ms / 1000).toFixed(1);

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await run();
  return { ms: performance.now() - started, value };
}

/** The 1-minute load average, to tell a quiet machine from a busy one when reading the figures. */
function readLoadAverage(): number {
  try {
    return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return Number.NaN;
  }
}

interface BenchStack {
  kind: Kind;
  stack: Stack;
  /** Its checkpoint file. */
  checkpoint: string;
  /** Whether resources may be deployed (then clean-up destroys them). */
  deployed: boolean;
}

const startedAt = new Date();
const loadAverageAtStart = readLoadAverage();
const benchStarted = performance.now();
const abort = new AbortController();
const cleanups: Cleanup[] = [];

async function cleanUp(): Promise<void> {
  await runCleanups(cleanups, log);
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

// ---------------------------------------------------------------------------------------------------------------
// The run

/** One stack per kind in one throw-away file:// backend, with the stack config `pulumi-helpdesk login` would write. */
async function createStacks(emulatorUrl: string): Promise<BenchStack[]> {
  const config = await signedInConfig(emulatorUrl, required(SIZES[0], "a size"));
  log(`emulator on ${emulatorUrl}; signed in as ${BENCH_CLIENT.clientId}`);
  const stateDir = mkdtempSync(join(tmpdir(), "helpdesk-bench-state-"));
  cleanups.push(() => rmSync(stateDir, { recursive: true, force: true }));
  const stackName = `bench${randomBytes(4).toString("hex")}`;
  const backend = backendEnv(stateDir);
  const stacks: BenchStack[] = [];
  for (const kind of KINDS) {
    const name = `${stackName}${kind.stackSuffix}`;
    const stackFile = join(kind.dir, `Pulumi.${name}.yaml`);
    // Registered before the stack exists, so a failure half-way still removes the Pulumi.<stack>.yaml.
    cleanups.push(() => rmSync(stackFile, { force: true }));
    const kindStateDir = kind.backend === undefined ? stateDir : join(stateDir, kind.backend);
    mkdirSync(kindStateDir, { recursive: true });
    const envVars = { ...backend, PULUMI_BACKEND_URL: `file://${kindStateDir}`, ...kind.env };
    const stack = await LocalWorkspace.createOrSelectStack({ stackName: name, workDir: kind.dir }, { envVars });
    const entry: BenchStack = {
      kind,
      stack,
      checkpoint: checkpointPath(kindStateDir, kind.project, name),
      deployed: false,
    };
    cleanups.push(stackCleanup(entry, name, log));
    await stack.setAllConfig(config);
    stacks.push(entry);
  }
  return stacks;
}

/** up, preview and destroy of N resources of one kind, with their samples; checks the emulator after each. */
async function measureOnce(
  entry: BenchStack,
  n: number,
  results: Results,
  emulatorUrl: string,
  rep: number,
): Promise<void> {
  const { kind, stack } = entry;
  const samples = samplesOf(results, kind.name, n);
  await stack.setConfig("bench:count", { value: String(n) });

  await resetStats(emulatorUrl);
  const sampler = new ProviderMemorySampler(kind.providerProcess);
  sampler.start();
  let up: { ms: number };
  try {
    entry.deployed = true;
    up = await timed(() => stack.up({ color: "never", signal: abort.signal }));
  } finally {
    const memory = sampler.stop();
    if (memory.processes !== 1)
      log(
        `note: ${memory.processes} ${kind.providerProcess.label} processes seen during this ${kind.name} up (expected 1)`,
      );
    samples.providerPeakKiB.push(memory.peakKiB);
    samples.providerProcesses.push(memory.processes);
  }
  samples.up.push({ ms: up.ms, http: await readStats(emulatorUrl) });
  if (kind.createsWebhooks) {
    const held = await heldWebhookCount(emulatorUrl);
    if (held !== n) throw new Error(`after up of ${n} ${kind.name} webhooks the emulator holds ${held}`);
  }
  samples.state ??= measureState(entry.checkpoint, kind.type);
  if (samples.state.resources !== n)
    throw new Error(`the ${kind.name} checkpoint holds ${samples.state.resources} resources, expected ${n}`);

  await resetStats(emulatorUrl);
  const preview = await timed(() => stack.preview({ color: "never", signal: abort.signal }));
  const changes = Object.entries(preview.value.changeSummary).filter(([op, count]) => op !== "same" && count > 0);
  if (changes.length > 0)
    throw new Error(`preview after up shows changes: ${JSON.stringify(preview.value.changeSummary)}`);
  samples.preview.push({ ms: preview.ms, http: await readStats(emulatorUrl) });

  await resetStats(emulatorUrl);
  const destroy = await timed(() => stack.destroy({ color: "never", signal: abort.signal }));
  entry.deployed = false;
  samples.destroy.push({ ms: destroy.ms, http: await readStats(emulatorUrl) });
  if (kind.createsWebhooks) {
    const held = await heldWebhookCount(emulatorUrl);
    if (held !== 0) throw new Error(`after destroy of the ${kind.name} webhooks the emulator still holds ${held}`);
  }
  log(
    `rep ${rep + 1}/${REPS} N=${n} ${kind.name.padEnd(12)}: up ${seconds(up.ms)} s, preview ${seconds(preview.ms)} s, destroy ${seconds(destroy.ms)} s, ` +
      `provider peak ${(required(samples.providerPeakKiB.at(-1), "the provider's peak") / 1024).toFixed(0)} MiB`,
  );
}

/** The emulator's sustained rate for POST /v1/webhooks, from a loader in this process against an emulator in its own. */
async function loadTest(): Promise<LoadRound[]> {
  log(
    `load test: POST /v1/webhooks, ${LOAD.connections} connections, ${seconds(LOAD.durationMs)} s (+${seconds(LOAD.warmupMs)} s warm-up) x ${LOAD.rounds}`,
  );
  const emulator = await startEmulatorProcess([BENCH_CLIENT]);
  cleanups.push(() => emulator.stop());
  const tokens = await signIn({ baseUrl: emulator.url, ...BENCH_CLIENT });
  const rounds: LoadRound[] = [];
  for (let round = 0; round < LOAD.rounds; round++) {
    if (abort.signal.aborted) throw abort.signal.reason;
    const result = await loadRound(
      LOAD,
      emulator.url,
      tokens.accessToken,
      required(emulator.child.pid, "the emulator's pid"),
    );
    rounds.push(result);
    log(
      `  round ${round + 1}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, non-201 ${result.non201}, errors ${result.errors}`,
    );
  }
  return rounds;
}

async function run(): Promise<void> {
  const results: Results = new Map();
  const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [BENCH_CLIENT] });
  cleanups.push(() => emulator.close());
  const stacks = await createStacks(emulator.url);
  const pulumiVersion = (await required(stacks[0], "a stack").stack.workspace.pulumiVersion) ?? "unknown";

  // Kinds interleaved; which goes first rotates from one repetition to the next.
  for (let rep = 0; rep < REPS; rep++) {
    for (const n of SIZES) {
      const order = rotated(stacks, rep);
      for (const entry of order) await measureOnce(entry, n, results, emulator.url, rep);
    }
  }
  const load = await loadTest();
  report(
    results,
    load,
    {
      quick,
      sizes: SIZES,
      reps: REPS,
      load: LOAD,
      startedAt,
      totalSeconds: (performance.now() - benchStarted) / 1000,
      pulumiVersion,
      loadAverage: { before: loadAverageAtStart, after: readLoadAverage() },
    },
    repoRoot,
  );
  const policy = await measurePolicyPreviews(repoRoot, emulator.url, REPS, log);
  writeFileSync(join(repoRoot, "bench-results", "policy.json"), `${JSON.stringify(policy, null, 2)}\n`);
  const pluginStart = await measurePluginStart(repoRoot, log);
  writeFileSync(join(repoRoot, "bench-results", "plugin-start.json"), `${JSON.stringify(pluginStart, null, 2)}\n`);
  const attacks = await measureAttacks(repoRoot, log);
  writeFileSync(join(repoRoot, "bench-results", "attacks.json"), `${JSON.stringify(attacks, null, 2)}\n`);
  const receiver = measureReceiver(repoRoot);
  writeFileSync(join(repoRoot, "bench-results", "receiver.json"), `${JSON.stringify(receiver, null, 2)}\n`);
  // On this run's emulator, which holds no webhook once every kind above is destroyed.
  const deliveryToken = await measureDeliveryToken(repoRoot, DELIVERY_TOKEN_SETTINGS[quick ? "quick" : "full"], {
    emulatorUrl: emulator.url,
    signal: abort.signal,
    log,
  });
  writeDeliveryTokenResults(repoRoot, deliveryToken);
  log(`load average at the end: ${readLoadAverage()}`);
}

let failed = false;
try {
  await run();
} catch (error) {
  failed = true;
  const message = error instanceof Error ? error.message : String(error);
  // The Automation API's message repeats the command's output; its end holds the diagnostics.
  log(
    `\nbenchmark failed: ${message.length > 4000 ? `${message.slice(0, 1000)}\n[... cut ...]\n${message.slice(-3000)}` : message}`,
  );
} finally {
  log("cleaning up: stacks, Pulumi.<stack>.yaml files, temp dirs, emulators");
  await cleanUp();
  for (const dir of new Set(KINDS.map((kind) => kind.dir))) {
    const left = existsSync(dir)
      ? readdirSync(dir).filter((file) => /^Pulumi\..+\.yaml$/.test(file) && file !== "Pulumi.yaml")
      : [];
    if (left.length > 0) log(`note: ${dir} still holds ${left.join(", ")} (not written by this run?)`);
  }
}
process.exit(failed || interrupted ? 1 : 0);
