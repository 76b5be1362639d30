import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { EVENTS, nearestEvent } from "../sdk/events.js";

/**
 * The string Pulumi puts in place of a value that is not known yet during preview (for example another resource's
 * output). `check` must let it through: the real value is checked again at `up`.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/**
 * The schema of a Webhook's inputs: `event` one of spec §6's names, `url` an absolute http(s) URL of at most 2048
 * characters (spec §2.1), either one possibly Pulumi's unknown sentinel during preview. Every message says what was
 * wrong and what is allowed.
 */
const WebhookInputsSchema = z.object({
  event: z.union([z.literal(UNKNOWN), z.enum(EVENTS)], { error: (issue) => describeBadEvent(issue.input) }),
  url: z.union([z.literal(UNKNOWN), z.string()], { error: (issue) => describeBadUrl(issue.input) }).check((ctx) => {
    const reason = ctx.value === UNKNOWN ? undefined : describeBadUrl(ctx.value);
    if (reason) ctx.issues.push({ code: "custom", message: reason, input: ctx.value });
  }),
});

/**
 * Validates a Webhook's inputs (Pulumi `check`), all failures at once, each naming its property.
 *
 * - `event`: one of the 14 names of spec §6; a near miss gets a suggestion (`ticket_open` → `ticket_opened`).
 * - `url`: an absolute http or https URL (spec §2.1), at most 2048 characters.
 *
 * @param news the new inputs as the engine sends them (may hold {@link UNKNOWN})
 * @returns the inputs to record (`event`, `url` only) and the failures
 */
export function checkWebhookInputs(news: Record<string, unknown>): pulumi.dynamic.CheckResult {
  const { event, url } = news;
  const result = WebhookInputsSchema.safeParse({ event, url });
  const failures = result.success
    ? []
    : result.error.issues.map((issue) => ({ property: String(issue.path[0] ?? "inputs"), reason: issue.message }));
  return { inputs: { event, url }, failures };
}

/** Why an event name is not acceptable, with the allowed values and the nearest one. */
function describeBadEvent(event: unknown): string {
  if (event === undefined || event === null || event === "") {
    return `event is required; allowed values: ${EVENTS.join(", ")}`;
  }
  if (typeof event !== "string") {
    return `event must be a string, got ${typeof event}; allowed values: ${EVENTS.join(", ")}`;
  }
  const nearest = nearestEvent(event);
  const hint = nearest ? ` Did you mean "${nearest}"?` : "";
  return `event "${event}" is not a help-desk event.${hint} Allowed values: ${EVENTS.join(", ")}`;
}

/** Why a url is not acceptable, or undefined when it is. */
export function describeBadUrl(url: unknown): string | undefined {
  if (url === undefined || url === null || url === "") return "url is required: an absolute http or https URL";
  if (typeof url !== "string") return `url must be a string, got ${typeof url}`;
  if (url.length > 2048) return `url is ${url.length} characters long; at most 2048 are allowed`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `url "${url}" is not an absolute URL; expected e.g. https://hooks.example.com/helpdesk`;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `url must use http or https, got "${parsed.protocol.replace(/:$/, "")}"`;
  }
  return undefined;
}
