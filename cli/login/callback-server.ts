/**
 * The loopback redirect receiver of `pulumi-helpdesk login` (RFC 8252 §7.3: loopback interface redirection).
 *
 * Listens on exactly the host, port and path of the registered `redirect_uri` (docs/helpdesk-api.md §5.3 requires an exact match);
 * for the host `localhost`, on both loopback addresses it names (127.0.0.1 and ::1), so no other process can take one.
 * Only the redirect that carries this login's `state` (RFC 6749 §4.1.2, §10.12) ends the wait; anything else that
 * reaches the port (a browser prefetch, a favicon request, a local scanner, a forged link) gets a short 4xx page and
 * the wait goes on. The browser's request for the genuine redirect is held open until the caller has finished the
 * code exchange and calls {@link AuthorizationCallback.respond}, so the page says "signed in" only when that is true.
 *
 * | request                                                      | response                    | ends the wait |
 * |--------------------------------------------------------------|-----------------------------|---------------|
 * | any method, other path (`/favicon.ico`, `/`, ...)            | 404 text                    | no            |
 * | callback path, method other than GET (POST, HEAD, ...)       | 405 text, `Allow: GET`      | no            |
 * | GET callback path, `state` missing, repeated or not equal    | 400 text                    | no            |
 * | GET callback path, right `state`, `code`                     | held; page from `respond()` | yes: resolves |
 * | GET callback path, right `state`, `error` (§4.1.2.1)         | 200 failure page            | yes: rejects  |
 * | GET callback path, right `state`, neither / repeated `code`  | 200 failure page            | yes: rejects  |
 * | GET callback path, right `state`, after the wait has ended   | 409 text                    | (already)     |
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { OAUTH_ERROR_CODES, OAuthError, oauthErrorCodeOf } from "../../auth/oauth.js";
import { serverText } from "../../auth/redact.js";
import { isLoopbackHost } from "../../kernel/loopback.js";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { CliError } from "../shared/output.js";

/** Default of {@link CallbackOptions.responseTimeoutSeconds}: how long the browser waits for the result, in seconds. */
export const DEFAULT_RESPONSE_TIMEOUT_SECONDS = 60;

/** How long `close()` lets connections with a response finish before cutting them, in milliseconds. */
const CLOSE_GRACE_MS = 1000;

/** What the browser is told once the login has finished: success, or a failure message a person can act on. */
export type CallbackOutcome = { ok: true } | { ok: false; message: string };

/**
 * The genuine redirect (its `state` matched): the URL the browser was sent to, and the way to respond to it.
 * The browser's request stays open until `respond` is called or the response bound passes.
 */
export interface AuthorizationCallback {
  /** The registered redirect URI with the query the browser brought (`code`, `state`, ...). */
  url: URL;
  /**
   * Responds to the browser with a page for `outcome` (a failure message is shown through auth/redact.ts `serverText`:
   * escape sequences, control characters and credentials removed, shortened).
   * Idempotent: only the first call, and only before the response bound, reaches the browser; never throws.
   */
  respond(outcome: CallbackOutcome): void;
}

/** Why a request got a 4xx response and did not end the wait. */
export type IgnoredReason = "not_found" | "method_not_allowed" | "missing_state" | "state_mismatch" | "already_settled";

/** Options of {@link listenForCallback}. */
export interface CallbackOptions {
  /** The `state` sent in the authorization request (RFC 6749 §4.1.1); only a redirect carrying exactly it counts. */
  state: string;
  /** How long to wait for the redirect, in seconds (login's `--timeout`); stray requests do not extend it. */
  timeoutSeconds: number;
  /**
   * How long the browser's request for the genuine redirect is held open waiting for `respond()`, in seconds
   * (default {@link DEFAULT_RESPONSE_TIMEOUT_SECONDS}); then the page says to look at the terminal.
   */
  responseTimeoutSeconds?: number;
  /** Told about each request that got a 4xx response and did not end the wait (for a warning, or tests). */
  onIgnored?: (reason: IgnoredReason, request: { method: string; path: string }) => void;
}

/** A listening receiver. */
export interface CallbackReceiver {
  /**
   * Resolves with the genuine redirect once a GET on the callback path carries the expected `state` and one `code`.
   * Rejects with {@link OAuthError} when that redirect carries an RFC 6749 §4.1.2.1 `error` (`access_denied`: the
   * person declined) or no usable `code`, and with {@link CliError} when `timeoutSeconds` pass first.
   */
  callback: Promise<AuthorizationCallback>;
  /** Responds to a still-held browser request, stops listening and ends the connections (idempotent). */
  close(): Promise<void>;
}

/**
 * Tells whether a redirect URI points at this machine (a loopback host of `kernel/loopback.ts`, over http), so that
 * login can receive it itself (RFC 8252 §7.3, §8.3).
 */
export function isLoopbackRedirect(redirectUri: URL): boolean {
  return redirectUri.protocol === "http:" && isLoopbackHost(redirectUri.hostname);
}

