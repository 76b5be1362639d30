/**
 * The delivery token: how a receiver tells a help-desk delivery from a forged POST when the help desk signs nothing.
 *
 * The help desk promises no proof of origin and no delivery header (docs/helpdesk-api.md §5.8, §6): the one thing it
 * repeats back is the url it was given (§2.1, §4.3). So the url carries the proof. A webhook with a delivery token is
 * registered at its declared url with two query parameters appended: {@link DELIVERY_TOKEN_PARAM} (the token, a
 * secret shared with the receiver only through Pulumi's secret outputs) and {@link DELIVERY_EVENT_PARAM} (its event,
 * which no header promises to say). A receiver accepts a POST only when the token in its query is one it knows,
 * compared in constant time, and reads the body as the record of the event in its query.
 *
 * No `node:` import and no dependency: the receiver kits bundle this module for Node.js, serverless and edge runtimes.
 * The provider mints tokens with `node:crypto`.
 * @home the delivery token: its query parameters, what a valid token is, the registered url, the constant-time match
 */
import { isWebhookEvent, type WebhookEvent } from "./events.js";

/** The query parameter of a registered url that carries the delivery token. */
export const DELIVERY_TOKEN_PARAM = "helpdesk_token";

/** The query parameter of a registered url that carries the webhook's event (docs/helpdesk-api.md §6 names). */
export const DELIVERY_EVENT_PARAM = "helpdesk_event";

/** The prefix of a minted token: it tells secret scanners and people what the value is. */
export const MINTED_TOKEN_PREFIX = "hdt_";

/** Random bytes in a minted token: 256 bits, twice the floor of 128. */
export const MINTED_TOKEN_BYTES = 32;

/** The fewest characters of a token given by a user: 22 base64url characters carry 132 bits. */
export const MIN_TOKEN_LENGTH = 22;

/** The most characters of a token given by a user. */
export const MAX_TOKEN_LENGTH = 256;

/**
 * A token's characters: RFC 3986 §2.3's unreserved characters, which a url carries as they are (no percent-encoding
 * to differ between the help desk, a proxy and the receiver).
 */
const TOKEN_CHARACTERS = /^[A-Za-z0-9._~-]+$/;

/** What a valid delivery token is, in one sentence, for people (schema descriptions, errors, docs). */
export const DELIVERY_TOKEN_RULE = `${MIN_TOKEN_LENGTH} to ${MAX_TOKEN_LENGTH} characters of A-Z, a-z, 0-9, ".", "_", "~" and "-" (a minted token is "${MINTED_TOKEN_PREFIX}" and ${MINTED_TOKEN_BYTES} random bytes in base64url)`;

/**
 * What is wrong with a delivery token, or `undefined` when it is valid. The reason never contains the token.
 *
 * @param token any value (a program's input, a receiver's configuration)
 * @returns `undefined`, or a reason such as `a delivery token must be 22 to 256 characters of …; got 12 characters`
 */
export function deliveryTokenProblem(token: unknown): string | undefined {
  if (typeof token !== "string") return `a delivery token must be a string of ${DELIVERY_TOKEN_RULE}`;
  if (token.length < MIN_TOKEN_LENGTH || token.length > MAX_TOKEN_LENGTH)
    return `a delivery token must be ${DELIVERY_TOKEN_RULE}; got ${token.length} characters`;
  if (!TOKEN_CHARACTERS.test(token))
    return `a delivery token must be ${DELIVERY_TOKEN_RULE}; got another character (not shown)`;
  return undefined;
}

/**
 * What is wrong with a declared url that is to carry a delivery token, or `undefined`: it must not already hold
 * either query parameter (the receiver would read the wrong one) nor a fragment (the help desk would not send it, and
 * the parameters must go before it).
 *
 * @param url a url that already passed the webhook url rule (kernel/webhook-rules.ts)
 * @returns `undefined`, or a reason that never repeats the url
 */
export function tokenUrlProblem(url: string): string | undefined {
  const parsed = URL.parse(url);
  if (parsed === null) return "the url is not an absolute URL";
  for (const name of [DELIVERY_TOKEN_PARAM, DELIVERY_EVENT_PARAM])
    if (parsed.searchParams.has(name))
      return `the url already has a "${name}" query parameter, which the delivery token adds: remove it from the url`;
  if (url.includes("#")) return "the url has a fragment (#...): a url that carries a delivery token cannot";
  return undefined;
}

