/**
 * The webhook policies of the `helpdesk` policy pack, defined once, as plain data and functions with no Pulumi in
 * them, for both of its shipping forms (docs/design.md "Rooms"): the folder `policy/` of the npm package
 * (`policy/pack.ts` hands this table to `@pulumi/policy`, run by Pulumi's Node.js language host) and the release
 * executable under the name `pulumi-analyzer-helpdesk` (`policy/analyzer.ts`, a binary policy pack served by our own
 * Analyzer server, `policy/server.ts`). Their names are part of the interface: people write them in
 * `--policy-pack-config` files.
 *
 * - `webhook-url-https`: the url uses https;
 * - `webhook-url-allowed-hosts`: the url's host is in the config's `allowedHosts` (enforced once it is set);
 * - `webhook-event-allowed`: the event is in the config's `events` (enforced once it is set);
 * - `webhook-no-duplicates` (a stack policy): no two webhooks with the same event and url on one help desk;
 * - `webhook-has-delivery-token`: the webhook has a delivery token (`kernel/delivery-token.ts`), so its receiver can
 *   refuse forged deliveries.
 *
 * Each checks the native `helpdesk:index:Webhook` and the dynamic `Webhook` alike (`kernel/names.ts`). Each states
 * its own enforcement level, which the config's replaces (`enforcementLevel`: advisory, mandatory, disabled; or the
 * level alone, `"webhook-has-delivery-token": "mandatory"`): all are mandatory but `webhook-has-delivery-token`,
 * advisory (a delivery token is opt-in, and receivers need the receiver kit to verify it).
 *
 * A policy reads a resource's properties as deserialised (secrets unwrapped: a policy sees a secret url or delivery
 * token in plain text, so no reason holds one; `policy/rules.ts`), with a value not known during preview left as
 * Pulumi's unknown sentinel: an unknown event, url or `useDeliveryToken` is not a violation, the policy is not
 * applicable until `pulumi up` knows it, and is checked then. A policy's config is read once per `Configure` ({@link ResourcePolicy.prepare}), not per resource.
 *
 * The shapes follow `@pulumi/policy` 1.21.0 `policy.d.ts` (`ResourceValidationPolicy`, `StackValidationPolicy`,
 * `PolicyConfigSchema`) so that `policy/pack.ts` is a thin adapter; how a violation is reported (the policy's
 * description, a new line, the reason) is `@pulumi/policy`'s `server.js`, which `policy/server.ts` repeats.
 *
 * Sources: docs/helpdesk-api.md §2.1 (`event`, `url`), §6 (event names); pulumi/pulumi v3.259 `proto/pulumi/analyzer.proto`.
 */
import { wantsDeliveryToken } from "../kernel/delivery-token-inputs.js";
import { EVENTS, isWebhookEvent } from "../kernel/events.js";
import { DYNAMIC_WEBHOOK_TYPE, WEBHOOK_TYPE } from "../kernel/names.js";
import { PACKAGE_NAME } from "../kernel/package-version.js";
import { UNKNOWN } from "../kernel/pulumi-wire.js";
import {
  ALLOWED_HOST_PATTERN,
  duplicateWebhooks,
  type HostEntry,
  helpDeskKey,
  hostAllowed,
  hostEntries,
  shownHost,
  webhookUrl,
} from "./rules.js";

/** The policies' names, as config files and `pulumi preview` name them. */
export const POLICY_NAMES = {
  https: "webhook-url-https",
  allowedHosts: "webhook-url-allowed-hosts",
  allowedEvents: "webhook-event-allowed",
  noDuplicates: "webhook-no-duplicates",
  deliveryToken: "webhook-has-delivery-token",
} as const;

/** How a violation counts (pulumi/pulumi `analyzer.proto` `EnforcementLevel`): reported, failing the run, or not checked. */
export type EnforcementLevel = "advisory" | "mandatory" | "remediate" | "disabled";

