/**
 * A webhook's delivery-token inputs: which inputs ask for a token, what each may be, which outputs carry it, and what
 * they mean for people. Read by the provider's `check` and `diff` (both front ends), the native schema, the
 * TypeScript `Webhook` class and the policy pack, so a green `pulumi preview` is never followed by a refused `up`.
 *
 * Opt-in: a webhook that sets none of them is registered at its url as before (upgrading changes no webhook). The
 * token itself, its query parameters and the registered url are `kernel/delivery-token.ts`'s.
 *
 * No reason here ever holds a url or a token: both are secrets (docs/design.md "Outputs and error messages").
 * @home which inputs turn a delivery token on, their rules, the token's secret outputs and their descriptions
 */
import {
  DELIVERY_TOKEN_PARAM,
  DELIVERY_TOKEN_RULE,
  deliveryTokenProblem,
  MINTED_TOKEN_BYTES,
  MINTED_TOKEN_PREFIX,
  registeredUrl,
  tokenUrlProblem,
} from "./delivery-token.js";
import { EVENTS, isWebhookEvent } from "./events.js";
import { UNKNOWN } from "./pulumi-wire.js";
import { MAX_URL_LENGTH, webhookUrlProblem } from "./webhook-rules.js";

/** The inputs of a webhook's delivery token, by the name programs, the schema and state give them. */
export const DELIVERY_TOKEN_INPUTS = ["useDeliveryToken", "deliveryToken", "deliveryTokenRotation"] as const;

/** One of {@link DELIVERY_TOKEN_INPUTS}. */
export type DeliveryTokenInput = (typeof DELIVERY_TOKEN_INPUTS)[number];

/**
 * The outputs that hold a delivery token, always secret whatever the inputs were: the token, and the url registered
 * with it (which carries it). The native provider wraps them, the TypeScript `Webhook` names them in
 * `additionalSecretOutputs`, the schema marks them `secret`.
 */
export const DELIVERY_TOKEN_SECRET_OUTPUTS = ["deliveryToken", "registeredUrl"] as const;

/** The most characters of a `deliveryTokenRotation` (any text: a date, a counter, a ticket number). */
export const MAX_ROTATION_LENGTH = 256;

/** The length of a minted token: the prefix and {@link MINTED_TOKEN_BYTES} bytes in unpadded base64url. */
const MINTED_TOKEN_LENGTH = MINTED_TOKEN_PREFIX.length + Math.ceil((MINTED_TOKEN_BYTES * 4) / 3);

/** What people read of each input and secret output: the native schema's descriptions and the SDKs' docs. */
export const DELIVERY_TOKEN_DESCRIPTIONS = {
  useDeliveryToken:
    "True: the webhook gets a delivery token, minted by the provider (256 random bits) unless `deliveryToken` gives one. " +
    `The help desk is given \`url\` with \`helpdesk_event=<event>&${DELIVERY_TOKEN_PARAM}=<token>\` appended to its query, and a ` +
    "receiver accepts a POST only when it carries the token (the receiver kits verify it). Off by default; turning it on or off replaces the webhook.",
  deliveryToken:
    `Your own delivery token instead of a minted one: ${DELIVERY_TOKEN_RULE}. Giving it turns the token on. Always a secret. ` +
    "As an output, the token in use (minted or given), for the receiver's configuration. Changing it replaces the webhook (create before delete).",
  deliveryTokenRotation:
    `Any text (at most ${MAX_ROTATION_LENGTH} characters, e.g. a date): changing it replaces the webhook with one holding a newly minted ` +
    "token, created before the old one is deleted, so a receiver that accepts both tokens loses no delivery. Only with a minted token.",
  registeredUrl:
    "The url the help desk holds: `url` with the delivery token's query appended (absent without a token). Always a secret: it carries the token.",
} as const;

/** Whether a value is present: not `undefined` and not `null` (an SDK may send either for an unset input). */
function isGiven(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * The delivery-token inputs a webhook's inputs give, and no other property: what `check` records and `create` reads.
 *
 * @param inputs a webhook's inputs (any values; Pulumi's unknown sentinel is kept as it is)
 * @returns each of {@link DELIVERY_TOKEN_INPUTS} that is neither `undefined` nor `null`, as given
 */
export function givenTokenInputs(
  inputs: { readonly [name in DeliveryTokenInput]?: unknown },
): Partial<Record<DeliveryTokenInput, unknown>> {
  const given: Partial<Record<DeliveryTokenInput, unknown>> = {};
  for (const name of DELIVERY_TOKEN_INPUTS) if (isGiven(inputs[name])) given[name] = inputs[name];
  return given;
}

