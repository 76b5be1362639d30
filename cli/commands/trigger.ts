/**
 * `pulumi-helpdesk trigger <event>`: makes a running emulator deliver an event (spec §6) to every webhook its account
 * registered for it, then shows how each delivery went. For testing receivers locally; the emulator only (the real
 * service has no such endpoint).
 */
import { request } from "undici";
import { EVENTS, isWebhookEvent, nearestEvent } from "../../sdk/events.js";
import { CliError, info, result } from "../output.js";

/** Options of `trigger`. */
export interface TriggerOptions {
  /** Emulator base URL (default `HELPDESK_BASE_URL`, else http://127.0.0.1:8080). */
  baseUrl?: string;
  /** Account whose webhooks receive the event (default: the emulator's first account). */
  account?: string;
  /** Seconds to wait for the deliveries to finish (0: do not wait). */
  wait: number;
}

interface Delivery {
  id: string;
  url: string;
  status: number | null;
  attempts: number;
  ok: boolean;
  done: boolean;
  error?: string;
}

/**
 * Triggers the event and waits for its deliveries.
 *
 * @throws CliError exit 2 for an unknown event (with the nearest name), exit 1 when the emulator cannot be reached,
 *   refuses, or a delivery fails
 */
export async function trigger(event: string, options: TriggerOptions): Promise<void> {
  if (!isWebhookEvent(event)) {
    const nearest = nearestEvent(event);
    throw new CliError(`"${event}" is not a help-desk event${nearest ? `; did you mean "${nearest}"?` : ""} Allowed: ${EVENTS.join(", ")}`, 2);
  }
  const baseUrl = (options.baseUrl ?? process.env.HELPDESK_BASE_URL ?? "http://127.0.0.1:8080").replace(/\/+$/, "");
  const answer = await call(baseUrl, "/_emulator/events", { method: "POST", body: JSON.stringify({ event, ...(options.account ? { account: options.account } : {}) }) });
  const { account, deliveries: ids } = answer as { account: string; deliveries: string[] };
  if (ids.length === 0) {
    info(`No webhook of account "${account}" is registered for ${event}; nothing was delivered.`);
    return;
  }
  info(`Delivering ${event} to ${ids.length} webhook(s) of account "${account}"…`);
  const deadline = Date.now() + options.wait * 1000;
  let deliveries: Delivery[] = [];
  do {
    const log = (await call(baseUrl, `/_emulator/deliveries?account=${encodeURIComponent(account)}`, { method: "GET" })) as { deliveries: Delivery[] };
    deliveries = log.deliveries.filter((d) => ids.includes(d.id));
    if (deliveries.every((d) => d.done)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  } while (Date.now() < deadline);
  for (const d of deliveries) {
    const outcome = !d.done ? "pending" : d.ok ? `${d.status} ok` : `failed${d.status ? ` (${d.status})` : ""}${d.error ? `: ${d.error}` : ""}`;
    result(`${d.id}  ${d.url}  ${outcome}  attempts: ${d.attempts}`);
  }
  if (deliveries.some((d) => d.done && !d.ok)) throw new CliError("some deliveries failed (see above)");
}

async function call(baseUrl: string, path: string, init: { method: "GET" | "POST"; body?: string }): Promise<unknown> {
  let response;
  try {
    response = await request(`${baseUrl}${path}`, { ...init, headers: { "content-type": "application/json" } });
  } catch (error) {
    throw new CliError(`cannot reach the emulator at ${baseUrl} (${error instanceof Error ? error.message : String(error)}); start it with \`pulumi-helpdesk emulator\``);
  }
  const text = await response.body.text();
  if (response.statusCode >= 400) throw new CliError(`the emulator answered ${response.statusCode} to ${init.method} ${path}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}
