import * as pulumi from "@pulumi/pulumi";
import { DELIVERY_TOKEN_SECRET_OUTPUTS } from "../kernel/delivery-token-inputs.js";
import type { WebhookEvent } from "../kernel/events.js";
import { isLoopbackHost } from "../kernel/loopback.js";
import { DYNAMIC_MODULE, DYNAMIC_WEBHOOK_NAME } from "../kernel/names.js";
import type { WebhookInputs, WebhookOutputs } from "../kernel/provider-contract.js";

/**
 * Stands in for `check`, `diff`, `create` and `delete` until `configure` has installed the real ones. It runs only
 * when loading the implementation failed (that error is reported first) or on a host that never calls `configure`
 * (`@pulumi/pulumi` older than 3.139): then every operation fails loudly, and none, `delete` least of all, is
 * skipped as if it had succeeded.
 */
const notLoaded = (): never => {
  throw new Error("pulumi-helpdesk/provider did not load: see the first error");
};

/**
 * @internal The serialized provider (`__provider`, stored twice in every Webhook's state); exported only so tests
 * and benchmarks can measure it. Kept tiny (docs/design.md "The serialized shim"), so it holds one real method:
 *
 * `configure` loads `pulumi-helpdesk/provider`, whose own `configure` installs the methods, bound to the stack
 * config, on this object before it returns: Pulumi's dynamic provider host caches the object before `configure`'s
 * promise settles and a parallel operation calls `provider.create(...)` at once, so they must be in place
 * synchronously. Hence `require()`, not `import()`: this text runs in the host's CommonJS loader, and Node >= 22.12
 * loads the ES module synchronously. What the methods do, and which there are, is the implementation's to decide.
 * The specifier resolves from the program's directory (the host's working directory), as `import()` would: the
 * user's `node_modules`, or the package itself when the program lives inside it.
 *
 * Nothing is captured: no secret, no zod schema, no implementation code, so upgrading pulumi-helpdesk changes no
 * resource (its `diff` ignores `__provider`).
 */
export const webhookProviderShim: pulumi.dynamic.ResourceProvider<WebhookInputs, WebhookOutputs> = {
  async configure(req) {
    require("node:module").createRequire(`${process.cwd()}/`)("pulumi-helpdesk/provider").configure(this, req);
  },
  check: notLoaded,
  diff: notLoaded,
  create: notLoaded,
  delete: notLoaded,
};

/** True for an `http:` URL whose host is not a loopback address (where a delivery leaves the machine unencrypted). */
function isPlainHttpToAnotherHost(url: unknown): boolean {
  if (typeof url !== "string") return false;
  try {
    const { protocol, hostname } = new URL(url);
    return protocol === "http:" && !isLoopbackHost(hostname);
  } catch {
    return false; // check reports malformed urls
  }
}

/** Arguments of a {@link Webhook} (docs/helpdesk-api.md §2.1, §4.3). */
export interface WebhookArgs {
  /** The event to subscribe to: one of the 14 names of docs/helpdesk-api.md §6, e.g. `"ticket_opened"`. Changing it replaces. */
  event: pulumi.Input<WebhookEvent>;
  /** Absolute http(s) URL that receives POSTed deliveries. Changing it replaces. May be a `pulumi.secret`. */
  url: pulumi.Input<string>;
  /**
   * True: the webhook gets a delivery token, minted by the provider (256 random bits) unless {@link deliveryToken}
   * gives one, and the help desk is given `url` with `helpdesk_event=<event>&helpdesk_token=<token>` appended to its
   * query: a receiver built with the receiver kit accepts a POST only when it carries the token. Off by default;
   * turning it on or off replaces the webhook.
   */
  useDeliveryToken?: pulumi.Input<boolean>;
  /**
   * Your own delivery token instead of a minted one: 22 to 256 characters of `A-Za-z0-9._~-`. Giving it turns the
   * token on; it is made a secret. Changing it replaces the webhook (create before delete).
   */
  deliveryToken?: pulumi.Input<string>;
  /**
   * Any text (at most 256 characters, e.g. a date): changing it replaces the webhook with one holding a newly minted
   * token, created before the old one is deleted. Only with a minted token.
   */
  deliveryTokenRotation?: pulumi.Input<string>;
}

