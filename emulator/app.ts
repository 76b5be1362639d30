/**
 * The emulator's Hono application: request log and statistics, Host check, fault injection, body limit, the route
 * modules (OAuth, `/v1`, pages, `/_emulator`), and the one error handler that renders every {@link EmulatorHttpError}.
 */
import { Hono } from "hono";
import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { matchedRoutes } from "hono/route";
import type { AppEnv, EmulatorContext } from "./context.js";
import { ApiError, EmulatorHttpError, PageError, notFound, payloadTooLarge } from "./errors.js";
import { faultMiddleware } from "./faults.js";
import { registerOAuthRoutes } from "./oauth.js";
import { registerApiRoutes } from "./api.js";
import { registerWebRoutes } from "./web.js";
import { registerInspectRoutes } from "./inspect.js";
import { errorPage } from "./pages/layout.js";

/**
 * Turns an error thrown by a handler into the HTTP answer: {@link PageError} → HTML page; other
 * {@link EmulatorHttpError}s → their JSON body and headers; Hono `HTTPException`s → JSON with their status; anything
 * else → 500 `internal_error` (and a line in the log sink, without request data).
 */
export function errorResponse(c: Context<AppEnv>, error: unknown, log?: (line: string) => void): Response {
  if (error instanceof PageError) {
    return c.html(errorPage(error.title, error.message), error.status as 400);
  }
  if (error instanceof EmulatorHttpError) {
    return c.json(error.body(), error.status as 400, error.headers);
  }
  if (error instanceof HTTPException) {
    const status = error.status;
    const code = status === 413 ? "payload_too_large" : status < 500 ? "invalid_request" : "internal_error";
    return c.json({ error: code, message: error.message || "Request failed" }, status);
  }
  log?.(`internal error: ${error instanceof Error ? error.message : String(error)}`);
  return c.json({ error: "internal_error", message: "Internal error" }, 500);
}

/**
 * Content-Security-Policy of the pages: inline CSS only, no scripts, no framing. `form-action` is deliberately not
 * restricted: the consent form's answer redirects to the client's redirect URI, which `form-action` would block.
 */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/** How many bytes of an oversized body are read and discarded before answering 413 (so the client sees the answer). */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;

/**
 * Request body limit (RFC 9110 §15.5.14): a body longer than `maxBytes` (by `Content-Length` or as streamed) gets
 * 413 `payload_too_large`. The rest of the oversized body is read and discarded (up to 32 MiB) before answering, so
 * a client still uploading receives the 413 instead of a reset connection; beyond that the connection is closed.
 * Bodies within the limit are buffered and handed on unchanged.
 */
export function bodyLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const stream = c.req.raw.body;
    if (!stream) return next();
    const declared = Number(c.req.header("content-length") ?? "NaN");
    const reader = stream.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    let tooLarge = Number.isFinite(declared) && declared > maxBytes;
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
          throw new ApiError(400, "invalid_request", "The request body could not be read");
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
    if (tooLarge) throw payloadTooLarge(maxBytes);
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
 * Builds the application for one emulator.
 * @param ctx shared state; `ctx.baseUrl()` must answer once the server listens
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
      log(`${c.req.method} ${c.req.path} ${dropped ? "dropped" : c.res.status} ${Math.round(performance.now() - started)}ms`);
    }
  });

  // DNS-rebinding guard: only loopback Host names are served.
  app.use("*", async (c, next) => {
    const host = c.req.header("host");
    if (host !== undefined) {
      const p = port();
      const allowed = [`127.0.0.1:${p}`, `localhost:${p}`, `[::1]:${p}`];
      if (!allowed.includes(host.toLowerCase())) throw new ApiError(403, "forbidden", "Unexpected Host header");
    }
    await next();
  });

  // Every HTML page: no framing (click-jacking of the consent buttons, RFC 6749 §10.13), no scripts, no caching.
  app.use("*", async (c, next) => {
    await next();
    if ((c.res.headers.get("content-type") ?? "").startsWith("text/html")) {
      c.res.headers.set("X-Frame-Options", "DENY");
      c.res.headers.set("Content-Security-Policy", PAGE_CSP);
      c.res.headers.set("Cache-Control", "no-store");
      c.res.headers.set("Referrer-Policy", "no-referrer");
    }
  });

  // Faults are decided before anything else happens to the request.
  const faults = faultMiddleware(ctx.faults);
  app.use("/v1/*", faults); // Hono's "/v1/*" also matches "/v1"
  app.use("/oauth/token", faults);

  app.use("*", bodyLimit(ctx.options.bodyLimitBytes));

  registerOAuthRoutes(app, ctx);
  registerApiRoutes(app, ctx);
  registerWebRoutes(app, ctx);
  registerInspectRoutes(app, ctx);

  app.notFound((c) => errorResponse(c, notFound("No such path"), log));
  app.onError((error, c) => errorResponse(c, error, log));
  return app;
}
