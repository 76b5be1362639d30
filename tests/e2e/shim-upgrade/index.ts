// The program of tests/e2e/shim-upgrade.test.ts: one webhook per entry of config `upgrade:hooks` (JSON: [{name, event,
// url}]), declared with the serialized provider of pulumi-helpdesk 0.1.0 when config `upgrade:shim` is "0.1.0", and with
// today's `Webhook` when it is "current". Both register `pulumi-nodejs:dynamic/helpdesk:Webhook` resources of the same
// names, so switching from the first to the second is what upgrading pulumi-helpdesk does to a stack.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Webhook, type WebhookEvent } from "pulumi-helpdesk";

interface HookSpec {
  name: string;
  event: WebhookEvent;
  url: string;
}

/**
 * The `__provider` text that pulumi-helpdesk 0.1.0 (commit adf789e) stored in every Webhook's state: its
 * `webhookProviderShim` serialized as `pulumi.dynamic.Resource` serializes a provider, byte for byte.
 */
const PROVIDER_0_1_0 = readFileSync(join(import.meta.dirname, "provider-0.1.0.txt"), "utf8");

/**
 * A Webhook as pulumi-helpdesk 0.1.0 registered it. `dynamic.Resource` is a custom resource of the type
 * `pulumi-nodejs:dynamic/<module>:<type>` whose inputs carry the serialized provider as `__provider`; this registers
 * the same resource with the stored text of 0.1.0 (dynamic.Resource would serialize today's provider instead).
 */
class Webhook010 extends pulumi.CustomResource {
  constructor(name: string, args: { event: string; url: string }) {
    super("pulumi-nodejs:dynamic/helpdesk:Webhook", name, {
      __provider: PROVIDER_0_1_0,
      event: args.event,
      url: args.url,
      state: undefined,
    });
  }
}

const config = new pulumi.Config("upgrade");
const shim = config.require("shim");
if (shim !== "0.1.0" && shim !== "current")
  throw new Error(`upgrade:shim must be "0.1.0" or "current", got ${JSON.stringify(shim)}`);

export const ids: Record<string, pulumi.Output<string>> = {};
for (const spec of config.requireObject<HookSpec[]>("hooks")) {
  const args = { event: spec.event, url: spec.url };
  ids[spec.name] = (shim === "0.1.0" ? new Webhook010(spec.name, args) : new Webhook(spec.name, args)).id;
}