/**
 * A help-desk webhook: a URL registered for one event (docs/helpdesk-api.md §2.1).
 *
 * - create: `POST {base_url}/v1/webhooks` with `{event, url}` (docs/helpdesk-api.md §4.3); the resource id is the service's id.
 * - delete: `DELETE {base_url}/v1/webhooks/:id` (docs/helpdesk-api.md §4.4); a webhook already removed elsewhere counts as deleted.
 * - A change of `event` or `url` replaces the webhook (the spec has no update endpoint, docs/helpdesk-api.md §4.5).
 * - `pulumi refresh` keeps the recorded state and `pulumi import` is not possible: the API has no read endpoint.
 *
 * Credentials come from the stack config written by `pulumi-helpdesk login` (`helpdesk:baseUrl`,
 * `helpdesk:accessToken`, ...), each setting's environment variable filling only what the config leaves unset
 * (`kernel/settings.ts` `SETTING_PRECEDENCE`); read when the provider runs.
 *
 * Type token: `pulumi-nodejs:dynamic/helpdesk:Webhook` (`kernel/names.ts` `DYNAMIC_WEBHOOK_TYPE`).
 *
 * @example
 * new Webhook("ticket-opened", { event: "ticket_opened", url: "https://hooks.example.com/helpdesk" });
 * // with a delivery token, for a receiver built with the receiver kit:
 * const hook = new Webhook("ticket-closed", { event: "ticket_closed", url: "https://hooks.example.com/helpdesk", useDeliveryToken: true });
 * export const deliveryToken = hook.deliveryToken; // a secret
 */
export class Webhook extends pulumi.dynamic.Resource {
  /** The subscribed event (docs/helpdesk-api.md §6). */
  declare public readonly event: pulumi.Output<WebhookEvent>;
  /** The URL that receives deliveries. */
  declare public readonly url: pulumi.Output<string>;
  /** The webhook's state as reported on create; `"active"` (docs/helpdesk-api.md §2.1, §3). */
  declare public readonly state: pulumi.Output<string>;
  /** Whether the webhook has a delivery token (as given; `undefined` when not set). */
  declare public readonly useDeliveryToken: pulumi.Output<boolean | undefined>;
  /** The delivery token in use, minted or given (a secret; `undefined` without a token): what the receiver accepts. */
  declare public readonly deliveryToken: pulumi.Output<string | undefined>;
  /** The rotation text as given. */
  declare public readonly deliveryTokenRotation: pulumi.Output<string | undefined>;
  /** The url the help desk holds: `url` plus the token's query (a secret; `undefined` without a token). */
  declare public readonly registeredUrl: pulumi.Output<string | undefined>;

  /**
   * @param name the Pulumi resource name (unique within the stack)
   * @param args the webhook's `event` and `url`, and its delivery token's inputs
   * @param opts standard Pulumi resource options; the token and the registered url are added to
   *   `additionalSecretOutputs`
   */
  constructor(name: string, args: WebhookArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      webhookProviderShim,
      name,
      {
        event: args.event,
        url: args.url,
        useDeliveryToken: args.useDeliveryToken,
        deliveryToken: args.deliveryToken === undefined ? undefined : pulumi.secret(args.deliveryToken),
        deliveryTokenRotation: args.deliveryTokenRotation,
        state: undefined,
        registeredUrl: undefined,
      },
      pulumi.mergeOptions(opts, { additionalSecretOutputs: [...DELIVERY_TOKEN_SECRET_OUTPUTS] }),
      DYNAMIC_MODULE,
      DYNAMIC_WEBHOOK_NAME,
    );
    // Plain http is allowed (docs/helpdesk-api.md §2.1 says only "URL"), but deliveries carry ticket and customer data: say so.
    pulumi.output(args.url).apply((url) => {
      if (isPlainHttpToAnotherHost(url)) {
        void pulumi.log.warn(
          "url uses plain http to a host other than this machine: deliveries (ticket and customer data) would travel unencrypted; prefer https",
          this,
        );
      }
    });
  }
}
