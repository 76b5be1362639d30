/**
 * Request and connection counters, served by `GET /_emulator/stats` (e.g. to check that a client reuses keep-alive
 * connections or retries the expected number of times).
 */
import type { StatsSnapshot } from "./types.js";

/** Mutable counters; {@link reset} zeroes them. */
export class Stats {
  private requests = 0;
  private connections = 0;
  private byRoute = new Map<string, number>();

  /** Counts one accepted TCP connection. */
  connection(): void {
    this.connections++;
  }

  /** Counts one request. */
  request(): void {
    this.requests++;
  }

  /** Counts one request under its route key, e.g. `DELETE /v1/webhooks/:id`. */
  route(key: string): void {
    this.byRoute.set(key, (this.byRoute.get(key) ?? 0) + 1);
  }

  /** Zeroes every counter. */
  reset(): void {
    this.requests = 0;
    this.connections = 0;
    this.byRoute.clear();
  }

  /** The current counters. */
  snapshot(): StatsSnapshot {
    return { requests: this.requests, connections: this.connections, byRoute: Object.fromEntries(this.byRoute) };
  }
}
