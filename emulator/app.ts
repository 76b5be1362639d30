/**
 * The emulator's Hono application: the pipeline every request passes (request log and statistics, the wait for the commit of every change before responding, token-endpoint
 * headers, the declared body limit, the framing check, the Host check, page headers, fault injection, the streamed
 * body limit), then the route modules, each a Hono sub-app in its own file mounted with `app.route` (`/oauth`:
 * oauth.ts, `/v1`: api.ts, the pages: web.ts, `/_emulator`: inspect.ts), and the one error handler that renders every
 * {@link EmulatorHttpError}. The pipeline stays here, not in the sub-apps, because its order is part of the behaviour
 * (a fault is decided before the body is read; a 413 at the token endpoint still gets `Cache-Control: no-store`).
 */

import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { matchedRoutes } from "hono/route";
import { secureHeaders } from "hono/secure-headers";
import { messageOf } from "../kernel/errors.js";
import { isLoopbackHost } from "../kernel/loopback.js";
import { createV1App } from "./api.js";
import type { AppEnv } from "./app-env.js";
import type { EmulatorContext } from "./context.js";
import {
  ApiError,
  type ApiErrorCode,
  asTokenEndpointError,
  EmulatorHttpError,
  notFound,
  PageError,
  payloadTooLarge,
} from "./errors.js";
import { faultMiddleware } from "./faults.js";
import { createInspectApp } from "./inspect.js";
import { createOAuthApp } from "./oauth.js";
import { errorPage } from "./pages/layout.js";
import { StoreError } from "./store/commits.js";
import { createWebApp } from "./web.js";

/** The token endpoint (RFC 6749 §3.2), whose every failure is a response in RFC 6749 §5.2's shape. */
const TOKEN_PATH = "/oauth/token";

/**
 * Turns an error thrown by a handler into the HTTP response: {@link PageError} → HTML page; other
 * {@link EmulatorHttpError}s → their JSON body and headers (at `/oauth/token` in RFC 6749 §5.2's shape
 * `{ error, error_description }`, see {@link asTokenEndpointError}); Hono `HTTPException`s → JSON with their status;
 * a {@link StoreError} → 503 `service_unavailable` with `Retry-After: 1` (`busy`: another process held the data file's
 * lock; nothing changed) or 500 `internal_error` (`commit`: the change did not take effect); anything else → 500
 * `internal_error` (and a line in the log sink, without request data).
 */
export function errorResponse(c: Context<AppEnv>, error: unknown, log?: (line: string) => void): Response {
  if (error instanceof StoreError) {
    error =
      error.code === "busy"
        ? new ApiError("service_unavailable", error.message, { headers: { "Retry-After": "1" }, cause: error })
        : new ApiError("internal_error", error.message, { cause: error });
  }
  if (error instanceof HTTPException) {
    const status = error.status;
    const code: ApiErrorCode =
      status === 413 ? "payload_too_large" : status < 500 ? "invalid_request" : "internal_error";
    error = new ApiError(code, error.message || "Request failed", { status, cause: error });
  }
  if (c.req.path === TOKEN_PATH && error instanceof EmulatorHttpError && !(error instanceof PageError)) {
    error = asTokenEndpointError(error);
  }
  if (error instanceof PageError) {
    return c.html(errorPage(error.title, error.message), error.status as 400);
  }
  if (error instanceof EmulatorHttpError) {
    return c.json(error.body(), error.status as 400, error.headers);
  }
  log?.(`internal error: ${messageOf(error)}`);
  if (c.req.path === TOKEN_PATH) return c.json({ error: "server_error", error_description: "Internal error" }, 500);
  return c.json({ error: "internal_error", message: "Internal error" }, 500);
}

/**
 * Every header of Hono's `secureHeaders` off: each use below turns on exactly the ones the emulator sends, so that
 * no header appears that the emulator did not choose (HSTS, for one, would be wrong on plain-HTTP loopback).
 */
const NO_SECURE_HEADERS = {
  crossOriginEmbedderPolicy: false,
  crossOriginResourcePolicy: false,
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  strictTransportSecurity: false,
  xContentTypeOptions: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xFrameOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
  removePoweredBy: false,
} as const;

/**
 * Every HTML page:
 * - `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`: no framing (click-jacking of the consent buttons,
 *   RFC 6749 §10.13);
 * - `Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none';
 *   frame-ancestors 'none'`: inline CSS only, no scripts. `form-action` is deliberately not restricted: the consent
 *   form's response redirects to the client's redirect URI, which `form-action` would block;
 * - `Referrer-Policy: same-origin`, so the emulator's own forms carry their `Origin` (which the CSRF check requires;
 *   under `no-referrer` browsers send `Origin: null`, Fetch §3.2.5) while no other site learns a page's URL.
 */
