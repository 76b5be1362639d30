/**
 * The `/v1` resource API of the emulator, a Hono sub-app: bearer authentication (RFC 6750) and webhooks (docs/helpdesk-api.md §4.3,
 * §4.4). The pipeline every request passes first (body limits, Host check, faults, ...) is app.ts's.
 */

import type { MiddlewareHandler } from "hono";
import { Hono } from "hono";
import type { WebhookEvent } from "../kernel/events.js";
import { EVENTS } from "../kernel/events.js";
import { webhookProblems } from "../kernel/webhook-rules.js";
import type { AppEnv } from "./app-env.js";
import { readBodyParams } from "./body.js";
import type { EmulatorContext } from "./context.js";
import type { FieldError } from "./errors.js";
import { ApiError, BearerError, methodNotAllowed, notFound } from "./errors.js";
import type { StoredWebhook } from "./types.js";

/** `b64token` of RFC 6750 §2.1. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Bearer authentication of `/v1/*` (RFC 6750 §2.1: the `Authorization` header only; query and body tokens are not
 * read). Sets the `account` variable.
 * @throws {BearerError} `unauthorized` (401, no error code in the challenge; also for other schemes, RFC 6750 §3.1), `invalid_request`
 *   (400, malformed header), `invalid_token` (401: unknown, expired or revoked token)
 */
export function bearerAuth(ctx: EmulatorContext): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    const match = header === undefined ? null : /^bearer(?:\s+(.*))?$/i.exec(header.trim());
    if (!match) throw new BearerError("unauthorized", "An Authorization: Bearer <access_token> header is required");
    const token = match[1]?.trim() ?? "";
    if (!B64TOKEN.test(token)) throw new BearerError("invalid_request", "Malformed Authorization: Bearer header");
    const stored = ctx.store.tokens.find(token, "access");
    if (!stored) throw new BearerError("invalid_token", "The access token is unknown");
    if (stored.revoked) throw new BearerError("invalid_token", "The access token has been revoked");
    if (stored.expiresAt !== undefined && stored.expiresAt <= ctx.store.now()) {
      throw new BearerError("invalid_token", "The access token has expired");
    }
    if (!ctx.store.accounts.has(stored.account)) throw new BearerError("invalid_token", "The account no longer exists");
    c.set("account", stored.account);
    await next();
  };
}

/**
 * Validates `{ event, url }` with the shared rule (kernel/webhook-rules.ts; the provider's `check` uses the same) and
 * returns it, or the 422 field errors: `[{ field: "event", message, allowed }, { field: "url", message }]` (only the
 * failing fields; each message a sentence starting with the field name that never contains the url).
 */
export function validateWebhook(
  params: Record<string, unknown>,
): { ok: true; event: WebhookEvent; url: string } | { ok: false; errors: FieldError[] } {
  const event = params.event;
  const url = params.url;
  const problems = webhookProblems({ event, url });
  // No problem means `event` is one of EVENTS and `url` a string: the rule checked it, the casts only say so to tsc.
  if (problems.length === 0) return { ok: true, event: event as WebhookEvent, url: url as string };
  const errors = problems.map(
    ({ field, reason }): FieldError =>
      field === "event" ? { field, message: reason, allowed: EVENTS } : { field, message: reason },
  );
  return { ok: false, errors };
}

/** The 422 `validation_failed` error for webhook field errors (those of {@link validateWebhook}). */
export function validationFailed(errors: FieldError[]): ApiError {
  return new ApiError(
    "validation_failed",
    // The messages are whole sentences that start with their field name (kernel/webhook-rules.ts).
    `Invalid webhook: ${errors.map((e) => e.message).join("; ")}`,
    { errors },
  );
}

/** The public URL of a webhook: `{base_url}/v1/webhooks/<id>`. */
export function webhookHref(ctx: EmulatorContext, id: string): string {
  return `${ctx.baseUrl()}/v1/webhooks/${encodeURIComponent(id)}`;
}

/**
 * The `/v1` sub-app (mounted with `app.route("/v1", ...)`): bearer authentication of every path under it, the
 * webhook routes (docs/helpdesk-api.md §4.3, §4.4), and JSON 404/405 responses for the rest.
 */
export function createV1App(ctx: EmulatorContext): Hono<AppEnv> {
  const v1 = new Hono<AppEnv>();
  v1.use("*", bearerAuth(ctx)); // mounted, "*" is "/v1/*", which also matches "/v1" itself

  /**
   * `POST /v1/webhooks` (docs/helpdesk-api.md §4.3). Body JSON or form: `{ event, url }`.
   * 201 `{ webhook: { id, event, url, state: "active", href } }` + `Location`, trimmed by the `webhookIdShape` option.
   * Errors: 400 malformed body, 415 content type, 422 `validation_failed` with `errors`.
   */
  v1.post("/webhooks", async (c) => {
    const { params } = await readBodyParams(c);
    const checked = validateWebhook(params);
    if (!checked.ok) throw validationFailed(checked.errors);
    const webhook = ctx.store.webhooks.create(c.get("account"), checked.event, checked.url);
    return c.json({ webhook: createResponseBody(ctx, webhook) }, 201, createResponseHeaders(ctx, webhook));
  });
  v1.all("/webhooks", () => {
    throw methodNotAllowed(["POST"]);
  });

  /** `DELETE /v1/webhooks/:id` (docs/helpdesk-api.md §4.4): 204 empty; 404 `not_found` for an unknown id or another account's. */
  v1.delete("/webhooks/:id", (c) => {
    const id = c.req.param("id") ?? "";
    if (!ctx.store.webhooks.delete(c.get("account"), id))
      throw notFound(`No webhook with id ${JSON.stringify(id.slice(0, 100))}`);
    return c.body(null, 204);
  });
  v1.all("/webhooks/:id", () => {
    throw methodNotAllowed(["DELETE"]);
  });

  v1.all("*", () => {
    throw notFound("No such resource");
  });
  return v1;
}

/** The `webhook` object of a create response, per `webhookIdShape`. */
function createResponseBody(ctx: EmulatorContext, webhook: StoredWebhook): Record<string, string> {
  const shape = ctx.options.webhookIdShape;
  const body: Record<string, string> = {};
  if (shape === "id") body.id = webhook.id;
  body.event = webhook.event;
  body.url = webhook.url;
  body.state = webhook.state;
  if (shape === "id" || shape === "href") body.href = webhookHref(ctx, webhook.id);
  return body;
}

/** The headers of a create response, per `webhookIdShape`: `Location` unless it is `"none"`. */
function createResponseHeaders(ctx: EmulatorContext, webhook: StoredWebhook): Record<string, string> {
  return ctx.options.webhookIdShape === "none" ? {} : { Location: webhookHref(ctx, webhook.id) };
}