/**
 * The url registered with the help desk for a webhook with a delivery token: the declared url with
 * `helpdesk_event=<event>&helpdesk_token=<token>` appended to its query, every other character as the user wrote it.
 *
 * @param url the declared url (valid by kernel/webhook-rules.ts and {@link tokenUrlProblem})
 * @param event the webhook's event
 * @param token a valid delivery token ({@link deliveryTokenProblem})
 * @returns the registered url, e.g. `https://hooks.example.com/h?x=1&helpdesk_event=ticket_opened&helpdesk_token=hdt_…`
 * @throws Error when the token or the url breaks its rule (the message never shows either)
 */
export function registeredUrl(url: string, event: WebhookEvent, token: string): string {
  const tokenProblem = deliveryTokenProblem(token);
  if (tokenProblem) throw new Error(tokenProblem);
  const urlProblem = tokenUrlProblem(url);
  if (urlProblem) throw new Error(urlProblem);
  const separator = url.includes("?") ? (url.endsWith("?") || url.endsWith("&") ? "" : "&") : "?";
  return `${url}${separator}${DELIVERY_EVENT_PARAM}=${event}&${DELIVERY_TOKEN_PARAM}=${token}`;
}

/**
 * The declared url of a registered url: the url without the two query parameters {@link registeredUrl} appended
 * (what `import` and `migrate` read back to keep an existing token).
 *
 * @param url a url as the help desk holds it
 * @returns `{ url, event, token }`: the declared url, and the event and token it carries (each `undefined` when absent)
 */
export function splitRegisteredUrl(url: string): { url: string; event: string | undefined; token: string | undefined } {
  const query = url.indexOf("?");
  if (query === -1) return { url, event: undefined, token: undefined };
  let event: string | undefined;
  let token: string | undefined;
  const kept: string[] = [];
  for (const pair of url.slice(query + 1).split("&")) {
    const equals = pair.indexOf("=");
    const name = equals === -1 ? pair : pair.slice(0, equals);
    const value = equals === -1 ? "" : pair.slice(equals + 1);
    if (name === DELIVERY_EVENT_PARAM) event = value;
    else if (name === DELIVERY_TOKEN_PARAM) token = value;
    else kept.push(pair);
  }
  const base = url.slice(0, query);
  return { url: kept.length > 0 ? `${base}?${kept.join("&")}` : base, event, token };
}

/** What {@link withTokenHidden} writes in place of a token's value. */
export const HIDDEN_TOKEN = "(hidden)";

/**
 * A registered url as it may be shown to a person (the CLI's report of a delivery, say): the delivery token's value
 * replaced by {@link HIDDEN_TOKEN}, everything else as it is. A url without the token comes back unchanged.
 *
 * @param url a url as the help desk holds it
 * @returns e.g. `https://hooks.example.com/h?helpdesk_event=ticket_opened&helpdesk_token=(hidden)`
 */
export function withTokenHidden(url: string): string {
  const split = splitRegisteredUrl(url);
  if (split.token === undefined) return url;
  const separator = split.url.includes("?") ? "&" : "?";
  const event = split.event === undefined ? "" : `${DELIVERY_EVENT_PARAM}=${split.event}&`;
  return `${split.url}${separator}${event}${DELIVERY_TOKEN_PARAM}=${HIDDEN_TOKEN}`;
}

/**
 * What a delivery's url says: its token and its event, read from the query of the request's url (a path with a
 * query, as Node.js's `req.url` has it, or an absolute url). Repeated parameters count as missing: the help desk
 * sends the url it was given, which has each once.
 *
 * @param requestUrl `/hooks?helpdesk_event=…&helpdesk_token=…` or `https://host/hooks?…`
 * @returns `{ token, event }`, each `undefined` when absent or repeated; `event` is only a known event name
 */
export function deliveryParams(requestUrl: string): { token: string | undefined; event: WebhookEvent | undefined } {
  const query = requestUrl.indexOf("?");
  if (query === -1) return { token: undefined, event: undefined };
  const text = requestUrl.slice(query + 1);
  const { token, event } = NEEDS_DECODING.test(text) ? decodedParams(text) : plainParams(text);
  return { token, event: isWebhookEvent(event) ? event : undefined };
}

