/**
 * The native resource `Webhook` (`kernel/names.ts` `WEBHOOK_TYPE`) for the native provider plugin: the resource half of the plugin protocol (Check, Diff,
 * Create, Read, Update, Delete) in terms of the provider core (`provider/core/webhooks.ts`), which the dynamic `Webhook`
 * uses too. Validation, requests, retries, token refresh and error messages are the core's; this module adds only
 * what the plugin protocol needs besides:
 *
 * - secrets: the engine sends secret inputs wrapped (the plugin accepts secrets), the core works on plain values, and
 *   every output whose input was secret is wrapped again (so `url` stays secret when it was given as one); the
 *   delivery token and the registered url are always wrapped (`DELIVERY_TOKEN_SECRET_OUTPUTS`), and so is a given
 *   `deliveryToken` input;
 * - preview: `Create` with `preview` returns the inputs and an unknown `state` without a request;
 * - Read, which the API cannot serve (spec: no read endpoint): see {@link readWebhook} for what it does instead;
 * - Update, for one case only: adopting a webhook imported with the `import` resource option (see {@link updateWebhook}).
 */
import {
  DELIVERY_TOKEN_INPUTS,
  DELIVERY_TOKEN_SECRET_OUTPUTS,
  wantsDeliveryToken,
} from "../../kernel/delivery-token-inputs.js";
import type { WebhookEvent } from "../../kernel/events.js";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { UNKNOWN } from "../../kernel/pulumi-wire.js";
import { webhookIdProblem } from "../../kernel/webhook-rules.js";
import { HELPDESK_ERROR_CODES, HelpdeskError } from "../core/errors.js";
import type { Target } from "../core/target.js";
import * as core from "../core/webhooks.js";
import { reveal, unwrapProperties, wrapSecrets } from "./properties.js";
import type { CheckOutcome, DiffOutcome, PropertyMap } from "./proto.js";

/**
 * The property by which {@link readWebhook} marks the state of an import it could not read. It lives only between
 * the engine's Read and the next Check/Diff of the same import and is never kept in a finished state.
 */
export const IMPORT_MARKER = "__helpdeskImportNotRead";
/** The marker's value, which says why to anyone who sees it in a preview. */
const IMPORT_MARKER_VALUE = "the help-desk API has no read endpoint: event and url come from the program";

/**
 * Check: validates with the core's rule (`checkWebhook` of `provider/core/webhooks.ts`: 14 event names, the url rule of
 * `kernel/webhook-rules.ts`, and the delivery token's of `kernel/delivery-token-inputs.ts`; unknowns pass in preview)
 * and records `event`, `url` and the token inputs only, secret ones kept secret and `deliveryToken` always secret.
 *
 * @param news the program's inputs, secrets wrapped
 * @throws HelpdeskError `operation` for `pulumi import` (the engine checks the read state itself as the new inputs, so
 *   the marker of {@link readWebhook} is in `news`): the message names `pulumi-helpdesk import --from` and the `import` resource option instead
 */
export function checkWebhook(news: PropertyMap): CheckOutcome {
  if (IMPORT_MARKER in news) {
    throw new HelpdeskError(
      HELPDESK_ERROR_CODES.OPERATION,
      "a help-desk webhook cannot be imported with `pulumi import`: the help-desk API has no endpoint to read a webhook, so its " +
        `event and url cannot be found. Adopt existing webhooks with \`${CLI_EXECUTABLE} import --from <file>\` (a CSV of id,event,url: ` +
        "one `pulumi import` run that takes event and url from the file, and prints the declarations for your program), or declare one " +
        "webhook in your program with the `import` resource option, giving its event and url as they are, e.g. in TypeScript " +
        'new Webhook("name", { event: "ticket_opened", url: "https://..." }, { import: "<webhook id>" }), and run `pulumi up`: ' +
        "either way the webhook is adopted without a request, trusting the given event and url.",
    );
  }
  const { plain, secretKeys } = unwrapProperties(news);
  const { inputs, failures } = core.checkWebhook(plain);
  return { inputs: wrapSecrets({ ...inputs }, [...secretKeys, "deliveryToken"]), failures };
}

/**
 * Diff: the core's rule (`replacedFields`: a change of `event` or `url` replaces; nothing else counts), except
 * right after an import the API could not read (recorded outputs carry {@link IMPORT_MARKER}): then the declared
 * `event` and `url` are a change without replacement, which the engine applies with {@link updateWebhook}.
 *
 * @param olds the recorded outputs; @param news the checked new inputs (secrets wrapped)
 */
export function diffWebhook(olds: PropertyMap, news: PropertyMap): DiffOutcome {
  if (IMPORT_MARKER in olds) {
    const diffs = (["event", "url", ...DELIVERY_TOKEN_INPUTS] as const).filter((key) => key in news);
    return { changes: true, replaces: [], diffs };
  }
  const replaces = core.replacedFields(reveal(olds) as PropertyMap, reveal(news) as PropertyMap);
  return { changes: replaces.length > 0, replaces, diffs: replaces };
}

/**
 * Create: registers the webhook with the core's `createWebhook` (`POST /v1/webhooks`, docs/helpdesk-api.md §4.3), on the provider
 * instance's help desk. In preview nothing is sent: the inputs come back with an unknown `state`.
 *
 * @param target this provider instance's help desk, resolved on first use (`providerTarget` of `./config.ts`)
 * @param inputs the checked inputs, secrets wrapped
 * @param preview true for `pulumi preview` (and the preview phase of `up`)
 * @returns the id (`""` in preview) and the outputs `event`, `url`, `state`, wrapped as secret where the input was
 * @throws the core's errors (messages already fit for people, no credentials)
 */
