// The floor suite's program (tests/node-floor): one dynamic Webhook of pulumi-helpdesk, and the versions of the
// Node.js that runs the program and of the one that runs Pulumi's dynamic provider host (where the Webhook's
// provider runs), so the suite knows both ran on the Node.js it put first on PATH.
import * as pulumi from "@pulumi/pulumi";
import { Webhook } from "pulumi-helpdesk";

/** Creates a resource whose output `node` is the version of the Node.js running the dynamic provider host. */
const nodeProbe: pulumi.dynamic.ResourceProvider = {
  async create() {
    return { id: "node-probe", outs: { node: process.versions.node } };
  },
};

/** A dynamic resource reporting the dynamic provider host's Node.js (see {@link nodeProbe}). */
class NodeProbe extends pulumi.dynamic.Resource {
  /** `process.versions.node` of the dynamic provider host, e.g. `22.20.0`. */
  declare readonly node: pulumi.Output<string>;

  /** @param name the resource's name */
  constructor(name: string) {
    super(nodeProbe, name, { node: undefined });
  }
}

const hook = new Webhook("floor", { event: "ticket_closed", url: "https://hooks.example.test/node-floor" });

export const hookId = hook.id;
export const programNode = process.versions.node;
export const providerNode = new NodeProbe("node-probe").node;
