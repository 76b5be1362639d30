/**
 * What the webhook policies (`policy/policies.ts`) decide, as plain functions of a webhook's inputs and of the pack's
 * config, with no Pulumi in them: whether a url is https, whether its host is one the config allows, which webhooks of
 * a stack duplicate each other, and whether a webhook has a delivery token. A url that breaks the url rule
 * (`kernel/webhook-rules.ts`) is left to the provider's `check`, which refuses it with its own reason: no policy
 * reports it twice.
 *
 * Sources: docs/helpdesk-api.md §2.1 (a webhook's `event` and `url`), §6 (the event names); the host comparison
 * follows WHATWG URL's host parsing (lower case, IDNA to ASCII, IPv4 and IPv6 canonical forms); a `*.` wildcard
 * matches as egress allowlists usually do (any depth below the named domain, never the domain itself).
 *
 * No function here returns or throws text holding a url, its path, query or user info: a url may carry a credential
 * and policies see secret urls in plain text (docs/design.md "Rooms").
 */
import { baseUrlText, parseBaseUrl } from "../kernel/base-url.js";
import { webhookUrlProblem } from "../kernel/webhook-rules.js";

/**
 * A webhook url as the policies read it: parsed, when it is a valid webhook url.
 *
 * @param url the `url` input of a webhook (any type)
 * @returns the WHATWG parse of the url, or undefined when it is not a valid webhook url (the provider's `check`
 *   reports that; docs/helpdesk-api.md §2.1)
 */
export function webhookUrl(url: unknown): URL | undefined {
  if (webhookUrlProblem(url) !== undefined) return undefined;
  return new URL(url as string);
}

/**
 * What an `allowedHosts` entry may be, for the policy's config schema and the reasons: a host name (`hooks.example.com`),
 * a `*.` wildcard (`*.example.com`), an IPv4 address or an IPv6 address in brackets (`[2001:db8::1]`); no scheme, port,
 * path or user info. Letters in any case; non-ASCII names as typed or in punycode.
 */
export const ALLOWED_HOST_PATTERN = "^(\\*\\.)?[^\\s*/\\\\:@?#\\[\\]]+$|^\\[[0-9A-Fa-f:.]+\\]$";

/** How an `allowedHosts` entry is compared, once parsed by {@link hostEntry}. */
export type HostEntry = { readonly exact: string } | { readonly below: string };

/**
 * Parses an `allowedHosts` entry into the form a url's host is compared with: the host as WHATWG URL writes it
 * (`HOOKS.Example.COM` → `hooks.example.com`, `bücher.example` → `xn--bcher-kva.example`, `0x7f.1` → `127.0.0.1`),
 * without a trailing dot.
 *
 * @param entry one entry of the config's `allowedHosts`
 * @returns the entry's form, or undefined when it is no host or wildcard ({@link ALLOWED_HOST_PATTERN}; the engine
 *   refuses such a config before the pack sees it)
 */
export function hostEntry(entry: string): HostEntry | undefined {
  if (!new RegExp(ALLOWED_HOST_PATTERN).test(entry)) return undefined;
  const wildcard = entry.startsWith("*.");
  // A wildcard's domain is parsed below a one-letter label, so that it is canonicalised as a host name is.
  const host = canonicalHost(wildcard ? `x${entry.slice(1)}` : entry);
  if (host === undefined) return undefined;
  return wildcard ? { below: host.slice(2) } : { exact: host };
}

/** @returns the host as WHATWG URL canonicalises it, without a trailing dot; undefined when it is no host */
function canonicalHost(host: string): string | undefined {
  try {
    return withoutTrailingDot(new URL(`http://${host}/`).hostname);
  } catch {
    return undefined;
  }
}

/** `hooks.example.com.` and `hooks.example.com` are one host (RFC 1034 §3.1: the dot names the root). */
function withoutTrailingDot(host: string): string {
  return host.endsWith(".") ? host.slice(0, -1) : host;
}

