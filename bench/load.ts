/**
 * The load test: how many `POST /v1/webhooks` per second the emulator sustains, from a small bounded load generator
 * in this process against the emulator in a process of its own (emulator-process.ts), so that the figure measures the
 * server, not the contention of two workloads on one event loop.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { EmulatorClient } from "pulumi-helpdesk/emulator";
import { Pool } from "undici";
import { startProcess } from "../scripts/lib/processes.ts";
import { readProc } from "./memory.ts";
import { percentile } from "./results.ts";

/** Fixed connections and duration; the requests of the warm-up are not counted. */
export interface LoadSettings {
  connections: number;
  durationMs: number;
  warmupMs: number;
}

/** What one round measured. */
export interface LoadRound {
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

/** CPU time (user + system) a process has used, ms. */
function processCpuMs(pid: number): number {
  const stat = readProc(pid, "stat");
  if (stat === undefined) return Number.NaN;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (USER_HZ = 100 on Linux)
  return ticks * 10;
}

/**
 * One round on undici's Pool (instead of autocannon, to avoid a new dependency): `connections` workers each keep one
 * request in flight on their own keep-alive connection until the time is up; the requests that complete in the
 * counted window (after the warm-up) give the rate.
 */
export async function loadRound(
  settings: LoadSettings,
  baseUrl: string,
  token: string,
  emulatorPid: number,
): Promise<LoadRound> {
  const pool = new Pool(baseUrl, { connections: settings.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const started = performance.now();
  const windowStart = started + settings.warmupMs;
  const windowEnd = windowStart + settings.durationMs;
  const latencies: number[] = [];
  let sequence = 0;
  let non201 = 0;
  let errors = 0;
  let cpuAtStart: { loader: number; emulator: number } | undefined;
  const cpuNow = (): { loader: number; emulator: number } => {
    const usage = process.cpuUsage();
    return { loader: (usage.user + usage.system) / 1000, emulator: processCpuMs(emulatorPid) };
  };
  const warmupTimer = setTimeout(() => (cpuAtStart = cpuNow()), settings.warmupMs);

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
    await Promise.all(Array.from({ length: settings.connections }, () => worker()));
  } finally {
    clearTimeout(warmupTimer);
    await pool.close();
  }
  const cpuAtEnd = cpuNow();
  const windowMs = settings.durationMs + (performance.now() - windowEnd); // cpu covers the tail of in-flight requests too
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / (settings.durationMs / 1000),
    completed: latencies.length,
    non201,
    errors,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    loaderCpuPercent: cpuAtStart ? (100 * (cpuAtEnd.loader - cpuAtStart.loader)) / windowMs : Number.NaN,
    emulatorCpuPercent: cpuAtStart ? (100 * (cpuAtEnd.emulator - cpuAtStart.emulator)) / windowMs : Number.NaN,
  };
}

/** An emulator in its own process (emulator-process.ts). */
export interface EmulatorProcess {
  url: string;
  child: ChildProcess;
  /** Stops it (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts emulator-process.ts with these OAuth clients and waits for its URL. */
export async function startEmulatorProcess(clients: EmulatorClient[]): Promise<EmulatorProcess> {
  // Its stdin a pipe: the process stops when the benchmark ends, however it ends.
  const started = startProcess(
    process.execPath,
    [join(import.meta.dirname, "emulator-process.ts"), JSON.stringify(clients)],
    { stdin: "pipe" },
  );
  const [, line = ""] = await started.waitFor("stdout", /^(.*)\n/, "the emulator process's URL");
  return { url: (JSON.parse(line) as { url: string }).url, child: started.child, stop: () => started.stop() };
}
