// The native suite's program: explicit Providers from config `native:providers` (JSON: [{name, baseUrl, clientId,
// tokenExpiresAt?}]) with their credentials in the secret config `native:credentials` (JSON: {<name>: {accessToken,
// refreshToken, clientSecret}}), and one native Webhook per entry of `native:hooks` (JSON: [{name, event, url,
// provider?, secretUrl?, importId?}]): on the named Provider, else the default provider (the stack's helpdesk:* config).
import * as pulumi from "@pulumi/pulumi";
import { Provider, Webhook, type WebhookEvent } from "pulumi-helpdesk/native";

interface DeskSpec {
  name: string;
  baseUrl: string;
  clientId: string;
  tokenExpiresAt?: string;
}
interface Credentials {
  accessToken: string;
  refreshToken: string;
  clientSecret: string;
}
interface HookSpec {
  name: string;
  event: WebhookEvent;
  url: string;
  provider?: string;
  secretUrl?: boolean;
  importId?: string;
}

const config = new pulumi.Config("native");
const desks = config.getObject<DeskSpec[]>("providers") ?? [];
const credentials = config.getSecretObject<Record<string, Credentials>>("credentials") ?? pulumi.output({} as Record<string, Credentials>);
const hooks = config.requireObject<HookSpec[]>("hooks");

const providers = new Map<string, Provider>();
for (const desk of desks) {
  const own = credentials.apply((all) => all[desk.name]!);
  providers.set(
    desk.name,
    new Provider(desk.name, {
      baseUrl: desk.baseUrl,
      clientId: desk.clientId,
      ...(desk.tokenExpiresAt ? { tokenExpiresAt: desk.tokenExpiresAt } : {}),
      accessToken: own.apply((c) => c.accessToken),
      refreshToken: own.apply((c) => c.refreshToken),
      clientSecret: own.apply((c) => c.clientSecret),
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
