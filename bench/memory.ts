/**
 * Peak memory of the process that runs a kind's provider, read from /proc (Linux). Two kinds of provider process:
 *
 *   - dynamic: Pulumi's dynamic provider process, `node .../@pulumi/pulumi/cmd/dynamic-provider` running the serialized
 *     provider (driver → pulumi → pulumi-resource-pulumi-nodejs → node dynamic-provider);
 *   - native: the plugin pulumi-resource-helpdesk, whose launcher execs `node .../dist/bin/pulumi-resource-helpdesk.js`
 *     (driver → pulumi → node pulumi-resource-helpdesk.js);
 *   - native no-op: the benchmark's no-op plugin, whose launcher execs `node .../bench/noop-plugin/main.ts`.
 */
import { readdirSync, readFileSync } from "node:fs";

/** A kind of provider process, told apart by the script its `node` runs (one of its arguments). */
export interface ProviderProcessKind {
  /** For messages, e.g. `dynamic provider`. */
  label: string;
  /** Matches the script among the process's arguments. */
  script: RegExp;
}

export const PROVIDER_PROCESSES = {
  /** `node .../@pulumi/pulumi/cmd/dynamic-provider/index.js <engine>`. */
  dynamic: { label: "dynamic provider", script: /[\\/]cmd[\\/]dynamic-provider([\\/]index\.js)?$/ },
  /** `node .../dist/bin/pulumi-resource-helpdesk.js [flags] <engine>` (the launcher `plugin/pulumi-resource-helpdesk` execs it). */
  native: { label: "native plugin", script: /[\\/]dist[\\/]bin[\\/]pulumi-resource-helpdesk\.js$/ },
  /** `node .../bench/noop-plugin/main.ts <engine>` (its launcher bench/noop-plugin/pulumi-resource-helpdesk execs it). */
  nativeNoop: { label: "no-op plugin", script: /[\\/]bench[\\/]noop-plugin[\\/]main\.ts$/ },
} as const satisfies Record<string, ProviderProcessKind>;

/** How often /proc/<pid>/status is read while an operation runs. */
export const SAMPLE_INTERVAL_MS = 100;

/** A file of /proc/<pid>/, or undefined when the process is gone (or not ours to read). */
export function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
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
 * Samples VmHWM (peak resident set) of every provider process of one kind started below this process while an
 * operation runs: `start()` before it, `stop()` after.
 */
export class ProviderMemorySampler {
  /** Which provider processes it samples. */
  readonly kind: ProviderProcessKind;
  private timer: NodeJS.Timeout | undefined;
  private readonly providers = new Set<number>();
  private readonly rejected = new Set<number>();
  /** Highest VmHWM seen, KiB. */
  private peakKiB = 0;

  /** @param kind which provider processes to sample ({@link PROVIDER_PROCESSES}) */
  constructor(kind: ProviderProcessKind) {
    this.kind = kind;
  }

  start(): void {
    this.timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
  }

  /** @returns the highest VmHWM seen (KiB) and how many provider processes were seen */
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
      // The provider itself, not its launcher (the dynamic one's `node -e "...require.resolve('@pulumi/pulumi/cmd/
      // dynamic-provider')"`, the native one's `/bin/sh .../pulumi-resource-helpdesk`). Not cached as rejected: a
      // launcher may still exec into the provider (the native one does, keeping its pid).
      if (!argv.some((arg) => this.kind.script.test(arg))) continue;
      if (descendsFromThisProcess(pid)) this.providers.add(pid);
      else this.rejected.add(pid);
    }
    for (const pid of this.providers) {
      const match = /^VmHWM:\s+(\d+) kB/m.exec(readProc(pid, "status") ?? "");
      if (match) this.peakKiB = Math.max(this.peakKiB, Number(match[1]));
    }
  }
}
