// Benchmark program (bench/bench.ts): `bench:count` native Webhooks (type helpdesk:index:Webhook, run by the plugin
// pulumi-resource-helpdesk, found through Pulumi.yaml's plugins.providers), events cycling through the 14 event names.
// The default provider reads the stack config (helpdesk:baseUrl, helpdesk:accessToken, ...) the benchmark driver
// sets, as `login` would. Kept line for line parallel to ../webhook/index.ts so the two differ only in the class.
// `bench:deliveryToken` (set only by bench/delivery-token.ts) gives every webhook a delivery token.
import * as pulumi from "@pulumi/pulumi";
import { EVENTS } from "pulumi-helpdesk";
import { Webhook } from "pulumi-helpdesk/native";

const count = new pulumi.Config("bench").requireNumber("count");
// bench/delivery-token.ts sets it to true; unset (bench.ts), the input is undefined, as if not declared.
const useDeliveryToken = new pulumi.Config("bench").getBoolean("deliveryToken");

for (let i = 0; i < count; i++) {
  const event = EVENTS[i % EVENTS.length];
  if (event === undefined) throw new Error("EVENTS is empty");
  new Webhook(`hook-${i}`, { event, url: `https://hooks.example.test/bench/${i}`, useDeliveryToken });
}

export const declared = count;
