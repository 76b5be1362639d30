/**
 * What the delivery token costs `pulumi up` (the goal: `up` of 300 webhooks with tokens at most 1.05 times
 * `up` of 300 without, in the same run). For each provider kind, the dynamic `Webhook` (bench/programs/webhook) and
 * the native one (bench/programs/native, run by the plugin), two stacks of one program that differ only in the stack
 * config `bench:deliveryToken`: unset, the program declares the webhooks as bench.ts does; `true`, each with
 * `useDeliveryToken: true`, so the provider mints a token at create, registers the url with the token's query, and
 * records `deliveryToken` and `registeredUrl` as secret outputs. The stack names are of the same length, so the two
 * checkpoints differ only in what the token adds to each resource.
 *
 * Four kinds (webhook, webhook+token, native, native+token), each `up` then `destroy` of N webhooks, in interleaved
 * rounds (which kind goes first rotates from one round to the next), against the emulator on 127.0.0.1, a file://
 * backend in a temporary directory. After each `up` the emulator must hold N webhooks, each with a token in its url
 * for a token kind (kernel/delivery-token.ts `splitRegisteredUrl`; none for the others), and the checkpoint must not
 * hold any of those tokens in plain text; after each `destroy`, none. Printed: the medians of `up` and `destroy`,
 * with-token / without ratios, state bytes per resource and API requests per `up`; timings are never asserted.
 * Besides wall time, the CPU time of each operation's process tree (the `pulumi` CLI and what it ran and waited for:
 * language host, program, provider; read by `/usr/bin/time` around the CLI, where it exists) and of this process
 * (the emulator, the Automation API): on a shared machine the wall time swings with the load, the CPU time much less.
 *
 * N = 300, 3 rounds; `--quick`: N = 100, 1 round; `--n` and `--rounds` override; `--skip-checkpoints` runs every kind
 * with `PULUMI_SKIP_CHECKPOINTS=true` (to tell the state's share of the cost from the rest; never for users). Run
 * alone: `node bench/delivery-token.ts [--quick]` (after `npm run build` and `. scripts/lib/env.sh`); `npm run bench`
 * runs it last, on its emulator, and writes bench-results/delivery-token.json.
 */

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation/index.js";
import { startEmulator } from "pulumi-helpdesk/emulator";
import { EmulatorInspectionClient } from "pulumi-helpdesk/emulator/client";
// From the build, as the rest of the benchmark's project code (kernel/ is no package entry).
import { deliveryTokenProblem, splitRegisteredUrl } from "../dist/kernel/delivery-token.js";
import { DYNAMIC_WEBHOOK_TYPE, WEBHOOK_TYPE } from "../dist/kernel/names.js";
import { required } from "../dist/kernel/required.js";
import { repoRoot } from "../scripts/lib/repo-root.ts";
import { type Cleanup, runCleanups, stackCleanup } from "./cleanups.ts";
import { type HttpCount, readStats, resetStats } from "./emulator-stats.ts";
import { median, rotated } from "./results.ts";
import { BENCH_CLIENT, backendEnv, signedInConfig } from "./stack-config.ts";
import { checkpointPath, measureState, type StateSize } from "./state-size.ts";

/** How many webhooks and rounds: the N, and the rounds of bench.ts's main tables. */
export interface DeliveryTokenSettings {
  n: number;
  rounds: number;
  /**
   * Every kind with `PULUMI_SKIP_CHECKPOINTS=true` (`--skip-checkpoints`, never in `npm run bench`): what the token
   * costs with the file backend's rewrite of the whole state after each step out of the way.
   */
  skipCheckpoints?: boolean;
}

/** The full run's settings, and `--quick`'s (bench.ts's quick run: N = 100 once). */
export const DELIVERY_TOKEN_SETTINGS: Record<"full" | "quick", DeliveryTokenSettings> = {
  full: { n: 300, rounds: 3 },
  quick: { n: 100, rounds: 1 },
};

/** The goal of the issue: `up` with tokens at most this many times `up` without. */
export const DELIVERY_TOKEN_GOAL = 1.05;

type Program = "webhook" | "native";

interface TokenKind {
  name: string;
  program: Program;
  token: boolean;
  /** Program directory, from the repository root. */
  dir: string;
  project: string;
  type: string;
  /** Added to the run's stack name; both suffixes are 6 characters, so URNs are as long in either stack. */
  stackSuffix: string;
}

