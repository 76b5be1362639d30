/**
 * pulumi-helpdesk: what a Pulumi program imports.
 *
 * @example
 * import { Webhook } from "pulumi-helpdesk";
 * new Webhook("tickets", { event: "ticket_started", url: "https://example.test/hook" });
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../kernel/node-guard.js";
export { Webhook, type WebhookArgs } from "./webhook.js";
export { EVENTS, isWebhookEvent, type WebhookEvent } from "../kernel/events.js";
export type { WebhookInputs, WebhookOutputs } from "../kernel/provider-contract.js";
export {
  CONFIG_KEYS,
  configKeysFor,
  ConfigNamespaceError,
  configNamespaceProblem,
  DEFAULT_CONFIG_NAMESPACE,
  SECRET_CONFIG_KEYS,
  secretConfigKeysFor,
  type ConfigKeys,
} from "../kernel/config.js";
export { SETTINGS, SettingError, type SettingName, type SettingSpec } from "../kernel/settings.js";
export { PulumiHelpdeskError } from "../kernel/errors.js";
