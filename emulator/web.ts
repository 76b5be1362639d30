/**
 * The web pages for people, a Hono sub-app mounted at `/`: `/` (sign-in, or the account's webhooks, a test-event form and the delivery log),
 * `POST /signin`, `GET /signin?token=` (one-time link), `POST /signout`, `POST /webhooks`,
 * `POST /webhooks/:id/delete`, `POST /events`. Forms are URL-encoded, CSRF-checked, and responded with 303 redirects
 * (post/redirect/get) or the page with errors.
 */

import type { Context } from "hono";
import { Hono } from "hono";
import { isWebhookEvent } from "../kernel/events.js";
import { validateWebhook } from "./api.js";
import type { AppEnv } from "./app-env.js";
import { readBodyParams } from "./body.js";
import type { EmulatorContext } from "./context.js";
import { checkCsrf, currentAccount, endSession, ensureCsrf, startSession } from "./cookies.js";
import { PageError } from "./errors.js";
import type { HomeView } from "./pages/home.js";
import { homePage, signInPage } from "./pages/home.js";

/**
 * The pages' sub-app (mounted with `app.route("/", ...)`): every route responds with a page (HTML), or a 303 redirect after
 * a form (post/redirect/get).
 */
export function createWebApp(ctx: EmulatorContext): Hono<AppEnv> {
  const web = new Hono<AppEnv>();
  web.get("/", (c) => {
    const account = currentAccount(c, ctx);
    if (account === undefined) return page(c, signInPage({ csrf: ensureCsrf(c, ctx) }));
    const notice = c.req.query("notice");
    return page(c, renderHome(c, ctx, account, notice ? { notice: noticeText(notice) } : {}));
  });

  web.get("/signin", (c) => {
    const token = c.req.query("token");
    const account = token ? ctx.store.browser.consumeLoginLink(token) : undefined;
    if (account === undefined) {
      throw new PageError(
        "invalid_request",
        "This sign-in link is unknown, already used or expired (links live 10 minutes).",
        { title: "Sign-in link not valid" },
      );
    }
    startSession(c, ctx, account);
    return c.redirect("/", 303);
  });

  web.post("/signin", async (c) => {
    const { params } = await readBodyParams(c);
    checkCsrf(c, ctx, params.csrf);
    const username = typeof params.username === "string" ? params.username : "";
    const password = typeof params.password === "string" ? params.password : "";
    const account = ctx.store.accounts.authenticate(username, password);
    if (account === undefined) {
      return page(c, signInPage({ csrf: ensureCsrf(c, ctx), error: "Wrong username or password.", username }), 401);
    }
    startSession(c, ctx, account);
    return c.redirect("/", 303);
  });

  web.post("/signout", async (c) => {
    const { params } = await readBodyParams(c);
    checkCsrf(c, ctx, params.csrf);
    endSession(c, ctx);
    return c.redirect("/", 303);
  });

  web.post("/webhooks", async (c) => {
    const { account, params } = await signedInForm(c, ctx);
    const checked = validateWebhook(params);
    if (!checked.ok) {
      const draft = {
        ...(typeof params.event === "string" && { event: params.event }),
        ...(typeof params.url === "string" && { url: params.url }),
      };
      return page(c, renderHome(c, ctx, account, { errors: checked.errors, draft }), 422);
    }
    ctx.store.webhooks.create(account, checked.event, checked.url);
    return c.redirect("/?notice=added", 303);
  });

  web.post("/webhooks/:id/delete", async (c) => {
    const { account } = await signedInForm(c, ctx);
    const deleted = ctx.store.webhooks.delete(account, c.req.param("id"));
    return c.redirect(deleted ? "/?notice=deleted" : "/?notice=missing", 303);
  });

  web.post("/events", async (c) => {
    const { account, params } = await signedInForm(c, ctx);
    const event = params.event;
    if (!isWebhookEvent(event))
      throw new PageError("invalid_request", "Choose one of the listed events.", { title: "Unknown event" });
    const result = ctx.deliveries.trigger(event, account);
    const count = result.ok ? result.deliveries.length : 0;
    return c.redirect(`/?notice=sent-${count}`, 303);
  });
  return web;
}

function page(c: Context<AppEnv>, body: string, status: 200 | 401 | 422 = 200): Response {
  return c.html(body, status);
}

function renderHome(c: Context<AppEnv>, ctx: EmulatorContext, account: string, extra: Partial<HomeView>): string {
  return homePage({
    account,
    csrf: ensureCsrf(c, ctx),
    webhooks: ctx.store.webhooks.list({ account }),
    deliveries: ctx.store.deliveries.list({ account, limit: 100 }),
    ...extra,
  });
}

function noticeText(code: string): string {
  if (code === "added") return "Webhook added.";
  if (code === "deleted") return "Webhook deleted.";
  if (code === "missing") return "That webhook no longer exists.";
  const sent = /^sent-(\d+)$/.exec(code);
  if (sent)
    return sent[1] === "0"
      ? "Event sent; no webhook of this account listens to it."
      : `Event sent to ${sent[1]} webhook(s); see the delivery log.`;
  return "";
}

/**
 * Reads a URL-encoded form of a signed-in page, checks its CSRF token and returns the account.
 * @throws {PageError} 401 when not signed in, 403 on CSRF failure
 */
async function signedInForm(
  c: Context<AppEnv>,
  ctx: EmulatorContext,
): Promise<{ account: string; params: Record<string, unknown> }> {
  const { params } = await readBodyParams(c);
  checkCsrf(c, ctx, params.csrf);
  const account = currentAccount(c, ctx);
  if (account === undefined)
    throw new PageError("unauthorized", "Your session has ended. Sign in again.", { title: "Signed out" });
  return { account, params };
}
