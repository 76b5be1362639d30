/**
 * The emulator's request and connection counters, read through its inspection routes (outside `/v1`, no auth): how
 * many API requests and TCP connections one `up`, `preview` or `destroy` cost.
 */
import { Client, request } from "undici";

/** API traffic the emulator saw since the last reset. */
export interface HttpCount {
  /** API requests (every route outside /_emulator). */
  requests: number;
  /** TCP connections accepted, less the one the stats request itself opened. */
  connections: number;
  byRoute: Record<string, number>;
}

/**
 * One request to an inspection route on a connection of its own, closed afterwards (so the counters see exactly one
 * connection per inspection call, never a reused one from before a reset).
 */
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

/** Sets the counters to zero. */
export async function resetStats(baseUrl: string): Promise<void> {
  await inspect(baseUrl, "POST", "/_emulator/reset-stats");
}

/** The counters since the last {@link resetStats}. */
export async function readStats(baseUrl: string): Promise<HttpCount> {
  const stats = (await inspect(baseUrl, "GET", "/_emulator/stats")) as { requests: number; connections: number; byRoute: Record<string, number> };
  const byRoute = Object.fromEntries(Object.entries(stats.byRoute).filter(([route]) => !route.includes("/_emulator")));
  return { requests: Object.values(byRoute).reduce((a, b) => a + b, 0), connections: stats.connections - 1, byRoute };
}

/** How many webhooks the emulator holds (all accounts). */
export async function heldWebhookCount(baseUrl: string): Promise<number> {
  return ((await inspect(baseUrl, "GET", "/_emulator/webhooks")) as { webhooks: unknown[] }).webhooks.length;
}
