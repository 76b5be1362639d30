/**
 * The provider core: what a help-desk webhook is to Pulumi, in domain terms and for no protocol in particular —
 * check, which changes replace it, create, delete, and the adoption that stands in for a read — shared by the two
 * front ends: the dynamic provider (`provider/dynamic/index.ts`, Pulumi's `dynamic.ResourceProvider` for the TypeScript
 * `Webhook`) and the native plugin (`provider/native/`, gRPC for every language). Neither front end imports the other;
 * both turn their protocol's values into the types here and back.
 *
 * The domain types (`WebhookSpec`, `Webhook`) are in `provider/core/webhook-types.ts`, which the HTTP client shares.
 *
 * Loading: `check` and `replacedFields` need only the webhook rule (`kernel/webhook-rules.ts`); the HTTP client, the
 * OAuth client and the token cache are loaded on the first `create` or `delete` (`./connect.ts`), so a `preview`
 * with nothing to create loads none of them.
 */

import { registerSecret } from "../../auth/redact.js";
import { DELIVERY_TOKEN_PARAM, registeredUrl } from "../../kernel/delivery-token.js";
import {
  type DeliveryTokenInput,
  deliveryTokenInputProblems,
  givenTokenInputs,
  wantsDeliveryToken,
} from "../../kernel/delivery-token-inputs.js";
import { UNKNOWN } from "../../kernel/pulumi-wire.js";
import { ADOPTED_STATE, webhookIdProblem, webhookProblems } from "../../kernel/webhook-rules.js";
import { HELPDESK_ERROR_CODES, HelpdeskError } from "./errors.js";
import { mintDeliveryToken } from "./mint-token.js";
import type { Target } from "./target.js";
import { warn } from "./warnings.js";
import type { Webhook, WebhookField, WebhookSpec } from "./webhook-types.js";

/** One failing input of {@link checkWebhook}. */
export interface WebhookFailure {
  /** The input: `event`, `url` or one of the delivery token's. */
  readonly property: WebhookField;
  /** Why, for people; never the url's value nor a token. */
  readonly reason: string;
}

/** What {@link checkWebhook} returns. */
export interface WebhookCheck {
  /**
   * The inputs to record: `event`, `url` and the delivery-token inputs that are given (`kernel/delivery-token-inputs.ts`),
   * as given (any may be {@link UNKNOWN} in preview).
   */
  readonly inputs: Readonly<Record<string, unknown>>;
  /** Every failing input at once; empty when the inputs are valid. */
  readonly failures: readonly WebhookFailure[];
}

/**
 * Check: validates a webhook's inputs with the one webhook rule (`kernel/webhook-rules.ts`, also the emulator's 422)
 * and the delivery token's (`kernel/delivery-token-inputs.ts`), so a green preview is not followed by a refused `up`.
 * Other inputs (a dynamic provider's `__provider`) are dropped.
 *
 * @param news the inputs as the engine sends them, plain (no secret wrappers); a value may be {@link UNKNOWN}, which
 *   passes (it is checked again at `up`)
 * @returns the inputs to record and the failures (`event`: one of the 14 names, a near miss gets a suggestion; `url`:
 *   see `URL_RULE_DESCRIPTION`; the token inputs: see `deliveryTokenInputProblems`)
 */
export function checkWebhook(news: Readonly<Record<string, unknown>>): WebhookCheck {
  const { event, url } = news;
  const failures: WebhookFailure[] = webhookProblems({ event, url })
    .filter((problem) => news[problem.field] !== UNKNOWN)
    .map((problem) => ({ property: problem.field, reason: problem.reason }));
  for (const problem of deliveryTokenInputProblems(news))
    failures.push({ property: problem.field, reason: problem.reason });
  return { inputs: { event, url, ...givenTokenInputs(news) }, failures };
}

/**
 * The spec of checked inputs as both front ends receive them at create or adoption: `event`, `url` and the
 * delivery-token inputs that are given, and nothing else (no `__provider`, no `undefined` field: outputs built from it
 * stay JSON-clean).
 *
 * @param inputs checked inputs, plain (no secret wrappers, no unknowns: create and adoption run with known values)
 */
export function webhookSpec(
  inputs: { readonly [name in "event" | "url" | DeliveryTokenInput]?: unknown },
): WebhookSpec {
  return { event: inputs.event, url: String(inputs.url), ...givenTokenInputs(inputs) } as WebhookSpec;
}

/**
 * Diff: the fields whose change replaces the webhook (the API has no update endpoint, §4.5):
 * - `event` or `url` changed;
 * - `useDeliveryToken`: the token turned on or off (the recorded outputs hold a `deliveryToken` exactly when it was on);
 * - `deliveryToken`: a given token differs from the recorded one (no token given keeps the recorded one, minted or not);
 * - `deliveryTokenRotation` changed while the token is on.
 * Anything else (a new dynamic provider shim after an upgrade, say) is no change, so upgrading changes no webhook.
 *
 * @param olds the recorded webhook (its outputs, plain)
 * @param news the checked new inputs (plain)
 * @returns the changed fields, e.g. `["url"]`; empty when nothing changed
 */
export function replacedFields(
  olds: Readonly<Record<string, unknown>>,
  news: Readonly<Record<string, unknown>>,
): WebhookField[] {
  const fields: WebhookField[] = (["event", "url"] as const).filter((field) => olds[field] !== news[field]);
  const had = olds.deliveryToken !== undefined && olds.deliveryToken !== null;
  const wants = wantsDeliveryToken(news);
  if (wants !== had) fields.push("useDeliveryToken");
  const token = news.deliveryToken;
  if (token !== undefined && token !== null && token !== olds.deliveryToken) fields.push("deliveryToken");
  if (wants !== false && (olds.deliveryTokenRotation ?? undefined) !== (news.deliveryTokenRotation ?? undefined))
    fields.push("deliveryTokenRotation");
  return fields;
}

