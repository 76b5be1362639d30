/**
 * The Webhook provider implementation, loaded by the serialized shim (`sdk/webhook.ts`) inside Pulumi's dynamic
 * provider process as `pulumi-helpdesk/provider`. Never imported by a program at start-up.
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../sdk/node-guard.js";
import type * as pulumi from "@pulumi/pulumi";
import type { WebhookInputs, WebhookOutputs, WebhookProviderImplementation } from "../sdk/provider-contract.js";
import { checkWebhookInputs } from "./check.js";
import { HelpdeskClient } from "./client.js";
import { resolveCredentials, type ConfigReader } from "./credentials.js";
import { resolveLimits } from "./limits.js";
import { tokenSourceFor } from "./tokens.js";
import { warn } from "./warnings.js";
import { forPerson, registerSecret } from "../auth/redact.js";

/**
 * Runs one provider operation so that whatever it throws is fit for a person: the message (and the stack, which
 * Pulumi's dynamic provider host prints) passes through the redaction registry, which knows the credentials in use.
 */
async function forPersonOnFailure<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof Error)) throw new Error(forPerson(String(error)));
    error.message = forPerson(error.message);
    error.stack = `${error.name}: ${error.message}`; // the trace names our files only; the message is what helps
    throw error;
  }
}

/** Builds a client for one operation from the stack config and the environment (read at call time). */
function clientFor(config: ConfigReader | undefined): HelpdeskClient {
  const credentials = resolveCredentials(config);
  for (const secret of [credentials.accessToken, credentials.refreshToken, credentials.clientSecret]) registerSecret(secret);
  return new HelpdeskClient({
    baseUrl: credentials.baseUrl,
    tokens: tokenSourceFor(credentials, credentials.accessTokenFromEnvironment),
    limits: resolveLimits(config),
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
    // Only the webhook's own fields count: a new `__provider` (an upgraded pulumi-helpdesk) is no change.
    const replaces = (["event", "url"] as const).filter((key) => olds[key] !== news[key]);
    return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
  },

  async create(config, inputs: WebhookInputs): Promise<pulumi.dynamic.CreateResult> {
    registerSecret(inputs.url); // a webhook url may carry a credential; a server echoing it must not show it
    return forPersonOnFailure(async () => {
      const webhook = await clientFor(config).createWebhook({ event: inputs.event, url: inputs.url });
      const outs: WebhookOutputs = { event: webhook.event, url: webhook.url, state: webhook.state };
      return { id: webhook.id, outs };
    });
  },

  async delete(config, id, outputs: WebhookOutputs): Promise<void> {
    registerSecret(outputs.url);
    return forPersonOnFailure(async () => {
      const outcome = await clientFor(config).deleteWebhook(id);
      if (outcome === "not_found") {
        warn(`webhook ${id} (${outputs.event}) was already gone from the help desk (deleted outside Pulumi); removed it from the stack`);
      }
    });
  },
};
