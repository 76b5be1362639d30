/**
 * The benchmark's report: the table on stdout and the JSON in bench-results/bench.json. Figures are printed, never
 * asserted.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { PLUGIN_EXECUTABLE } from "../dist/kernel/names.js";
import { PACKAGE_NAME } from "../dist/kernel/package-version.js"; // from the build, as the benchmark's project code
import { required } from "../dist/kernel/required.js";
import type { LoadRound, LoadSettings } from "./load.ts";
import { SAMPLE_INTERVAL_MS } from "./memory.ts";
import { type KindName, median, type Results, type Samples } from "./results.ts";
import type { StateSize } from "./state-size.ts";

/** How the run was set up, for the report's closing lines and the JSON. */
export interface RunInfo {
  quick: boolean;
  sizes: number[];
  reps: number;
  load: LoadSettings & { rounds: number };
  startedAt: Date;
  totalSeconds: number;
  pulumiVersion: string;
  loadAverage: { before: number; after: number };
}

/** One line of the table: a figure for each kind (a number, or text such as `10 / 3`). */
interface Row {
  figure: string;
  values: Record<KindName, number | string>;
  /** Whether the ratios (see {@link RATIOS}) mean something for this figure. */
  ratios: boolean;
  /** Decimals for numbers. */
  digits: number;
}

const seconds = (ms: number): number => ms / 1000;
const mib = (kib: number): number => kib / 1024;
/** Every kind, in the JSON's order, and its column header. */
const KINDS: KindName[] = ["webhook", "native", "noop", "limit", "native-noop", "native-limit"];
const HEADERS: Record<KindName, string> = {
  webhook: "webhook",
  native: "native",
  noop: "no-op",
  limit: "limit",
  "native-noop": "n-no-op",
  "native-limit": "n-limit",
};

/** A ratio column: `of` / `over`. */
interface Ratio {
  header: string;
  of: KindName;
  over: KindName;
}

/** One printed table: its kinds, its ratio columns, and which rows it shows. */
interface Table {
  title: string;
  kinds: KindName[];
  ratios: Ratio[];
  /** Whether a row belongs in this table (the second shows times, state and memory only). */
  shows: (row: Row) => boolean;
}

/**
 * The two tables. The first: the two Webhooks against the dynamic floor and its limit, as before. The second: the
 * native Webhook against floors that differ from it only in one thing: n-no-op, the same program and checkpoints with
 * a plugin that does no work (the provider's whole cost is n/n-no-op), and, without checkpoints, n-limit against the
 * engine's limit (n-lim/lim: the provider's cost with the checkpoints out of the way; n-no-op/lim: what checkpoints of
 * a native stack cost). n/no-op is kept for comparison with earlier runs; it mostly measures state size.
 */
const TABLES: Table[] = [
  {
    title: "The Webhooks against the dynamic floor",
    kinds: ["webhook", "native", "noop", "limit"],
    ratios: [
      { header: "w/no-op", of: "webhook", over: "noop" },
      { header: "n/no-op", of: "native", over: "noop" },
      { header: "n/w", of: "native", over: "webhook" },
    ],
    shows: () => true,
  },
  {
    title: "The native Webhook against its own floors",
    kinds: ["native", "native-noop", "native-limit", "limit"],
    ratios: [
      { header: "n/n-no-op", of: "native", over: "native-noop" },
      { header: "n-lim/lim", of: "native-limit", over: "limit" },
      { header: "n-no-op/lim", of: "native-noop", over: "limit" },
    ],
    shows: (row) => row.ratios && !row.figure.startsWith("emulator") && !row.figure.startsWith("  "),
  },
];

/** The kinds whose cost over a floor the "largest cost" lines name, and that floor. */
const MEASURED: Array<{ kind: KindName; floor: KindName }> = [
  { kind: "webhook", floor: "noop" },
  { kind: "native", floor: "native-noop" },
];

/**
 * Prints the table and writes the JSON.
 *
 * @param results every sample, by kind and N
 * @param load the load test's rounds
 * @param root the repository root (the JSON goes to `<root>/bench-results/bench.json`)
 */
