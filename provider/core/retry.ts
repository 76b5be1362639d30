/**
 * When to retry an API request, and after how long.
 *
 * - 429 and 503: retried for every method, after `Retry-After` (RFC 9110 §10.2.3: seconds or an HTTP date) when
 *   given, else exponential backoff. Both mean the request was not processed, so a POST is safe to resend.
 * - other 5xx: retried for DELETE only (idempotent, RFC 9110 §9.2.2); a POST may have created the webhook.
 * - no answer: DELETE always; POST only when the request never reached the server (`kernel/not-sent.ts`).
 * Backoff: "full jitter", a random delay in [0, min(cap, base · 2^attempt)].
 */
import { NOT_SENT_CODES } from "../../kernel/not-sent.js";

/** What came back from one attempt. */
export type AttemptOutcome =
  | { kind: "response"; status: number; retryAfter: string | undefined }
  | { kind: "error"; code: string | undefined };

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
export function retryDelay(method: "POST" | "DELETE", outcome: AttemptOutcome, attempt: number, random: () => number = Math.random): number | undefined {
  const backoff = () => Math.floor(random() * Math.min(BACKOFF.capMs, BACKOFF.baseMs * 2 ** attempt));
  if (outcome.kind === "error") {
    const safe = method === "DELETE" || (outcome.code !== undefined && NOT_SENT_CODES.has(outcome.code));
    return safe ? backoff() : undefined;
  }
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
