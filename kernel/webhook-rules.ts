/**
 * The one definition of a valid webhook (`event`, `url`), shared by the provider's `check` and the emulator's 422, so
 * that a green `pulumi preview` cannot be followed by a refused `pulumi up` (docs/design.md "One rule, one home").
 *
 * Sources: docs/helpdesk-api.md §2.1 (Webhook fields: `event`, `url`, both strings, both required on create), docs/helpdesk-api.md §4.3 (`POST
 * /v1/webhooks` parameters), docs/helpdesk-api.md §6 (the closed list of event names). The spec says only "URL that receives the
 * notifications"; the URL rule below is this project's reading of it, the same on both sides.
 *
 * Plain functions without zod: programs load this module through the SDK, so it stays light.
 *
 * Reasons never contain the url value: webhook URLs often carry credentials (secret paths, `?token=` queries, userinfo)
 * and programs mark them `pulumi.secret`. A reason may name the url's length, a character position or its scheme.
 * @home what makes a webhook valid: its event names and the url rule (the provider's `check`, the emulator's 422, the file of `import`, the policies)
 */
import { EVENTS, isWebhookEvent, nearestEvent } from "./events.js";

/** The longest accepted webhook URL, in UTF-16 code units (JavaScript `string.length`). Project limit for docs/helpdesk-api.md §2.1. */
export const MAX_URL_LENGTH = 2048;

/**
 * Whether a text looks like a url or a piece of one, which may carry a credential (a secret path such as Slack's
 * `/services/T…/B…/<secret>`, a `?token=` query, `user:pass@` userinfo): it holds `://`, `@`, `?` or `/`. No event
 * name, resource name, column or field name can hold one of those, nor does an id a help desk mints (`wh_123`), so
 * the test costs no valid value its echo. The one rule of what a message may quote (docs/design.md "One rule, one home"): {@link shownValue}.
 *
 * @param text any text: a file's cell, header or key, a program's input
 * @home what looks like a url (`://`, `@`, `?`, `/`) and how a message quotes a value (never one that looks like a url: the id and event rules, the file of `pulumi-helpdesk import`)
 */
export function looksLikeUrl(text: string): boolean {
  return /:\/\/|[@?/]/.test(text);
}

/** What {@link shownValue} says instead of a value that looks like a url. */
export const URL_LIKE = "(a value that looks like a url, not shown)";

/**
 * A value as a message may show it: JSON-quoted and cut to `max` characters (then `…`), or, when it
 * {@link looksLikeUrl}, the words `(a value that looks like a url, not shown)`: no message ever repeats a url,
 * whichever field or column it was put in.
 *
 * @param value the value (a string)
 * @param max the most characters shown (default 100)
 */
export function shownValue(value: string, max = 100): string {
  if (looksLikeUrl(value)) return URL_LIKE;
  return value.length > max ? `${JSON.stringify(value.slice(0, max))}…` : JSON.stringify(value);
}

/** What a url reason offers as the example of a valid url. */
const EXPECTED_URL = "an absolute http or https URL such as https://hooks.example.com/helpdesk";

/** The longest slice of a bad event name or id echoed in a reason, in characters (a request body may hold 1 MiB). */
const MAX_ECHOED_EVENT = 100;

/**
 * Whitespace (JavaScript `\s`, Unicode White_Space plus U+FEFF), control characters (Unicode Cc: C0, DEL, C1) and
 * invisible format characters (Unicode Cf: zero-width spaces, bidi overrides). WHATWG URL parsing silently strips
 * some of them (leading/trailing spaces, tabs and newlines anywhere, zero-width characters in hosts), so the URL that
 * receives deliveries would differ from the one the user wrote or sees.
 */
const INVISIBLE = /[\s\p{Cc}\p{Cf}]/u;

/** An RFC 3986 §3.1 scheme followed by `:`. */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/**
 * `http:` or `https:` (any case, RFC 3986 §3.1), then `//` and a first authority character that starts a userinfo or
 * a host: the authority must be present as typed, not repaired by WHATWG parsing (`https:///x` → `https://x/`).
 */
