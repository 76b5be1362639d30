/**
 * Payload records of help-desk webhook deliveries (docs/helpdesk-api.md §2.3–2.6, §6), as zod schemas, for people who write receivers.
 *
 * The service POSTs one record as a JSON body to a webhook's `url` whenever its event happens (docs/helpdesk-api.md §6). Which event
 * carries which record is not shown in the spec; {@link EVENT_RECORD} is this project's documented choice, and the
 * emulator sends exactly that. Receivers call {@link parseDelivery} with the delivery's event (the `helpdesk_event`
 * query parameter of a url with a delivery token, kernel/delivery-token.ts; the emulator also sends it as the
 * `X-Helpdesk-Event` header) and the parsed JSON body.
 *
 * The schemas are deliberately open ("loose"): fields the spec does not list are kept, so a receiver does not break
 * when the service adds a field. Fields the spec shows only as `null` in its samples ("null or value") are typed
 * `unknown`: the key must be present, its value may be `null` or anything else.
 *
 * This module depends on zod only (and on its siblings `./events.js` and `./errors.js`, which import nothing): no
 * `node:` import and no Node.js version guard, so the receiver kits (receiver/nodejs/) bundle it for serverless and
 * edge runtimes and for older Node.js releases. The package's entry `pulumi-helpdesk/records` is `./records.js`,
 * which runs the guard first and re-exports this module.
 * @home the record each event carries
 */
import { z } from "zod";
import { PulumiHelpdeskError } from "./errors.js";
import type { WebhookEvent } from "./events.js";
import { isWebhookEvent } from "./events.js";

/** An entry of a record's `links` object: `{ href }` where `href` is an absolute URL string. */
export const Link = z.looseObject({ href: z.string() });
/** An entry of a record's `links` object: `{ href }` where `href` is an absolute URL string. */
export type Link = z.infer<typeof Link>;

/** A field the spec shows as `null` in its samples, whose non-null type is not shown: present, `null` or any value. */
const nullOrValue = () => z.unknown();

/**
 * Ticket record (docs/helpdesk-api.md §2.3).
 *
 * Shape: `{ assigned_group: unknown|null, assignee: string (agent email), created_at: string (ISO 8601 UTC),
 * number: integer, priority: unknown|null, resolution_time: unknown|null, title: string|null,
 * updated_at: string (ISO 8601 UTC), href: "{base_url}/v1/tickets/<number>", closed_by: string (agent email),
 * links: { assignee, customer, state, messages: { href } } }`.
 */
export const Ticket = z.looseObject({
  assigned_group: nullOrValue(),
  assignee: z.string(),
  created_at: z.string(),
  number: z.number().int(),
  priority: nullOrValue(),
  resolution_time: nullOrValue(),
  title: z.string().nullable(),
  updated_at: z.string(),
  href: z.string(),
  closed_by: z.string(),
  links: z.looseObject({
    assignee: Link,
    customer: Link,
    state: Link,
    messages: Link,
  }),
});
/** Ticket record (docs/helpdesk-api.md §2.3); see the {@link Ticket} schema for the field list. */
export type Ticket = z.infer<typeof Ticket>;

/**
 * Customer record (docs/helpdesk-api.md §2.4).
 *
 * Shape: `{ href: "{base_url}/v1/customers/<email>", links: { tickets: { href } }, email, first_name, last_name:
 * string, about, twitter_username, title, company_name, phone_number, location, website_url, linkedin_username:
 * unknown|null, custom: object }`.
 */
export const Customer = z.looseObject({
  href: z.string(),
  links: z.looseObject({ tickets: Link }),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  about: nullOrValue(),
  twitter_username: nullOrValue(),
  title: nullOrValue(),
  company_name: nullOrValue(),
  phone_number: nullOrValue(),
  location: nullOrValue(),
  website_url: nullOrValue(),
  linkedin_username: nullOrValue(),
  custom: z.record(z.string(), z.unknown()),
});
/** Customer record (docs/helpdesk-api.md §2.4); see the {@link Customer} schema for the field list. */
export type Customer = z.infer<typeof Customer>;

/**
 * Message record (docs/helpdesk-api.md §2.5).
 *
 * Shape: `{ created_at, updated_at: string (ISO 8601 UTC), note: boolean (internal note?), body: string,
 * href: "{base_url}/v1/messages/<id>", links: { author: { href }, ticket: { href } } }`.
 */
export const Message = z.looseObject({
  created_at: z.string(),
  updated_at: z.string(),
  note: z.boolean(),
  body: z.string(),
  href: z.string(),
  links: z.looseObject({ author: Link, ticket: Link }),
});
/** Message record (docs/helpdesk-api.md §2.5); see the {@link Message} schema for the field list. */
export type Message = z.infer<typeof Message>;

/**
 * Agent record (docs/helpdesk-api.md §2.6).
 *
 * Shape: `{ email, first_name, last_name: string, href: "{base_url}/v1/agents/<email>",
 * links: { tickets: { href: "{base_url}/v1/tickets?assignee=<url-encoded email>" } } }`.
 */
export const Agent = z.looseObject({
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  href: z.string(),
  links: z.looseObject({ tickets: Link }),
});
/** Agent record (docs/helpdesk-api.md §2.6); see the {@link Agent} schema for the field list. */
export type Agent = z.infer<typeof Agent>;