/**
 * Create: registers the webhook (`POST /v1/webhooks`, docs/helpdesk-api.md §4.3), with retries and token refresh.
 * With a delivery token on (`kernel/delivery-token-inputs.ts` `wantsDeliveryToken`), the token is the given one or a
 * newly minted one (`./mint-token.ts`), and the help desk is given the registered url (`kernel/delivery-token.ts`
 * `registeredUrl`): the declared url with the token's query appended. Url, registered url and token are registered for
 * redaction before any request, so no message, log or error shows them.
 *
 * @param target the help desk
 * @param spec the checked inputs
 * @returns the webhook as recorded: `url` as declared; with a token, `deliveryToken` and `registeredUrl` set
 * @throws HelpdeskError `credentials` (no base URL or access token, or a refresh that failed), `http`, `network`,
 *   `protocol` (no id in the response: the message says a webhook may exist and how to find it); SettingError
 *   `config`; messages name no credential
 */
export async function createWebhook(target: Target, spec: WebhookSpec): Promise<Webhook> {
  registerSecret(spec.url); // a webhook url may carry a credential; a server echoing it must not show it
  const token = wantsDeliveryToken(spec) === true ? (spec.deliveryToken ?? mintDeliveryToken()) : undefined;
  const registered = token === undefined ? spec.url : registeredUrl(spec.url, spec.event, token);
  if (token !== undefined) {
    registerSecret(token);
    registerSecret(registered);
  }
  const client = (await import("./connect.js")).connect(target);
  const { id, event, state } = await client.createWebhook({ event: spec.event, url: registered });
  return withToken({ ...spec, id, event, url: spec.url, state }, token, registered);
}

/** The webhook with its token and registered url when it has a token; as it is otherwise. */
function withToken(webhook: Webhook, token: string | undefined, registered: string): Webhook {
  return token === undefined ? webhook : { ...webhook, deliveryToken: token, registeredUrl: registered };
}

/**
 * Delete: removes the webhook (`DELETE /v1/webhooks/:id`, docs/helpdesk-api.md §4.4). A webhook already gone (404:
 * removed in the web UI, say) counts as deleted, with a warning.
 *
 * The id is checked first, with the id rule (`kernel/webhook-rules.ts` `webhookIdProblem`): an id that breaks it
 * (`.`, `..`, `a/b`, empty, too long: from a state written before the rule, or edited by hand) would address another
 * path than one webhook, so nothing is sent and the message says how to drop the resource from the stack.
 *
 * @param target the help desk
 * @param webhook the recorded webhook (its `url`, registered url and token are registered for redaction; `event`
 *   names it in the warning)
 * @throws HelpdeskError `operation` for an id that breaks the id rule (before any request or token refresh); as
 *   {@link createWebhook} otherwise (`protocol` only for a response too long to read)
 */
export async function deleteWebhook(
  target: Target,
  webhook: Pick<Webhook, "id" | "event" | "url" | "deliveryToken" | "registeredUrl">,
): Promise<void> {
  const problem = webhookIdProblem(webhook.id);
  if (problem !== undefined) {
    throw new HelpdeskError(
      HELPDESK_ERROR_CODES.OPERATION,
      `delete webhook: refused to send a request: the recorded ${problem}. Delete the webhook in the help desk's webhook page, ` +
        "then remove the resource from the stack with `pulumi state delete <urn>` (`pulumi stack --show-urns` lists the URNs).",
    );
  }
  for (const secret of [webhook.url, webhook.registeredUrl, webhook.deliveryToken])
    if (secret !== undefined) registerSecret(secret);
  const client = (await import("./connect.js")).connect(target);
  if ((await client.deleteWebhook(webhook.id)) === "not_found") {
    warn(
      `webhook ${webhook.id} (${webhook.event}) was already gone from the help desk (deleted outside Pulumi); removed it from the stack`,
    );
  }
}

/**
 * Adoption, the core's response to a read: the help-desk API has no endpoint to read a webhook (§4.5), so a webhook
 * imported with the `import` resource option is recorded with the declared `event` and `url`, trusted, not read, and
 * state {@link ADOPTED_STATE}; no request is sent. A webhook adopted with a delivery token keeps the token it was
 * registered with, which must therefore be given (`deliveryToken`): a minted one would not be the one in the url the
 * help desk holds.
 *
 * @param id the webhook's id as the program gave it
 * @param spec the declared inputs
 * @throws HelpdeskError `operation` when the token is on but not given (the message says where to find it)
 */
export function adoptWebhook(id: string, spec: WebhookSpec): Webhook {
  const adopted: Webhook = { ...spec, id, state: ADOPTED_STATE };
  if (wantsDeliveryToken(spec) !== true) return adopted;
  if (spec.deliveryToken === undefined)
    throw new HelpdeskError(
      HELPDESK_ERROR_CODES.OPERATION,
      "cannot adopt a webhook with useDeliveryToken and no deliveryToken: the help-desk API cannot read the token it was registered with. " +
        `Give deliveryToken: the ${DELIVERY_TOKEN_PARAM} query parameter of the url the help desk shows for the webhook (as a secret), ` +
        "and url without the token's query.",
    );
  registerSecret(spec.deliveryToken);
  return withToken(adopted, spec.deliveryToken, registeredUrl(spec.url, spec.event, spec.deliveryToken));
}
