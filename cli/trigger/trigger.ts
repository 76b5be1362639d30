/**
 * `pulumi-helpdesk trigger <event>`: makes a running emulator deliver an event (docs/helpdesk-api.md §6) to every webhook its account
 * registered for it, then shows how each delivery went. For testing receivers locally; the emulator only (the real
 * service has no such endpoint).
 */

import type { DeliveryLogEntry } from "../../emulator/index.js";
import { EmulatorInspectionClient, EmulatorInspectionError } from "../../emulator-client/index.js";
import { parseBaseUrl } from "../../kernel/base-url.js";
import { withTokenHidden } from "../../kernel/delivery-token.js";
import { EVENTS, isWebhookEvent, nearestEvent } from "../../kernel/events.js";
import { collectSettings, type SettingName, settingReaderOf } from "../../kernel/settings.js";
import { DEFAULT_EMULATOR_URL } from "../shared/options.js";
import { CliError, info, result } from "../shared/output.js";

/**
 * The settings `trigger` reads, as every command reads them (`kernel/settings.ts` `collectSettings`): its flag, else
 * the setting's environment variable (there is no stack), else {@link DEFAULT_EMULATOR_URL}.
 */
export const TRIGGER_SETTING_NAMES = ["baseUrl"] as const satisfies readonly SettingName[];

/** Options of `trigger`. */
export interface TriggerOptions {
  /** Emulator base URL (see {@link TRIGGER_SETTING_NAMES}). */
  baseUrl?: string;
  /** Account whose webhooks receive the event (default: the emulator's first account). */
  account?: string;
  /** Seconds to wait for the deliveries to finish (0: do not wait). */
  wait: number;
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
    throw new CliError(
      "usage",
      `"${event}" is not a help-desk event${nearest ? `; did you mean "${nearest}"?` : ""} Allowed: ${EVENTS.join(", ")}`,
    );
  }
  const { picked, problems } = collectSettings(TRIGGER_SETTING_NAMES, {
    explicit: settingReaderOf({ baseUrl: options.baseUrl }),
    explicitSource: "flag",
    env: process.env,
  });
  if (problems[0]) throw new CliError("usage", problems[0].message);
  const baseUrl = parseBaseUrl(picked.baseUrl?.value ?? DEFAULT_EMULATOR_URL);
  if ("problem" in baseUrl) throw new CliError("usage", baseUrl.problem); // checked already (or the default); kept for the type
  const emulator = new EmulatorInspectionClient(baseUrl.url);
  const { account, deliveries: ids } = await asCliError(
    emulator.trigger(event, options.account ? { account: options.account } : {}),
  );
  if (ids.length === 0) {
    info(`No webhook of account "${account}" is registered for ${event}; nothing was delivered.`);
    return;
  }
  info(`Delivering ${event} to ${ids.length} webhook(s) of account "${account}"…`);
  const deadline = Date.now() + options.wait * 1000;
  let deliveries: DeliveryLogEntry[] = [];
  do {
    deliveries = (await asCliError(emulator.deliveries({ account }))).filter((d) => ids.includes(d.id));
    if (deliveries.every((d) => d.done)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  } while (Date.now() < deadline);
  for (const d of deliveries) {
    const outcome = !d.done
      ? "pending"
      : d.ok
        ? `${d.status} ok`
        : `failed${d.status ? ` (${d.status})` : ""}${d.error ? `: ${d.error}` : ""}`;
    // A webhook's delivery token is in its url's query: the report shows where it went, never the token.
    result(`${d.id}  ${withTokenHidden(d.url)}  ${outcome}  attempts: ${d.attempts}`);
  }
  if (deliveries.some((d) => d.done && !d.ok)) throw new CliError("failed", "some deliveries failed (see above)");
}

/** The emulator's failure as the CLI reports it: the same message, exit code 1. */
async function asCliError<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof EmulatorInspectionError) throw new CliError("failed", error.message);
    throw error;
  }
}