/**
 * Starts listening for the OAuth redirect on the registered loopback redirect URI (RFC 8252 §7.3).
 *
 * @param redirectUri the registered redirect URI (loopback, http, with an explicit port)
 * @param options the expected `state`, the timeouts in seconds, an optional `onIgnored` observer
 * @returns a {@link CallbackReceiver} whose `callback` settles only for the request that carries `options.state`
 * @throws CliError when the port is taken on any address to listen on (the message names it) or cannot be bound;
 *   nothing is left listening then
 * @throws TypeError when `options.state` is empty
 */
export async function listenForCallback(redirectUri: URL, options: CallbackOptions): Promise<CallbackReceiver> {
  if (!options.state) throw new TypeError("listenForCallback: the expected state must not be empty");
  const expectedState = Buffer.from(options.state, "utf8");
  const responseTimeoutMs = (options.responseTimeoutSeconds ?? DEFAULT_RESPONSE_TIMEOUT_SECONDS) * 1000;
  const port = Number(redirectUri.port || 80);
  const hosts = listenAddresses(redirectUri.hostname);
  let settled = false;
  let settle: { resolve(callback: AuthorizationCallback): void; reject(error: Error): void } | undefined;
  const callback = new Promise<AuthorizationCallback>((resolve, reject) => (settle = { resolve, reject }));
  callback.catch(() => undefined); // a rejection nobody awaits (after close) is not an unhandled error
  let held: { respond(outcome: CallbackOutcome | "late"): void } | undefined;
  let waitTimer: NodeJS.Timeout | undefined;

  const ignore = (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    status: number,
    reason: IgnoredReason,
    text: string,
  ) => {
    const headers: Record<string, string> = status === 405 ? { allow: "GET" } : {};
    res.writeHead(status, { ...PLAIN_HEADERS, ...headers }).end(`${text}\n`);
    options.onIgnored?.(reason, { method: req.method ?? "", path });
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    let received: URL;
    try {
      received = new URL(req.url ?? "/", "http://loopback.invalid");
    } catch {
      return ignore(req, res, "", 404, "not_found", `Not the ${CLI_EXECUTABLE} login callback.`);
    }
    const path = received.pathname;
    if (path !== redirectUri.pathname)
      return ignore(req, res, path, 404, "not_found", `Not the ${CLI_EXECUTABLE} login callback.`);
    if (req.method !== "GET")
      return ignore(req, res, path, 405, "method_not_allowed", "The login callback accepts only GET.");
    const [state, ...otherStates] = received.searchParams.getAll("state");
    if (state === undefined)
      return ignore(
        req,
        res,
        path,
        400,
        "missing_state",
        "Ignored: this request carries no state, so it is not the sign-in redirect.",
      );
    if (otherStates.length > 0 || !sameState(state, expectedState)) {
      return ignore(
        req,
        res,
        path,
        400,
        "state_mismatch",
        "Ignored: this request's state does not match the sign-in that is waiting.",
      );
    }
    if (settled)
      return ignore(req, res, path, 409, "already_settled", "This sign-in has already ended; return to the terminal.");

    settled = true;
    clearTimeout(waitTimer);
    const url = new URL(redirectUri.href);
    url.search = received.search;
    const failure = redirectFailure(url.searchParams);
    if (failure) {
      sendPage(res, { ok: false, message: failure.message });
      settle?.reject(failure);
      return;
    }
    held = holdResponse(res, responseTimeoutMs);
    settle?.resolve({ url, respond: held.respond });
  };

  const servers = await listenOnAll(hosts, port, handle);

  waitTimer = setTimeout(() => {
    if (settled) return;
    settled = true;
    settle?.reject(
      new CliError(
        "failed",
        `timed out after ${options.timeoutSeconds} s waiting for the browser to come back to ${redirectUri.href}`,
      ),
    );
  }, options.timeoutSeconds * 1000);
  let closed = false;
  return {
    callback,
    close: async () => {
      if (closed) return;
      closed = true;
      clearTimeout(waitTimer);
      held?.respond("late");
      await Promise.all(servers.map(closeServer));
    },
  };
}

/**
 * The addresses to listen on for a redirect URI's host. `localhost` is every loopback address the name stands for,
 * 127.0.0.1 and ::1 (RFC 6761 §6.3; browsers resolve it themselves and may try ::1 first, whatever /etc/hosts says):
 * listening on one only would leave the other free for another local process to take and receive the code and
 * `state` (RFC 8252 §8.3 prefers the IP literal for this reason). An IP literal is that address alone.
 */
function listenAddresses(hostname: string): string[] {
  return hostname === "localhost" ? ["127.0.0.1", "::1"] : [hostname.replace(/^\[|\]$/g, "")];
}

