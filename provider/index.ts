/**
 * The Webhook provider implementation, loaded by the serialized shim (`sdk/webhook.ts`) inside Pulumi's dynamic
 * provider process as `pulumi-helpdesk/provider`. Never imported by a program at start-up.
 *
 * The shim loads this module synchronously, with `require()` of an ES module, when Pulumi configures the provider;
 * so nothing in its static import graph may use top-level `await`, and that graph stays small: `check` and `diff`
 * need only the webhook rule. What an API call needs (the HTTP client, the OAuth client, the token cache) is loaded on
 * the first `create` or `delete`.
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../sdk/node-guard.js";
import type * as pulumi from "@pulumi/pulumi";
import type { ConfigReader, ConfiguredWebhookProvider, WebhookInputs, WebhookOutputs, WebhookProviderImplementation } from "../sdk/provider-contract.js";
import type { HelpdeskClient } from "./client.js";
import { checkWebhookInputs } from "./check.js";
import { warn } from "./warnings.js";

export { HelpdeskError, type HelpdeskErrorCode } from "./errors.js";
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

/**
 * Builds a client for one operation from the stack config and the environment (read at call time). The first call
 * loads the HTTP client and the credential code; later calls find them loaded.
 */
async function clientFor(config: ConfigReader | undefined): Promise<HelpdeskClient> {
  const [{ HelpdeskClient }, { resolveCredentials }, { resolveLimits }, { tokenSourceFor }] = await Promise.all([
    import("./client.js"),
    import("./credentials.js"),
    import("./limits.js"),
    import("./tokens.js"),
  ]);
  const credentials = resolveCredentials(config);
  for (const secret of [credentials.accessToken, credentials.refreshToken, credentials.clientSecret]) registerSecret(secret);
  return new HelpdeskClient({
    baseUrl: credentials.baseUrl,
    tokens: tokenSourceFor(credentials, credentials.accessTokenFromEnvironment),
    limits: resolveLimits(config),
  });
}

/**
 * The provider: Pulumi dynamic provider methods for `pulumi-nodejs:dynamic/helpdesk:Webhook`, the stack config passed
 * explicitly. See {@link WebhookProviderImplementation} for the contract (stored shims of 0.1.0 call it); docs/helpdesk-api.md §4.3
 * (create) and §4.4 (delete).
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
      const webhook = await (await clientFor(config)).createWebhook({ event: inputs.event, url: inputs.url });
      const outs: WebhookOutputs = { event: webhook.event, url: webhook.url, state: webhook.state };
      return { id: webhook.id, outs };
    });
  },

  async delete(config, id, outputs: WebhookOutputs): Promise<void> {
    registerSecret(outputs.url);
    return forPersonOnFailure(async () => {
      const outcome = await (await clientFor(config)).deleteWebhook(id);
      if (outcome === "not_found") {
        warn(`webhook ${id} (${outputs.event}) was already gone from the help desk (deleted outside Pulumi); removed it from the stack`);
      }
    });
  },
};

/**
 * Configures a serialized Webhook provider object (the shim of sdk/webhook.ts, whose `configure` calls this
 * synchronously): installs `check`, `diff`, `create` and `delete` on it, bound to the stack config of `req`. Builds
 * closures only and loads nothing; the API client is loaded by the first `create` or `delete`. Stored shims call it by
 * this name and signature (see {@link ConfiguredWebhookProvider}).
 *
 * @param provider the object Pulumi's dynamic provider host calls the methods on
 * @param req what the host passed to the shim's `configure`: the stack config
 */
export function configure(provider: object, req: { config: ConfigReader }): void {
  const { config } = req;
  const { check, diff, create, delete: remove } = webhookProvider;
  const methods: ConfiguredWebhookProvider = {
    check,
    diff,
    create: (inputs) => create(config, inputs),
    delete: (id, outputs) => remove(config, id, outputs),
  };
  Object.assign(provider, methods);
}
