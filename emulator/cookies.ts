/**
 * Browser session and CSRF cookies of the emulator's pages.
 *
 * - `helpdesk_session`: the session id (HttpOnly, SameSite=Lax, Path=/), see {@link Store.createSession}.
 * - `helpdesk_csrf`: a random token (HttpOnly, SameSite=Lax, Path=/) that every form repeats in a hidden `csrf`
 *   field ("double submit"); a cross-site page can neither read the cookie nor set it, so it cannot forge a form.
 *   Forms are also refused when an `Origin` header names another origin.
 */
import type { Context } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import type { AppEnv, EmulatorContext } from "./context.js";
import { PageError } from "./errors.js";
import { randomToken, safeEqual } from "./secrets.js";
import { SESSION_TTL_MS } from "./store.js";

const SESSION_COOKIE = "helpdesk_session";
const CSRF_COOKIE = "helpdesk_csrf";

/** Returns the CSRF token of this browser, setting the cookie when it has none. */
export function ensureCsrf(c: Context<AppEnv>): string {
  const existing = getCookie(c, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{20,100}$/.test(existing)) return existing;
  const token = randomToken(24);
  setCookie(c, CSRF_COOKIE, token, { httpOnly: true, sameSite: "Lax", path: "/" });
  return token;
}

/**
 * Checks a submitted form against the CSRF cookie and the `Origin` header.
 * @throws {PageError} 403 when the token is missing or differs, or the origin is foreign
 */
export function checkCsrf(c: Context<AppEnv>, ctx: EmulatorContext, submitted: unknown): void {
  const origin = c.req.header("origin");
  if (origin !== undefined && origin !== "null" && origin !== ctx.baseUrl() && !isSameHostOrigin(origin, c)) {
    throw new PageError(403, "Request refused", "This form was sent from another site.");
  }
  const cookie = getCookie(c, CSRF_COOKIE);
  if (typeof submitted !== "string" || !cookie || !safeEqual(submitted, cookie)) {
    throw new PageError(403, "Request refused", "The form's security token is missing or stale. Reload the page and try again.");
  }
}

function isSameHostOrigin(origin: string, c: Context<AppEnv>): boolean {
  return origin === `http://${c.req.header("host") ?? ""}`;
}

/** The signed-in account of this browser, or `undefined`. */
export function currentAccount(c: Context<AppEnv>, ctx: EmulatorContext): string | undefined {
  return ctx.store.session(getCookie(c, SESSION_COOKIE))?.account;
}

/** Signs this browser in as `account` (new session id; protects against session fixation). */
export function startSession(c: Context<AppEnv>, ctx: EmulatorContext, account: string): void {
  ctx.store.endSession(getCookie(c, SESSION_COOKIE));
  const { id } = ctx.store.createSession(account);
  setCookie(c, SESSION_COOKIE, id, {
    httpOnly: true,
    sameSite: "Lax",
    path: "/",
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

/** Signs this browser out. */
export function endSession(c: Context<AppEnv>, ctx: EmulatorContext): void {
  ctx.store.endSession(getCookie(c, SESSION_COOKIE));
  deleteCookie(c, SESSION_COOKIE, { path: "/" });
}
