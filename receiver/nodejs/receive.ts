/**
 * Receiving one delivery, whatever the server: the checks in the order every kit makes them (method, token, size,
 * content, event, record), each refusal from receiver/nodejs/refusals.ts, and on success the delivery typed by its
 * event (kernel/record-schemas.ts `parseDelivery`). The Node.js and fetch handlers run the same steps, reading the
 * body between the token check and the rest so that a forged POST is refused before any of its body is read.
 */
import type { WebhookEvent } from "../../kernel/events.js";
import { type Delivery, DeliveryParseError, parseDelivery } from "../../kernel/record-schemas.js";
import {
  ACCEPTED_STATUS,
  DEFAULT_MAX_BODY_BYTES,
  isJsonContentType,
  MAX_JSON_DEPTH,
  REFUSALS,
  type Refusal,
  type RefusalCode,
  refusal,
} from "./refusals.js";
import { type AcceptedTokens, checkedTokens, ReceiverConfigError, verifyWith } from "./verify.js";

/** A refused delivery: the status and the JSON body to answer with. */
export interface Refused {
  /** The refusal's status (405, 401, 413, 415 or 400; 500 comes from a handler, never from here). */
  status: number;
  /** The response's JSON body. */
  refusal: Refusal;
}

/** An accepted delivery: answer 204 once the service has handled it. */
export interface Accepted {
  /** Always 204. */
  status: typeof ACCEPTED_STATUS;
  /** The delivery, typed by its event: `{ event, kind, record }`. */
  delivery: Delivery;
  /** Which accepted token the url carried (its index in the receiver's tokens). */
  tokenIndex: number;
}

/** What {@link receiveDelivery} makes of a request: accepted, or refused with a status and a body. */
export type Reception = Accepted | Refused;

/** What the receiver learnt from a request's method and url, before reading its body. */
export interface Admitted {
  /** Which accepted token the url carried. */
  tokenIndex: number;
  /** The url's event, `undefined` when missing, repeated or unknown (refused once the body is read). */
  event: WebhookEvent | undefined;
}

/**
 * Checks a receiver's body cap.
 *
 * @param maxBodyBytes the cap in bytes: a positive safe integer, default {@link DEFAULT_MAX_BODY_BYTES} (1 MiB)
 * @returns the cap
 * @throws {ReceiverConfigError} `invalid_option` for anything else
 */
export function bodyCap(maxBodyBytes: number | undefined): number {
  if (maxBodyBytes === undefined) return DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1)
    throw new ReceiverConfigError(
      "invalid_option",
      `maxBodyBytes must be a positive whole number of bytes (default ${DEFAULT_MAX_BODY_BYTES}); got ${typeof maxBodyBytes === "number" ? maxBodyBytes : typeof maxBodyBytes}`,
    );
  return maxBodyBytes;
}

/**
 * A refusal as a {@link Refused}, with its status from the table.
 *
 * @param code the refusal's code
 */
export function refused(code: RefusalCode): Refused {
  return { status: REFUSALS[code].status, refusal: refusal(code) };
}

/**
 * The first two checks, which need no body: the method (405) and the token (401).
 *
 * @param method the request's method (`POST` only is a delivery; compared as sent, methods being case-sensitive,
 *   RFC 9110 §9.1)
 * @param requestUrl the request's url, path and query (or absolute)
 * @param tokens the accepted tokens, checked (verify.ts `acceptedTokens`)
 * @returns the token's index and the url's event, or the refusal
 */
export function admit(method: string, requestUrl: string, tokens: readonly string[]): Admitted | Refused {
  if (method !== "POST") return refused("method_not_allowed");
  const verification = verifyWith(requestUrl, tokens);
  if (!verification.verified) return refused("unauthorized");
  return { tokenIndex: verification.tokenIndex, event: verification.event };
}

/**
 * The size check that needs no body: a declared Content-Length over the cap (413). A missing or unreadable one is
 * left to the reading, which stops at the cap.
 *
 * @param contentLength the Content-Length header's value, if any
 * @param cap the body cap in bytes
 * @returns the refusal, or `undefined`
 */
export function declaredTooLarge(contentLength: string | null | undefined, cap: number): Refused | undefined {
  if (contentLength === undefined || contentLength === null || !/^[0-9]+$/.test(contentLength.trim())) return undefined;
  return Number(contentLength.trim()) > cap ? refused("too_large") : undefined;
}