const PROGRAMS: Record<Program, Omit<TokenKind, "name" | "program" | "token" | "stackSuffix">> = {
  webhook: {
    dir: "bench/programs/webhook",
    project: "helpdesk-bench-webhook",
    type: DYNAMIC_WEBHOOK_TYPE,
  },
  native: { dir: "bench/programs/native", project: "helpdesk-bench-native", type: WEBHOOK_TYPE },
};

/** The kinds, in the order of the first round: each program without, then with tokens. */
const KINDS: TokenKind[] = (["webhook", "native"] as const).flatMap((program) => [
  { name: program, program, token: false, stackSuffix: "-plain", ...PROGRAMS[program] },
  { name: `${program}+token`, program, token: true, stackSuffix: "-token", ...PROGRAMS[program] },
]);

/** One kind's samples, seconds. */
export interface TokenKindResult {
  name: string;
  program: Program;
  token: boolean;
  up: number[];
  destroy: number[];
  /** CPU seconds (user + system) of each `up`'s and `destroy`'s `pulumi` process tree (NaN without /usr/bin/time). */
  upCpu: number[];
  destroyCpu: number[];
  /** CPU seconds of this process (the emulator, the Automation API) during each `up`. */
  upDriverCpu: number[];
  /** The API traffic of each `up`. */
  upHttp: HttpCount[];
  /** The checkpoint after the first `up`. */
  state: StateSize;
}

/** The with-token / without ratios of one program's medians. */
export interface TokenRatio {
  program: Program;
  up: number;
  destroy: number;
  upCpu: number;
  destroyCpu: number;
  stateBytesPerResource: number;
}

/** What {@link measureDeliveryToken} returns and bench-results/delivery-token.json holds. */
export interface DeliveryTokenResults {
  n: number;
  rounds: number;
  skipCheckpoints: boolean;
  goal: number;
  kinds: TokenKindResult[];
  ratios: TokenRatio[];
  loadAverage: { before: number; after: number };
}

interface TokenStack {
  kind: TokenKind;
  stack: Stack;
  checkpoint: string;
  /** Where the `pulumi` wrapper appends the CPU seconds of each run of the CLI (undefined without the wrapper). */
  cpuFile: string | undefined;
  deployed: boolean;
  result?: TokenKindResult;
}

const TIME = "/usr/bin/time";

/**
 * A `pulumi` that runs the real one under `/usr/bin/time` (GNU time: the CPU of the process and of the processes it
 * waited for), appending `user system` seconds to `$HELPDESK_BENCH_CPU_FILE`; undefined where there is no such time.
 *
 * @param scratch the run's temporary directory (the wrapper goes to `<scratch>/pulumi-cli/bin/pulumi`)
 */
async function timedPulumi(scratch: string): Promise<PulumiCommand | undefined> {
  if (!existsSync(TIME)) return undefined;
  const real = execFileSync("sh", ["-c", "command -v pulumi"], { encoding: "utf8" }).trim();
  const root = join(scratch, "pulumi-cli");
  mkdirSync(join(root, "bin"), { recursive: true });
  const wrapper = join(root, "bin", "pulumi");
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec ${TIME} -a -o "\${HELPDESK_BENCH_CPU_FILE:-/dev/null}" -f "%U %S" ${JSON.stringify(real)} "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  return PulumiCommand.get({ root, skipVersionCheck: true });
}

/** The CPU seconds the wrapper recorded since the last call, and empties the file (NaN without the wrapper). */
function takeCpu(file: string | undefined): number {
  if (file === undefined) return Number.NaN;
  const text = existsSync(file) ? readFileSync(file, "utf8") : "";
  writeFileSync(file, "");
  let total = 0;
  for (const line of text.split("\n")) {
    const match = /^([\d.]+) ([\d.]+)$/.exec(line.trim());
    if (match) total += Number(match[1]) + Number(match[2]);
  }
  return total;
}

/** CPU seconds of a `process.cpuUsage()` difference. */
const cpuSeconds = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1e6;

/** The 1-minute load average (NaN where /proc is absent). */
function loadAverage(): number {
  try {
    return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return Number.NaN;
  }
}

/**
 * Checks what the emulator holds after an `up` of `kind`: `n` webhooks; for a token kind each url carrying a valid
 * token and its own event, and none of those tokens in plain text in the checkpoint (the outputs are secrets); for
 * the others no token at all.
 *
 * @throws Error naming what is wrong (never a token)
 */
