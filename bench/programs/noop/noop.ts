/**
 * The benchmark's floor: a `pulumi.dynamic.Resource` whose provider does nothing. `create` returns a random id and
 * echoes the inputs, `delete` returns; no module is loaded and no request is made.
 *
 * The provider is written the way Pulumi's documentation shows a dynamic provider: an object with its methods inline
 * (`configure` storing the stack config, `check`, `diff` on `event`/`url` only, `create`, `delete`), serialized into
 * every resource's state with each method wrapped on its own. It takes the same inputs (`event`, `url`, `state`) and
 * gives the same outputs as a Webhook, from the same base class. So Webhook / no-op is what the Webhook costs against
 * a dynamic resource written as usual: its API calls and loaded libraries on one side, its smaller serialized shim
 * (program/webhook.ts) on the other.
 *
 * Type-stripped TypeScript (Node runs it as is): erasable syntax only.
 */
import * as pulumi from "@pulumi/pulumi";

/** Inputs and outputs of a {@link NoopResource}: the same fields as a Webhook's. */
export interface NoopArgs {
  event: pulumi.Input<string>;
  url: pulumi.Input<string>;
}

/**
 * The serialized provider (captured into every resource's `__provider`). It references only `Math`, a built-in, so it
 * captures nothing.
 */
export const noopProviderShim: pulumi.dynamic.ResourceProvider & { config: pulumi.dynamic.Config | undefined } = {
  config: undefined,
  async configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
    this.config = req.config;
  },
  async check(_olds: Record<string, unknown>, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult> {
    return { inputs: news };
  },
  async diff(
    _id: string,
    olds: Record<string, unknown>,
    news: Record<string, unknown>,
  ): Promise<pulumi.dynamic.DiffResult> {
    const replaces = ["event", "url"].filter((key) => olds[key] !== news[key]);
    return { changes: replaces.length > 0, replaces, deleteBeforeReplace: false };
  },
  async create(inputs: Record<string, unknown>): Promise<pulumi.dynamic.CreateResult> {
    const id = `noop_${Math.random().toString(16).slice(2, 14)}${Math.random().toString(16).slice(2, 14)}`;
    return { id, outs: { event: inputs.event, url: inputs.url, state: "active" } };
  },
  async delete(_id: string, _outputs: Record<string, unknown>): Promise<void> {
    // nothing to remove
  },
};

/** A resource that costs the engine what any dynamic resource costs, and nothing more. */
export class NoopResource extends pulumi.dynamic.Resource {
  constructor(name: string, args: NoopArgs, opts?: pulumi.CustomResourceOptions) {
    super(noopProviderShim, name, { event: args.event, url: args.url, state: undefined }, opts, "bench", "Noop");
  }
}