export function report(results: Results, load: LoadRound[], info: RunInfo, root: string): void {
  const { sizes } = info;
  const small = required(sizes[0], "a size");
  const large = required(sizes.at(-1), "a size");
  // The slope is taken between the two largest sizes: the fixed cost of starting the CLI, the program and the provider
  // cancels out, and so does most of the noise of the smallest N.
  const middle = required(sizes.at(-2), "two sizes");
  const of = (kind: KindName, n: number): Samples =>
    required(results.get(`${kind}:${n}`), `the samples of ${kind}:${n}`);
  const med = (kind: KindName, n: number, op: "up" | "preview" | "destroy"): number =>
    median(of(kind, n)[op].map((s) => seconds(s.ms)));
  const each = (value: (kind: KindName) => number | string): Record<KindName, number | string> =>
    Object.fromEntries(KINDS.map((kind) => [kind, value(kind)])) as Record<KindName, number | string>;
  const timesLabel = info.reps === 1 ? "1 run" : `median of ${info.reps}`;
  const rows: Row[] = [];

  for (const op of ["up", "preview", "destroy"] as const) {
    const label = op === "preview" ? "preview, no changes," : op;
    for (const n of sizes)
      rows.push({
        figure: `${label} N=${n} (s, ${timesLabel})`,
        values: each((k) => med(k, n, op)),
        ratios: true,
        digits: 2,
      });
  }
  for (const op of ["up", "preview", "destroy"] as const) {
    rows.push({
      figure: `${op} marginal ms/resource N=${middle}->${large}`,
      values: each((k) => (1000 * (med(k, large, op) - med(k, middle, op))) / (large - middle)),
      ratios: true,
      digits: 1,
    });
  }

  const state = (kind: KindName, n: number): StateSize | undefined => of(kind, n).state;
  const fileMarginal = (kind: KindName): number => {
    const [a, b] = [state(kind, small), state(kind, large)];
    return a && b ? (b.fileBytes - a.fileBytes) / (large - small) : Number.NaN;
  };
  const atLarge =
    (pick: (s: StateSize) => number) =>
    (kind: KindName): number => {
      const s = state(kind, large);
      return s ? pick(s) : Number.NaN;
    };
  const copies = state("webhook", large)?.providerCopies ?? Number.NaN;
  // A native resource has no __provider (its provider is the plugin): "none", not a 0 that ratios would divide.
  const providerShim = (kind: KindName): number | string => {
    const s = state(kind, large);
    return s === undefined ? Number.NaN : s.providerCopies === 0 ? "none" : s.providerBytes;
  };
  rows.push({
    figure: `state bytes/resource (file, marginal N=${small}->${large})`,
    values: each(fileMarginal),
    ratios: true,
    digits: 0,
  });
  rows.push({
    figure: "state bytes/resource (entry, compact JSON)",
    values: each(atLarge((s) => s.entryBytes)),
    ratios: true,
    digits: 0,
  });
  rows.push({ figure: `  of which __provider (x${copies})`, values: each(providerShim), ratios: true, digits: 0 });
  rows.push({
    figure: `state file N=${large} (KiB)`,
    values: each(atLarge((s) => s.fileBytes / 1024)),
    ratios: true,
    digits: 1,
  });

  for (const n of sizes) {
    rows.push({
      figure: `provider process peak RSS, up N=${n} (MiB)`,
      values: each((k) => mib(median(of(k, n).providerPeakKiB))),
      ratios: true,
      digits: 1,
    });
  }

  const http = (kind: KindName, n: number, op: "up" | "preview" | "destroy"): string => {
    const list = of(kind, n)[op];
    if (list.length === 0) return "-";
    return `${median(list.map((s) => s.http.requests))} / ${median(list.map((s) => s.http.connections))}`;
  };
  for (const n of sizes)
    rows.push({
      figure: `HTTP requests / connections per up N=${n}`,
      values: each((k) => http(k, n, "up")),
      ratios: false,
      digits: 0,
    });
  for (const op of ["preview", "destroy"] as const) {
    rows.push({
      figure: `HTTP requests / connections per ${op} N=${large}`,
      values: each((k) => http(k, large, op)),
      ratios: false,
      digits: 0,
    });
  }

  // The emulator's own throughput: one figure, in the first column.
  const webhookOnly = (value: number | string): Record<KindName, number | string> => ({
    ...each(() => "-"),
    webhook: value,
  });
  const rps = median(load.map((round) => round.requestsPerSecond));
  rows.push({
    figure: `emulator POST /v1/webhooks (req/s, ${info.load.connections} conn, ${seconds(info.load.durationMs)} s)`,
    values: webhookOnly(rps),
    ratios: false,
    digits: 0,
  });
  if (load.length > 1) {
    const values = load.map((round) => round.requestsPerSecond);
    rows.push({
      figure: "  req/s min - max of the rounds",
      values: webhookOnly(`${Math.min(...values).toFixed(0)} - ${Math.max(...values).toFixed(0)}`),
      ratios: false,
      digits: 0,
    });
  }
  rows.push({
    figure: "  latency p50 / p99 (ms)",
    values: webhookOnly(
      `${median(load.map((r) => r.p50Ms)).toFixed(1)} / ${median(load.map((r) => r.p99Ms)).toFixed(1)}`,
    ),
    ratios: false,
    digits: 0,
  });
  rows.push({
    figure: "  CPU loader / emulator (% of a core)",
    values: webhookOnly(
      `${median(load.map((r) => r.loaderCpuPercent)).toFixed(0)} / ${median(load.map((r) => r.emulatorCpuPercent)).toFixed(0)}`,
    ),
    ratios: false,
    digits: 0,
  });

  const largestLines = Object.fromEntries(
    MEASURED.map(({ kind, floor }) => [kind, largestCost(kind, floor, results, sizes, med, fileMarginal)]),
  ) as Record<string, string>;

  for (const table of TABLES) printTable(table, rows.filter(table.shows));
  console.log("");
  for (const { kind } of MEASURED) console.log(largestLines[kind]);
  console.log(
    `webhook: the dynamic Webhook (${PACKAGE_NAME}); native: the native Webhook (${PACKAGE_NAME}/native, default`,
  );
  console.log(
    `provider) run by the plugin ${PLUGIN_EXECUTABLE}; no-op: the floor, a dynamic resource whose provider does`,
  );
  console.log(
    "nothing (bench/programs/noop); limit: the same no-op program with PULUMI_SKIP_CHECKPOINTS=true, what the engine",
  );
  console.log(
    "costs without writing state after each step (never for users). n-no-op: the native program run by a plugin whose",
  );
  console.log(
    "create and delete do no work (bench/noop-plugin), same checkpoints and bytes per resource as native: the native",
  );
  console.log(
    "floor; n-limit: native with PULUMI_SKIP_CHECKPOINTS=true. w = webhook, n = native, lim = limit; a/b = a's figure",
  );
  console.log(
    "over b's. provider process: the dynamic provider's (webhook, no-op, limit), the plugin's (native, n-no-op,",
  );
  console.log(
    "n-limit). __provider none: a native resource stores no provider. HTTP = API requests / TCP connections.",
  );
  console.log(
    `${info.quick ? "quick run" : "full run"} in ${info.totalSeconds.toFixed(0)} s on ${cpus().length} cores, node ${process.version}, pulumi ${info.pulumiVersion}; ` +
      `load average (1 min) ${info.loadAverage.before} before, ${info.loadAverage.after} after (other processes share these cores)`,
  );

  // JSON.
  const outDir = join(root, "bench-results");
  mkdirSync(outDir, { recursive: true });
  const json = {
    startedAt: info.startedAt.toISOString(),
    quick: info.quick,
    totalSeconds: info.totalSeconds,
    environment: {
      node: process.version,
      pulumi: info.pulumiVersion,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "unknown",
      loadAverage: info.loadAverage,
    },
    settings: { sizes, reps: info.reps, load: info.load, memorySampleIntervalMs: SAMPLE_INTERVAL_MS },
    table: rows.map(({ figure, values }) => ({ figure, ...values })),
    largestCost: largestLines,
    samples: Object.fromEntries(results),
    load,
  };
  writeFileSync(join(outDir, "bench.json"), `${JSON.stringify(json, null, 2)}\n`);
  console.log(`results written to ${join("bench-results", "bench.json")}`);
}

