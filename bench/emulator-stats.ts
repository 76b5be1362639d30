/**
 * The emulator's request and connection counters, read through its inspection routes (outside `/v1`, no auth): how
 * many API requests and TCP connections one `up`, `preview` or `destroy` cost.
 */
import { EmulatorInspectionClient } from "pulumi-helpdesk/emulator/client";

/** API traffic the emulator saw since the last reset. */
export interface HttpCount {
  /** API requests (every route outside /_emulator). */
  requests: number;
  /** TCP connections accepted, less the one the stats request itself opened. */
  connections: number;
  byRoute: Record<string, number>;
}

/**
 * A connection of its own for each inspection call, closed afterwards, so the counters see exactly one connection
 * per call, never a reused one from before a reset.
 */
const inspector = (baseUrl: string): EmulatorInspectionClient =>
  new EmulatorInspectionClient(baseUrl, { connectionPerCall: true });

/** Sets the counters to zero. */
export async function resetStats(baseUrl: string): Promise<void> {
  await inspector(baseUrl).resetStats();
}

/** The counters since the last {@link resetStats}. */
export async function readStats(baseUrl: string): Promise<HttpCount> {
  const stats = await inspector(baseUrl).stats();
  const byRoute = Object.fromEntries(Object.entries(stats.byRoute).filter(([route]) => !route.includes("/_emulator")));
  return { requests: Object.values(byRoute).reduce((a, b) => a + b, 0), connections: stats.connections - 1, byRoute };
}

/** How many webhooks the emulator holds (all accounts). */
export async function heldWebhookCount(baseUrl: string): Promise<number> {
  return (await inspector(baseUrl).webhooks()).length;
}