/**
 * Listens on `port` of every address in `hosts` (one server each, one request handler), all or none: when one cannot
 * be bound, those already listening are closed and a {@link CliError} names the address. The one exception is ::1 of
 * `localhost` on a machine without IPv6 loopback (EADDRNOTAVAIL, EAFNOSUPPORT): nobody can listen there, so 127.0.0.1
 * alone is complete.
 */
async function listenOnAll(
  hosts: string[],
  port: number,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Server[]> {
  const servers: Server[] = [];
  for (const host of hosts) {
    const server = createServer(handle);
    const failure = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      server.once("error", resolve);
      server.listen(port, host, () => resolve(undefined));
    });
    if (!failure) {
      servers.push(server);
      continue;
    }
    if (hosts.length > 1 && host === "::1" && (failure.code === "EADDRNOTAVAIL" || failure.code === "EAFNOSUPPORT"))
      continue;
    await Promise.all(servers.map(closeServer));
    const address = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
    throw new CliError(
      "failed",
      failure.code === "EADDRINUSE"
        ? `cannot receive the sign-in redirect: ${address} is already in use. Stop what listens there, or register a different redirect URI.`
        : `cannot listen on ${address} for the sign-in redirect: ${failure.message}`,
    );
  }
  return servers;
}

/** Stops a server: idle connections now, those with a response after {@link CLOSE_GRACE_MS}. */
function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The headers of every response of the callback server: never cached, never sniffed, the connection closed. */
const COMMON_HEADERS = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  connection: "close",
};

/** The headers of a plain-text response (a refusal or an error). */
const PLAIN_HEADERS = { ...COMMON_HEADERS, "content-type": "text/plain; charset=utf-8" };

/** Compares a received `state` with the expected one in constant time (RFC 6749 §10.12); other lengths never match. */
function sameState(received: string, expected: Buffer): boolean {
  const bytes = Buffer.from(received, "utf8");
  return bytes.length === expected.length && timingSafeEqual(bytes, expected);
}

/**
 * The failure a right-state redirect reports: an RFC 6749 §4.1.2.1 error response, or a response without exactly
 * one `code` (§4.1.2). Server text goes through `serverText` (untrusted: escapes, control characters and credentials
 * removed, shortened); undefined when the redirect carries one code and no error.
 */
function redirectFailure(query: URLSearchParams): OAuthError | undefined {
  const error = query.get("error");
  if (error !== null) {
    const sent = serverText(error, [], 64) || OAUTH_ERROR_CODES.UNKNOWN_ERROR;
    const code = oauthErrorCodeOf(sent);
    const hint = code === OAUTH_ERROR_CODES.ACCESS_DENIED ? " (you declined in the browser)" : "";
    const description = serverText(query.get("error_description") ?? "", [], 200);
    return new OAuthError(code, `authorization failed with ${sent}${hint}${description ? `: ${description}` : ""}`);
  }
  const codes = query.getAll("code");
  if (codes.length !== 1 || !codes[0]) {
    return new OAuthError(
      OAUTH_ERROR_CODES.BAD_RESPONSE,
      `the redirect carried ${codes.length > 1 ? "more than one" : "no"} authorization code`,
    );
  }
  return undefined;
}

/**
 * Holds the browser's request open: the first `respond` sends the page; after `timeoutMs` the browser is told to look
 * at the terminal, and later responses are dropped.
 */
function holdResponse(res: ServerResponse, timeoutMs: number): { respond(outcome: CallbackOutcome | "late"): void } {
  let responded = false;
  const respond = (outcome: CallbackOutcome | "late") => {
    if (responded) return;
    responded = true;
    clearTimeout(bound);
    if (!res.destroyed && !res.writableEnded) sendPage(res, outcome);
  };
  const bound = setTimeout(() => respond("late"), timeoutMs);
  return { respond };
}

/** Sends the result page (200: the request was the genuine redirect; the page says how the login went). */
function sendPage(res: ServerResponse, outcome: CallbackOutcome | "late"): void {
  res.writeHead(200, {
    ...COMMON_HEADERS,
    "content-type": "text/html; charset=utf-8",
    "referrer-policy": "no-referrer",
  });
  if (outcome === "late") {
    res.end(
      resultPage("Still finishing the sign-in", ["Return to the terminal to see whether it succeeded."], "#b54708"),
    );
  } else if (outcome.ok) {
    res.end(resultPage("You are signed in", ["You can close this tab and return to the terminal."], "#027a48"));
  } else {
    res.end(
      resultPage(
        "Sign-in failed",
        [serverText(outcome.message, [], 400), "Return to the terminal for details."],
        "#b42318",
      ),
    );
  }
}

function resultPage(title: string, paragraphs: string[], color: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${CLI_EXECUTABLE} login</title>
<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;height:100vh;margin:0;background:#f8fafc}
main{background:#fff;padding:2rem 3rem;border-radius:12px;box-shadow:0 1px 4px #0002;text-align:center;max-width:40rem}
h1{color:${color};font-size:1.4rem}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>${paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join("")}</main></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}
