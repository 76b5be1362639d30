/**
 * The webhook event names of the help-desk API.
 *
 * Source: spec §6 ("Events"): a webhook is registered for exactly one of these names. The list is closed; the
 * emulator rejects any other name with 422 and the provider's `check` rejects it before any request is sent.
 */
export const EVENTS = [
  "ticket_started",
  "ticket_opened",
  "ticket_closed",
  "ticket_assigned",
  "ticket_priority_changed",
  "ticket_deleted",
  "ticket_tagged",
  "ticket_moved",
  "customer_replied",
  "customer_added",
  "agent_invited",
  "agent_archived",
  "note_added",
  "agent_replied",
] as const;

/** One webhook event name of spec §6, e.g. `"ticket_opened"`. */
export type WebhookEvent = (typeof EVENTS)[number];

/**
 * Tells whether `value` is one of the 14 event names of spec §6.
 *
 * @param value any value (a string from a program, a request body, a CLI argument)
 * @returns `true` when `value` is exactly one of {@link EVENTS} (case-sensitive)
 */
export function isWebhookEvent(value: unknown): value is WebhookEvent {
  return typeof value === "string" && (EVENTS as readonly string[]).includes(value);
}