/** Decodes UTF-8 strictly: a byte order mark is kept (JSON.parse then refuses it, as Python's and Go's parsers do). */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Whether a parsed JSON value nests deeper than {@link MAX_JSON_DEPTH}, walked without recursion (JSON.parse reads a
 * body nested a million deep; a recursive walk would overflow the stack on it).
 */
function nestsTooDeep(value: unknown): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (typeof next.value !== "object" || next.value === null) continue;
    if (next.depth > MAX_JSON_DEPTH) return true;
    const children = Array.isArray(next.value) ? next.value : Object.values(next.value);
    for (const child of children)
      if (typeof child === "object" && child !== null) stack.push({ value: child, depth: next.depth + 1 });
  }
  return false;
}

/**
 * The last checks, on the whole body: the content (415), the event (400) and the record (400).
 *
 * @param admitted what {@link admit} found
 * @param contentType the Content-Type header's value, `undefined` when absent
 * @param body the body's bytes (already within the cap), or its text
 * @returns the accepted delivery, or the refusal (an `invalid_record` one names the field, from the schema)
 */
export function parseBody(
  admitted: Admitted,
  contentType: string | undefined,
  body: Uint8Array | string,
): Accepted | Refused {
  if (!isJsonContentType(contentType)) return refused("not_json");
  let value: unknown;
  try {
    value = JSON.parse(typeof body === "string" ? body : utf8.decode(body));
  } catch {
    return refused("not_json");
  }
  if (nestsTooDeep(value)) return refused("not_json");
  if (admitted.event === undefined) return refused("unknown_event");
  try {
    return { status: ACCEPTED_STATUS, delivery: parseDelivery(admitted.event, value), tokenIndex: admitted.tokenIndex };
  } catch (error) {
    if (!(error instanceof DeliveryParseError)) throw error;
    return {
      status: REFUSALS.invalid_record.status,
      refusal: { error: "invalid_record", message: error.message, field: error.field },
    };
  }
}

/**
 * Whether a body is larger than the cap, its text counted in UTF-8 bytes. A text of at most cap / 3 UTF-16 units is
 * within the cap without being encoded: a unit is at most 3 UTF-8 bytes (a surrogate pair 4 for 2, a lone one 3, as
 * U+FFFD).
 *
 * @param body the body's bytes, or its text
 * @param cap the body cap in bytes
 */
function passesCap(body: Uint8Array | string, cap: number): boolean {
  if (typeof body !== "string") return body.length > cap;
  if (body.length * 3 <= cap) return false;
  return new TextEncoder().encode(body).length > cap;
}

/** A request as {@link receiveDelivery} reads it, whole. */
export interface DeliveryRequest {
  /** e.g. `"POST"` */
  method: string;
  /** The url as the server saw it: path and query (`/hooks?helpdesk_event=…&helpdesk_token=…`), or absolute. */
  requestUrl: string;
  /** The Content-Type header's value, `undefined` when absent. */
  contentType?: string | undefined;
  /** The whole body: its bytes, or its text (counted in UTF-8 bytes against the cap). */
  body: Uint8Array | string;
  /** The accepted tokens: one, or several during a rotation. */
  tokens: AcceptedTokens;
  /** The body cap in bytes (default 1 MiB). */
  maxBodyBytes?: number;
}

/**
 * Receives one delivery whose body is already read (for a framework that buffers bodies; the handlers of node.ts and
 * fetch.ts read it themselves, stopping at the cap). Checks, in this order: method (405), token (401), size (413),
 * content (415), event (400 `unknown_event`), record (400 `invalid_record`, naming the field).
 *
 * @param request the request, the accepted tokens and the cap
 * @returns `{ status: 204, delivery, tokenIndex }`, or `{ status, refusal }` whose `refusal` is the JSON body to send
 * @throws {ReceiverConfigError} when the tokens or the cap are not valid (never for anything of the request)
 */
export function receiveDelivery(request: DeliveryRequest): Reception {
  const tokens = checkedTokens(request.tokens);
  const cap = bodyCap(request.maxBodyBytes);
  const admitted = admit(request.method, request.requestUrl, tokens);
  if ("refusal" in admitted) return admitted;
  if (passesCap(request.body, cap)) return refused("too_large");
  return parseBody(admitted, request.contentType, request.body);
}