/** Prints one table: each column as wide as its widest cell, so the table stays within 120 columns. */
function printTable(table: Table, rows: Row[]): void {
  const fmt = (value: number | string, digits: number): string =>
    typeof value === "number" ? (Number.isFinite(value) ? value.toFixed(digits) : "n/a") : value;
  const ratio = (row: Row, of: KindName, over: KindName): string => {
    const [a, b] = [row.values[of], row.values[over]];
    return row.ratios && typeof a === "number" && typeof b === "number" ? fmt(a / b, 2) : "-";
  };
  const columns = [
    ...table.kinds.map((kind) => ({ header: HEADERS[kind], cell: (row: Row) => fmt(row.values[kind], row.digits) })),
    ...table.ratios.map(({ header, of, over }) => ({ header, cell: (row: Row) => ratio(row, of, over) })),
  ].map((column) => ({
    ...column,
    width: Math.max(column.header.length, ...rows.map((row) => column.cell(row).length)) + 2,
  }));
  const width = Math.max(...rows.map((row) => row.figure.length)) + 2;
  const header = "figure".padEnd(width) + columns.map((column) => column.header.padStart(column.width)).join("");
  const lines = rows.map(
    (row) => row.figure.padEnd(width) + columns.map((column) => column.cell(row).padStart(column.width)).join(""),
  );
  console.log("");
  console.log(`${table.title}:`);
  console.log([header, ...lines].join("\n"));
}

