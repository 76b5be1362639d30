/**
 * What a help-desk webhook is to the provider core, in the API's terms (docs/helpdesk-api.md §2.1) and no protocol's:
 * the types the core (`provider/core/webhooks.ts`), the HTTP client (`provider/core/client.ts`) and both front ends exchange.
 */
import type { WebhookEvent } from "../../kernel/events.js";

/** What a program declares: a webhook's own fields (docs/helpdesk-api.md §2.1; both required on create, §4.3). */
export interface WebhookSpec {
  /** One event name of docs/helpdesk-api.md §6. */
  readonly event: WebhookEvent;
  /** The absolute http(s) URL that receives the deliveries (`kernel/webhook-rules.ts`); may carry a credential. */
  readonly url: string;
}

/** A webhook the help desk holds: its id (the `:id` of docs/helpdesk-api.md §4.4), its fields and its state. */
export interface Webhook extends WebhookSpec {
  /** The help desk's identifier of the webhook. */
  readonly id: string;
  /** `active` as the help desk reported it on create (§2.1, §3), or `unknown` for an adopted one (`ADOPTED_STATE`). */
  readonly state: string;
}

/** The webhook properties whose change replaces the webhook (the API has no update endpoint, §4.5). */
export type WebhookField = "event" | "url";
