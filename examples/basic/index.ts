// The basic example: route help-desk events to the services that act on them.
//
// Run it from this folder (README.md: install, `npx pulumi-helpdesk login --stack dev`, `pulumi up`), or, in this
// repository, let `npm run demo` do everything against the bundled emulator.
import * as pulumi from "@pulumi/pulumi";
import { Webhook } from "pulumi-helpdesk";

const config = new pulumi.Config("example");
// Where the receivers live; override with `pulumi config set example:receiverBaseUrl https://...`.
const receivers = config.get("receiverBaseUrl") ?? "https://hooks.example.com";

const triage = new Webhook("ticket-started", {
  event: "ticket_started",
  url: `${receivers}/triage`,
});

const escalations = new Webhook("ticket-priority-changed", {
  event: "ticket_priority_changed",
  url: `${receivers}/escalations`,
});

const crm = new Webhook("customer-added", {
  event: "customer_added",
  url: `${receivers}/crm/customers`,
});

const chatops = new Webhook("customer-replied", {
  event: "customer_replied",
  url: `${receivers}/chatops/replies`,
});

/** The registered webhooks: service id, event, url and state of each. */
export const webhooks = [triage, escalations, crm, chatops].map((hook) => ({
  id: hook.id,
  event: hook.event,
  url: hook.url,
  state: hook.state,
}));
