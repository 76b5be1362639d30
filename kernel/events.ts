/**
 * The webhook event names of the help-desk API.
 *
 * Source: docs/helpdesk-api.md §6 ("Events"): a webhook is registered for exactly one of these names. The list is closed; the
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

/** What an `event` input means, for people (the native provider's schema and docs use it). */
export const EVENT_DESCRIPTION =
  "The help-desk event a webhook subscribes to: one of the 14 names of docs/helpdesk-api.md §6, e.g. `ticket_opened`.";

/** One webhook event name of docs/helpdesk-api.md §6, e.g. `"ticket_opened"`. Described for people by {@link EVENT_DESCRIPTION}. */
export type WebhookEvent = (typeof EVENTS)[number];

/**
 * Tells whether `value` is one of the 14 event names of docs/helpdesk-api.md §6.
 *
 * @param value any value (a string from a program, a request body, a CLI argument)
 * @returns `true` when `value` is exactly one of {@link EVENTS} (case-sensitive)
 */
export function isWebhookEvent(value: unknown): value is WebhookEvent {
  return typeof value === "string" && (EVENTS as readonly string[]).includes(value);
}

/**
 * The event name closest to `input` by edit distance, when it is close enough to be a likely typo.
 *
 * @param input a misspelled event name
 * @returns an entry of {@link EVENTS}, or undefined when none is within a third of the input's length
 */
export function nearestEvent(input: string): string | undefined {
  const lowered = input
    .trim()
    .toLowerCase()
    .replace(/[\s.-]+/g, "_");
  let best: { name: string; distance: number } | undefined;
  for (const name of EVENTS) {
    const distance = editDistance(lowered, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(input.length / 3)) ? best.name : undefined;
}

/**
 * Levenshtein distance (insert, delete, substitute each cost 1), one row of the table at a time: row `i` holds the
 * distances from the first `i` code units of `a` to each prefix of `b`.
 */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let distance = b.length; // the last cell of the newest row
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let left = i; // current[j - 1]
    let diagonal = i - 1; // previous[j - 1]
    for (const [j, above] of previous.entries()) {
      if (j === 0) continue;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      left = Math.min(above + 1, left + 1, diagonal + cost);
      diagonal = above;
      current.push(left);
    }
    previous = current;
    distance = left;
  }
  return distance;
}