async function checkAfterUp(entry: TokenStack, n: number, inspector: EmulatorInspectionClient): Promise<void> {
  const { kind } = entry;
  const held = await inspector.webhooks();
  if (held.length !== n) throw new Error(`after up of ${n} ${kind.name} webhooks the emulator holds ${held.length}`);
  const tokens: string[] = [];
  for (const webhook of held) {
    const split = splitRegisteredUrl(webhook.url);
    if (!kind.token) {
      if (split.token !== undefined || split.event !== undefined)
        throw new Error(`a ${kind.name} webhook was registered with a delivery token's query`);
      continue;
    }
    if (split.token === undefined) throw new Error(`a ${kind.name} webhook was registered without a delivery token`);
    const problem = deliveryTokenProblem(split.token);
    if (problem !== undefined) throw new Error(`a ${kind.name} webhook's delivery token: ${problem}`);
    if (split.event !== webhook.event)
      throw new Error(`a ${kind.name} webhook's url names the event ${split.event}, not ${webhook.event}`);
    tokens.push(split.token);
  }
  if (new Set(tokens).size !== tokens.length) throw new Error(`two ${kind.name} webhooks have the same token`);
  if (tokens.length > 0) {
    const text = readFileSync(entry.checkpoint, "utf8");
    if (tokens.some((token) => text.includes(token)))
      throw new Error(`the ${kind.name} checkpoint holds a delivery token in plain text`);
  }
}

/**
 * Measures `up` and `destroy` of N webhooks with delivery tokens against N without, for the dynamic and the native
 * `Webhook`, prints the table, and returns the samples.
 *
 * @param root the repository root (the bench programs, the built package)
 * @param settings N and the rounds
 * @param options `emulatorUrl`: an emulator that knows {@link BENCH_CLIENT} and holds no webhooks (else one is started
 *   here); `signal` aborts the current Pulumi operation; `log` takes progress lines (stderr by default)
 * @throws Error when an operation fails or a check after one does not hold
 */
