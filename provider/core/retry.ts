/**
 * When to retry an API request, and after how long.
 *
 * - 429 and 503: retried for every method, after `Retry-After` (RFC 9110 §10.2.3: seconds or an HTTP date) when
 *   given, else exponential backoff. Both mean the request was not processed, so a POST is safe to resend.
 * - other 5xx: retried for DELETE only (idempotent, RFC 9110 §9.2.2); a POST may have created the webhook.
 * - no response: DELETE always; POST only when it cannot have created a webhook ({@link mayHaveCreated}).
 * Backoff: "full jitter", a random delay in [0, min(cap, base · 2^attempt)].
 */
import { neverSent } from "../../kernel/not-sent.js";

/** What came back from one attempt: a response, or the failure of an exchange that got none. */
export type AttemptOutcome =
  | { kind: "response"; status: number; retryAfter: string | undefined }
  | { kind: "error"; error: unknown };

/**
 * Whether a request that got no response may have created a webhook: a POST that may have reached the API, that is,
 * one not proven never sent (`kernel/not-sent.ts`). Decided here once, for both consequences: such a request is not
 * sent again ({@link retryDelay}), and the person is told a webhook may exist (`client.ts`).
 *
 * @param method HTTP method of the request (a DELETE creates nothing)
 * @param error the failure of the exchange (`HttpExchangeError` of http.ts, which keeps Node's error as `cause`)
 * @home whether a failed request may have created a webhook (no resend; the hint)
 */
export function mayHaveCreated(method: "POST" | "DELETE", error: unknown): boolean {
  return method === "POST" && !neverSent(error);
}

/** Base and cap of the exponential backoff, in milliseconds. */
export const BACKOFF = { baseMs: 250, capMs: 20_000, retryAfterCapMs: 60_000 } as const;

/**
 * Decides whether to retry.
 *
 * @param method HTTP method of the request
 * @param outcome what the attempt produced
 * @param attempt zero-based number of the attempt that produced it
 * @param random a source of uniform [0,1) numbers (tests pass their own)
 * @returns the delay in milliseconds before the next attempt, or undefined for "do not retry"
 */
export function retryDelay(
  method: "POST" | "DELETE",
  outcome: AttemptOutcome,
  attempt: number,
  random: () => number = Math.random,
): number | undefined {
  const backoff = () => Math.floor(random() * Math.min(BACKOFF.capMs, BACKOFF.baseMs * 2 ** attempt));
  if (outcome.kind === "error") return mayHaveCreated(method, outcome.error) ? undefined : backoff();
  const { status } = outcome;
  if (status === 429 || status === 503) {
    const hinted = parseRetryAfter(outcome.retryAfter);
    return hinted === undefined ? backoff() : Math.min(hinted, BACKOFF.retryAfterCapMs) + Math.floor(random() * 100);
  }
  if (status >= 500 && method === "DELETE") return backoff();
  return undefined;
}

/**
 * Parses a `Retry-After` value (RFC 9110 §10.2.3).
 *
 * @param value delta-seconds (`"2"`) or an HTTP date
 * @returns milliseconds to wait (>= 0), or undefined when absent or unparseable
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
