/**
 * Which failed requests never reached the server, defined once, as one function: {@link neverSent}. It decides things
 * that must agree: whether a `POST /v1/webhooks` that got no response may have created a webhook, so that it is neither
 * sent again nor passed over in silence (`provider/core/retry.ts` `mayHaveCreated`), and whether a refresh request
 * certainly issued no tokens, so its pending marker can be cleared (`auth/grant.ts`, RFC 9700 §4.14.2).
 */

/**
 * Node.js and undici error codes raised before a request was written to a connection: refused or unreachable, the
 * name not resolved, or the connection not established in time.
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * Whether a request that failed was certainly never sent: the connection was never made.
 *
 * @param error a failure, whose `code` (or whose causes' `code`, up to 5 deep, as fetch wraps undici's and the
 *   provider's `HttpExchangeError` wraps Node's) is examined
 * @returns true when one of them is in {@link NOT_SENT_CODES}; false when the request may have reached the server
 * @home which failed requests never reached the server
 */
export function neverSent(error: unknown): boolean {
  for (
    let cause: unknown = error, depth = 0;
    cause && depth <= 5;
    cause = (cause as { cause?: unknown }).cause, depth++
  ) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && NOT_SENT_CODES.has(code)) return true;
  }
  return false;
}