export async function measureDeliveryToken(
  root: string,
  settings: DeliveryTokenSettings,
  options: { emulatorUrl?: string; signal?: AbortSignal; log?: (line: string) => void } = {},
): Promise<DeliveryTokenResults> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const { n, rounds } = settings;
  const cleanups: Cleanup[] = [];
  const before = loadAverage();
  try {
    let emulatorUrl = options.emulatorUrl;
    if (emulatorUrl === undefined) {
      const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [BENCH_CLIENT] });
      cleanups.push(() => emulator.close());
      emulatorUrl = emulator.url;
    }
    const inspector = new EmulatorInspectionClient(emulatorUrl, { connectionPerCall: true });
    const config = await signedInConfig(emulatorUrl, n);
    const scratch = mkdtempSync(join(tmpdir(), "helpdesk-bench-token-"));
    cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
    const stateDir = join(scratch, "state");
    mkdirSync(stateDir);
    const pulumiCommand = await timedPulumi(scratch);
    const stackName = `token${randomBytes(4).toString("hex")}`;
    const stacks: TokenStack[] = [];
    for (const kind of KINDS) {
      const name = `${stackName}${kind.stackSuffix}`;
      const dir = join(root, kind.dir);
      // Registered before the stack exists, so a failure half-way still removes the Pulumi.<stack>.yaml.
      cleanups.push(() => rmSync(join(dir, `Pulumi.${name}.yaml`), { force: true }));
      const cpuFile = pulumiCommand === undefined ? undefined : join(scratch, `cpu-${kind.name}`);
      const envVars = {
        ...backendEnv(stateDir),
        HELPDESK_TOKEN_CACHE_DIR: join(scratch, "tokens"),
        ...(settings.skipCheckpoints ? { PULUMI_SKIP_CHECKPOINTS: "true" } : {}),
        ...(cpuFile === undefined ? {} : { HELPDESK_BENCH_CPU_FILE: cpuFile }),
      };
      const stack = await LocalWorkspace.createOrSelectStack(
        { stackName: name, workDir: dir },
        { envVars, ...(pulumiCommand === undefined ? {} : { pulumiCommand }) },
      );
      const entry: TokenStack = {
        kind,
        stack,
        checkpoint: checkpointPath(stateDir, kind.project, name),
        cpuFile,
        deployed: false,
      };
      cleanups.push(stackCleanup(entry, name, log));
      await stack.setAllConfig({
        ...config,
        ...(kind.token ? { "bench:deliveryToken": { value: "true" } } : {}),
      });
      stacks.push(entry);
    }

    log(
      `delivery token: up and destroy of ${n} webhooks with tokens and without, ${rounds} round(s), kinds interleaved`,
    );
    for (let round = 0; round < rounds; round++) {
      for (const entry of rotated(stacks, round)) {
        const { kind, stack } = entry;
        await resetStats(emulatorUrl);
        takeCpu(entry.cpuFile);
        entry.deployed = true;
        let started = performance.now();
        const driver = process.cpuUsage();
        await stack.up({ color: "never", signal: options.signal });
        const up = (performance.now() - started) / 1000;
        const upDriverCpu = cpuSeconds(process.cpuUsage(driver));
        const upCpu = takeCpu(entry.cpuFile);
        const http = await readStats(emulatorUrl);
        await checkAfterUp(entry, n, inspector);
        const state = entry.result?.state ?? measureState(entry.checkpoint, kind.type);
        if (state.resources !== n)
          throw new Error(`the ${kind.name} checkpoint holds ${state.resources} resources, expected ${n}`);
        started = performance.now();
        await stack.destroy({ color: "never", signal: options.signal });
        const destroy = (performance.now() - started) / 1000;
        const destroyCpu = takeCpu(entry.cpuFile);
        entry.deployed = false;
        const left = (await inspector.webhooks()).length;
        if (left !== 0) throw new Error(`after destroy of the ${kind.name} webhooks the emulator still holds ${left}`);
        entry.result ??= {
          name: kind.name,
          program: kind.program,
          token: kind.token,
          up: [],
          destroy: [],
          upCpu: [],
          destroyCpu: [],
          upDriverCpu: [],
          upHttp: [],
          state,
        };
        entry.result.up.push(up);
        entry.result.destroy.push(destroy);
        entry.result.upCpu.push(upCpu);
        entry.result.destroyCpu.push(destroyCpu);
        entry.result.upDriverCpu.push(upDriverCpu);
        entry.result.upHttp.push(http);
        log(
          `  round ${round + 1}/${rounds} ${kind.name.padEnd(13)} up ${up.toFixed(2)} s (CPU ${upCpu.toFixed(2)} + ${upDriverCpu.toFixed(2)} s, ` +
            `${http.requests} requests), destroy ${destroy.toFixed(2)} s (CPU ${destroyCpu.toFixed(2)} s); load ${loadAverage()}`,
        );
      }
    }

    const kinds = stacks.map((entry) => required(entry.result, `the samples of ${entry.kind.name}`));
    const ratios = (["webhook", "native"] as const).map((program): TokenRatio => {
      const plain = required(
        kinds.find((k) => k.program === program && !k.token),
        `${program}`,
      );
      const token = required(
        kinds.find((k) => k.program === program && k.token),
        `${program}+token`,
      );
      return {
        program,
        up: median(token.up) / median(plain.up),
        destroy: median(token.destroy) / median(plain.destroy),
        upCpu: median(token.upCpu) / median(plain.upCpu),
        destroyCpu: median(token.destroyCpu) / median(plain.destroyCpu),
        stateBytesPerResource: token.state.entryBytes / plain.state.entryBytes,
      };
    });
    const results: DeliveryTokenResults = {
      n,
      rounds,
      skipCheckpoints: settings.skipCheckpoints === true,
      goal: DELIVERY_TOKEN_GOAL,
      kinds,
      ratios,
      loadAverage: { before, after: loadAverage() },
    };
    print(results);
    return results;
  } finally {
    await runCleanups(cleanups, log);
  }
}