/**
 * Whether a webhook's inputs ask for a delivery token: `useDeliveryToken` is true, or a `deliveryToken` is given.
 *
 * @param inputs a webhook's inputs as given, plain (no secret wrappers); values may be Pulumi's unknown sentinel
 * @returns `true`, `false`, or `"unknown"` while `useDeliveryToken` is not known yet (preview) and no token is given
 */
export function wantsDeliveryToken(inputs: {
  readonly useDeliveryToken?: unknown;
  readonly deliveryToken?: unknown;
}): boolean | "unknown" {
  if (isGiven(inputs.deliveryToken)) return true;
  if (inputs.useDeliveryToken === UNKNOWN) return "unknown";
  return inputs.useDeliveryToken === true;
}

/** One failing delivery-token input (or the url, when it cannot carry a token). */
export interface DeliveryTokenProblem {
  /** The input. */
  readonly field: DeliveryTokenInput | "url";
  /** What was wrong and what is allowed; never a token or a url. */
  readonly reason: string;
}

/**
 * Every problem of a webhook's delivery-token inputs, and of its url as the carrier of a token. Unknown values (preview)
 * pass; they are checked again at `up`.
 *
 * - `useDeliveryToken`: true or false;
 * - `deliveryToken`: {@link DELIVERY_TOKEN_RULE}, and not with `useDeliveryToken: false`;
 * - `deliveryTokenRotation`: text of at most {@link MAX_ROTATION_LENGTH} characters, only with a minted token (not with
 *   `deliveryToken`: a given token is rotated by changing it);
 * - the url, with a token on: no `helpdesk_event` or `helpdesk_token` query parameter of its own, no fragment, and at most
 *   2048 characters once the token's query is appended.
 *
 * @param inputs a webhook's inputs as given, plain; other properties are ignored
 * @returns the problems, empty when there are none; never throws
 */
export function deliveryTokenInputProblems(inputs: Readonly<Record<string, unknown>>): DeliveryTokenProblem[] {
  const { useDeliveryToken: use, deliveryToken: token, deliveryTokenRotation: rotation, url, event } = inputs;
  const problems: DeliveryTokenProblem[] = [];
  if (isGiven(use) && use !== UNKNOWN && typeof use !== "boolean")
    problems.push({ field: "useDeliveryToken", reason: "useDeliveryToken must be true or false" });
  if (isGiven(token) && token !== UNKNOWN) {
    const problem = deliveryTokenProblem(token);
    if (problem !== undefined) problems.push({ field: "deliveryToken", reason: `deliveryToken: ${problem}` });
    if (use === false)
      problems.push({
        field: "deliveryToken",
        reason:
          "deliveryToken is given but useDeliveryToken is false: remove one of them (a given token turns the token on)",
      });
  }
  if (isGiven(rotation) && rotation !== UNKNOWN) {
    if (typeof rotation !== "string" || rotation.length > MAX_ROTATION_LENGTH)
      problems.push({
        field: "deliveryTokenRotation",
        reason: `deliveryTokenRotation must be text of at most ${MAX_ROTATION_LENGTH} characters (a date, a counter)`,
      });
    if (isGiven(token))
      problems.push({
        field: "deliveryTokenRotation",
        reason:
          "deliveryTokenRotation rotates a minted token: with your own deliveryToken, rotate by changing deliveryToken",
      });
    else if (use !== true && use !== UNKNOWN)
      problems.push({
        field: "deliveryTokenRotation",
        reason: "deliveryTokenRotation needs useDeliveryToken: true (it rotates the minted token)",
      });
  }
  if (wantsDeliveryToken(inputs) === true && typeof url === "string" && webhookUrlProblem(url) === undefined) {
    const problem = tokenUrlProblem(url);
    if (problem !== undefined) problems.push({ field: "url", reason: `url: ${problem}` });
    else {
      // The registered url must pass the url rule too (the help desk holds it): measure it with the longest event
      // when the event is not known, and a token of the length it will have.
      const length =
        typeof token === "string" && token !== UNKNOWN && deliveryTokenProblem(token) === undefined
          ? token.length
          : MINTED_TOKEN_LENGTH;
      const longest = isWebhookEvent(event) ? event : EVENTS.reduce((a, b) => (b.length > a.length ? b : a));
      const registered = registeredUrl(url, longest, "x".repeat(Math.max(length, 22)));
      if (registered.length > MAX_URL_LENGTH)
        problems.push({
          field: "url",
          reason: `url: with the delivery token's query appended it would be ${registered.length} characters long; at most ${MAX_URL_LENGTH} are allowed`,
        });
    }
  }
  return problems;
}