export async function createWebhook(
  target: () => Target,
  inputs: PropertyMap,
  preview: boolean,
): Promise<{ id: string; outputs: PropertyMap }> {
  const { plain, secretKeys } = unwrapProperties(inputs);
  const secret = [...secretKeys, ...DELIVERY_TOKEN_SECRET_OUTPUTS];
  if (preview) {
    // No token is minted in preview: the token and the url registered with it are unknown until `up`.
    const wanted = wantsDeliveryToken(plain) !== false;
    const token = wanted ? { deliveryToken: plain.deliveryToken ?? UNKNOWN, registeredUrl: UNKNOWN } : {};
    return { id: "", outputs: wrapSecrets({ ...plain, ...token, state: UNKNOWN }, secret) };
  }
  const { id, ...outputs } = await core.createWebhook(target(), core.webhookSpec(plain));
  return { id, outputs: wrapSecrets({ ...outputs }, secret) };
}

/** What {@link readWebhook} returns. */
export interface ReadOutcome {
  id: string;
  /** Outputs to record. */
  properties: PropertyMap;
  /** Inputs to record; undefined to keep the recorded ones. */
  inputs: PropertyMap | undefined;
}

/**
 * Read. The help-desk API has no endpoint to read a webhook (docs/helpdesk-api.md §4), so nothing is requested:
 *
 * - `pulumi refresh` (the engine sends the recorded outputs and inputs, pulumi/pulumi `pkg/resource/deploy/step.go`
 *   `RefreshStep.Apply`): the recorded state comes back unchanged. A webhook deleted or edited in the help desk goes
 *   unnoticed; `pulumi up --replace <urn>` re-creates one.
 * - An import (the engine sends only the id, `ImportStep.Apply`, for `pulumi import` and for the `import` resource
 *   option alike): a state holding only {@link IMPORT_MARKER}. With the `import` option the engine next checks and
 *   diffs the program's inputs against it ({@link diffWebhook}), and {@link updateWebhook} records them: the webhook is
 *   adopted with the declared `event` and `url`, trusted, not read. `pulumi import` instead checks the read state
 *   itself, and {@link checkWebhook} stops it with a message that names `pulumi-helpdesk import --from` and the `import` option.
 *
 * An import is where a person's id enters: it must pass the id rule (`kernel/webhook-rules.ts` `webhookIdProblem`),
 * or a later delete would address another path than one webhook.
 *
 * @param id the webhook id; @param properties the recorded outputs (`{}` for an import); @param inputs the recorded
 *   inputs, or undefined (import)
 * @throws HelpdeskError `operation` for an import whose id breaks the id rule (the message says what is allowed)
 */
export function readWebhook(id: string, properties: PropertyMap, inputs: PropertyMap | undefined): ReadOutcome {
  if (Object.keys(properties).length === 0 && (inputs === undefined || Object.keys(inputs).length === 0)) {
    const problem = webhookIdProblem(id);
    if (problem !== undefined)
      throw new HelpdeskError(
        HELPDESK_ERROR_CODES.OPERATION,
        `cannot import the webhook: its ${problem}. Give the id the help desk shows for the webhook.`,
      );
    const marker = { [IMPORT_MARKER]: IMPORT_MARKER_VALUE };
    return { id, properties: marker, inputs: marker };
  }
  return { id, properties, inputs };
}

/**
 * Update, for the adoption of an imported webhook only (see {@link readWebhook}): records the program's `event` and
 * `url` as the outputs with the core's `adoptWebhook` (`state` `unknown`), without a request (the API has neither a read nor an update
 * endpoint). Every other change replaces the webhook, so the engine never asks for another update.
 *
 * @param olds the recorded outputs; @param news the checked new inputs (secrets wrapped)
 * @throws HelpdeskError `operation` when `olds` is not an adoption (a provider bug: event and url changes replace)
 */
export function updateWebhook(olds: PropertyMap, news: PropertyMap): PropertyMap {
  if (!(IMPORT_MARKER in olds)) {
    throw new HelpdeskError(
      HELPDESK_ERROR_CODES.OPERATION,
      "a help-desk webhook cannot be updated in place (the API has no update endpoint): a change of event or url replaces it",
    );
  }
  const { plain, secretKeys } = unwrapProperties(news);
  const { id: _id, ...adopted } = core.adoptWebhook("", core.webhookSpec(plain));
  return wrapSecrets({ ...adopted }, [...secretKeys, ...DELIVERY_TOKEN_SECRET_OUTPUTS]);
}

/**
 * Delete: the core's `deleteWebhook` (`DELETE /v1/webhooks/:id`, docs/helpdesk-api.md §4.4; a webhook already gone counts as deleted,
 * with a warning).
 *
 * @param target this provider instance's help desk, resolved on first use; @param id the webhook id;
 * @param properties the recorded outputs
 */
export async function deleteWebhook(target: () => Target, id: string, properties: PropertyMap): Promise<void> {
  const plain = reveal(properties) as {
    event?: WebhookEvent;
    url?: string;
    deliveryToken?: string;
    registeredUrl?: string;
  };
  await core.deleteWebhook(target(), {
    id,
    event: plain.event ?? ("(imported)" as WebhookEvent),
    url: plain.url ?? "",
    ...(plain.deliveryToken !== undefined ? { deliveryToken: plain.deliveryToken } : {}),
    ...(plain.registeredUrl !== undefined ? { registeredUrl: plain.registeredUrl } : {}),
  });
}
