/**
 * Verifying a delivery: the token in its url's query is one the receiver accepts (kernel/delivery-token.ts, the
 * contract: the query parameters, the token rule and the constant-time match). Several tokens are accepted at once
 * during a rotation: the old webhook's and the new one's both live through the `pulumi up` that replaces it.
 */
import { DELIVERY_TOKEN_RULE, deliveryParams, deliveryTokenProblem, matchToken } from "../../kernel/delivery-token.js";
import { PulumiHelpdeskError } from "../../kernel/errors.js";
import type { WebhookEvent } from "../../kernel/events.js";

/**
 * Thrown when a receiver is given tokens or options it cannot work with, at its construction (never while receiving).
 * The message names which token (by its index) and what is wrong with it, never the token itself.
 */
export class ReceiverConfigError extends PulumiHelpdeskError<"invalid_tokens" | "invalid_option"> {
  /**
   * @param code `invalid_tokens` (the accepted tokens) or `invalid_option` (another option)
   * @param message what is wrong and what is allowed, e.g. `tokens[1]: a delivery token must be 22 to 256 characters
   *   of …; got 12 characters`
   * @param options `cause`, when there is one
   */
  constructor(code: "invalid_tokens" | "invalid_option", message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
  }
}

/** The tokens a receiver accepts: one, or several during a rotation (each 22 to 256 characters of `A-Za-z0-9._~-`). */
export type AcceptedTokens = string | readonly string[];

/**
 * Checks the tokens a receiver is given and returns them as a list.
 *
 * @param tokens one token or a non-empty list of them, each valid by kernel/delivery-token.ts `deliveryTokenProblem`
 * @returns the tokens as a frozen list, in the order given (a match reports its index in it)
 * @throws {ReceiverConfigError} `invalid_tokens` when there is none, or one breaks the token rule (naming its index,
 *   e.g. `tokens[1]: a delivery token must be …; got 12 characters`; never the token)
 */
export function acceptedTokens(tokens: AcceptedTokens): readonly string[] {
  const list: readonly unknown[] = typeof tokens === "string" ? [tokens] : Array.isArray(tokens) ? tokens : [tokens];
  if (list.length === 0)
    throw new ReceiverConfigError(
      "invalid_tokens",
      `a receiver needs at least one delivery token to accept (${DELIVERY_TOKEN_RULE}): tokens is empty`,
    );
  for (const [index, token] of list.entries()) {
    const problem = deliveryTokenProblem(token);
    if (problem) throw new ReceiverConfigError("invalid_tokens", `tokens[${index}]: ${problem}`);
  }
  return Object.freeze([...(list as string[])]);
}

/** What {@link verifyDelivery} found in a delivery's url. */
export type Verification =
  | {
      /** The url carries one token and it is an accepted one. */
      verified: true;
      /** Its index in the accepted tokens (0 for a single token; during a rotation, which webhook sent it). */
      tokenIndex: number;
      /** The url's event (its `helpdesk_event` query parameter), `undefined` when missing, repeated or unknown. */
      event: WebhookEvent | undefined;
    }
  | { verified: false; tokenIndex: -1; event: undefined };

/**
 * Verifies a delivery by its url: exactly one `helpdesk_token` query parameter, equal to one of the accepted tokens,
 * compared in constant time (kernel/delivery-token.ts `matchToken`: every accepted token compared in full). Never
 * throws for any url; it throws only for the tokens it is given.
 *
 * @param input.requestUrl the request's url as the server saw it: a path with its query (`req.url` of Node.js) or an
 *   absolute url (`Request.url`), e.g. `/hooks?helpdesk_event=ticket_opened&helpdesk_token=hdt_…`
 * @param input.tokens the accepted tokens (see {@link acceptedTokens})
 * @returns `{ verified: true, tokenIndex, event }`, or `{ verified: false, tokenIndex: -1, event: undefined }` (no
 *   token, a repeated one, or one not accepted: a forged POST, or a replay on another webhook's url)
 * @throws {ReceiverConfigError} as {@link acceptedTokens}, for the accepted tokens only
 */
export function verifyDelivery(input: { requestUrl: string; tokens: AcceptedTokens }): Verification {
  return verifyWith(input.requestUrl, checkedTokens(input.tokens));
}

/** The tokens last given to {@link checkedTokens}, as they were then (a list's own copy), and their checked list. */
let lastChecked:
  | { given: AcceptedTokens; copy: readonly unknown[] | undefined; checked: readonly string[] }
  | undefined;

/**
 * {@link acceptedTokens}, remembered for the tokens of the last call: a service that calls {@link verifyDelivery} or
 * `receiveDelivery` on each request with the same tokens has them checked once. The same string, or the same list
 * holding the same strings as when it was checked (a list changed since is checked again), gives the list checked
 * then; anything else is checked, and throws, as {@link acceptedTokens} does.
 *
 * @param tokens as {@link acceptedTokens}'s
 * @returns as {@link acceptedTokens}
 * @throws {ReceiverConfigError} as {@link acceptedTokens}
 */
export function checkedTokens(tokens: AcceptedTokens): readonly string[] {
  const last = lastChecked;
  if (last !== undefined && last.given === tokens && (last.copy === undefined || sameItems(last.copy, tokens)))
    return last.checked;
  const checked = acceptedTokens(tokens);
  lastChecked = { given: tokens, copy: typeof tokens === "string" ? undefined : [...tokens], checked };
  return checked;
}

/** Whether a list holds the same items, in the same order, as a copy of it made earlier. */
function sameItems(copy: readonly unknown[], list: AcceptedTokens): boolean {
  if (typeof list === "string" || list.length !== copy.length) return false;
  for (let i = 0; i < copy.length; i++) if (list[i] !== copy[i]) return false;
  return true;
}

/**
 * {@link verifyDelivery} with tokens already checked by {@link acceptedTokens} (the handlers check them once, at
 * their construction).
 *
 * @param requestUrl as {@link verifyDelivery}'s
 * @param tokens the result of {@link acceptedTokens}
 * @returns as {@link verifyDelivery}
 */
export function verifyWith(requestUrl: string, tokens: readonly string[]): Verification {
  let params: ReturnType<typeof deliveryParams>;
  try {
    params = deliveryParams(String(requestUrl));
  } catch {
    // URLSearchParams decodes percent-escapes leniently and does not throw today; a url it could not read is one
    // with no token.
    return { verified: false, tokenIndex: -1, event: undefined };
  }
  const tokenIndex = matchToken(params.token, tokens);
  return tokenIndex === -1
    ? { verified: false, tokenIndex: -1, event: undefined }
    : { verified: true, tokenIndex, event: params.event };
}
