/**
 * Realistic sample records for event deliveries (docs/helpdesk-api.md §2.3–2.6), with links built from `{base_url}` as the spec shows.
 * Which record an event carries follows `EVENT_RECORD` of `kernel/records.ts`.
 */
import type { WebhookEvent } from "../kernel/events.js";
import type { Agent, Customer, Message, RecordKind, Ticket } from "../kernel/records.js";
import { EVENT_RECORD, RECORD_SCHEMAS } from "../kernel/records.js";
import type { FieldError } from "./errors.js";

const AGENT = { email: "ada.lovelace@helpdesk.example", first_name: "Ada", last_name: "Lovelace" };
const CUSTOMER = { email: "grace.hopper@customer.example", first_name: "Grace", last_name: "Hopper" };
const TITLES = [
  "Cannot sign in",
  "Invoice shows the wrong amount",
  "Export to CSV fails",
  "Password reset email never arrives",
];

/** Inputs of the builders: `{base_url}`, a sequence number (ticket and message numbers), the time (ISO 8601 UTC). */
export interface SampleContext {
  baseUrl: string;
  seq: number;
  time: string;
}

/** A Ticket (docs/helpdesk-api.md §2.3) with number `1000 + seq`. */
export function sampleTicket(s: SampleContext): Ticket {
  const number = 1000 + s.seq;
  const ticket = `${s.baseUrl}/v1/tickets/${number}`;
  return {
    assigned_group: null,
    assignee: AGENT.email,
    created_at: s.time,
    number,
    priority: null,
    resolution_time: null,
    title: TITLES[s.seq % TITLES.length] ?? null,
    updated_at: s.time,
    href: ticket,
    closed_by: AGENT.email,
    links: {
      assignee: { href: `${s.baseUrl}/v1/agents/${AGENT.email}` },
      customer: { href: `${s.baseUrl}/v1/customers/${CUSTOMER.email}` },
      state: { href: `${ticket}/state` },
      messages: { href: `${ticket}/messages` },
    },
  };
}

/** A Customer (docs/helpdesk-api.md §2.4). */
export function sampleCustomer(s: SampleContext): Customer {
  return {
    href: `${s.baseUrl}/v1/customers/${CUSTOMER.email}`,
    links: { tickets: { href: `${s.baseUrl}/v1/tickets?customer=${CUSTOMER.email}` } },
    email: CUSTOMER.email,
    first_name: CUSTOMER.first_name,
    last_name: CUSTOMER.last_name,
    about: null,
    twitter_username: null,
    title: null,
    company_name: null,
    phone_number: null,
    location: null,
    website_url: null,
    linkedin_username: null,
    custom: {},
  };
}

/**
 * A Message (docs/helpdesk-api.md §2.5) with id `seq`. `note` is true for `note_added`. The `author` link points at the customer
 * as the spec shows it (`{base_url}/v1/customers/<customer_email>`), whatever the event.
 */
export function sampleMessage(s: SampleContext, event: WebhookEvent): Message {
  const bodies: Partial<Record<WebhookEvent, string>> = {
    customer_replied: "Thanks, that fixed it for me.",
    note_added: "Customer is on the legacy plan; check the billing settings first.",
    agent_replied: "Could you send us a screenshot of the error?",
  };
  return {
    created_at: s.time,
    updated_at: s.time,
    note: event === "note_added",
    body: bodies[event] ?? "Hello",
    href: `${s.baseUrl}/v1/messages/${s.seq}`,
    links: {
      author: { href: `${s.baseUrl}/v1/customers/${CUSTOMER.email}` },
      ticket: { href: `${s.baseUrl}/v1/tickets/${1000 + s.seq}` },
    },
  };
}

/** An Agent (docs/helpdesk-api.md §2.6); the tickets link URL-encodes the email as the spec shows. */
export function sampleAgent(s: SampleContext): Agent {
  return {
    email: AGENT.email,
    first_name: AGENT.first_name,
    last_name: AGENT.last_name,
    href: `${s.baseUrl}/v1/agents/${AGENT.email}`,
    links: { tickets: { href: `${s.baseUrl}/v1/tickets?assignee=${encodeURIComponent(AGENT.email)}` } },
  };
}

/**
 * Builds the record for `event`, shallow-merges `overrides` over it, and validates the result against the event's
 * schema from `kernel/records.ts`.
 * @returns `{ kind, record }` or `{ errors }` naming the failing fields (`data.<path>`)
 */
export function buildRecord(
  event: WebhookEvent,
  s: SampleContext,
  overrides: Record<string, unknown> | undefined,
): { ok: true; kind: RecordKind; record: Record<string, unknown> } | { ok: false; errors: FieldError[] } {
  const kind = EVENT_RECORD[event];
  const base =
    kind === "ticket"
      ? sampleTicket(s)
      : kind === "customer"
        ? sampleCustomer(s)
        : kind === "message"
          ? sampleMessage(s, event)
          : sampleAgent(s);
  const merged: Record<string, unknown> = { ...base, ...(overrides ?? {}) };
  const result = RECORD_SCHEMAS[kind].safeParse(merged);
  if (!result.success) {
    return {
      ok: false,
      errors: result.error.issues.map((i) => ({
        field: ["data", ...i.path.map(String)].join("."),
        message: i.message,
      })),
    };
  }
  return { ok: true, kind, record: merged };
}