/** The pack's own enforcement level, for policies whose config sets none (each policy also states its own). */
export const PACK_ENFORCEMENT_LEVEL = "mandatory" as const;

/** A policy's config properties, as `--policy-pack-config` sets them (the engine has checked them against the schema). */
export type PolicyConfigProperties = Readonly<Record<string, unknown>>;

/** A JSON schema of a policy's config properties (`@pulumi/policy` `PolicyConfigSchema`). */
export interface PolicyConfigSchema {
  readonly properties: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly required?: readonly string[];
}

/** A resource's provider, as a policy reads it. */
export interface PolicyProvider {
  readonly urn: string;
  /** @returns the provider's input `key` as deserialised; {@link UNKNOWN} when not known; undefined when absent */
  property(key: string): unknown;
}

/** A resource, as a policy reads it: what the engine sends of it (pulumi/pulumi `analyzer.proto` `AnalyzeRequest`). */
export interface PolicyResource {
  /** its type token, e.g. `helpdesk:index:Webhook` */
  readonly type: string;
  /** its name (the URN's last part) */
  readonly name: string;
  readonly urn: string;
  /** @returns its input `key` as deserialised (secrets unwrapped); {@link UNKNOWN} when not known during preview; undefined when absent */
  property(key: string): unknown;
  /** its provider; undefined when the engine sent none */
  readonly provider?: PolicyProvider | undefined;
}

/** What a resource policy decides of one resource: nothing to say, a violation (its reason), or not applicable (why). */
export type ResourceVerdict = { readonly violation: string } | { readonly notApplicable: string } | undefined;

/** A violation of a stack policy: the reason, and the URN of the resource it is about. */
export interface StackViolation {
  readonly message: string;
  readonly urn: string;
}

/** What every policy states of itself (`@pulumi/policy` `Policy`). */
interface PolicyCommon {
  readonly name: string;
  /** what the policy asks, for people: also the first line of each of its violations */
  readonly description: string;
  readonly enforcementLevel: EnforcementLevel;
  readonly configSchema?: PolicyConfigSchema;
}

/**
 * A policy checking one resource at a time.
 *
 * @typeParam C the policy's config as {@link prepare} reads it
 */
export interface ResourcePolicy<C = unknown> extends PolicyCommon {
  readonly kind: "resource";
  /** Reads the policy's config properties (`{}` when none were set), once per `Configure`. */
  prepare(properties: PolicyConfigProperties): C;
  /** Checks one resource. */
  validateResource(resource: PolicyResource, config: C): ResourceVerdict;
}

/** A policy checking the stack's resources together. */
export interface StackPolicy extends PolicyCommon {
  readonly kind: "stack";
  /** Checks the stack's resources (in the stack's order); its config properties are `properties`. */
  validateStack(resources: readonly PolicyResource[], properties: PolicyConfigProperties): StackViolation[];
}

/** One of the pack's policies. */
export type Policy = ResourcePolicy<unknown> | StackPolicy;

/** The type tokens of the two webhook resources: the native one and the dynamic `Webhook`. */
const WEBHOOK_TYPES: readonly string[] = [WEBHOOK_TYPE, DYNAMIC_WEBHOOK_TYPE];

/** A webhook as a resource policy reads it. */
interface Webhook {
  /** `webhook "<name>" (event <event>)`: how reasons name it */
  readonly named: string;
  readonly url: URL;
}

/** Why a policy waits for `pulumi up`, when an input it needs is not known during preview. */
function notKnownYet(input: "event" | "url" | "useDeliveryToken"): ResourceVerdict {
  return { notApplicable: `the ${input} is not known until the webhook is created: pulumi up checks it then` };
}

/**
 * Reads the webhook a url policy is asked about.
 *
 * @returns the webhook; undefined for a resource that is no webhook, or whose url breaks the url rule (the provider's
 *   `check` refuses it with its own reason); a not-applicable verdict when the url is not known during preview
 */
