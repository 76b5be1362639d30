/**
 * What the Node.js handler (node.ts) and the fetch handler (fetch.ts) share: their options, checked once when a
 * handler is made; the reading of a body that stops at the cap; the call of the service's `onDelivery`; the JSON body
 * of a refusal. No `node:` import: the fetch handler runs where there is none.
 */
import { messageOf } from "../../kernel/errors.js";
import type { WebhookEvent } from "../../kernel/events.js";
import type { Delivery } from "../../kernel/record-schemas.js";
import type { DeliveryContext } from "./dispatch.js";
import { type Accepted, bodyCap, type Refused, refused } from "./receive.js";
import type { Refusal } from "./refusals.js";
import { type AcceptedTokens, acceptedTokens, ReceiverConfigError } from "./verify.js";

/** The options of {@link createNodeHandler} and {@link createFetchHandler}. */
export interface ReceiverOptions {
  /**
   * The accepted delivery tokens: the webhook's token (a secret output of the webhook), or several during a
   * rotation, or the tokens of several webhooks that deliver to this receiver. Each 22 to 256 characters of
   * `A-Za-z0-9._~-`.
   */
  tokens: AcceptedTokens;
  /**
   * Handles an accepted delivery; the response (204) waits for it. Throwing (or rejecting) answers 500, with no detail.
   * A {@link DeliveryRouter}'s `dispatch` fits here.
   */
  onDelivery: (delivery: Delivery, context: DeliveryContext) => unknown;
  /** The body cap in bytes (default 1 MiB): a larger body is refused with 413 as soon as the cap is passed. */
  maxBodyBytes?: number;
  /**
   * Told when a delivery is answered 500: what `onDelivery` threw (or what broke the handler), and the url's event
   * when known (default: one line on the console's error stream with the event and the error's message).
   */
  onError?: (error: unknown, event: WebhookEvent | undefined) => void;
}

/** A handler's options, checked. */
export interface Receiver {
  tokens: readonly string[];
  cap: number;
  onDelivery: ReceiverOptions["onDelivery"];
  onError: NonNullable<ReceiverOptions["onError"]>;
}

/**
 * Checks a handler's options.
 *
 * @param options as {@link ReceiverOptions}
 * @returns them checked, with the defaults filled in
 * @throws {ReceiverConfigError} `invalid_tokens` (naming the token's index, never the token) or `invalid_option`
 */
export function receiverOf(options: ReceiverOptions): Receiver {
  if (typeof options !== "object" || options === null)
    throw new ReceiverConfigError("invalid_option", "a receiver's options are an object: { tokens, onDelivery }");
  const tokens = acceptedTokens(options.tokens);
  if (typeof options.onDelivery !== "function")
    throw new ReceiverConfigError("invalid_option", "onDelivery must be a function: (delivery, context) => ...");
  if (options.onError !== undefined && typeof options.onError !== "function")
    throw new ReceiverConfigError("invalid_option", "onError must be a function: (error, event) => ...");
  return {
    tokens,
    cap: bodyCap(options.maxBodyBytes),
    onDelivery: options.onDelivery,
    onError:
      options.onError ??
      ((error, event) =>
        console.error(`${event === undefined ? "a" : `a ${event}`} delivery was answered 500: ${messageOf(error)}`)),
  };
}

/**
 * Tells the service's error reporter why a delivery is answered 500; a reporter that throws changes nothing.
 *
 * @param receiver the handler's options
 * @param error what was thrown
 * @param event the url's event, when known
 */
export function report(receiver: Receiver, error: unknown, event: WebhookEvent | undefined): void {
  try {
    receiver.onError(error, event);
  } catch {
    // A failing error reporter changes nothing of the answer.
  }
}

/**
 * Runs the service's handler on an accepted delivery.
 *
 * @returns `undefined` when it returned (answer 204), or the `handler_failed` refusal (500) when it threw
 */
export async function deliver(receiver: Receiver, accepted: Accepted): Promise<Refused | undefined> {
  try {
    await receiver.onDelivery(accepted.delivery, { tokenIndex: accepted.tokenIndex });
    return undefined;
  } catch (error) {
    report(receiver, error, accepted.delivery.event);
    return refused("handler_failed");
  }
}

/**
 * Reads a body chunk by chunk, stopping as soon as it passes the cap (nothing more is read or kept).
 *
 * @param next gives the next chunk, or `undefined` at the end
 * @param cap the body cap in bytes
 * @param stop called once when the cap is passed (e.g. to cancel the stream)
 * @returns the whole body, or `undefined` when it passed the cap
 */
export async function readCapped(
  next: () => Promise<Uint8Array | undefined>,
  cap: number,
  stop: () => void,
): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await next(); chunk !== undefined; chunk = await next()) {
    size += chunk.length;
    if (size > cap) {
      stop();
      return undefined;
    }
    chunks.push(chunk);
  }
  return joined(chunks, size);
}

/**
 * The chunks of a body as one array of `size` bytes (the one chunk itself when there is one).
 *
 * @param chunks the body's chunks, in order
 * @param size their total length in bytes
 */
export function joined(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

/** The headers and body of a refusal: JSON, `Allow: POST` on a 405. */
export function refusalResponse(refusal: Refusal): { headers: Record<string, string>; body: Uint8Array } {
  const body = new TextEncoder().encode(JSON.stringify(refusal));
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "content-length": String(body.length),
    "cache-control": "no-store",
  };
  if (refusal.error === "method_not_allowed") headers.allow = "POST";
  return { headers, body };
}
