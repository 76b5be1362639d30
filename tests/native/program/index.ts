// The native suite's program: one explicit Provider per name in config `native:providers` (JSON: ["a", "b"]), each
// reading its settings from the stack config namespace of that name (`a:baseUrl`, `a:accessToken`, ...), as
// `pulumi-helpdesk login --namespace a` writes them; and one native Webhook per entry of `native:hooks` (JSON: [{name,
// event, url, provider?, secretUrl?, importId?}]): on the named Provider, else the default provider (the stack's
// helpdesk:* config).
import * as pulumi from "@pulumi/pulumi";
import { Provider, Webhook, type WebhookEvent } from "pulumi-helpdesk/native";

interface HookSpec {
  name: string;
  event: WebhookEvent;
  url: string;
  provider?: string;
  secretUrl?: boolean;
  importId?: string;
}

const config = new pulumi.Config("native");
const names = config.getObject<string[]>("providers") ?? [];
const hooks = config.requireObject<HookSpec[]>("hooks");

const providers = new Map<string, Provider>();
for (const name of names) {
  const desk = new pulumi.Config(name);
  providers.set(
    name,
    new Provider(name, {
      baseUrl: desk.require("baseUrl"),
      clientId: desk.require("clientId"),
      tokenExpiresAt: desk.get("tokenExpiresAt"),
      accessToken: desk.requireSecret("accessToken"),
      refreshToken: desk.requireSecret("refreshToken"),
      clientSecret: desk.requireSecret("clientSecret"),
      maxRetries: 3,
    }),
  );
}

export const ids: Record<string, pulumi.Output<string>> = {};
export const states: Record<string, pulumi.Output<string>> = {};
for (const spec of hooks) {
  const provider = spec.provider ? providers.get(spec.provider) : undefined;
  const hook = new Webhook(
    spec.name,
    { event: spec.event, url: spec.secretUrl ? pulumi.secret(spec.url) : spec.url },
    { ...(provider ? { provider } : {}), ...(spec.importId ? { import: spec.importId } : {}) },
  );
  ids[spec.name] = hook.id;
  states[spec.name] = hook.state;
}
