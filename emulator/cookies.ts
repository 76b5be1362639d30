/**
 * Browser session cookie and CSRF protection of the emulator's pages.
 *
 * - `helpdesk_session`: a random session id (HttpOnly, SameSite=Lax, Path=/). Every browser that is shown a form gets
 *   one, signed in or not; a signed-in one names a session record of the store (store/sessions.ts `BrowserState.createSession`), and
 *   signing in always issues a new id (no session fixation).
 * - The CSRF token of a form is bound to that id: HMAC-SHA256 of the id under a per-emulator secret key (OWASP's
 *   "signed double-submit cookie"). A page on another port of 127.0.0.1 can plant cookies (cookies are not isolated by
 *   port, RFC 6265 §8.5), but it cannot compute the token for any id without the key.
 * - Every state-changing form must also come from the emulator itself: `Origin` must be the emulator's own origin
 *   (`null` is refused); without `Origin`, a `Referer` of the emulator's own origin stands in for it; with neither,
 *   the form is refused (RFC 6454 §7, Fetch §3.2.5). The pages send `Referrer-Policy: same-origin`, so browsers send
 *   their real `Origin` with the emulator's own forms.
 */

import { createHmac, randomBytes } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "./app-env.js";
import type { EmulatorContext } from "./context.js";
import { PageError } from "./errors.js";
import { randomToken, safeEqual } from "./secrets.js";
import { SESSION_TTL_MS } from "./store/sessions.js";

const SESSION_COOKIE = "helpdesk_session";
/** A session id as {@link randomToken} makes it (32 bytes, base64url); anything else in the cookie is replaced. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** A new secret key for CSRF tokens: 32 random bytes, kept in memory for the life of one emulator. */
export function newCsrfKey(): Buffer {
  return randomBytes(32);
}

/** The CSRF token bound to a session id: base64url HMAC-SHA256(key, "csrf:" + id). */
function csrfTokenFor(ctx: EmulatorContext, sessionId: string): string {
  return createHmac("sha256", ctx.csrfKey).update(`csrf:${sessionId}`, "utf8").digest("base64url");
}

/**
 * Returns the CSRF token for this browser's forms, first giving the browser a session id (an anonymous one, cookie
 * for the browser's lifetime) when it has none or a malformed one.
 */
export function ensureCsrf(c: Context<AppEnv>, ctx: EmulatorContext): string {
  let id = getCookie(c, SESSION_COOKIE);
  if (id === undefined || !SESSION_ID.test(id)) {
    id = randomToken(32);
    setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: "Lax", path: "/" });
  }
  return csrfTokenFor(ctx, id);
}

/**
 * Whether a state-changing browser request comes from the emulator's own pages: `Origin` equal to the emulator's
 * origin as this request addresses it (`http://` + the `Host`, which the app has already limited to the loopback
 * names and the emulator's port), or, with no `Origin` at all, a `Referer` of that origin. `Origin: null` and requests
 * with neither header are refused.
 */
function fromOwnOrigin(c: Context<AppEnv>, ctx: EmulatorContext): boolean {
  const own = new Set([ctx.baseUrl(), `http://${(c.req.header("host") ?? "").toLowerCase()}`]);
  const origin = c.req.header("origin");
  if (origin !== undefined) return own.has(origin.toLowerCase());
  const referer = c.req.header("referer");
  if (referer === undefined) return false;
  try {
    return own.has(new URL(referer).origin);
  } catch {
    return false;
  }
}

/**
 * Checks a submitted form: it must come from the emulator's own origin and carry the CSRF token of this browser's
 * session id.
 * @throws {PageError} 403 when the origin is foreign, `null` or unknown, or the token is missing or not this
 *   session's
 */
export function checkCsrf(c: Context<AppEnv>, ctx: EmulatorContext, submitted: unknown): void {
  if (!fromOwnOrigin(c, ctx)) {
    throw new PageError("forbidden", "This form was not sent from this help desk's own page.", {
      title: "Request refused",
    });
  }
  const id = getCookie(c, SESSION_COOKIE);
  if (
    typeof submitted !== "string" ||
    id === undefined ||
    !SESSION_ID.test(id) ||
    !safeEqual(submitted, csrfTokenFor(ctx, id))
  ) {
    throw new PageError("forbidden", "The form's security token is missing or stale. Reload the page and try again.", {
      title: "Request refused",
    });
  }
}

/** The signed-in account of this browser, or `undefined`. */
export function currentAccount(c: Context<AppEnv>, ctx: EmulatorContext): string | undefined {
  return ctx.store.browser.session(getCookie(c, SESSION_COOKIE))?.account;
}

/** Signs this browser in as `account` (new session id, hence a new CSRF token; protects against session fixation). */
export function startSession(c: Context<AppEnv>, ctx: EmulatorContext, account: string): void {
  ctx.store.browser.endSession(getCookie(c, SESSION_COOKIE));
  const { id } = ctx.store.browser.createSession(account);
  setCookie(c, SESSION_COOKIE, id, {
    httpOnly: true,
    sameSite: "Lax",
    path: "/",
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

/** Signs this browser out. */
export function endSession(c: Context<AppEnv>, ctx: EmulatorContext): void {
  ctx.store.browser.endSession(getCookie(c, SESSION_COOKIE));
  deleteCookie(c, SESSION_COOKIE, { path: "/" });
}
