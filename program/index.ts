/**
 * pulumi-helpdesk: what a Pulumi program imports.
 *
 * @example
 * import { Webhook } from "pulumi-helpdesk";
 * new Webhook("tickets", { event: "ticket_started", url: "https://example.test/hook" });
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../kernel/node-guard.js";

export {
  CONFIG_KEYS,
  type ConfigKeys,
  ConfigNamespaceError,
  configKeysFor,
  configNamespaceProblem,
  DEFAULT_CONFIG_NAMESPACE,
  SECRET_CONFIG_KEYS,
  secretConfigKeysFor,
} from "../kernel/config.js";
export { PulumiHelpdeskError } from "../kernel/errors.js";
export { EVENTS, isWebhookEvent, type WebhookEvent } from "../kernel/events.js";
export type { WebhookInputs, WebhookOutputs } from "../kernel/provider-contract.js";
export { SETTINGS, SettingError, type SettingName, type SettingSpec } from "../kernel/settings.js";
export { Webhook, type WebhookArgs } from "./webhook.js";
