// Benchmark program (bench/bench.ts): `bench:count` Webhooks, events cycling through the 14 event names.
// The stack config (helpdesk:baseUrl, helpdesk:accessToken, ...) is set by the benchmark driver, as `login` would.
// Kept line for line parallel to ../noop/index.ts so the two differ only in the resource class.
import * as pulumi from "@pulumi/pulumi";
import { EVENTS, Webhook } from "pulumi-helpdesk";

const count = new pulumi.Config("bench").requireNumber("count");

for (let i = 0; i < count; i++) {
  const event = EVENTS[i % EVENTS.length];
  if (event === undefined) throw new Error("EVENTS is empty");
  new Webhook(`hook-${i}`, { event, url: `https://hooks.example.test/bench/${i}` });
}

export const declared = count;
