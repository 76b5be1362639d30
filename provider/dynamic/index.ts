/**
 * The Webhook provider implementation, loaded by the serialized shim (`program/webhook.ts`) inside Pulumi's dynamic
 * provider process as `pulumi-helpdesk/provider`. Never imported by a program at start-up.
 *
 * The shim loads this module synchronously, with `require()` of an ES module, when Pulumi configures the provider;
 * so nothing in its static import graph may use top-level `await`, and that graph stays small: `check` and `diff`
 * need only the webhook rule. What an API call needs (the HTTP client, the OAuth client, the token cache) is loaded on
 * the first `create` or `delete`.
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../../kernel/node-guard.js";
import type * as pulumi from "@pulumi/pulumi";
import { forPerson } from "../../auth/redact.js";
import { type ConfigReader, DEFAULT_CONFIG_NAMESPACE, stackConfigSettings } from "../../kernel/config.js";
import type {
  ConfiguredWebhookProvider,
  WebhookInputs,
  WebhookOutputs,
  WebhookProviderImplementation,
} from "../../kernel/provider-contract.js";
import { resolveSettings, settingSourceName } from "../../kernel/settings.js";
import { RefreshTally } from "../core/refresh.js";
import type { Target } from "../core/target.js";
import { warn } from "../core/warnings.js";
import { checkWebhook, createWebhook, deleteWebhook, replacedFields, webhookSpec } from "../core/webhooks.js";

export { HELPDESK_ERROR_CODES, HelpdeskError, type HelpdeskErrorCode } from "../core/errors.js";

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
 * The help desk of a dynamic `Webhook`: the stack's `helpdesk:*` config, then the environment (read now, at call
 * time: `destroy` runs with the config stored in state), then the defaults (`kernel/settings.ts`).
 *
 * @param config the stack config `configure` received (undefined: none)
 * @throws SettingError `config` when a setting breaks its rule (the message names `config helpdesk:<name>` or the
 *   environment variable)
 */
function targetOf(config: ConfigReader | undefined): Target {
  const stackConfig = stackConfigSettings(config);
  return {
    settings: resolveSettings({ config: stackConfig, env: process.env }),
    place: {
      describe: (name) => settingSourceName(name, "config", { config: stackConfig }),
      namespace: DEFAULT_CONFIG_NAMESPACE,
    },
  };
}

/**
 * The provider: Pulumi dynamic provider methods for `pulumi-nodejs:dynamic/helpdesk:Webhook`, the stack config passed
 * explicitly, over the provider core (`provider/core/webhooks.ts`). See {@link WebhookProviderImplementation} for the
 * contract (stored shims of 0.1.0 call it); docs/helpdesk-api.md §4.3 (create) and §4.4 (delete).
 */
export const webhookProvider: WebhookProviderImplementation = {
  async check(_olds, news) {
    const { inputs, failures } = checkWebhook(news);
    return { inputs, failures: [...failures] };
  },

  async diff(_id, olds, news): Promise<pulumi.dynamic.DiffResult> {
    const replaces = replacedFields(olds, news);
    return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
  },

  async create(config, inputs: WebhookInputs): Promise<pulumi.dynamic.CreateResult> {
    return forPersonOnFailure(async () => {
      const { id, ...outs } = await createWebhook(targetOf(config), webhookSpec(inputs));
      return { id, outs: outs satisfies WebhookOutputs };
    });
  },

  async delete(config, id, outputs: WebhookOutputs): Promise<void> {
    return forPersonOnFailure(() => deleteWebhook(targetOf(config), { ...outputs, id }));
  },
};

/** The webhooks this process's refreshes kept as recorded: one per dynamic provider host process, whatever its shims. */
const refreshTally = new RefreshTally();
let warnsOnInterrupt = false;

/**
 * Read (`pulumi refresh`, `pulumi up --refresh`): the help-desk API cannot read a webhook (docs/helpdesk-api.md §4.5),
 * so the recorded outputs come back as they are, and the webhook is counted for the one warning of the run
 * (provider/core/refresh.ts). The dynamic provider host handles the engine's `Cancel` itself, so the warning is
 * written when the engine interrupts the process at the end of the run (SIGINT, `host.ReleaseContext`); the engine
 * shows what a provider writes to stderr, and waits for it. Then the signal is raised again, to end the process as
 * it would have ended.
 *
 * @param id the webhook id; @param props the recorded outputs (with `__provider`)
 * @returns the same id and outputs: the state stays byte for byte as it was
 */
async function readWebhook(
  id: string,
  props: Record<string, unknown>,
): Promise<{ id: string; props: Record<string, unknown> }> {
  refreshTally.keep();
  if (!warnsOnInterrupt) {
    warnsOnInterrupt = true;
    process.once("SIGINT", () => {
      const warning = refreshTally.take("the dynamic Webhook provider");
      if (warning) warn(warning);
      process.kill(process.pid, "SIGINT");
    });
  }
  return { id, props };
}

/**
 * Configures a serialized Webhook provider object (the shim of program/webhook.ts, whose `configure` calls this
 * synchronously): installs `check`, `diff`, `create`, `delete` and `read` on it, bound to the stack config of `req`. Builds
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
    read: readWebhook,
  };
  Object.assign(provider, methods);
}