/** The kind of record a delivery carries (docs/helpdesk-api.md): `"ticket"` (§2.3), `"customer"` (§2.4), `"message"` (§2.5), `"agent"` (§2.6). */
export type RecordKind = "ticket" | "customer" | "message" | "agent";

/**
 * Which record each event of docs/helpdesk-api.md §6 carries. The spec does not show it; this is the project's choice, made from the
 * event names:
 *
 * - `ticket_*` (started, opened, closed, assigned, priority_changed, deleted, tagged, moved) → Ticket;
 * - `customer_replied`, `note_added`, `agent_replied` → Message (a note is a Message with `note: true`);
 * - `customer_added` → Customer;
 * - `agent_invited`, `agent_archived` → Agent.
 */
export const EVENT_RECORD = {
  ticket_started: "ticket",
  ticket_opened: "ticket",
  ticket_closed: "ticket",
  ticket_assigned: "ticket",
  ticket_priority_changed: "ticket",
  ticket_deleted: "ticket",
  ticket_tagged: "ticket",
  ticket_moved: "ticket",
  customer_replied: "message",
  customer_added: "customer",
  agent_invited: "agent",
  agent_archived: "agent",
  note_added: "message",
  agent_replied: "message",
} as const satisfies Record<WebhookEvent, RecordKind>;

/** The events whose deliveries carry a record of kind `K`, e.g. `EventsCarrying<"agent">` = `"agent_invited" | "agent_archived"`. */
export type EventsCarrying<K extends RecordKind> = {
  [E in WebhookEvent]: (typeof EVENT_RECORD)[E] extends K ? E : never;
}[WebhookEvent];

/** The zod schema of each record kind. */
export const RECORD_SCHEMAS = {
  ticket: Ticket,
  customer: Customer,
  message: Message,
  agent: Agent,
} as const;

/**
 * A parsed delivery, discriminated by `kind` (and narrowed by `event`):
 * `{ event, kind: "ticket", record: Ticket } | { event, kind: "customer", record: Customer } |
 * { event, kind: "message", record: Message } | { event, kind: "agent", record: Agent }`.
 */
export type Delivery =
  | { event: EventsCarrying<"ticket">; kind: "ticket"; record: Ticket }
  | { event: EventsCarrying<"customer">; kind: "customer"; record: Customer }
  | { event: EventsCarrying<"message">; kind: "message"; record: Message }
  | { event: EventsCarrying<"agent">; kind: "agent"; record: Agent };

/**
 * Thrown by {@link parseDelivery} when the event name is unknown or the body does not match the event's record.
 * `event` is the event name as given; `field` is the dotted path of the first failing field (`""` for the body
 * itself or for an unknown event); `issues` lists every failing field.
 */
export class DeliveryParseError extends PulumiHelpdeskError<"invalid_delivery"> {
  /** The event name as given. */
  readonly event: string;
  /** Dotted path of the first failing field (`""` for the body or an unknown event). */
  readonly field: string;
  /** Every failing field. */
  readonly issues: ReadonlyArray<{ field: string; message: string }>;

  /**
   * @param code always `invalid_delivery`
   * @param message what is wrong, naming the event and field
   * @param options `event`, `field`, `issues` (default none) as above; `cause`, when there is one
   */
  constructor(
    code: "invalid_delivery",
    message: string,
    options: {
      event: string;
      field: string;
      issues?: ReadonlyArray<{ field: string; message: string }>;
      cause?: unknown;
    },
  ) {
    super(code, message, options);
    this.event = options.event;
    this.field = options.field;
    this.issues = options.issues ?? [];
  }
}

/**
 * Parses and validates one webhook delivery (docs/helpdesk-api.md §6) against the record {@link EVENT_RECORD} assigns to its event.
 *
 * @param event the event name: a delivery url's `helpdesk_event` query parameter (kernel/delivery-token.ts
 *   `deliveryParams`), or the emulator's `X-Helpdesk-Event` request header
 * @param body the parsed JSON request body
 * @returns `{ event, kind, record }`, a {@link Delivery} discriminated by `kind`; unknown extra fields are kept
 * @throws {DeliveryParseError} when `event` is not one of the 14 names of docs/helpdesk-api.md §6, or when `body` does not match the
 *   record (the message names the event, the record kind and the first failing field, e.g.
 *   `ticket_opened delivery is not a valid Ticket: field "links.state.href": Invalid input: expected string`)
 */
export function parseDelivery(event: string, body: unknown): Delivery {
  if (!isWebhookEvent(event)) {
    throw new DeliveryParseError(
      "invalid_delivery",
      `unknown webhook event ${JSON.stringify(event)} (docs/helpdesk-api.md §6 lists 14 names)`,
      { event, field: "" },
    );
  }
  const kind: RecordKind = EVENT_RECORD[event];
  const result = RECORD_SCHEMAS[kind].safeParse(body);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => ({
      field: issue.path.map(String).join("."),
      message: issue.message,
    }));
    const first = issues[0] ?? { field: "", message: "invalid" };
    const recordName = kind.charAt(0).toUpperCase() + kind.slice(1);
    const where = first.field === "" ? "the body" : `field ${JSON.stringify(first.field)}`;
    throw new DeliveryParseError(
      "invalid_delivery",
      `${event} delivery is not a valid ${recordName}: ${where}: ${first.message}`,
      { event, field: first.field, issues },
    );
  }
  // The cast is sound: `kind` is EVENT_RECORD[event] and the record was parsed with that kind's schema.
  return { event, kind, record: result.data } as Delivery;
}
