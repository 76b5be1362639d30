import type * as pulumi from "@pulumi/pulumi";
import type { ConfigReader } from "./config.js";
import type { WebhookEvent } from "./events.js";

/**
 * The inputs of a `Webhook` as the provider sees them (docs/helpdesk-api.md §2.1: `event` and `url` are required on create).
 * During preview a value may be Pulumi's unknown sentinel string instead of a real value.
 */
export interface WebhookInputs {
  /** One event name of docs/helpdesk-api.md §6. */
  event: WebhookEvent;
  /** Absolute http(s) URL that receives the deliveries (docs/helpdesk-api.md §2.1). */
  url: string;
  /** True: the webhook gets a delivery token (kernel/delivery-token-inputs.ts); absent: no token, as before. */
  useDeliveryToken?: boolean;
  /** The user's own delivery token (kernel/delivery-token.ts's rule); giving it turns the token on. */
  deliveryToken?: string;
  /** Any text whose change replaces the webhook with a newly minted token. */
  deliveryTokenRotation?: string;
}

/**
 * The outputs the provider records in state for a `Webhook` (docs/helpdesk-api.md §2.1 plus the id of §4.4's `:id`).
 * JSON-clean: no field is `undefined` (an absent optional one is left out); `useDeliveryToken` is the one boolean.
 */
export interface WebhookOutputs extends WebhookInputs {
  /** Webhook state reported by the service; `"active"` is the only value the spec states (docs/helpdesk-api.md §3). */
  state: string;
  /** With a delivery token: the url the help desk holds (the declared url plus the token's query); a secret. */
  registeredUrl?: string;
}

/**
 * What `pulumi-helpdesk/provider` exports as `webhookProvider`: the provider methods with the stack config passed
 * explicitly. It is a compatibility surface: the shim of pulumi-helpdesk 0.1.0, stored in the `__provider` of every
 * Webhook created with that version, imports the module at call time and calls `webhookProvider.check(olds, news)`,
 * `.diff(id, olds, news)`, `.create(config, inputs)` and `.delete(config, id, outputs)`. A stack keeps that shim in
 * its outputs until the webhook is replaced (an `up` with no change records the new shim in the inputs only), and
 * `destroy` runs it: keep these four signatures as they are.
 *
 * Each method follows Pulumi's dynamic provider protocol (`pulumi.dynamic.ResourceProvider`); errors thrown carry a
 * message written for the person running `pulumi up`, never a credential.
 */
export interface WebhookProviderImplementation {
  /** Validates inputs (Pulumi `check`); never sends a request. */
  check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult>;
  /** Compares recorded outputs with new inputs (Pulumi `diff`); `event` or `url` changes replace. */
  diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.DiffResult>;
  /** Registers the webhook: `POST /v1/webhooks` (docs/helpdesk-api.md §4.3). */
  create(config: ConfigReader | undefined, inputs: WebhookInputs): Promise<pulumi.dynamic.CreateResult>;
  /** Removes the webhook: `DELETE /v1/webhooks/:id` (docs/helpdesk-api.md §4.4); an already-deleted webhook is a success. */
  delete(config: ConfigReader | undefined, id: string, outputs: WebhookOutputs): Promise<void>;
}

/**
 * The provider methods for one stack config, as `configure(provider, req)` of `pulumi-helpdesk/provider` installs them
 * on the serialized provider object (program/webhook.ts), where Pulumi's dynamic provider host calls them as
 * `provider.check(olds, news)`, ... `check` and `diff` take what the engine sends as it is (preview's unknown
 * sentinel, a `__provider` property, values of any type).
 *
 * `configure(provider, req)` is a compatibility surface too: today's shim, stored in every Webhook's state, calls it
 * by that name with those two arguments; keep it, beside `webhookProvider`, in every later version.
 */
export interface ConfiguredWebhookProvider {
  /** Validates inputs (Pulumi `check`); never sends a request and loads no HTTP client. */
  check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult>;
  /** Compares recorded outputs with new inputs (Pulumi `diff`): only `event` or `url` changes count, and replace. */
  diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.DiffResult>;
  /** Registers the webhook: `POST /v1/webhooks` (docs/helpdesk-api.md §4.3). */
  create(inputs: WebhookInputs): Promise<pulumi.dynamic.CreateResult<WebhookOutputs>>;
  /** Removes the webhook: `DELETE /v1/webhooks/:id` (docs/helpdesk-api.md §4.4); an already-deleted webhook is a success. */
  delete(id: string, outputs: WebhookOutputs): Promise<void>;
  /**
   * Refresh (Pulumi `read`): the API cannot read a webhook (docs/helpdesk-api.md §4.5), so the recorded outputs come back
   * unchanged, and the run ends with one warning saying so (provider/core/refresh.ts). Installed by `configure` from
   * 0.3.0 on, so stacks whose stored shims call `configure` (made by 0.2.0) get it when the package is upgraded.
   */
  read(id: string, props: Record<string, unknown>): Promise<{ id: string; props: Record<string, unknown> }>;
}

/**
 * What a Webhook and its `state` output are, for people: the descriptions of the native provider's schema
 * (`helpdesk:index:Webhook`) and of the native TypeScript `Webhook` class. `event` and `url` are described where their
 * rules live: `EVENT_DESCRIPTION` (kernel/events.ts) and `URL_RULE_DESCRIPTION` (kernel/webhook-rules.ts).
 */
export const WEBHOOK_DESCRIPTIONS = {
  resource:
    "A help-desk webhook: a URL registered for one event (docs/helpdesk-api.md §2.1). Create sends `POST /v1/webhooks` (docs/helpdesk-api.md §4.3); " +
    "delete sends `DELETE /v1/webhooks/:id` (docs/helpdesk-api.md §4.4), and a webhook already removed in the help desk counts as deleted. " +
    "A change of `event` or `url` replaces the webhook (the API has no update endpoint). Opt-in, a delivery token in the url's query " +
    "lets the receiver tell a delivery from a forged POST (`useDeliveryToken`). The API cannot read a webhook: " +
    "`pulumi refresh` keeps the recorded state, and the `import` resource option adopts an existing id with the declared " +
    "`event` and `url` as given, without reading them.",
  state:
    "The webhook's state as the help desk reported it on create: `active` (docs/helpdesk-api.md §2.1, §3); `unknown` for a webhook adopted with the `import` option, which the API cannot read.",
} as const;
