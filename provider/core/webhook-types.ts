/**
 * What a help-desk webhook is to the provider core, in the API's terms (docs/helpdesk-api.md §2.1) and no protocol's:
 * the types the core (`provider/core/webhooks.ts`), the HTTP client (`provider/core/client.ts`) and both front ends exchange.
 */
import type { WebhookEvent } from "../../kernel/events.js";

/** What the help desk is sent and holds: a webhook's own fields (docs/helpdesk-api.md §2.1; both required on create, §4.3). */
export interface WebhookRegistration {
  /** One event name of docs/helpdesk-api.md §6. */
  readonly event: WebhookEvent;
  /** The absolute http(s) URL that receives the deliveries (`kernel/webhook-rules.ts`); may carry a credential. */
  readonly url: string;
}

/**
 * What a program declares: the webhook's fields and, opt-in, its delivery token (`kernel/delivery-token.ts`): the
 * token rides in the query of the url the help desk is given, so a receiver can tell a delivery from a forged POST.
 */
export interface WebhookSpec extends WebhookRegistration {
  /** True: the webhook has a delivery token, minted by the provider unless {@link deliveryToken} gives one. */
  readonly useDeliveryToken?: boolean;
  /** The user's own delivery token (`kernel/delivery-token.ts` `deliveryTokenProblem`); giving it turns tokens on. */
  readonly deliveryToken?: string;
  /** Any text; a change replaces the webhook with one holding a newly minted token (create before delete). */
  readonly deliveryTokenRotation?: string;
}

/** A webhook as the help desk answered its create (docs/helpdesk-api.md §4.3): its id (the `:id` of §4.4) and state. */
export interface RegisteredWebhook extends WebhookRegistration {
  /** The help desk's identifier of the webhook. */
  readonly id: string;
  /** `active` as the help desk reported it on create (§2.1, §3). */
  readonly state: string;
}

/**
 * A webhook the help desk holds, as the provider records it: the declared spec (with `url` as the user wrote it), its
 * id and state, and, with a delivery token, the token in use and the url registered with it.
 */
export interface Webhook extends WebhookSpec {
  /** The help desk's identifier of the webhook. */
  readonly id: string;
  /** `active` as the help desk reported it on create (§2.1, §3), or `unknown` for an adopted one (`ADOPTED_STATE`). */
  readonly state: string;
  /** With a delivery token: the url the help desk holds, `url` plus the token's query (`kernel/delivery-token.ts` `registeredUrl`). */
  readonly registeredUrl?: string;
}

/** The webhook properties whose change replaces the webhook (the API has no update endpoint, §4.5). */
export type WebhookField = "event" | "url" | "useDeliveryToken" | "deliveryToken" | "deliveryTokenRotation";
