/**
 * What the benchmark collects per kind and size, and the two statistics it prints. Shared by the driver (bench.ts)
 * and the report (report.ts).
 */
import { required } from "../dist/kernel/required.js";
import type { HttpCount } from "./emulator-stats.ts";
import type { StateSize } from "./state-size.ts";

/**
 * The kinds measured (see `KINDS` in bench.ts): the dynamic Webhook, the native Webhook, the dynamic floor and the
 * engine's limit for it; the native floor (the no-op plugin) and the native Webhook without checkpoints.
 */
export type KindName = "webhook" | "native" | "noop" | "limit" | "native-noop" | "native-limit";

/** One timed operation and the API traffic the emulator saw during it. */
export interface OperationSample {
  ms: number;
  http: HttpCount;
}

/** Every sample of one kind at one N, over the repetitions. */
export interface Samples {
  up: OperationSample[];
  preview: OperationSample[];
  destroy: OperationSample[];
  /** Peak resident set (VmHWM) of the kind's provider process (dynamic provider or native plugin) during each up, KiB. */
  providerPeakKiB: number[];
  /** How many of those provider processes each up started (1 expected). */
  providerProcesses: number[];
  /** The checkpoint after the first up at this N. */
  state?: StateSize;
}

/** Samples by `${kind}:${n}`. */
export type Results = Map<string, Samples>;

/** The samples of one kind at one N, created empty on first use. */
export function samplesOf(results: Results, kind: KindName, n: number): Samples {
  const key = `${kind}:${n}`;
  let samples = results.get(key);
  if (!samples) {
    samples = { up: [], preview: [], destroy: [], providerPeakKiB: [], providerProcesses: [] };
    results.set(key, samples);
  }
  return samples;
}

/** The median; NaN for no values. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle];
  if (upper === undefined) return Number.NaN; // no values
  return sorted.length % 2 === 1 ? upper : (required(sorted[middle - 1], "the lower middle value") + upper) / 2;
}

/** The p-th percentile (nearest rank) of values sorted ascending; NaN for none. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN; // none: index -1
}

/**
 * `items` rotated left by `turn` places (`[a, b, c]` by 1: `[b, c, a]`): the order of one repetition, so that which
 * kind goes first changes from one repetition to the next.
 */
export function rotated<T>(items: readonly T[], turn: number): T[] {
  const at = items.length === 0 ? 0 : turn % items.length;
  return [...items.slice(at), ...items.slice(0, at)];
}