/** Prints the table: per program, the kind without, with, and the ratio. */
function print(results: DeliveryTokenResults): void {
  const { n, rounds } = results;
  const times = rounds === 1 ? "1 run" : `median of ${rounds}`;
  const columns: Array<{ header: string; cell: (figure: Figure) => string }> = (["webhook", "native"] as const).flatMap(
    (program) => {
      const plain = required(
        results.kinds.find((k) => k.program === program && !k.token),
        program,
      );
      const token = required(
        results.kinds.find((k) => k.program === program && k.token),
        program,
      );
      return [
        { header: plain.name, cell: (figure: Figure) => figure.value(plain) },
        { header: token.name, cell: (figure: Figure) => figure.value(token) },
        {
          header: `${program === "webhook" ? "w" : "n"}+t/${program === "webhook" ? "w" : "n"}`,
          cell: (figure: Figure) => figure.ratio(token, plain),
        },
      ];
    },
  );
  const number = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
  const figures: Figure[] = [
    {
      name: `up N=${n} (s, ${times})`,
      value: (k) => number(median(k.up), 2),
      ratio: (a, b) => number(median(a.up) / median(b.up), 2),
    },
    {
      name: `destroy N=${n} (s, ${times})`,
      value: (k) => number(median(k.destroy), 2),
      ratio: (a, b) => number(median(a.destroy) / median(b.destroy), 2),
    },
    {
      name: "  up min - max of the rounds (s)",
      value: (k) => `${number(Math.min(...k.up), 1)}-${number(Math.max(...k.up), 1)}`,
      ratio: () => "-",
    },
    {
      name: `up CPU, pulumi's process tree (s, ${times})`,
      value: (k) => number(median(k.upCpu), 2),
      ratio: (a, b) => number(median(a.upCpu) / median(b.upCpu), 2),
    },
    {
      name: `destroy CPU, pulumi's process tree (s, ${times})`,
      value: (k) => number(median(k.destroyCpu), 2),
      ratio: (a, b) => number(median(a.destroyCpu) / median(b.destroyCpu), 2),
    },
    {
      name: `up CPU, emulator + driver (s, ${times})`,
      value: (k) => number(median(k.upDriverCpu), 2),
      ratio: (a, b) => number(median(a.upDriverCpu) / median(b.upDriverCpu), 2),
    },
    {
      name: "state bytes/resource (entry, compact JSON)",
      value: (k) => number(k.state.entryBytes, 0),
      ratio: (a, b) => number(a.state.entryBytes / b.state.entryBytes, 2),
    },
    {
      name: `state file N=${n} (KiB)`,
      value: (k) => number(k.state.fileBytes / 1024, 1),
      ratio: (a, b) => number(a.state.fileBytes / b.state.fileBytes, 2),
    },
    {
      name: "HTTP requests per up",
      value: (k) => String(median(k.upHttp.map((h) => h.requests))),
      ratio: () => "-",
    },
  ];
  const widths = columns.map(
    (column) => Math.max(column.header.length, ...figures.map((figure) => column.cell(figure).length)) + 2,
  );
  const width = Math.max(...figures.map((figure) => figure.name.length)) + 2;
  console.log(
    `\nThe delivery token: ${n} webhooks with tokens against ${n} without (same program, same provider kind; ` +
      `${rounds} round(s), interleaved${results.skipCheckpoints ? "; every kind with PULUMI_SKIP_CHECKPOINTS=true" : ""}):`,
  );
  console.log("figure".padEnd(width) + columns.map((column, i) => column.header.padStart(widths[i] ?? 0)).join(""));
  for (const figure of figures)
    console.log(
      figure.name.padEnd(width) + columns.map((column, i) => column.cell(figure).padStart(widths[i] ?? 0)).join(""),
    );
  for (const ratio of results.ratios)
    console.log(
      `${ratio.program}: up with tokens / without x${ratio.up.toFixed(2)} (goal: at most ${results.goal.toFixed(2)}), ` +
        `destroy x${ratio.destroy.toFixed(2)}; CPU of pulumi's process tree: up x${ratio.upCpu.toFixed(2)}, destroy x${ratio.destroyCpu.toFixed(2)}`,
    );
  console.log(
    `w = webhook (dynamic), n = native, +t = with useDeliveryToken: true; load average (1 min) ${results.loadAverage.before} ` +
      `before, ${results.loadAverage.after} after (other processes share these cores)`,
  );
}

/** One row of the printed table. */
interface Figure {
  name: string;
  value: (kind: TokenKindResult) => string;
  ratio: (token: TokenKindResult, plain: TokenKindResult) => string;
}

/** Writes the results to `<root>/bench-results/delivery-token.json`. */
export function writeDeliveryTokenResults(root: string, results: DeliveryTokenResults): void {
  const outDir = join(root, "bench-results");
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "delivery-token.json"), `${JSON.stringify(results, null, 2)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      n: { type: "string" },
      rounds: { type: "string" },
      "skip-checkpoints": { type: "boolean", default: false },
    },
  });
  const base = DELIVERY_TOKEN_SETTINGS[values.quick ? "quick" : "full"];
  const settings = {
    n: values.n === undefined ? base.n : Number(values.n),
    rounds: values.rounds === undefined ? base.rounds : Number(values.rounds),
    skipCheckpoints: values["skip-checkpoints"],
  };
  if (!(Number.isInteger(settings.n) && settings.n > 0 && Number.isInteger(settings.rounds) && settings.rounds > 0)) {
    console.error("--n and --rounds take a whole number above 0");
    process.exit(2);
  }
  const abort = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => abort.abort(new Error(`interrupted by ${signal}`)));
  const results = await measureDeliveryToken(repoRoot, settings, { signal: abort.signal });
  writeDeliveryTokenResults(repoRoot, results);
  console.log(`results written to ${join("bench-results", "delivery-token.json")}`);
}