const pageHeaders = secureHeaders({
  ...NO_SECURE_HEADERS,
  xFrameOptions: "DENY",
  referrerPolicy: "same-origin",
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    styleSrc: ["'unsafe-inline'"],
    imgSrc: ["'self'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
  },
});

/** How many bytes of an oversized body are read and discarded before responding with 413 (so the client sees the response). */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;

/** How long, after refusing a request whose body it did not read, the emulator discards what still comes: 1 s. */
const DISCARD_AFTER_REFUSAL_MS = 1000;

/**
 * For a response sent before the request body was read (413): once the response is written, what the client still sends
 * is read and discarded, so that a client still uploading sees the response rather than a reset, and after
 * {@link DISCARD_AFTER_REFUSAL_MS} the connection is closed, whatever the client does.
 */
function closeAfterResponse(c: Context<AppEnv>): void {
  const incoming = c.env?.incoming;
  const outgoing = c.env?.outgoing;
  if (!incoming || !outgoing) return; // not served by Node (app.request in a test)
  outgoing.once("finish", () => {
    const socket = incoming.socket;
    incoming.resume();
    const timer = setTimeout(() => socket.destroy(), DISCARD_AFTER_REFUSAL_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  });
}

/**
 * Declared body limit (RFC 9110 §8.6, §15.5.14): a request whose `Content-Length` announces more than `maxBytes`
 * gets 413 `payload_too_large` with `Connection: close` at once, on every route and method, before any byte of the
 * body is read (a client that announces 2 GB and sends nothing is sent a response, not waited for). What the client still
 * sends is then discarded for a moment, and the connection closed.
 */
export function declaredBodyLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const declared = Number(c.req.header("content-length") ?? "NaN");
    if (declared > maxBytes) {
      closeAfterResponse(c);
      throw payloadTooLarge(maxBytes);
    }
    await next();
  };
}

/**
 * Message framing the emulator refuses before any handler acts (the HTTP parser hands a request over before it has
 * checked its body's framing, and handlers that read no body act at once):
 * - a `Transfer-Encoding` other than `chunked`: RFC 9112 §6.3 (the body length cannot be determined) → 400;
 * - content on a GET or HEAD request (`Content-Length` above 0, or any `Transfer-Encoding`), which has no meaning
 *   there and which the HTTP adapter would not read (RFC 9110 §9.3.1, §9.3.2: a server may reject it) → 400.
 * Both responses close the connection, as the rest of the message is not read.
 */
export function framingCheck(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const encoding = c.req.header("transfer-encoding");
    const method = c.req.method;
    let refusal: string | undefined;
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "chunked") {
      refusal = "Unsupported Transfer-Encoding; send chunked or a Content-Length";
    } else if (
      (method === "GET" || method === "HEAD") &&
      (encoding !== undefined || Number(c.req.header("content-length") ?? "0") > 0)
    ) {
      refusal = `A ${method} request carries no content`;
    }
    if (refusal !== undefined) {
      closeAfterResponse(c);
      throw new ApiError("invalid_request", refusal, { headers: { Connection: "close" } });
    }
    await next();
  };
}

/**
 * Streamed body limit (RFC 9110 §15.5.14), for bodies without `Content-Length` (chunked): a body that grows past
 * `maxBytes` gets 413 `payload_too_large`. The rest of it is read and discarded (up to 32 MiB; the server's
 * `requestTimeout` bounds the time) before responding, so a client still uploading receives the 413 instead of a reset
 * connection; beyond that the connection is closed. Bodies within the limit are buffered and handed on unchanged.
 * Declared sizes are checked earlier, by {@link declaredBodyLimit}.
 */
export function bodyLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const stream = c.req.raw.body;
    if (!stream) return next();
    const reader = stream.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    let tooLarge = false;
    try {
      for (;;) {
        if (size > DRAIN_LIMIT_BYTES) {
          c.header("Connection", "close");
          break;
        }
        let result: Awaited<ReturnType<typeof reader.read>>;
        try {
          result = await reader.read();
        } catch {
          throw new ApiError("invalid_request", "The request body could not be read");
        }
        const { done, value } = result;
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) tooLarge = true;
        if (!tooLarge) chunks.push(value);
      }
    } finally {
      if (tooLarge) await reader.cancel().catch(() => undefined);
      else reader.releaseLock();
    }
    if (tooLarge) {
      closeAfterResponse(c);
      throw payloadTooLarge(maxBytes);
    }
    const body = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    c.req.raw = new Request(c.req.raw, { body });
    await next();
  };
}

