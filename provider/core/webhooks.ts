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
import { UNKNOWN } from "../../kernel/pulumi-wire.js";
import { ADOPTED_STATE, webhookIdProblem, webhookProblems } from "../../kernel/webhook-rules.js";
import { HELPDESK_ERROR_CODES, HelpdeskError } from "./errors.js";
import type { Target } from "./target.js";
import { warn } from "./warnings.js";
import type { Webhook, WebhookField, WebhookSpec } from "./webhook-types.js";

/** One failing input of {@link checkWebhook}. */
export interface WebhookFailure {
  /** The input, `event` or `url`. */
  readonly property: WebhookField;
  /** Why, for people; never the url's value. */
  readonly reason: string;
}

/** What {@link checkWebhook} returns. */
export interface WebhookCheck {
  /** The inputs to record: `event` and `url` only, as given (either may be {@link UNKNOWN} in preview). */
  readonly inputs: { readonly event: unknown; readonly url: unknown };
  /** Every failing input at once; empty when the inputs are valid. */
  readonly failures: readonly WebhookFailure[];
}

/**
 * Check: validates a webhook's inputs with the one webhook rule (`kernel/webhook-rules.ts`, also the emulator's 422), so
 * a green preview is not followed by a refused `up`. Other inputs (a dynamic provider's `__provider`) are dropped.
 *
 * @param news the inputs as the engine sends them, plain (no secret wrappers); a value may be {@link UNKNOWN}, which
 *   passes (it is checked again at `up`)
 * @returns the inputs to record and the failures (`event`: one of the 14 names, a near miss gets a suggestion; `url`:
 *   see `URL_RULE_DESCRIPTION`)
 */
export function checkWebhook(news: Readonly<Record<string, unknown>>): WebhookCheck {
  const { event, url } = news;
  const failures = webhookProblems({ event, url })
    .filter((problem) => news[problem.field] !== UNKNOWN)
    .map((problem) => ({ property: problem.field, reason: problem.reason }));
  return { inputs: { event, url }, failures };
}

/**
 * Diff: the fields whose change replaces the webhook. Only `event` and `url` count; anything else (a new dynamic
 * provider shim after an upgrade, say) is no change.
 *
 * @param olds the recorded webhook (plain)
 * @param news the checked new inputs (plain)
 * @returns the changed fields, e.g. `["url"]`; empty when nothing changed
 */
export function replacedFields(
  olds: Readonly<Record<string, unknown>>,
  news: Readonly<Record<string, unknown>>,
): WebhookField[] {
  return (["event", "url"] as const).filter((field) => olds[field] !== news[field]);
}

/**
 * Create: registers the webhook (`POST /v1/webhooks`, docs/helpdesk-api.md §4.3), with retries and token refresh.
 *
 * @param target the help desk
 * @param spec the checked inputs
 * @returns the webhook as registered
 * @throws HelpdeskError `credentials` (no base URL or access token, or a refresh that failed), `http`, `network`,
 *   `protocol` (no id in the response: the message says a webhook may exist and how to find it); SettingError
 *   `config`; messages name no credential
 */
export async function createWebhook(target: Target, spec: WebhookSpec): Promise<Webhook> {
  registerSecret(spec.url); // a webhook url may carry a credential; a server echoing it must not show it
  const client = (await import("./connect.js")).connect(target);
  return client.createWebhook(spec);
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
 * @param webhook the recorded webhook (its `url` is registered for redaction; `event` names it in the warning)
 * @throws HelpdeskError `operation` for an id that breaks the id rule (before any request or token refresh); as
 *   {@link createWebhook} otherwise (`protocol` only for a response too long to read)
 */
export async function deleteWebhook(target: Target, webhook: Pick<Webhook, "id" | "event" | "url">): Promise<void> {
  const problem = webhookIdProblem(webhook.id);
  if (problem !== undefined) {
    throw new HelpdeskError(
      HELPDESK_ERROR_CODES.OPERATION,
      `delete webhook: refused to send a request: the recorded ${problem}. Delete the webhook in the help desk's webhook page, ` +
        "then remove the resource from the stack with `pulumi state delete <urn>` (`pulumi stack --show-urns` lists the URNs).",
    );
  }
  registerSecret(webhook.url);
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
 * state {@link ADOPTED_STATE}; no request is sent.
 *
 * @param id the webhook's id as the program gave it
 * @param spec the declared inputs
 */
export function adoptWebhook(id: string, spec: WebhookSpec): Webhook {
  return { id, event: spec.event, url: spec.url, state: ADOPTED_STATE };
}
