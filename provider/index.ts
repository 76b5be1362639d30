/**
 * The Webhook provider implementation, loaded by the serialized shim (`sdk/webhook.ts`) inside Pulumi's dynamic
 * provider process as `pulumi-helpdesk/provider`. Never imported by a program at start-up.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { WebhookInputs, WebhookOutputs, WebhookProviderImplementation } from "../sdk/provider-contract.js";
import { checkWebhookInputs } from "./check.js";
import { HelpdeskClient } from "./client.js";
import { resolveCredentials, type ConfigReader } from "./credentials.js";

function clientFor(config: ConfigReader | undefined): HelpdeskClient {
  const credentials = resolveCredentials(config);
  return new HelpdeskClient({
    baseUrl: credentials.baseUrl,
    accessToken: credentials.accessToken,
    secrets: [credentials.refreshToken, credentials.clientSecret],
  });
}

/**
 * The provider: Pulumi dynamic provider methods for `pulumi-nodejs:dynamic/helpdesk:Webhook`.
 * See {@link WebhookProviderImplementation} for the contract; spec §4.3 (create) and §4.4 (delete).
 */
export const webhookProvider: WebhookProviderImplementation = {
  async check(_olds, news) {
    return checkWebhookInputs(news);
  },

  async diff(_id, olds, news): Promise<pulumi.dynamic.DiffResult> {
    const replaces = (["event", "url"] as const).filter((key) => olds[key] !== news[key]);
    return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
  },

  async create(config, inputs: WebhookInputs): Promise<pulumi.dynamic.CreateResult> {
    const webhook = await clientFor(config).createWebhook({ event: inputs.event, url: inputs.url });
    const outs: WebhookOutputs = { event: webhook.event, url: webhook.url, state: webhook.state };
    return { id: webhook.id, outs };
  },

  async delete(config, id, _outputs: WebhookOutputs): Promise<void> {
    await clientFor(config).deleteWebhook(id);
  },
};
