import type * as pulumi from "@pulumi/pulumi";
import type { WebhookEvent } from "./events.js";

/**
 * The inputs of a `Webhook` as the provider sees them (spec §2.1: `event` and `url` are required on create).
 * During preview a value may be Pulumi's unknown sentinel string instead of a real value.
 */
export interface WebhookInputs {
  /** One event name of spec §6. */
  event: WebhookEvent;
  /** Absolute http(s) URL that receives the deliveries (spec §2.1). */
  url: string;
}

/**
 * The outputs the provider records in state for a `Webhook` (spec §2.1 plus the id of §4.4's `:id`).
 * JSON-clean: every field is a string, none is `undefined`.
 */
export interface WebhookOutputs extends WebhookInputs {
  /** Webhook state reported by the service; `"active"` is the only value the spec states (§3). */
  state: string;
}

/**
 * Read access to the stack config, as Pulumi's `dynamic.Config` offers it: `get("helpdesk:accessToken")` returns the
 * value (secrets decrypted) or undefined.
 */
export interface ConfigReader {
  get(key: string): string | undefined;
}

/**
 * The contract between the serialized provider shim (stored in every Webhook's state) and the implementation that
 * `pulumi-helpdesk/provider` exports. Keeping it a plain set of functions that take the stack config explicitly lets
 * the shim stay a few hundred bytes with nothing captured but a module specifier.
 *
 * Each method follows Pulumi's dynamic provider protocol (`pulumi.dynamic.ResourceProvider`); errors thrown carry a
 * message written for the person running `pulumi up`, never a credential.
 */
export interface WebhookProviderImplementation {
  /** Validates inputs (Pulumi `check`); never sends a request. */
  check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult>;
  /** Compares recorded outputs with new inputs (Pulumi `diff`); `event` or `url` changes replace. */
  diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.DiffResult>;
  /** Registers the webhook: `POST /v1/webhooks` (spec §4.3). */
  create(config: ConfigReader | undefined, inputs: WebhookInputs): Promise<pulumi.dynamic.CreateResult>;
  /** Removes the webhook: `DELETE /v1/webhooks/:id` (spec §4.4); an already-deleted webhook is a success. */
  delete(config: ConfigReader | undefined, id: string, outputs: WebhookOutputs): Promise<void>;
}
