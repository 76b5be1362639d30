import * as pulumi from "@pulumi/pulumi";
import type { WebhookEvent } from "./events.js";
import type { WebhookInputs, WebhookOutputs, WebhookProviderImplementation } from "./provider-contract.js";

/**
 * The module specifier of the provider implementation. The shim below imports it at call time, inside Pulumi's
 * dynamic provider process, so the serialized `__provider` holds only this string and a few small functions: no
 * captured secrets, no zod schemas, and no diff when the implementation's code changes (DESIGN.md).
 */
const IMPLEMENTATION = "pulumi-helpdesk/provider";

/**
 * Loads the provider implementation. Resolved from the program's directory (the dynamic provider process runs there),
 * so it finds the same `pulumi-helpdesk` package the program imported.
 */
async function loadImplementation(): Promise<WebhookProviderImplementation> {
  const module = (await import(IMPLEMENTATION)) as { webhookProvider: WebhookProviderImplementation };
  return module.webhookProvider;
}

/**
 * The serialized provider. `configure` stores the stack config synchronously: Pulumi caches this object before the
 * `configure` promise settles, so a parallel `create` must already see the config.
 */
/** @internal The serialized provider; exported only so tests and benchmarks can measure it. */
export const webhookProviderShim: pulumi.dynamic.ResourceProvider & { config: pulumi.dynamic.Config | undefined } = {
  config: undefined,
  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    this.config = req.config;
  },
  async check(olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult> {
    return (await loadImplementation()).check(olds, news);
  },
  async diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.DiffResult> {
    return (await loadImplementation()).diff(id, olds, news);
  },
  async create(inputs: WebhookInputs): Promise<pulumi.dynamic.CreateResult> {
    return (await loadImplementation()).create(this.config, inputs);
  },
  async delete(id: string, outputs: WebhookOutputs): Promise<void> {
    return (await loadImplementation()).delete(this.config, id, outputs);
  },
};

/** True for an `http:` URL whose host is not a loopback address (where a delivery leaves the machine unencrypted). */
function isPlainHttpToAnotherHost(url: unknown): boolean {
  if (typeof url !== "string") return false;
  try {
    const { protocol, hostname } = new URL(url);
    return protocol === "http:" && !["localhost", "[::1]"].includes(hostname) && !hostname.startsWith("127.");
  } catch {
    return false; // check reports malformed urls
  }
}

/** Arguments of a {@link Webhook} (spec §2.1, §4.3). */
export interface WebhookArgs {
  /** The event to subscribe to: one of the 14 names of spec §6, e.g. `"ticket_opened"`. Changing it replaces. */
  event: pulumi.Input<WebhookEvent>;
  /** Absolute http(s) URL that receives POSTed deliveries. Changing it replaces. May be a `pulumi.secret`. */
  url: pulumi.Input<string>;
}

/**
 * A help-desk webhook: a URL registered for one event (spec §2.1).
 *
 * - create: `POST {base_url}/v1/webhooks` with `{event, url}` (spec §4.3); the resource id is the service's id.
 * - delete: `DELETE {base_url}/v1/webhooks/:id` (spec §4.4); a webhook already removed elsewhere counts as deleted.
 * - A change of `event` or `url` replaces the webhook (the spec has no update endpoint, §4.5).
 * - `pulumi refresh` keeps the recorded state and `pulumi import` is not possible: the API has no read endpoint.
 *
 * Credentials come from `HELPDESK_BASE_URL` / `HELPDESK_ACCESS_TOKEN` or, else, the stack config written by
 * `pulumi-helpdesk login` (`helpdesk:baseUrl`, `helpdesk:accessToken`, ...), read when the provider runs.
 *
 * Type token: `pulumi-nodejs:dynamic/helpdesk:Webhook`.
 *
 * @example
 * new Webhook("ticket-opened", { event: "ticket_opened", url: "https://hooks.example.com/helpdesk" });
 */
export class Webhook extends pulumi.dynamic.Resource {
  /** The subscribed event (spec §6). */
  declare public readonly event: pulumi.Output<WebhookEvent>;
  /** The URL that receives deliveries. */
  declare public readonly url: pulumi.Output<string>;
  /** The webhook's state as reported on create; `"active"` (spec §2.1, §3). */
  declare public readonly state: pulumi.Output<string>;

  /**
   * @param name the Pulumi resource name (unique within the stack)
   * @param args the webhook's `event` and `url`
   * @param opts standard Pulumi resource options
   */
  constructor(name: string, args: WebhookArgs, opts?: pulumi.CustomResourceOptions) {
    super(webhookProviderShim, name, { event: args.event, url: args.url, state: undefined }, opts, "helpdesk", "Webhook");
    // Plain http is allowed (spec §2.1 says only "URL"), but deliveries carry ticket and customer data: say so.
    pulumi.output(args.url).apply((url) => {
      if (isPlainHttpToAnotherHost(url)) {
        void pulumi.log.warn("url uses plain http to a host other than this machine: deliveries (ticket and customer data) would travel unencrypted; prefer https", this);
      }
    });
  }
}
