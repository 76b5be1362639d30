/**
 * Inspection and control routes under `/_emulator` (no authentication: a loopback tool; never faulted). Bodies of
 * POST/PUT must be JSON (`application/json`), which a cross-site HTML form cannot send.
 *
 * - `GET /_emulator/webhooks[?account=]` → `{ webhooks: [{ id, event, url, state, account, createdAt (ISO 8601) }] }`
 * - `GET /_emulator/stats` → `{ requests, connections, byRoute }`; `POST /_emulator/reset-stats` → 204
 * - `GET /_emulator/login-link[?account=]` → `{ url }`, a one-time sign-in link valid 10 minutes
 * - `POST /_emulator/events` `{ event, account?, data? }` → 202 `{ deliveries: [id...] }`
 * - `GET /_emulator/deliveries[?account=&webhookId=]` → `{ deliveries: [{ id, time, webhookId, event, url, status,
 *   attempts, ok, done, account, error? }] }`
 * - `GET /_emulator/state` → {@link EmulatorState}: webhooks, live tokens and codes (no secrets), live session, sign-in
 *   link and pending consent counts, faults
 * - `GET /_emulator/faults` → the fault configuration; `PUT /_emulator/faults` replaces it (absent fields: off),
 *   `PATCH /_emulator/faults` changes only the given fields; both answer the new configuration
 */
import type { Context, Hono } from "hono";
import { z } from "zod";
import { EVENTS } from "../sdk/events.js";
import { webhookEventProblem } from "../sdk/webhook-rules.js";
import type { AppEnv } from "./app-env.js";
import type { EmulatorContext } from "./context.js";
import { ApiError, methodNotAllowed, notFound } from "./errors.js";
import { readBodyParams } from "./body.js";
import { FaultOptionsSchema } from "./faults.js";
import type { EmulatorState, FaultOptions, LoginLink } from "./types.js";
import { LOGIN_LINK_TTL_MS } from "./store.js";

const onlyJson = (status: 400 | 415, message: string) =>
  new ApiError(status, status === 415 ? "unsupported_media_type" : "invalid_request", message);

const TriggerSchema = z.strictObject({
  // The event rule is the webhook's (sdk/webhook-rules.ts): the same reason, suggestion and allowed list.
  event: z.enum(EVENTS, { error: (issue) => webhookEventProblem(issue.input) ?? "is not an event name" }),
  account: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

/** The emulator's live state (see {@link EmulatorState}); served by `GET /_emulator/state`. */
export function emulatorState(ctx: EmulatorContext): EmulatorState {
  return { ...ctx.store.liveState(), faults: ctx.faults.get() };
}

/**
 * Issues a one-time sign-in link to the web page (`GET /_emulator/login-link`, `RunningEmulator.loginLink()`).
 *
 * @param account an account of this emulator, or undefined for the first one
 * @throws ApiError 404 when `account` is not one, or no account exists
 */
export function issueLoginLink(ctx: EmulatorContext, account: string | undefined): LoginLink {
  if (account !== undefined && !ctx.store.hasAccount(account)) throw notFound(`No account ${JSON.stringify(account.slice(0, 100))}`);
  const name = account ?? ctx.store.accountNames()[0];
  if (name === undefined) throw notFound("No account exists");
  const token = ctx.store.issueLoginLink(name);
  return { url: `${ctx.baseUrl()}/signin?token=${encodeURIComponent(token)}`, account: name, expiresInSeconds: LOGIN_LINK_TTL_MS / 1000 };
}

/** Registers `/_emulator/*` on `app`. */
export function registerInspectRoutes(app: Hono<AppEnv>, ctx: EmulatorContext): void {
  const requireJson = async (c: Context<AppEnv>) => {
    const { kind, params } = await readBodyParams(c, onlyJson);
    if (kind !== "json") throw new ApiError(415, "unsupported_media_type", "Send application/json");
    return params;
  };
  const accountParam = (value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    if (!ctx.store.hasAccount(value)) throw notFound(`No account ${JSON.stringify(value.slice(0, 100))}`);
    return value;
  };

  app.get("/_emulator/webhooks", (c) => {
    const account = c.req.query("account");
    const webhooks = ctx.store.listWebhooks(account === undefined ? {} : { account });
    return c.json({ webhooks });
  });

  app.get("/_emulator/stats", (c) => c.json(ctx.stats.snapshot()));
  app.get("/_emulator/state", (c) => c.json(emulatorState(ctx)));
  app.post("/_emulator/reset-stats", (c) => {
    ctx.stats.reset();
    return c.body(null, 204);
  });

  app.get("/_emulator/login-link", (c) => {
    const link = issueLoginLink(ctx, c.req.query("account"));
    c.header("Cache-Control", "no-store");
    return c.json(link);
  });

  app.post("/_emulator/events", async (c) => {
    const params = await requireJson(c);
    const parsed = TriggerSchema.safeParse(params);
    if (!parsed.success) {
      const errors = parsed.error.issues.map((i) => {
        const field = i.path.map(String).join(".") || "(body)";
        return field === "event" ? { field, message: i.message, allowed: EVENTS } : { field, message: i.message };
      });
      throw new ApiError(422, "validation_failed", "Invalid event trigger", errors);
    }
    const account = accountParam(parsed.data.account) ?? ctx.store.accountNames()[0];
    if (account === undefined) throw notFound("No account exists");
    const result = ctx.deliveries.trigger(parsed.data.event, account, parsed.data.data);
    if (!result.ok) throw new ApiError(422, "validation_failed", "data does not fit the event's record", result.errors);
    return c.json({ event: parsed.data.event, account, deliveries: result.deliveries }, 202);
  });

  app.get("/_emulator/deliveries", (c) => {
    const account = c.req.query("account");
    const webhookId = c.req.query("webhookId");
    const deliveries = ctx.store.listDeliveries({
      ...(account !== undefined && { account }),
      ...(webhookId !== undefined && { webhookId }),
    });
    return c.json({ deliveries });
  });

  app.get("/_emulator/faults", (c) => c.json(ctx.faults.get()));
  /** The fault options of a PUT or PATCH body; 422 naming each bad field. */
  const faultBody = async (c: Context<AppEnv>): Promise<FaultOptions> => {
    const parsed = FaultOptionsSchema.safeParse(await requireJson(c));
    if (parsed.success) return parsed.data;
    const errors = parsed.error.issues.map((i) => ({ field: i.path.map(String).join(".") || "(body)", message: i.message }));
    throw new ApiError(422, "validation_failed", "Invalid fault options", errors);
  };
  app.put("/_emulator/faults", async (c) => c.json(ctx.faults.set(await faultBody(c))));
  app.patch("/_emulator/faults", async (c) => c.json(ctx.faults.set({ ...ctx.faults.get(), ...(await faultBody(c)) })));

  for (const [path, allow] of [
    ["/_emulator/webhooks", ["GET", "HEAD"]],
    ["/_emulator/stats", ["GET", "HEAD"]],
    ["/_emulator/state", ["GET", "HEAD"]],
    ["/_emulator/reset-stats", ["POST"]],
    ["/_emulator/login-link", ["GET", "HEAD"]],
    ["/_emulator/events", ["POST"]],
    ["/_emulator/deliveries", ["GET", "HEAD"]],
    ["/_emulator/faults", ["GET", "HEAD", "PUT", "PATCH"]],
  ] as const) {
    app.all(path, () => {
      throw methodNotAllowed([...allow]);
    });
  }
}
