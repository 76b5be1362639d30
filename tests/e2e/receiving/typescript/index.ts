// The TypeScript program of tests/e2e/receiving.test.ts: one dynamic Webhook per event, each with a delivery token,
// delivering to `receiving:receiverUrl`; ticket_opened's token is the stack's own (secret config
// `receiving:ownToken`, the one the rotation test changes), the others are minted. Exports every token (secrets).
import * as pulumi from "@pulumi/pulumi";
import { EVENTS, Webhook } from "pulumi-helpdesk";

const config = new pulumi.Config("receiving");
const receiver = config.require("receiverUrl");

export const deliveryTokens: Record<string, pulumi.Output<string | undefined>> = {};
for (const event of EVENTS) {
  const own = event === "ticket_opened" ? { deliveryToken: config.requireSecret("ownToken") } : {};
  const hook = new Webhook(event, { event, url: `${receiver}/hooks`, useDeliveryToken: true, ...own });
  deliveryTokens[event] = hook.deliveryToken;
}