function webhookOf(resource: PolicyResource): Webhook | Exclude<ResourceVerdict, undefined> | undefined {
  if (!WEBHOOK_TYPES.includes(resource.type)) return undefined;
  const url = resource.property("url");
  if (url === UNKNOWN) return notKnownYet("url");
  const parsed = webhookUrl(url);
  if (parsed === undefined) return undefined;
  return { named: webhookTitle(resource.name, resource.property("event")), url: parsed };
}

/**
 * How a violation names a webhook: `webhook "<name>" (event "<event>")`, both JSON-quoted, so an escape sequence or a
 * line break in either (the program's author chooses both) shows as `\u001b` or `\n` and cannot forge lines or colours
 * on the terminal; the event is cut to 100 characters (a help-desk event name is at most 19).
 *
 * @param name the resource name
 * @param event the `event` input as the policy sees it: a string, or {@link UNKNOWN} or anything else (shown as
 *   "event not known yet")
 * @home how a policy violation names a webhook (name and event, JSON-quoted; never the url)
 */
function webhookTitle(name: string, event: unknown): string {
  const shownEvent =
    typeof event === "string" && event !== UNKNOWN
      ? `event ${JSON.stringify(event.slice(0, 100))}`
      : "event not known yet";
  return `webhook ${JSON.stringify(name)} (${shownEvent})`;
}

/** `webhook-url-https`: the url uses https. */
const urlHttps: ResourcePolicy<undefined> = {
  kind: "resource",
  name: POLICY_NAMES.https,
  description: "A webhook's url uses https: deliveries carry tickets, customer records and messages (personal data).",
  enforcementLevel: "mandatory",
  prepare: () => undefined,
  validateResource: (resource) => {
    const webhook = webhookOf(resource);
    if (webhook === undefined || !("url" in webhook)) return webhook;
    if (webhook.url.protocol === "https:") return undefined;
    return {
      violation: `${webhook.named}: its url uses ${webhook.url.protocol.slice(0, -1)}, so every delivery would cross the network unencrypted; use an https url.`,
    };
  },
};

/** `webhook-url-allowed-hosts`: the url's host is one of `allowedHosts`. */
const urlAllowedHosts: ResourcePolicy<{ entries: readonly HostEntry[]; count: number } | undefined> = {
  kind: "resource",
  name: POLICY_NAMES.allowedHosts,
  description:
    "A webhook's url goes to a host of the config's allowedHosts (exact names, *.example.com wildcards); not enforced while allowedHosts is unset.",
  enforcementLevel: "mandatory",
  configSchema: {
    properties: {
      allowedHosts: {
        type: "array",
        minItems: 1,
        items: { type: "string", pattern: ALLOWED_HOST_PATTERN },
        description:
          "Hosts webhooks may send to: host names (hooks.example.com), *. wildcards (*.example.com: any host below example.com, " +
          "not example.com itself), IPv4 addresses or bracketed IPv6 addresses; no scheme, port or path (any port is allowed). Case does not matter.",
      },
    },
  },
  prepare: ({ allowedHosts }) =>
    Array.isArray(allowedHosts)
      ? { entries: hostEntries(allowedHosts.filter((entry) => typeof entry === "string")), count: allowedHosts.length }
      : undefined,
  validateResource: (resource, allowed) => {
    if (allowed === undefined) return undefined;
    const webhook = webhookOf(resource);
    if (webhook === undefined || !("url" in webhook)) return webhook;
    if (hostAllowed(webhook.url, allowed.entries)) return undefined;
    return {
      violation: `${webhook.named}: its url's host ${shownHost(webhook.url)} is not in the policy's allowedHosts (${allowed.count === 1 ? "1 entry" : `${allowed.count} entries`}); send it to an allowed host or add the host to allowedHosts.`,
    };
  },
};