const HTTP_WITH_AUTHORITY = /^https?:\/\/[^/?#]/i;

/**
 * The url rule of {@link webhookUrlProblem} in one sentence, for people: what the native provider's schema says of
 * `url`. Keep it in step with the numbered rule below.
 */
export const URL_RULE_DESCRIPTION =
  `An absolute http or https URL as typed, host present, at most ${MAX_URL_LENGTH} characters, without spaces, ` +
  "control or invisible characters or backslashes (userinfo, IP literals, ports, queries and non-ASCII hosts are allowed). " +
  "The help desk POSTs each delivery to it (docs/helpdesk-api.md §2.1). It may carry a credential: pass it as a secret and it stays one.";

/** One failing field of a webhook's inputs: which field, and a reason saying what was wrong and what is allowed. */
export interface WebhookProblem {
  /** The input property (docs/helpdesk-api.md §2.1 field name). */
  field: "event" | "url";
  /** A human sentence that starts with the field name; never contains the url value. */
  reason: string;
}

/**
 * Why `value` is not a webhook event name, or `undefined` when it is one (docs/helpdesk-api.md §2.1, §4.3, §6).
 *
 * Valid: exactly one of the 14 names of {@link EVENTS}, case-sensitive, no surrounding spaces. A near miss (typo,
 * other case, dashes) gets a suggestion from {@link nearestEvent}; every reason lists the allowed names.
 *
 * @param value anything: a program's input, a JSON or form field of a request body
 * @returns e.g. `event "ticket_open" is not a help-desk event. Did you mean "ticket_opened"? Allowed values: …`; the
 *   bad name is echoed by {@link shownValue} (JSON-quoted, at most 100 characters, never when it looks like a url);
 *   never throws
 */
export function webhookEventProblem(value: unknown): string | undefined {
  if (isWebhookEvent(value)) return undefined;
  const allowed = `Allowed values: ${EVENTS.join(", ")}`;
  if (value === undefined || value === null || value === "") return `event is required. ${allowed}`;
  if (typeof value !== "string") return `event must be a string, got ${typeName(value)}. ${allowed}`;
  const nearest = looksLikeUrl(value) ? undefined : nearestEvent(value);
  const hint = nearest ? ` Did you mean "${nearest}"?` : "";
  return `event ${shownValue(value, MAX_ECHOED_EVENT)} is not a help-desk event.${hint} ${allowed}`;
}

/**
 * Why `value` is not a webhook URL, or `undefined` when it is one (docs/helpdesk-api.md §2.1, §4.3; the rule is this project's).
 *
 * Valid, checked in this order (the first failure is the reason):
 * 1. a non-empty string (`undefined`, `null` and `""` are "required");
 * 2. at most {@link MAX_URL_LENGTH} (2048) UTF-16 code units;
 * 3. no whitespace, control or invisible format character anywhere, leading and trailing included (no trimming);
 * 4. no backslash anywhere: WHATWG reads `\` as `/` in http(s) URLs where RFC 3986 parsers do not, so
 *    `https://a.example\@b.example/` would mean one host here and another elsewhere;
 * 5. scheme `http` or `https`, in any case (`HTTPS://H.EXAMPLE` is valid, RFC 3986 §3.1);
 * 6. `//` and an authority as typed: `https:///x`, `https:/x`, `http:x`, `https://?q` are refused although WHATWG
 *    parsing would repair some of them into another host;
 * 7. parses with WHATWG `new URL` with a non-empty host (so ports above 65535, bad IPv4 or IPv6 literals, `%`-encoded
 *    forbidden host characters and `https://user@/x` are refused).
 *
 * Allowed: userinfo (`https://user:pass@h.example/`, a credential some receivers use), IPv4 and IPv6 literals
 * (`https://[::1]:8443/p`), any port WHATWG accepts (0 to 65535; an empty port as in `h.example:/` too), queries,
 * fragments (kept as typed; never sent by HTTP clients), non-ASCII hosts (IDNA) and paths (percent-encoded on the
 * wire), `localhost` and loopback addresses (the provider warns separately about plain http to a remote host).
 *
 * @param value anything: a program's input, a JSON or form field of a request body
 * @returns a sentence starting with `url` that says what was wrong and what is allowed; it never contains the url
 *   (only its length, a character position or its scheme when written as `scheme://`); never throws
 */
export function webhookUrlProblem(value: unknown): string | undefined {
  if (value === undefined || value === null || value === "") return `url is required: ${EXPECTED_URL}`;
  if (typeof value !== "string") return `url must be a string, got ${typeName(value)}: ${EXPECTED_URL}`;
  if (value.length > MAX_URL_LENGTH) {
    return `url is ${value.length} characters long; at most ${MAX_URL_LENGTH} are allowed`;
  }
  const invisible = INVISIBLE.exec(value);
  if (invisible) {
    return (
      `url contains whitespace or an invisible or control character at position ${invisible.index + 1}; ` +
      `percent-encode it (a space is %20) or remove it`
    );
  }
  const backslash = value.indexOf("\\");
  if (backslash >= 0) {
    return `url contains a backslash at position ${backslash + 1}; use / in paths or percent-encode it as %5C`;
  }
  const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) return `url is not an absolute URL (no scheme): expected ${EXPECTED_URL}`;
  if (scheme !== "http" && scheme !== "https") {
    // Name the scheme only when it is plainly a short one (`ftp://`): in `user:pass@host` it would be a username.
    const plain = scheme.length <= 20 && value.startsWith("//", scheme.length + 1);
    const named = plain ? ` got "${scheme}"` : " got another scheme";
    return `url must use http or https,${named}: ${EXPECTED_URL}`;
  }
  if (!HTTP_WITH_AUTHORITY.test(value)) {
    return `url must name its host right after "${scheme}://" (e.g. ${scheme}://hooks.example.com/path); a missing or empty host, or fewer than two slashes, is not accepted`;
  }
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return `url is not a valid URL (its host, port or userinfo is malformed): ${EXPECTED_URL}`;
  }
  if (parsed.hostname === "") return `url has an empty host: ${EXPECTED_URL}`;
  return undefined;
}

