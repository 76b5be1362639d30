// The program every stack of a fleet runs (examples/fleet/fleet.ts drives it with the Automation API): one Webhook
// per entry of the stack's config `fleet:webhooks`, a JSON list of {name, event, url}. Each stack is one team's set of
// webhooks; the program stays the same, only the config differs.
import * as pulumi from "@pulumi/pulumi";
import { Webhook, type WebhookEvent } from "pulumi-helpdesk";

interface WebhookSpec {
  name: string;
  event: WebhookEvent;
  url: string;
}

const webhooks = new pulumi.Config("fleet").requireObject<WebhookSpec[]>("webhooks");

/** The help desk's id of each webhook, by resource name. */
export const ids: Record<string, pulumi.Output<string>> = {};
for (const spec of webhooks) {
  ids[spec.name] = new Webhook(spec.name, { event: spec.event, url: spec.url }).id;
}