/**
 * What makes URLSearchParams's reading of a query differ from splitting it at `&` and `=`: a percent-escape, a `+`
 * (a space), a lone surrogate (U+FFFD). A query with none of them (the one the help desk sends back, as
 * {@link registeredUrl} wrote it) is read by {@link plainParams}, which finds what URLSearchParams would, without
 * building it.
 */
const NEEDS_DECODING = /[%+\uD800-\uDFFF]/;

/** The token and the event of a query as URLSearchParams reads it: each `undefined` when absent or repeated. */
function decodedParams(query: string): { token: string | undefined; event: string | undefined } {
  const params = new URLSearchParams(query);
  const tokens = params.getAll(DELIVERY_TOKEN_PARAM);
  const events = params.getAll(DELIVERY_EVENT_PARAM);
  return {
    token: tokens.length === 1 ? tokens[0] : undefined,
    event: events.length === 1 ? events[0] : undefined,
  };
}

/**
 * {@link decodedParams} of a query with nothing to decode (no `%`, `+` nor lone surrogate): the same split as the
 * WHATWG form-urlencoded parser's (at each `&`, then at a pair's first `=`; a pair without one has an empty value),
 * after URLSearchParams's dropping of a leading `?`.
 */
function plainParams(query: string): { token: string | undefined; event: string | undefined } {
  let token: string | undefined;
  let event: string | undefined;
  let tokens = 0;
  let events = 0;
  // A leading "?" is dropped, as URLSearchParams drops it from a string (a url with "??" in it).
  for (let start = query.startsWith("?") ? 1 : 0; start <= query.length; ) {
    let end = query.indexOf("&", start);
    if (end === -1) end = query.length;
    const equals = query.indexOf("=", start);
    const split = equals === -1 || equals > end ? end : equals;
    // The name is compared in place (no slice per pair): a delivery's query is read once per request.
    if (isName(query, start, split, DELIVERY_TOKEN_PARAM)) {
      tokens++;
      token = query.slice(split === end ? end : split + 1, end);
    } else if (isName(query, start, split, DELIVERY_EVENT_PARAM)) {
      events++;
      event = query.slice(split === end ? end : split + 1, end);
    }
    start = end + 1;
  }
  return { token: tokens === 1 ? token : undefined, event: events === 1 ? event : undefined };
}

/** Whether `query` holds exactly `name` from `start` to `end` (exclusive). */
function isName(query: string, start: number, end: number, name: string): boolean {
  return end - start === name.length && query.startsWith(name, start);
}

/**
 * Whether `given` equals one of `accepted`, in time that depends on the lengths of the accepted tokens only, never on
 * where `given` first differs nor on which one matched: every accepted token is compared in full, character by
 * character, with no early exit (the attacker chooses `given`; the accepted tokens are the secret).
 *
 * @param given the token of a request (`undefined` when it had none)
 * @param accepted the tokens the receiver accepts: several during a rotation
 * @returns the index in `accepted` of the first token equal to `given`, or -1 (an empty accepted token matches nothing)
 */
export function matchToken(given: string | undefined, accepted: readonly string[]): number {
  let found = -1;
  const text = given ?? "";
  for (let i = 0; i < accepted.length; i++) {
    const secret = accepted[i] ?? "";
    // A length difference is folded into the same accumulator; the loop runs over the secret's length, so its time
    // says how long the secret is (which the minted form makes public anyway), never how much of it was guessed.
    let difference = text.length ^ secret.length;
    // A character past the given token's end counts as 0 (the length difference already tells them apart): a read
    // past a string's end is JavaScript's slow path. Two loops with no branch inside: the first over the characters
    // both have, the second over the rest of the secret; together they run over the secret's length, whatever `given` is.
    const shared = Math.min(secret.length, text.length);
    for (let j = 0; j < shared; j++) difference |= secret.charCodeAt(j) ^ text.charCodeAt(j);
    for (let j = shared; j < secret.length; j++) difference |= secret.charCodeAt(j);
    if (difference === 0 && given !== undefined && secret.length > 0 && found === -1) found = i;
  }
  return found;
}
