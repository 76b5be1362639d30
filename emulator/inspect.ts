/**
 * Inspection and control routes under `/_emulator`, a Hono sub-app (no authentication: a loopback tool; never
 * faulted). Bodies of POST/PUT/PATCH must be JSON (`application/json`), which a cross-site HTML form cannot send.
 *
 * - `GET /_emulator/webhooks[?account=]` → `{ webhooks: [{ id, event, url, state, account, createdAt (ISO 8601) }] }`
 * - `GET /_emulator/stats` → `{ requests, connections, byRoute }`; `POST /_emulator/reset-stats` → 204
 * - `GET /_emulator/login-link[?account=]` → `{ url }`, a one-time sign-in link valid 10 minutes
 * - `POST /_emulator/events` `{ event, account?, data? }` → 202 `{ event, account, deliveries: [id...] }`
 * - `GET /_emulator/deliveries[?account=&webhookId=]` → `{ deliveries: [{ id, time, webhookId, event, url, status,
 *   attempts, ok, done, account, error? }] }`
 * - `GET /_emulator/state` → {@link EmulatorState}: webhooks, live tokens and codes (no secrets), live session, sign-in
 *   link and pending consent counts, faults
 * - `GET /_emulator/faults` → the fault configuration; `PUT /_emulator/faults` replaces it (absent fields: off),
 *   `PATCH /_emulator/faults` changes only the given fields; both respond with the new configuration
 */

import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { EVENTS } from "../kernel/events.js";
import { webhookEventProblem } from "../kernel/webhook-rules.js";
import type { AppEnv } from "./app-env.js";
import { readBodyParams } from "./body.js";
import type { EmulatorContext } from "./context.js";
import { ApiError, methodNotAllowed, notFound } from "./errors.js";
import { FaultOptionsSchema } from "./faults.js";
import { LOGIN_LINK_TTL_MS } from "./store/sessions.js";
import type { EmulatorState, FaultOptions, LoginLink, TriggeredEvent } from "./types.js";

const TriggerSchema = z.strictObject({
  // The event rule is the webhook's (kernel/webhook-rules.ts): the same reason, suggestion and allowed list.
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
  if (account !== undefined && !ctx.store.accounts.has(account))
    throw notFound(`No account ${JSON.stringify(account.slice(0, 100))}`);
  const name = account ?? ctx.store.accounts.names()[0];
  if (name === undefined) throw notFound("No account exists");
  const token = ctx.store.browser.issueLoginLink(name);
  return {
    url: `${ctx.baseUrl()}/signin?token=${encodeURIComponent(token)}`,
    account: name,
    expiresInSeconds: LOGIN_LINK_TTL_MS / 1000,
  };
}

/**
 * The `/_emulator` sub-app (mounted with `app.route("/_emulator", ...)`): the inspection and control routes listed in
 * the module comment, with 405 responses for other methods.
 */
export function createInspectApp(ctx: EmulatorContext): Hono<AppEnv> {
  const inspect = new Hono<AppEnv>();
  const requireJson = async (c: Context<AppEnv>) => {
    const { kind, params } = await readBodyParams(c);
    if (kind !== "json") throw new ApiError("unsupported_media_type", "Send application/json");
    return params;
  };
  const accountParam = (value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    if (!ctx.store.accounts.has(value)) throw notFound(`No account ${JSON.stringify(value.slice(0, 100))}`);
    return value;
  };

  inspect.get("/webhooks", (c) => {
    const account = c.req.query("account");
    const webhooks = ctx.store.webhooks.list(account === undefined ? {} : { account });
    return c.json({ webhooks });
  });

  inspect.get("/stats", (c) => c.json(ctx.stats.snapshot()));
  inspect.get("/state", (c) => c.json(emulatorState(ctx)));
  inspect.post("/reset-stats", (c) => {
    ctx.stats.reset();
    return c.body(null, 204);
  });

  inspect.get("/login-link", (c) => {
    const link = issueLoginLink(ctx, c.req.query("account"));
    c.header("Cache-Control", "no-store");
    return c.json(link);
  });

  inspect.post("/events", async (c) => {
    const params = await requireJson(c);
    const parsed = TriggerSchema.safeParse(params);
    if (!parsed.success) {
      const errors = parsed.error.issues.map((i) => {
        const field = i.path.map(String).join(".") || "(body)";
        return field === "event" ? { field, message: i.message, allowed: EVENTS } : { field, message: i.message };
      });
      throw new ApiError("validation_failed", "Invalid event trigger", { errors });
    }
    const account = accountParam(parsed.data.account) ?? ctx.store.accounts.names()[0];
    if (account === undefined) throw notFound("No account exists");
    const result = ctx.deliveries.trigger(parsed.data.event, account, parsed.data.data);
    if (!result.ok)
      throw new ApiError("validation_failed", "data does not fit the event's record", { errors: result.errors });
    const triggered: TriggeredEvent = { event: parsed.data.event, account, deliveries: result.deliveries };
    return c.json(triggered, 202);
  });

  inspect.get("/deliveries", (c) => {
    const account = c.req.query("account");
    const webhookId = c.req.query("webhookId");
    const deliveries = ctx.store.deliveries.list({
      ...(account !== undefined && { account }),
      ...(webhookId !== undefined && { webhookId }),
    });
    return c.json({ deliveries });
  });

  inspect.get("/faults", (c) => c.json(ctx.faults.get()));
  /** The fault options of a PUT or PATCH body; 422 naming each bad field. */
  const faultBody = async (c: Context<AppEnv>): Promise<FaultOptions> => {
    const parsed = FaultOptionsSchema.safeParse(await requireJson(c));
    if (parsed.success) return parsed.data;
    const errors = parsed.error.issues.map((i) => ({
      field: i.path.map(String).join(".") || "(body)",
      message: i.message,
    }));
    throw new ApiError("validation_failed", "Invalid fault options", { errors });
  };
  inspect.put("/faults", async (c) => c.json(ctx.faults.set(await faultBody(c))));
  inspect.patch("/faults", async (c) => c.json(ctx.faults.set({ ...ctx.faults.get(), ...(await faultBody(c)) })));

  for (const [path, allow] of [
    ["/webhooks", ["GET", "HEAD"]],
    ["/stats", ["GET", "HEAD"]],
    ["/state", ["GET", "HEAD"]],
    ["/reset-stats", ["POST"]],
    ["/login-link", ["GET", "HEAD"]],
    ["/events", ["POST"]],
    ["/deliveries", ["GET", "HEAD"]],
    ["/faults", ["GET", "HEAD", "PUT", "PATCH"]],
  ] as const) {
    inspect.all(path, () => {
      throw methodNotAllowed([...allow]);
    });
  }
  return inspect;
}
