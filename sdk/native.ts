/**
 * `pulumi-helpdesk/native`: the TypeScript classes of the native provider plugin `pulumi-resource-helpdesk`
 * (package `helpdesk`, schema `dist/schema.json`), hand-written but typed from the same definitions as the rest of
 * the package (`WebhookEvent`, the config keys).
 *
 * How they differ from the `Webhook` of the main entry (`import { Webhook } from "pulumi-helpdesk"`):
 *
 * | | `pulumi-helpdesk` `Webhook` | `pulumi-helpdesk/native` `Webhook` |
 * |---|---|---|
 * | type token | `pulumi-nodejs:dynamic/helpdesk:Webhook` | `helpdesk:index:Webhook` |
 * | runs in | Pulumi's Node.js dynamic provider process | the plugin `pulumi-resource-helpdesk`, which Pulumi must find (Pulumi.yaml `plugins.providers`, or `npx pulumi-helpdesk plugin install`) |
 * | credentials | the stack's `helpdesk:*` config | the default provider reads the same stack config; an explicit {@link Provider} takes its own (several help desks in one stack) |
 * | state per webhook | a serialized provider shim beside the outputs | the outputs only |
 * | `import` | impossible | the `import` resource option adopts an existing webhook with the declared `event` and `url` (trusted, not read) |
 * | other languages | no | the same plugin serves every Pulumi language (e.g. the generated Python SDK `pulumi_helpdesk`) |
 *
 * Both use the same provider core: the same validation, requests, retries, token renewal and error messages.
 *
 * @example
 * import { Provider, Webhook } from "pulumi-helpdesk/native";
 * new Webhook("opened", { event: "ticket_opened", url: "https://hooks.example.com/helpdesk" }); // default provider
 * const eu = new Provider("eu", { baseUrl: "https://eu.helpdesk.example.com", accessToken: token });
 * new Webhook("opened-eu", { event: "ticket_opened", url: "https://hooks.example.com/eu" }, { provider: eu });
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "./node-guard.js";
import * as pulumi from "@pulumi/pulumi";
import { isSecretSetting, SETTINGS, type IntegerSettingName, type ProviderSettingName } from "./settings.js";
import type { WebhookEvent } from "./events.js";
import { packageVersion } from "./package-version.js";

export type { WebhookEvent } from "./events.js";

/** The package name of the native provider: `pulumi:providers:helpdesk`, `helpdesk:index:Webhook`. */
const PACKAGE = "helpdesk";

/**
 * The settings of an explicit {@link Provider}: every provider setting of the settings table (`sdk/settings.ts`
 * `SETTINGS`, which describes each, with its range and default; `redirectUri` is login's only). All optional: a
 * setting given here wins, and the environment variable of the table (`HELPDESK_BASE_URL`, `HELPDESK_ACCESS_TOKEN`,
 * ...) only fills one left unset. Credentials (`accessToken`, `refreshToken`, `clientSecret`) are always stored as
 * secrets (wrapped with `pulumi.secret` here, and marked secret by the plugin whatever a program sends).
 */
export type ProviderArgs = {
  [K in ProviderSettingName]?: pulumi.Input<K extends IntegerSettingName ? number : string>;
};

/**
 * A `helpdesk` provider: one help desk and its credentials. Resources given `{ provider }` use it; resources without
 * one use the default provider, which reads the stack's `helpdesk:*` config written by `pulumi-helpdesk login`.
 * An explicit provider does not read that stack config: pass its settings, e.g. from `new pulumi.Config("eu")` after
 * `pulumi-helpdesk login --namespace eu` wrote them as `eu:baseUrl`, `eu:accessToken` (secret), ... (README, "Several
 * help desks in one program").
 *
 * Changing `baseUrl` replaces the provider and so every webhook it manages (they are created on the new help desk
 * and deleted from the old one); other changes (a new token) touch no webhook.
 *
 * Type token: `pulumi:providers:helpdesk`.
 */