/**
 * The largest cost a kind's provider adds over its floor, by ratio: times at the largest N (smaller N are dominated by
 * the CLI's fixed start-up and too noisy), provider process memory at every N (loading the implementation is a fixed
 * cost), state. When no figure is above the floor, the line says so and names the closest.
 */
function largestCost(
  kind: KindName,
  floor: KindName,
  results: Results,
  sizes: number[],
  med: (kind: KindName, n: number, op: "up" | "preview" | "destroy") => number,
  fileMarginal: (kind: KindName) => number,
): string {
  const large = required(sizes.at(-1), "a size");
  const peak = (kind: KindName, n: number): number =>
    mib(median(required(results.get(`${kind}:${n}`), `the samples of ${kind}:${n}`).providerPeakKiB));
  const candidates = [
    ...(["up", "preview", "destroy"] as const).map((op) => ({
      name: `${op} at N=${large}`,
      w: med(kind, large, op),
      o: med(floor, large, op),
      unit: "s",
    })),
    ...sizes.map((n) => ({
      name: `provider process peak memory at N=${n}`,
      w: peak(kind, n),
      o: peak(floor, n),
      unit: "MiB",
    })),
    { name: "state per resource", w: fileMarginal(kind), o: fileMarginal(floor), unit: "bytes" },
  ];
  const largest = candidates.reduce((best, c) => (c.w / c.o > best.w / best.o ? c : best));
  const digits = largest.unit === "s" ? 2 : largest.unit === "MiB" ? 1 : 0;
  const lead =
    largest.w > largest.o
      ? `largest cost over its floor (${HEADERS[floor]})`
      : `no cost over its floor (${HEADERS[floor]}); closest`;
  return (
    `${kind}: ${lead}: ${largest.name}, x${(largest.w / largest.o).toFixed(2)} ` +
    `(${largest.w >= largest.o ? "+" : ""}${(largest.w - largest.o).toFixed(digits)} ${largest.unit}: ${largest.w.toFixed(digits)} vs ${largest.o.toFixed(digits)})`
  );
}
