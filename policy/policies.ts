/**
 * The webhook policies of the `helpdesk` policy pack, defined once for both of its shipping forms (docs/design.md
 * "Rooms"): the folder `policy/` of the npm package (`policy/pack.ts`, run by Pulumi's Node.js language host)
 * and the release executable under the name `pulumi-analyzer-helpdesk` (`policy/analyzer.ts`, a binary policy pack).
 * Their names are part of the interface: people write them in `--policy-pack-config` files.
 *
 * - `webhook-url-https`: the url uses https;
 * - `webhook-url-allowed-hosts`: the url's host is in the config's `allowedHosts` (enforced once it is set);
 * - `webhook-event-allowed`: the event is in the config's `events` (enforced once it is set);
 * - `webhook-no-duplicates` (a stack policy): no two webhooks with the same event and url on one help desk.
 *
 * Each checks the native `helpdesk:index:Webhook` and the dynamic `Webhook` alike (`kernel/names.ts`). All are
 * mandatory unless the config says otherwise (`enforcementLevel`: advisory, mandatory, disabled).
 *
 * Values are read from the properties as `@pulumi/policy` deserialised them (secrets unwrapped: a policy sees a secret
 * url in plain text, so no reason holds one; `policy/rules.ts`), but around its proxy that throws on a value unknown
 * during preview (`policy/pulumi-policy.ts`): an unknown event or url is not a violation, the policy is not
 * applicable until `pulumi up` knows it, and is checked then. Only types come from `@pulumi/policy` here; the running
 * code is the caller's (its `serve` or `PolicyPack`).
 *
 * Sources: docs/helpdesk-api.md §2.1 (`event`, `url`), §6 (event names); `@pulumi/policy` 1.21.0 `policy.d.ts`.
 */
import type {
  PolicyResource,
  ReportViolation,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationPolicy,
} from "@pulumi/policy";
import { EVENTS, isWebhookEvent } from "../kernel/events.js";
import { DYNAMIC_WEBHOOK_TYPE, WEBHOOK_TYPE } from "../kernel/names.js";
import { UNKNOWN } from "../kernel/pulumi-wire.js";
import { rawProperty } from "./pulumi-policy.js";
import { ALLOWED_HOST_PATTERN, duplicateWebhooks, helpDeskKey, hostAllowed, hostEntries, type HostEntry, shownHost, webhookUrl } from "./rules.js";

/** The policies' names, as config files and `pulumi preview` name them. */
export const POLICY_NAMES = {
  https: "webhook-url-https",
  allowedHosts: "webhook-url-allowed-hosts",
  allowedEvents: "webhook-event-allowed",
  noDuplicates: "webhook-no-duplicates",
} as const;

/** The type tokens of the two webhook resources: the native one and the dynamic `Webhook`. */
const WEBHOOK_TYPES: readonly string[] = [WEBHOOK_TYPE, DYNAMIC_WEBHOOK_TYPE];

/** The config of `webhook-url-allowed-hosts`, as `getConfig` gives it. */
interface AllowedHostsConfig {
  allowedHosts?: string[];
}

/** The config of `webhook-event-allowed`, as `getConfig` gives it. */
interface AllowedEventsConfig {
  events?: string[];
}

/** A webhook as a resource policy reads it. */
interface Webhook {
  /** `webhook "<name>" (event "<event>")`: how reasons name it ({@link webhookTitle}) */
  readonly named: string;
  readonly url: URL;
}

/**
 * Reads the webhook a resource policy is asked about, or says the policy does not apply to it.
 *
 * @param args what the policy was given
 * @param needs which inputs the policy needs known (`event`, `url`)
 * @returns the webhook; undefined for a resource that is no webhook, or whose url breaks the url rule (the provider's
 *   `check` refuses it with its own reason)
 * @throws `@pulumi/policy`'s not-applicable signal (`args.notApplicable`) when a needed input is unknown during preview
 */
function webhookOf(args: ResourceValidationArgs, needs: ReadonlyArray<"event" | "url">): Webhook | undefined {
  if (!WEBHOOK_TYPES.includes(args.type)) return undefined;
  const event = rawProperty(args.props, "event");
  const url = rawProperty(args.props, "url");
  for (const input of needs) {
    if ((input === "event" ? event : url) === UNKNOWN) args.notApplicable(`the ${input} is not known until the webhook is created: pulumi up checks it then`);
  }
  const parsed = webhookUrl(url);
  if (parsed === undefined) return undefined;
  return { named: webhookTitle(args.name, event), url: parsed };
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
  const shownEvent = typeof event === "string" && event !== UNKNOWN ? `event ${JSON.stringify(event.slice(0, 100))}` : "event not known yet";
  return `webhook ${JSON.stringify(name)} (${shownEvent})`;
}