export class Provider extends pulumi.ProviderResource {
  /**
   * @param name the Pulumi resource name (unique within the stack)
   * @param args the provider's settings ({@link ProviderArgs})
   * @param opts standard Pulumi resource options; `version` defaults to this package's version (the plugin's)
   */
  constructor(name: string, args: ProviderArgs = {}, opts: pulumi.ResourceOptions = {}) {
    const inputs: pulumi.Inputs = {};
    for (const [setting, value] of Object.entries(args) as Array<[ProviderSettingName, pulumi.Input<string | number> | undefined]>) {
      if (value === undefined) continue;
      if (isSecretSetting(setting)) inputs[setting] = pulumi.secret(value);
      // Provider inputs of other types travel as JSON text, as generated Pulumi SDKs send them.
      else if (SETTINGS[setting].type === "integer") inputs[setting] = pulumi.output(value).apply((v) => JSON.stringify(v));
      else inputs[setting] = value;
    }
    super(PACKAGE, name, inputs, { version: packageVersion(), ...opts });
  }
}

/** Arguments of a native {@link Webhook} (docs/helpdesk-api.md §2.1, §4.3). */
export interface WebhookArgs {
  /** The event to subscribe to: one of the 14 names of docs/helpdesk-api.md §6, e.g. `"ticket_opened"`. Changing it replaces. */
  event: pulumi.Input<WebhookEvent>;
  /**
   * Absolute http(s) URL that receives POSTed deliveries (the rule: `sdk/webhook-rules.ts` `URL_RULE_DESCRIPTION`).
   * Changing it replaces. May be a `pulumi.secret`: the `url` output is then secret too.
   */
  url: pulumi.Input<string>;
}

/**
 * A help-desk webhook managed by the native provider plugin (type `helpdesk:index:Webhook`): a URL registered for one
 * event (docs/helpdesk-api.md §2.1). What it does is what the main entry's dynamic `Webhook` does, through the same provider core:
 *
 * - create: `POST {base_url}/v1/webhooks` with `{event, url}` (docs/helpdesk-api.md §4.3); the resource id is the service's id.
 * - delete: `DELETE {base_url}/v1/webhooks/:id` (docs/helpdesk-api.md §4.4); a webhook already removed elsewhere counts as deleted.
 * - A change of `event` or `url` replaces the webhook (the API has no update endpoint).
 * - `pulumi refresh` keeps the recorded state (the API has no read endpoint).
 * - `{ import: "<id>" }` adopts an existing webhook: its `event` and `url` are taken from the program as declared,
 *   not read (the API cannot), and its `state` output is `"unknown"`. `pulumi import` is refused with a message that
 *   says to do this instead.
 *
 * Unlike the dynamic `Webhook`, it needs the plugin: point Pulumi.yaml at the package's `plugin` folder
 * (`plugins: { providers: [{ name: helpdesk, path: node_modules/pulumi-helpdesk/plugin }] }`) or run
 * `npx pulumi-helpdesk plugin install`.
 *
 * @example
 * new Webhook("ticket-opened", { event: "ticket_opened", url: "https://hooks.example.com/helpdesk" });
 */
export class Webhook extends pulumi.CustomResource {
  /** The subscribed event (docs/helpdesk-api.md §6). */
  declare public readonly event: pulumi.Output<WebhookEvent>;
  /** The URL that receives deliveries; secret when given as a secret. */
  declare public readonly url: pulumi.Output<string>;
  /** The webhook's state as reported on create, `"active"` (docs/helpdesk-api.md §2.1, §3); `"unknown"` for an adopted import. */
  declare public readonly state: pulumi.Output<string>;

  /**
   * @param name the Pulumi resource name (unique within the stack)
   * @param args the webhook's `event` and `url`
   * @param opts standard Pulumi resource options: `provider` for an explicit {@link Provider}, `import` to adopt;
   *   `version` defaults to this package's version (the plugin's)
   */
  constructor(name: string, args: WebhookArgs, opts: pulumi.CustomResourceOptions = {}) {
    super(`${PACKAGE}:index:Webhook`, name, { event: args.event, url: args.url, state: undefined }, { version: packageVersion(), ...opts });
  }
}