/** `webhook-event-allowed`: the event is one of `events`. */
const eventAllowed: ResourcePolicy<readonly string[] | undefined> = {
  kind: "resource",
  name: POLICY_NAMES.allowedEvents,
  description: "A webhook subscribes to an event of the config's events; not enforced while events is unset.",
  enforcementLevel: "mandatory",
  configSchema: {
    properties: {
      events: {
        type: "array",
        minItems: 1,
        items: { type: "string", enum: [...EVENTS] },
        description: "The events webhooks may subscribe to, among the help desk's 14 (docs/helpdesk-api.md §6).",
      },
    },
  },
  prepare: ({ events }) =>
    Array.isArray(events) ? events.filter((event): event is string => typeof event === "string") : undefined,
  validateResource: (resource, events) => {
    if (events === undefined || !WEBHOOK_TYPES.includes(resource.type)) return undefined;
    const event = resource.property("event");
    if (event === UNKNOWN) return notKnownYet("event");
    // An event that is no help-desk event at all is the provider's check's to refuse.
    if (!isWebhookEvent(event) || events.includes(event)) return undefined;
    return {
      violation: `${webhookTitle(resource.name, event)}: the event is not in the policy's events (${events.join(", ")}).`,
    };
  },
};

/** The help desk of a stack's resource ({@link helpDeskKey}): its provider's `baseUrl`, or the provider. */
function helpDeskOf(resource: PolicyResource): string {
  const provider = resource.provider;
  return helpDeskKey(provider?.property("baseUrl"), provider?.urn ?? "(the stack's default provider)");
}

/** `webhook-no-duplicates`: no two webhooks with the same event and url on one help desk. */
const noDuplicates: StackPolicy = {
  kind: "stack",
  name: POLICY_NAMES.noDuplicates,
  description: "No two webhooks with the same event and url on the same help desk: each delivery would be sent twice.",
  enforcementLevel: "mandatory",
  validateStack: (resources) => {
    const webhooks = resources
      .filter((resource) => WEBHOOK_TYPES.includes(resource.type))
      .map((resource) => ({
        name: resource.name,
        urn: resource.urn,
        helpDesk: helpDeskOf(resource),
        event: resource.property("event"),
        url: resource.property("url"),
      }));
    return duplicateWebhooks(webhooks).map(({ duplicate, first }) => ({
      message: `${webhookTitle(duplicate.name, duplicate.event)} has the same event and url as webhook ${JSON.stringify(first.name)} on the same help desk: every delivery would be sent twice; remove one of them.`,
      urn: duplicate.urn,
    }));
  },
};

/**
 * `webhook-has-delivery-token`: the webhook has a delivery token (kernel/delivery-token-inputs.ts `wantsDeliveryToken`,
 * the provider's own reading: `useDeliveryToken: true` or a `deliveryToken` present, whatever its value); advisory by
 * default.
 */
const deliveryToken: ResourcePolicy<undefined> = {
  kind: "resource",
  name: POLICY_NAMES.deliveryToken,
  description:
    "A webhook has a delivery token (useDeliveryToken: true, or its own deliveryToken), so its receiver can refuse requests that do not come from the help desk; advisory unless the config makes it mandatory.",
  enforcementLevel: "advisory",
  prepare: () => undefined,
  validateResource: (resource) => {
    if (!WEBHOOK_TYPES.includes(resource.type)) return undefined;
    const has = wantsDeliveryToken({
      useDeliveryToken: resource.property("useDeliveryToken"),
      deliveryToken: resource.property("deliveryToken"),
    });
    if (has === true) return undefined;
    if (has === "unknown") return notKnownYet("useDeliveryToken");
    return {
      violation: `${webhookTitle(resource.name, resource.property("event"))}: it has no delivery token, so its receiver cannot tell the help desk's deliveries from forged requests; set useDeliveryToken: true (the provider then mints a token and registers the url with it) or give your own deliveryToken, and verify each delivery in the receiver with a ${PACKAGE_NAME} receiver kit.`,
    };
  },
};

/** The pack's policies, in the order `pulumi preview` lists them. */
export const POLICIES: readonly Policy[] = [urlHttps, urlAllowedHosts, eventAllowed, noDuplicates, deliveryToken];