/**
 * Whether a url's host is allowed by the config's `allowedHosts`: equal to an exact entry, or strictly below the
 * domain of a `*.` entry (`*.example.com` allows `a.example.com` and `a.b.example.com`, not `example.com`). The port is
 * not part of the host: an allowed host is allowed on any port.
 *
 * @param url a parsed webhook url ({@link webhookUrl})
 * @param entries the config's entries, parsed ({@link hostEntries})
 */
export function hostAllowed(url: URL, entries: readonly HostEntry[]): boolean {
  const host = withoutTrailingDot(url.hostname);
  return entries.some((entry) => ("exact" in entry ? host === entry.exact : host.endsWith(`.${entry.below}`)));
}

/**
 * Parses the config's `allowedHosts` ({@link hostEntry}); entries it cannot read allow nothing and are left out.
 *
 * @param allowedHosts the config's entries
 */
export function hostEntries(allowedHosts: readonly string[]): HostEntry[] {
  return allowedHosts.flatMap((entry) => hostEntry(entry) ?? []);
}

/**
 * The host of a url as a reason may show it: the host alone (no scheme, port, path, query or user info, which may
 * carry a credential), at most 100 characters.
 *
 * @param url a parsed webhook url
 */
export function shownHost(url: URL): string {
  const host = withoutTrailingDot(url.hostname);
  return JSON.stringify(host.length > 100 ? `${host.slice(0, 100)}…` : host);
}

/** One webhook of a stack, as the duplicates rule reads it. */
export interface StackWebhook {
  /** the resource's name, for the reason */
  readonly name: string;
  /** the URN, to attach the violation to */
  readonly urn: string;
  /** which help desk the webhook is registered with ({@link helpDeskKey}) */
  readonly helpDesk: string;
  readonly event: unknown;
  readonly url: unknown;
}

/**
 * The help desk a webhook is registered with, as far as the stack shows it: the `baseUrl` input of its provider when
 * that is a valid base URL (`kernel/base-url.ts`: `https://H.example/api/` and `https://h.example/api` are one help
 * desk), else the provider itself (its URN: one provider instance talks to one help desk). Two providers whose base
 * URL comes from the environment (no `baseUrl` input) count as two help desks: a duplicate may be missed, never
 * invented.
 *
 * @param baseUrl the provider's `baseUrl` input (any type; unknown or absent for the dynamic `Webhook`'s provider)
 * @param providerUrn the provider's URN
 * @returns a key equal for two webhooks of one help desk
 */
export function helpDeskKey(baseUrl: unknown, providerUrn: string): string {
  const parsed = typeof baseUrl === "string" ? parseBaseUrl(baseUrl) : undefined;
  return parsed !== undefined && "url" in parsed ? `base URL ${baseUrlText(parsed.url)}` : `provider ${providerUrn}`;
}

/** A pair of webhooks that would deliver every event twice. */
export interface DuplicateWebhook {
  /** the later webhook of the pair, in the stack's order */
  readonly duplicate: StackWebhook;
  /** the first webhook with the same help desk, event and url */
  readonly first: StackWebhook;
}

/**
 * The webhooks that repeat an earlier one: same help desk, same event, same url (compared as WHATWG URL writes them:
 * `https://H.example:443/x` and `https://h.example/x` are one url). Webhooks whose event or url is not known yet, or
 * not valid, take no part.
 *
 * @param webhooks the stack's webhooks, in the stack's order
 * @returns one entry per webhook that repeats an earlier one, naming that first one
 */
export function duplicateWebhooks(webhooks: readonly StackWebhook[]): DuplicateWebhook[] {
  const firsts = new Map<string, StackWebhook>();
  const duplicates: DuplicateWebhook[] = [];
  for (const webhook of webhooks) {
    const url = webhookUrl(webhook.url);
    if (url === undefined || typeof webhook.event !== "string") continue;
    const key = JSON.stringify([webhook.helpDesk, webhook.event, url.href]);
    const first = firsts.get(key);
    if (first) duplicates.push({ duplicate: webhook, first });
    else firsts.set(key, webhook);
  }
  return duplicates;
}