/**
 * Every failing field of a webhook's inputs, `event` first, then `url` (docs/helpdesk-api.md §2.1, §4.3, §6).
 *
 * @param inputs the `event` and `url` as given (any types; other properties are ignored)
 * @returns one {@link WebhookProblem} per failing field, empty when both are valid; never throws
 */
export function webhookProblems(inputs: { event?: unknown; url?: unknown }): WebhookProblem[] {
  const problems: WebhookProblem[] = [];
  const event = webhookEventProblem(inputs.event);
  if (event !== undefined) problems.push({ field: "event", reason: event });
  const url = webhookUrlProblem(inputs.url);
  if (url !== undefined) problems.push({ field: "url", reason: url });
  return problems;
}

/** A value's kind for a reason: `number`, `boolean`, `array`, `object`, … */
function typeName(value: unknown): string {
  return Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * The longest accepted webhook id, in UTF-16 code units. The spec shows no id format (docs/helpdesk-api.md §4.4 only
 * says `:id` identifies the webhook); 255 is this project's bound, far above any id an API mints (`wh_` plus a few
 * dozen characters) and short enough that a hostile response cannot grow state or requests.
 */
export const MAX_ID_LENGTH = 255;

/**
 * The id rule in one sentence, for people: what an error about an id says is allowed. Keep it in step with
 * {@link webhookIdProblem}.
 */
export const ID_RULE_DESCRIPTION =
  `a webhook id is one non-empty path segment of at most ${MAX_ID_LENGTH} characters: no "/", ` +
  'no whitespace, control or invisible characters, and not "." or ".."';

/**
 * Why `value` is not a webhook id, or `undefined` when it is one: the one rule for every place an id enters (the
 * create response, `pulumi import`, `pulumi-helpdesk import`'s file, a delete), so that an id is always exactly the one
 * path segment of `DELETE /v1/webhooks/:id` (docs/helpdesk-api.md §4.4) and can never become the collection
 * (`.` resolves to `/v1/webhooks/`) or the API root (`..` to `/v1/`) under RFC 3986 §5.2.4 dot-segment removal.
 *
 * Valid: a string of 1 to {@link MAX_ID_LENGTH} characters with no `/`, no whitespace, control or invisible format
 * character, and not `.` or `..`. Anything else in it (`%`, `?`, `#`, non-ASCII) is percent-encoded when sent
 * ({@link webhookIdPath}).
 *
 * @param value anything: a create response's field, an import id, a file's cell
 * @returns a sentence starting with `id` that says what is wrong and what is allowed, echoing the id by
 *   {@link shownValue} (at most 100 characters, never one that looks like a url: a url in the wrong column); never
 *   throws
 * @home what a webhook id is (one path segment, not `.` or `..`, at most 255 characters)
 */
export function webhookIdProblem(value: unknown): string | undefined {
  const allowed = ID_RULE_DESCRIPTION;
  if (value === undefined || value === null || value === "") return `id is required: ${allowed}`;
  if (typeof value !== "string") return `id must be a string, got ${typeName(value)}: ${allowed}`;
  if (value.length > MAX_ID_LENGTH) return `id is ${value.length} characters long: ${allowed}`;
  const shown = shownValue(value, MAX_ECHOED_EVENT);
  if (value === "." || value === "..")
    return `id ${shown} is a dot-segment, which would address another path than one webhook: ${allowed}`;
  if (value.includes("/")) return `id ${shown} contains "/": ${allowed}`;
  if (INVISIBLE.test(value)) return `id ${shown} contains whitespace or an invisible or control character: ${allowed}`;
  return undefined;
}

/**
 * The API path of one webhook, `/v1/webhooks/<id>` with the id percent-encoded (docs/helpdesk-api.md §4.4).
 *
 * @param id a webhook id
 * @throws Error with {@link webhookIdProblem}'s reason when `id` breaks the id rule: no request may be built from it
 * @home a webhook's path (create response, `import`, delete)
 */
export function webhookIdPath(id: string): string {
  const problem = webhookIdProblem(id);
  if (problem !== undefined) throw new Error(problem);
  return `/v1/webhooks/${encodeURIComponent(id)}`;
}

/**
 * The `state` recorded for an adopted webhook (the `import` resource option, and `pulumi-helpdesk import`, which
 * writes the same record): the API cannot read a webhook (docs/helpdesk-api.md §4.5), so its state is not known.
 * @home the state of an adopted webhook (the `import` resource option, `pulumi-helpdesk import`)
 */
export const ADOPTED_STATE = "unknown";
