// Benchmark program (bench/bench.ts): `bench:count` NoopResources, the floor for ../webhook/index.ts.
// Same imports, names, inputs and stack config as the Webhook program; only the resource class differs.
import * as pulumi from "@pulumi/pulumi";
import { EVENTS } from "pulumi-helpdesk";
import { NoopResource } from "./noop.ts";

const count = new pulumi.Config("bench").requireNumber("count");

for (let i = 0; i < count; i++) {
  const event = EVENTS[i % EVENTS.length];
  if (event === undefined) throw new Error("EVENTS is empty");
  new NoopResource(`hook-${i}`, { event, url: `https://hooks.example.test/bench/${i}` });
}

export const declared = count;