/** `webhook-url-https`: the url uses https. */
const urlHttps: ResourceValidationPolicy = {
  name: POLICY_NAMES.https,
  description: "A webhook's url uses https: deliveries carry tickets, customer records and messages (personal data).",
  enforcementLevel: "mandatory",
  validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
    const webhook = webhookOf(args, ["url"]);
    if (webhook === undefined || webhook.url.protocol === "https:") return;
    reportViolation(`${webhook.named}: its url uses ${webhook.url.protocol.slice(0, -1)}, so every delivery would cross the network unencrypted; use an https url.`);
  },
};

/**
 * The parsed `allowedHosts` of each configuration of the pack: `@pulumi/policy` hands every resource's `getConfig` the
 * array the engine configured (pulumi/policy `server.js` `makeGetConfigFun`: a new object each call, the same
 * `allowedHosts` array), so its entries are parsed once per configuration, not once per resource.
 */
const parsedAllowedHosts = new WeakMap<readonly string[], readonly HostEntry[]>();

/** @returns `allowedHosts` parsed ({@link hostEntries}), once per configuration */
function allowedHostEntries(allowedHosts: readonly string[]): readonly HostEntry[] {
  let entries = parsedAllowedHosts.get(allowedHosts);
  if (entries === undefined) {
    entries = hostEntries(allowedHosts);
    parsedAllowedHosts.set(allowedHosts, entries);
  }
  return entries;
}

/** `webhook-url-allowed-hosts`: the url's host is one of `allowedHosts`. */
const urlAllowedHosts: ResourceValidationPolicy = {
  name: POLICY_NAMES.allowedHosts,
  description: "A webhook's url goes to a host of the config's allowedHosts (exact names, *.example.com wildcards); not enforced while allowedHosts is unset.",
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
  validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
    const { allowedHosts } = args.getConfig<AllowedHostsConfig>();
    if (allowedHosts === undefined) return;
    const webhook = webhookOf(args, ["url"]);
    if (webhook === undefined || hostAllowed(webhook.url, allowedHostEntries(allowedHosts))) return;
    reportViolation(`${webhook.named}: its url's host ${shownHost(webhook.url)} is not in the policy's allowedHosts (${allowedHosts.length === 1 ? "1 entry" : `${allowedHosts.length} entries`}); send it to an allowed host or add the host to allowedHosts.`);
  },
};

/** `webhook-event-allowed`: the event is one of `events`. */
const eventAllowed: ResourceValidationPolicy = {
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
  validateResource: (args: ResourceValidationArgs, reportViolation: ReportViolation) => {
    const { events } = args.getConfig<AllowedEventsConfig>();
    if (events === undefined || !WEBHOOK_TYPES.includes(args.type)) return;
    const event = rawProperty(args.props, "event");
    if (event === UNKNOWN) args.notApplicable("the event is not known until the webhook is created: pulumi up checks it then");
    // An event that is no help-desk event at all is the provider's check's to refuse.
    if (!isWebhookEvent(event) || events.includes(event)) return;
    reportViolation(`${webhookTitle(args.name, event)}: the event is not in the policy's events (${events.join(", ")}).`);
  },
};

/** The help desk of a stack's resource ({@link helpDeskKey}): its provider's `baseUrl`, or the provider. */
function helpDeskOf(resource: PolicyResource): string {
  const provider = resource.provider;
  return helpDeskKey(provider ? rawProperty(provider.props, "baseUrl") : undefined, provider?.urn ?? "(the stack's default provider)");
}

/** `webhook-no-duplicates`: no two webhooks with the same event and url on one help desk. */
const noDuplicates: StackValidationPolicy = {
  name: POLICY_NAMES.noDuplicates,
  description: "No two webhooks with the same event and url on the same help desk: each delivery would be sent twice.",
  enforcementLevel: "mandatory",
  validateStack: (args, reportViolation: ReportViolation) => {
    const webhooks = args.resources
      .filter((resource) => WEBHOOK_TYPES.includes(resource.type))
      .map((resource) => ({
        name: resource.name,
        urn: resource.urn,
        helpDesk: helpDeskOf(resource),
        event: rawProperty(resource.props, "event"),
        url: rawProperty(resource.props, "url"),
      }));
    for (const { duplicate, first } of duplicateWebhooks(webhooks)) {
      reportViolation(
        `${webhookTitle(duplicate.name, duplicate.event)} has the same event and url as webhook ${JSON.stringify(first.name)} on the same help desk: every delivery would be sent twice; remove one of them.`,
        duplicate.urn,
      );
    }
  },
};

/** The pack's policies, in the order `pulumi preview` lists them. */
export const POLICIES: Array<ResourceValidationPolicy | StackValidationPolicy> = [urlHttps, urlAllowedHosts, eventAllowed, noDuplicates];

/** The pack's own enforcement level, for policies whose config sets none (each policy also states its own). */
export const PACK_ENFORCEMENT_LEVEL = "mandatory" as const;
