/**
 * Test support: a delivery as a handler under test reports it (receiver/cases.json's `$comment`), read from the
 * TypeScript kit's typed record: the Python and Go kits' tests report theirs the same way, from their own types.
 */
import type { Delivery } from "../../../receiver/nodejs/index.js";
import type { DeliverySummary } from "./cases.ts";

/** The names of a record's fields that its schema does not list, sorted. */
function extraOf(record: object, listed: readonly string[]): string[] {
  return Object.keys(record)
    .filter((key) => !listed.includes(key))
    .sort();
}

/**
 * @param delivery an accepted delivery
 * @param tokenIndex its token's index
 * @returns `{ event, kind, tokenIndex, fields }`, the fields read through the record's type
 */
export function summarize(delivery: Delivery, tokenIndex: number): DeliverySummary {
  const base = { event: delivery.event, kind: delivery.kind, tokenIndex };
  switch (delivery.kind) {
    case "ticket": {
      const { record } = delivery;
      return {
        ...base,
        fields: {
          number: record.number,
          title: record.title,
          assignee: record.assignee,
          state: record.links.state.href,
          extra: extraOf(record, [
            "assigned_group",
            "assignee",
            "created_at",
            "number",
            "priority",
            "resolution_time",
            "title",
            "updated_at",
            "href",
            "closed_by",
            "links",
          ]),
        },
      };
    }
    case "customer": {
      const { record } = delivery;
      const listed = ["href", "links", "email", "first_name", "last_name", "about", "twitter_username", "title"];
      listed.push("company_name", "phone_number", "location", "website_url", "linkedin_username", "custom");
      return {
        ...base,
        fields: {
          email: record.email,
          firstName: record.first_name,
          custom: record.custom,
          extra: extraOf(record, listed),
        },
      };
    }
    case "message": {
      const { record } = delivery;
      return {
        ...base,
        fields: {
          note: record.note,
          body: record.body,
          ticket: record.links.ticket.href,
          extra: extraOf(record, ["created_at", "updated_at", "note", "body", "href", "links"]),
        },
      };
    }
    case "agent": {
      const { record } = delivery;
      return {
        ...base,
        fields: {
          email: record.email,
          tickets: record.links.tickets.href,
          extra: extraOf(record, ["email", "first_name", "last_name", "href", "links"]),
        },
      };
    }
  }
}

/** Whether a handler under test fails on this delivery: its record has the field `fail_the_handler`. */
export function failsTheHandler(delivery: Delivery): boolean {
  return Object.hasOwn(delivery.record, "fail_the_handler");
}
