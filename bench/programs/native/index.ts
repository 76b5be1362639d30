// Benchmark program (bench/bench.ts): `bench:count` native Webhooks (type helpdesk:index:Webhook, run by the plugin
// pulumi-resource-helpdesk, found through Pulumi.yaml's plugins.providers), events cycling through the 14 event names.
// The default provider reads the stack config (helpdesk:baseUrl, helpdesk:accessToken, ...) the benchmark driver
// sets, as `login` would. Kept line for line parallel to ../webhook/index.ts so the two differ only in the class.
import * as pulumi from "@pulumi/pulumi";
import { EVENTS } from "pulumi-helpdesk";
import { Webhook } from "pulumi-helpdesk/native";

const count = new pulumi.Config("bench").requireNumber("count");

for (let i = 0; i < count; i++) {
  const event = EVENTS[i % EVENTS.length];
  if (event === undefined) throw new Error("EVENTS is empty");
  new Webhook(`hook-${i}`, { event, url: `https://hooks.example.test/bench/${i}` });
}

export const declared = count;