/** The route pattern a request matched, for statistics, e.g. `DELETE /v1/webhooks/:id`, or `GET (unmatched)`. */
function routeKey(c: Context<AppEnv>): string {
  let path: string | undefined;
  try {
    for (const route of matchedRoutes(c)) {
      if (route.path !== "*" && !route.path.endsWith("/*")) path = route.path;
    }
  } catch {
    path = undefined;
  }
  return `${c.req.method} ${path ?? "(unmatched)"}`;
}

/**
 * Whether a `Host` header names this emulator: a loopback host (`kernel/loopback.ts`: `localhost`, 127.0.0.0/8,
 * `[::1]`) and the port it listens on (RFC 9110 §7.2: `host[:port]`, port 80 when left out).
 * @param host the header's value, e.g. `localhost:8976`
 * @param port the port this emulator listens on
 */
function namesThisEmulator(host: string, port: number): boolean {
  const [, name, portText] = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host) ?? [];
  return name !== undefined && isLoopbackHost(name) && Number(portText ?? 80) === port;
}

/**
 * Builds the application for one emulator.
 * @param ctx shared state; `ctx.baseUrl()` must respond once the server listens
 * @param port the listening port (for the Host check), read lazily
 */
export function createApp(ctx: EmulatorContext, port: () => number): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const log = ctx.options.log;

  // Request log and statistics. The log line carries method, path (never the query), status and milliseconds.
  app.use("*", async (c, next) => {
    const started = performance.now();
    ctx.stats.request();
    await next();
    ctx.stats.route(routeKey(c));
    if (log) {
      const dropped = c.env?.incoming?.socket?.destroyed && c.res.status === 499;
      log(
        `${c.req.method} ${c.req.path} ${dropped ? "dropped" : c.res.status} ${Math.round(performance.now() - started)}ms`,
      );
    }
  });

  // Nothing is acknowledged before it is on disk: every response waits for the commit of the changes made since its
  // request started (one commit serves all the requests of an event-loop turn, see commits.ts). When that commit
  // failed, the response becomes the error (with none of the original response's headers).
  app.use("*", async (c, next) => {
    const mark = ctx.store.database.mark();
    await next();
    try {
      await ctx.store.database.committed(mark);
    } catch (error) {
      c.res = undefined;
      c.res = errorResponse(c, error, log);
    }
  });

  // Every response of the token endpoint, errors included, is not to be cached (RFC 6749 §5.1, §5.2).
  app.use(TOKEN_PATH, async (c, next) => {
    await next();
    c.res.headers.set("Cache-Control", "no-store");
    c.res.headers.set("Pragma", "no-cache");
  });

  // A body announced over the limit is refused before anything reads it (or waits for it).
  app.use("*", declaredBodyLimit(ctx.options.bodyLimitBytes));
  app.use("*", framingCheck());

  // DNS-rebinding guard: a page whose site name an attacker points at 127.0.0.1 sends that name as its Host, so only a
  // loopback Host with this emulator's port is served.
  app.use("*", async (c, next) => {
    const host = c.req.header("host");
    if (host !== undefined && !namesThisEmulator(host, port()))
      throw new ApiError("forbidden", "Unexpected Host header");
    await next();
  });

  // Every HTML page, and only pages (JSON responses and redirects do not get them): the page headers above, and no
  // caching. Which responses are pages is known only once the response is made (a route may respond with a page, a redirect or
  // an error), so `pageHeaders` runs after it, with nothing left to call.
  app.use("*", async (c, next) => {
    await next();
    if ((c.res.headers.get("content-type") ?? "").startsWith("text/html")) {
      await pageHeaders(c, async () => undefined);
      c.res.headers.set("Cache-Control", "no-store");
    }
  });

  // Faults are decided before anything else happens to the request.
  const faults = faultMiddleware(ctx.faults);
  app.use("/v1/*", faults); // Hono's "/v1/*" also matches "/v1"
  app.use(TOKEN_PATH, faults);

  app.use("*", bodyLimit(ctx.options.bodyLimitBytes));

  // The route modules, each a sub-app, in this order: the first route that responds wins.
  app.route("/oauth", createOAuthApp(ctx));
  app.route("/v1", createV1App(ctx));
  app.route("/", createWebApp(ctx));
  app.route("/_emulator", createInspectApp(ctx));

  app.notFound((c) => errorResponse(c, notFound("No such path"), log));
  app.onError((error, c) => errorResponse(c, error, log));
  return app;
}
