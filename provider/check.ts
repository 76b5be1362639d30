import * as pulumi from "@pulumi/pulumi";
import { webhookProblems } from "../sdk/webhook-rules.js";

/**
 * The string Pulumi puts in place of a value that is not known yet during preview (for example another resource's
 * output), as the SDK exports it (`pulumi.runtime.unknownValue`). `check` must let it through: the real value is
 * checked again at `up`. (The dynamic provider process has the SDK loaded already, so this costs nothing there.)
 */
export const UNKNOWN: string = pulumi.runtime.unknownValue;

/**
 * Validates a Webhook's inputs (Pulumi `check`), all failures at once, each naming its property. The rule is the one
 * the emulator applies for its 422 (sdk/webhook-rules.ts), so a green preview is not followed by a refused `up`.
 *
 * - `event`: one of the 14 names of docs/helpdesk-api.md §6; a near miss gets a suggestion (`ticket_open` → `ticket_opened`).
 * - `url`: an absolute http or https URL as typed (docs/helpdesk-api.md §2.1), at most 2048 characters; reasons never echo it.
 *
 * Either input may be {@link UNKNOWN} during preview; it passes.
 *
 * @param news the new inputs as the engine sends them (may hold {@link UNKNOWN})
 * @returns the inputs to record (`event`, `url` only) and the failures
 */
export function checkWebhookInputs(news: Record<string, unknown>): pulumi.dynamic.CheckResult {
  const { event, url } = news;
  const failures = webhookProblems({ event, url })
    .filter((problem) => news[problem.field] !== UNKNOWN)
    .map((problem) => ({ property: problem.field, reason: problem.reason }));
  return { inputs: { event, url }, failures };
}
