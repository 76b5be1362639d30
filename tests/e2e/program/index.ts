// The end-to-end suite's program: one Webhook per entry of config `e2e:hooks` (JSON: [{name, event, url, secretUrl?,
// useDeliveryToken?}]). An entry with `secretUrl: true` takes its url from the secret config value `e2e:secretUrl`
// instead; one with `useDeliveryToken: true` gets a delivery token.
import * as pulumi from "@pulumi/pulumi";
import { Webhook, type WebhookEvent } from "pulumi-helpdesk";

interface HookSpec {
  name: string;
  event: WebhookEvent;
  url: string;
  secretUrl?: boolean;
  useDeliveryToken?: boolean;
}

const config = new pulumi.Config("e2e");
const hooks = config.requireObject<HookSpec[]>("hooks");

export const ids: Record<string, pulumi.Output<string>> = {};
for (const spec of hooks) {
  const hook = new Webhook(spec.name, {
    event: spec.event,
    url: spec.secretUrl ? config.requireSecret("secretUrl") : spec.url,
    ...(spec.useDeliveryToken ? { useDeliveryToken: true } : {}),
  });
  ids[spec.name] = hook.id;
}
