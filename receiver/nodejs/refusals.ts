/**
 * What a receiver answers, in every kit: the status, error code and message of each refusal, the body cap's default
 * and what counts as a JSON media type. The TypeScript kit reads this table; scripts/receiver/generate.ts writes it
 * into the Python and Go kits (their `_contract.py` and `contract_gen.go`), so the three answer alike, word for word.
 *
 * The help desk promises nothing of a receiver's response (docs/helpdesk-api.md §6, "the expected response from the
 * receiver: not shown"): the statuses are HTTP's own meanings (RFC 9110 §15), and a success is `204 No Content`, which
 * any sender that only looks for a 2xx takes as delivered.
 *
 * No refusal shows anything of the request's url (its query holds the token), nor of its headers or body, but for
 * the dotted name of the failing field of a record, which the record's schema names (kernel/record-schemas.ts).
 * @home the receiver kits' answers: the status, error code and message of each refusal, the body cap's default, the JSON media types
 */

/** The default cap of a delivery's body, in bytes: 1 MiB. A record is a few KiB; the help desk states no limit (docs/helpdesk-api.md §8). */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/**
 * How deeply a delivery's JSON may nest: arrays and objects inside one another, the body itself counting 1 (`{}` is 1,
 * `{"a": [1]}` is 2). A record nests 3 deep; the bound is there so that every kit reads the same bodies (Python's
 * parser recurses, Go's stops at 10000, JavaScript's has no bound) and a deeper body is `not_json` in all three.
 */
export const MAX_JSON_DEPTH = 512;

/** The status of an accepted delivery: 204 No Content (RFC 9110 §15.3.5). */
export const ACCEPTED_STATUS = 204;

/**
 * Every refusal, in the order a receiver checks (method, token, size, content, event, record; then the handler):
 * its status (RFC 9110 §15.5, §15.6) and the fixed message of its JSON body `{ "error": <code>, "message": <message> }`.
 * A record refusal's message is made from the schema's finding instead, and its body adds `"field"`.
 */
export const REFUSALS = {
  /** Not a POST (RFC 9110 §15.5.6; the response's `Allow: POST` says what is). */
  method_not_allowed: { status: 405, message: "a delivery is a POST" },
  /** No token in the url's query, or one the receiver does not accept: one answer for both, which tells nothing. */
  unauthorized: { status: 401, message: "the delivery's token is missing or not accepted" },
  /** A body over the cap (RFC 9110 §15.5.14), known from Content-Length or found while reading. */
  too_large: { status: 413, message: "the delivery's body is larger than this receiver accepts" },
  /**
   * A Content-Type that is not JSON's, or a body that is not UTF-8 JSON nested at most {@link MAX_JSON_DEPTH} deep
   * (RFC 9110 §15.5.16; RFC 8259 §8.1).
   */
  not_json: {
    status: 415,
    message: `a delivery's body is JSON (RFC 8259) in UTF-8 without a byte order mark, nested at most ${MAX_JSON_DEPTH} deep, sent as application/json or a */*+json media type`,
  },
  /** The url's query names no event, an unknown one, or several (kernel/delivery-token.ts `deliveryParams`). */
  unknown_event: {
    status: 400,
    message: "the delivery's url names no known event in its helpdesk_event query parameter",
  },
  /** The body is not the record of the url's event (the message is the schema's finding; the body adds `field`). */
  invalid_record: { status: 400, message: "the delivery's body is not the record of its event" },
  /** The receiver's own handler failed: nothing of why is said (it is the service's, not the sender's, business). */
  handler_failed: { status: 500, message: "the receiver failed to handle the delivery" },
} as const;

/** The error code of a refusal, the `error` of its JSON body, e.g. `"unauthorized"`. */
export type RefusalCode = keyof typeof REFUSALS;

/** The refusal codes in the order a receiver checks them. */
export const REFUSAL_CODES = Object.keys(REFUSALS) as RefusalCode[];

/**
 * A refusal's JSON body: `{ error, message }`, and for `invalid_record` the dotted path of the first field that breaks
 * the record's schema (`""` for the body itself), e.g. `{ "error": "invalid_record", "message": "...", "field":
 * "links.state.href" }`.
 */
export interface Refusal {
  /** The refusal's code, a key of {@link REFUSALS}. */
  error: RefusalCode;
  /** What was wrong and what is allowed; never any part of the url, nor of a token. */
  message: string;
  /** `invalid_record` only: the first failing field's dotted path (`""`: the body is not an object). */
  field?: string;
}

/**
 * The refusal of a code, with its fixed message.
 *
 * @param error a refusal code
 * @returns `{ error, message }`
 */
export function refusal(error: RefusalCode): Refusal {
  return { error, message: REFUSALS[error].message };
}

/**
 * Whether a Content-Type header names JSON: its media type (before any `;` parameter, case-insensitive, spaces and
 * tabs trimmed) is `application/json` or has the structured syntax suffix `+json` (RFC 6839 §3.1), e.g.
 * `application/problem+json`. Parameters, `charset` included, are ignored: JSON is UTF-8 (RFC 8259 §8.1). An absent or
 * empty header names nothing, and any body is read as JSON: the help desk promises no header (docs/helpdesk-api.md
 * §6), and WSGI cannot tell an empty header from none (PEP 3333, `CONTENT_TYPE`).
 *
 * @param contentType the header's value, or `undefined` when the request has none
 * @returns `true` when absent, empty or JSON's; `false` otherwise
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  const semicolon = contentType.indexOf(";");
  const mediaType = (semicolon === -1 ? contentType : contentType.slice(0, semicolon))
    .replace(/^[ \t]+|[ \t]+$/g, "")
    .toLowerCase();
  if (mediaType === "" && semicolon === -1) return true;
  const slash = mediaType.indexOf("/");
  if (slash <= 0) return false;
  const type = mediaType.slice(0, slash);
  const subtype = mediaType.slice(slash + 1);
  if (subtype.includes("/") || /[ \t]/.test(mediaType)) return false;
  return (type === "application" && subtype === "json") || (subtype.length > 5 && subtype.endsWith("+json"));
}
