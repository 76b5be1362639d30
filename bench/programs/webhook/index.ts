// Benchmark program (bench/bench.ts): `bench:count` Webhooks, events cycling through the 14 event names.
// The stack config (helpdesk:baseUrl, helpdesk:accessToken, ...) is set by the benchmark driver, as `login` would.
// Kept line for line parallel to ../noop/index.ts so the two differ only in the resource class (and the delivery
// token's setting, which only bench/delivery-token.ts sets).
import * as pulumi from "@pulumi/pulumi";
import { EVENTS, Webhook } from "pulumi-helpdesk";

const count = new pulumi.Config("bench").requireNumber("count");
// bench/delivery-token.ts sets it to true; unset (bench.ts), the input is undefined, as if not declared.
const useDeliveryToken = new pulumi.Config("bench").getBoolean("deliveryToken");

for (let i = 0; i < count; i++) {
  const event = EVENTS[i % EVENTS.length];
  if (event === undefined) throw new Error("EVENTS is empty");
  new Webhook(`hook-${i}`, { event, url: `https://hooks.example.test/bench/${i}`, useDeliveryToken });
}

export const declared = count;
