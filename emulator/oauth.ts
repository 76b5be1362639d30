/**
 * OAuth 2.0 authorization-code endpoints of the emulator (docs/helpdesk-api.md §4.1, §4.2, §5; RFC 6749 §4.1, §6; RFC 7636 PKCE), a
 * Hono sub-app mounted at `/oauth`.
 *
 * - `GET /oauth/authorize`: validates the client and its exact redirect URI (errors are shown as a page, never
 *   redirected, RFC 6749 §4.1.2.1), then approves at once (`autoApprove`) or shows the consent page.
 * - `POST /oauth/authorize`: the consent form (Approve → `code` + `state`; Deny → `error=access_denied` + `state`).
 * - `POST /oauth/token`: `authorization_code` and `refresh_token` grants; client authentication by
 *   `client_secret_post` or HTTP Basic (RFC 6749 §2.3.1); errors per RFC 6749 §5.2.
 */

import { createHash } from "node:crypto";
import type { Context } from "hono";
import { Hono } from "hono";
import type { AppEnv } from "./app-env.js";
import { readBodyParams } from "./body.js";
import type { EmulatorContext } from "./context.js";
import { checkCsrf, currentAccount, ensureCsrf, startSession } from "./cookies.js";
import { methodNotAllowed, OAuthErrorResponse, PageError } from "./errors.js";
import { type ConsentView, consentPage } from "./pages/consent.js";
import type { StoredClient } from "./store/tables.js";

/** Syntax of a PKCE `code_challenge` (S256 → 43 base64url chars) and `code_verifier` (RFC 7636 §4.1, §4.2). */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * Builds the redirect back to the client: `redirectUri` with `params` added to its query, keeping any query it has
 * (RFC 6749 §3.1.2). Parameters whose value is `undefined` are left out.
 */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(key, value);
  return url.toString();
}

/** The S256 transform of a PKCE code verifier: BASE64URL(SHA256(ASCII(verifier))) (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/**
 * The `/oauth` sub-app (mounted with `app.route("/oauth", ...)`): the authorization endpoint (RFC 6749 §3.1) and the
 * token endpoint (RFC 6749 §3.2), with 405 responses for other methods.
 */
export function createOAuthApp(ctx: EmulatorContext): Hono<AppEnv> {
  const oauth = new Hono<AppEnv>();

  /**
   * `GET /oauth/authorize` (RFC 6749 §4.1.1). Query: `client_id`, `response_type=code`, `redirect_uri`, optional
   * `state`, optional `code_challenge` + `code_challenge_method=S256` (RFC 7636 §4.3).
   *
   * Unknown client, missing or non-identical redirect URI, repeated parameters or `response_type` other than `code`:
   * 400 HTML page (never a redirect). Invalid PKCE parameters: redirect with `error=invalid_request` (RFC 7636 §4.4.1).
   * Otherwise a 302 with `code` and `state` (auto-approve) or the 200 consent page.
   */
  oauth.get("/authorize", (c) => {
    const query = new URL(c.req.url).searchParams;
    for (const name of [
      "client_id",
      "redirect_uri",
      "response_type",
      "state",
      "code_challenge",
      "code_challenge_method",
    ]) {
      if (query.getAll(name).length > 1) {
        throw new PageError("invalid_request", `The parameter ${name} is repeated (RFC 6749 §3.1).`, {
          title: "Invalid authorization request",
        });
      }
    }
    const client = clientForAuthorize(ctx, query.get("client_id"), query.get("redirect_uri"));
    const responseType = query.get("response_type");
    if (responseType !== "code") {
      throw new PageError(
        "invalid_request",
        responseType === null
          ? "The response_type parameter is missing; this service supports response_type=code only."
          : "Unsupported response_type; this service supports response_type=code only.",
        { title: "Invalid authorization request" },
      );
    }
    const state = query.get("state") ?? undefined;
    const challenge = query.get("code_challenge") ?? undefined;
    const method = query.get("code_challenge_method") ?? undefined;
    const pkceError = checkPkceRequest(challenge, method);
    if (pkceError) {
      return c.redirect(
        redirectWith(client.redirectUri, { error: "invalid_request", error_description: pkceError, state }),
        302,
      );
    }
    const request = {
      clientId: client.clientId,
      redirectUri: client.redirectUri,
      ...(state !== undefined && { state }),
      ...(challenge !== undefined && { codeChallenge: challenge }),
    };
    const autoAccount = ctx.options.autoApproveAccount;
    if (autoAccount !== undefined) {
      const code = ctx.store.codes.issue({ ...request, account: autoAccount });
      return c.redirect(redirectWith(client.redirectUri, { code, state }), 302);
    }
    const requestId = ctx.store.browser.addPending(request);
    const account = currentAccount(c, ctx);
    return c.html(renderConsent(c, ctx, client, requestId, account !== undefined ? { account } : {}));
  });

  /**
   * `POST /oauth/authorize`: the consent form. Fields: `request` (pending request id), `csrf`, `decision`
   * (`approve`|`deny`), and `username` + `password` when not signed in.
   * Approve → 302 `redirect_uri?code&state` (RFC 6749 §4.1.2); Deny → 302 `redirect_uri?error=access_denied&state`
   * (RFC 6749 §4.1.2.1). Wrong credentials → the page again with an error (401).
   */
  oauth.post("/authorize", async (c) => {
    const { params } = await readBodyParams(c);
    checkCsrf(c, ctx, params.csrf);
    const requestId = typeof params.request === "string" ? params.request : "";
    const pending = ctx.store.browser.peekPending(requestId);
    if (!pending) {
      throw new PageError(
        "invalid_request",
        "This authorization request is unknown, already used or expired. Start again from the application.",
        { title: "Authorization request expired" },
      );
    }
    const client = ctx.store.clients.find(pending.clientId);
    if (!client)
      throw new PageError("invalid_request", "The application is no longer registered.", {
        title: "Unknown application",
      });
    const decision = params.decision;
    if (decision === "deny") {
      ctx.store.browser.takePending(requestId);
      return c.redirect(
        redirectWith(pending.redirectUri, {
          error: "access_denied",
          error_description: "The user denied the request",
          state: pending.state,
        }),
        302,
      );
    }
    if (decision !== "approve")
      throw new PageError("invalid_request", "Choose Approve or Deny.", { title: "Invalid form" });
    let account = currentAccount(c, ctx);
    if (account === undefined) {
      const username = typeof params.username === "string" ? params.username : "";
      const password = typeof params.password === "string" ? params.password : "";
      account = ctx.store.accounts.authenticate(username, password);
      if (account === undefined) {
        return c.html(
          renderConsent(c, ctx, client, requestId, { error: "Wrong username or password.", username }),
          401,
        );
      }
      startSession(c, ctx, account);
    }
    ctx.store.browser.takePending(requestId);
    const code = ctx.store.codes.issue({
      clientId: pending.clientId,
      redirectUri: pending.redirectUri,
      account,
      ...(pending.codeChallenge !== undefined && { codeChallenge: pending.codeChallenge }),
    });
    return c.redirect(redirectWith(pending.redirectUri, { code, state: pending.state }), 302);
  });
  oauth.all("/authorize", () => {
    throw methodNotAllowed(["GET", "HEAD", "POST"]);
  });

  /**
   * `POST /oauth/token` (RFC 6749 §4.1.3, §6). Body form-encoded (or JSON). Responds with 200
   * `{ access_token, token_type: "bearer", expires_in (seconds), refresh_token }` with `Cache-Control: no-store`
   * (RFC 6749 §5.1), or an RFC 6749 §5.2 error: `invalid_request` (400: missing or repeated parameters, bad body),
   * `invalid_client` (401), `invalid_grant` (400: unknown, expired, used or foreign code; redirect_uri mismatch;
   * PKCE failure; bad refresh token), `unsupported_grant_type` (400).
   */
  oauth.post("/token", async (c) => {
    const { params, repeated } = await readBodyParams(
      c,
      (_status, message) => new OAuthErrorResponse("invalid_request", message),
    );
    if (repeated.length > 0) {
      throw new OAuthErrorResponse("invalid_request", `Parameter ${repeated[0]} is repeated (RFC 6749 §3.2)`);
    }
    const grantType = param(params, "grant_type");
    if (grantType === undefined) throw new OAuthErrorResponse("invalid_request", "grant_type is required");
    if (grantType !== "authorization_code" && grantType !== "refresh_token") {
      throw new OAuthErrorResponse(
        "unsupported_grant_type",
        "Supported grant types: authorization_code, refresh_token",
      );
    }
    const client = authenticateClient(c, ctx, params);
    const ttl = ctx.options.accessTokenTtlSeconds;
    let issued: { accessToken: string; refreshToken: string };
    if (grantType === "authorization_code") {
      issued = exchangeCode(ctx, client, params);
    } else {
      issued = refresh(ctx, client, params);
    }
    return c.json(
      { access_token: issued.accessToken, token_type: "bearer", expires_in: ttl, refresh_token: issued.refreshToken },
      200,
      { "Cache-Control": "no-store", Pragma: "no-cache" },
    );
  });
  oauth.all("/token", () => {
    throw methodNotAllowed(["POST"]);
  });
  return oauth;
}

/** The consent page for a pending request of `client`, with what differs between showings (account, error). */
function renderConsent(
  c: Context<AppEnv>,
  ctx: EmulatorContext,
  client: StoredClient,
  requestId: string,
  extra: Pick<ConsentView, "account" | "error" | "username">,
): string {
  return consentPage({
    appName: client.name,
    clientId: client.clientId,
    redirectUri: client.redirectUri,
    requestId,
    csrf: ensureCsrf(c, ctx),
    ...extra,
  });
}

/** Validates `client_id` and the exact `redirect_uri`; throws a 400 {@link PageError} (never redirects). */
function clientForAuthorize(ctx: EmulatorContext, clientId: string | null, redirectUri: string | null): StoredClient {
  if (!clientId)
    throw new PageError("invalid_request", "The client_id parameter is missing.", {
      title: "Invalid authorization request",
    });
  const client = ctx.store.clients.find(clientId);
  if (!client)
    throw new PageError("invalid_request", "No application is registered with this client_id.", {
      title: "Unknown application",
    });
  if (!redirectUri)
    throw new PageError("invalid_request", "The redirect_uri parameter is missing.", {
      title: "Invalid authorization request",
    });
  if (redirectUri !== client.redirectUri) {
    throw new PageError(
      "invalid_request",
      "The redirect_uri does not exactly match the one registered for this application, so you are not sent back to it.",
      { title: "Redirect URI mismatch" },
    );
  }
  return client;
}

/** Returns an error description for invalid PKCE request parameters (RFC 7636 §4.3, §4.4.1), else `undefined`. */
function checkPkceRequest(challenge: string | undefined, method: string | undefined): string | undefined {
  if (challenge === undefined && method === undefined) return undefined;
  if (challenge === undefined) return "code_challenge_method given without code_challenge";
  if (method !== "S256") return "only code_challenge_method=S256 is supported";
  if (!PKCE_VALUE.test(challenge)) return "code_challenge is malformed";
  return undefined;
}

type Params = Record<string, unknown>;

/** A string parameter, `undefined` when absent or empty (RFC 6749 §3.1: empty = omitted); non-strings → invalid_request. */
function param(params: Params, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") throw new OAuthErrorResponse("invalid_request", `${name} must be a string`);
  return value;
}

/**
 * Authenticates the client (RFC 6749 §2.3.1): HTTP Basic with form-urlencoded id and secret, or `client_id` +
 * `client_secret` in the body. Using both is `invalid_request` (RFC 6749 §2.3).
 * @throws {OAuthErrorResponse} `invalid_client` (401) for missing, unknown or wrong credentials
 */
function authenticateClient(c: Context<AppEnv>, ctx: EmulatorContext, params: Params): StoredClient {
  const header = c.req.header("authorization");
  let clientId: string | undefined;
  let secret: string | undefined;
  if (header !== undefined && /^basic(\s|$)/i.test(header)) {
    const decoded = Buffer.from(header.slice(5).trim(), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new OAuthErrorResponse("invalid_client", "Malformed HTTP Basic client credentials");
    try {
      const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
      clientId = formDecode(decoded.slice(0, colon));
      secret = formDecode(decoded.slice(colon + 1));
    } catch {
      throw new OAuthErrorResponse("invalid_client", "Malformed HTTP Basic client credentials");
    }
    if (param(params, "client_secret") !== undefined) {
      throw new OAuthErrorResponse(
        "invalid_request",
        "Use one client authentication method: HTTP Basic or client_secret, not both (RFC 6749 §2.3)",
      );
    }
    const bodyId = param(params, "client_id");
    if (bodyId !== undefined && bodyId !== clientId) {
      throw new OAuthErrorResponse("invalid_request", "client_id differs from the HTTP Basic credentials");
    }
  } else {
    clientId = param(params, "client_id");
    secret = param(params, "client_secret");
  }
  if (clientId === undefined) {
    throw new OAuthErrorResponse(
      "invalid_client",
      "Client authentication is missing: send client_id and client_secret",
    );
  }
  if (secret === undefined) throw new OAuthErrorResponse("invalid_client", "client_secret is missing");
  const client = ctx.store.clients.find(clientId);
  if (!client || !ctx.store.clients.secretMatches(client, secret)) {
    throw new OAuthErrorResponse(
      "invalid_client",
      "Client authentication failed: unknown client_id or wrong client_secret",
    );
  }
  return client;
}

/** The `authorization_code` grant (RFC 6749 §4.1.3) with PKCE verification (RFC 7636 §4.6). */
function exchangeCode(ctx: EmulatorContext, client: StoredClient, params: Params) {
  const code = param(params, "code");
  const redirectUri = param(params, "redirect_uri");
  const verifier = param(params, "code_verifier");
  if (code === undefined) throw new OAuthErrorResponse("invalid_request", "code is required");
  if (redirectUri === undefined) throw new OAuthErrorResponse("invalid_request", "redirect_uri is required");
  const stored = ctx.store.codes.find(code);
  if (!stored || stored.clientId !== client.clientId) {
    throw new OAuthErrorResponse("invalid_grant", "The authorization code is invalid or was issued to another client");
  }
  if (stored.usedAt !== undefined) throw codeReused(ctx, stored.grantId);
  if (stored.expiresAt <= ctx.store.now()) {
    throw new OAuthErrorResponse(
      "invalid_grant",
      "The authorization code has expired (codes are valid for 600 seconds)",
    );
  }
  if (redirectUri !== stored.redirectUri) {
    throw new OAuthErrorResponse("invalid_grant", "redirect_uri does not match the registered redirect URI");
  }
  if (stored.codeChallenge !== undefined) {
    if (verifier === undefined)
      throw new OAuthErrorResponse("invalid_grant", "code_verifier is required (a code_challenge was sent)");
    if (!PKCE_VALUE.test(verifier) || s256(verifier) !== stored.codeChallenge) {
      throw new OAuthErrorResponse("invalid_grant", "code_verifier does not match the code_challenge (RFC 7636 §4.6)");
    }
  } else if (verifier !== undefined) {
    throw new OAuthErrorResponse(
      "invalid_grant",
      "code_verifier sent, but the authorization request had no code_challenge",
    );
  }
  if (!ctx.store.accounts.has(stored.account))
    throw new OAuthErrorResponse("invalid_grant", "The account no longer exists");
  // Conditional: of two exchanges racing (two emulators on one data file), one marks the code, the other is a reuse.
  if (!ctx.store.codes.markUsed(stored)) throw codeReused(ctx, stored.grantId);
  return ctx.store.tokens.issue(stored, ctx.options.accessTokenTtlSeconds);
}

/** A code presented again (RFC 6749 §4.1.2): revokes every token of its grant; returns the error to respond with. */
function codeReused(ctx: EmulatorContext, grantId: string): OAuthErrorResponse {
  ctx.store.tokens.revokeGrant(grantId);
  return new OAuthErrorResponse(
    "invalid_grant",
    "The authorization code was already used; every token issued with it is now revoked (RFC 6749 §4.1.2)",
  );
}

/**
 * The `refresh_token` grant (RFC 6749 §6). Without rotation the same refresh token is returned and stays valid;
 * with rotation a new one is issued and the old one revoked, and presenting a revoked (rotated-out) refresh token
 * revokes the whole grant (replay detection, RFC 9700 §4.14.2).
 */
function refresh(ctx: EmulatorContext, client: StoredClient, params: Params) {
  const presented = param(params, "refresh_token");
  if (presented === undefined) throw new OAuthErrorResponse("invalid_request", "refresh_token is required");
  const stored = ctx.store.tokens.find(presented, "refresh");
  if (!stored || stored.clientId !== client.clientId) {
    throw new OAuthErrorResponse("invalid_grant", "The refresh token is invalid or was issued to another client");
  }
  if (stored.revoked) throw refreshRevoked(ctx, stored.grantId);
  if (!ctx.store.accounts.has(stored.account))
    throw new OAuthErrorResponse("invalid_grant", "The account no longer exists");
  if (ctx.options.rotateRefreshTokens) {
    // Conditional: of two refreshes racing with one token (two emulators on one data file), the second is a replay.
    if (!ctx.store.tokens.revoke(stored)) throw refreshRevoked(ctx, stored.grantId);
    return ctx.store.tokens.issue(stored, ctx.options.accessTokenTtlSeconds);
  }
  return ctx.store.tokens.issue(stored, ctx.options.accessTokenTtlSeconds, presented);
}

/**
 * A revoked refresh token presented: with rotation a replay, which revokes the whole grant (RFC 9700 §4.14.2);
 * returns the error to respond with.
 */
function refreshRevoked(ctx: EmulatorContext, grantId: string): OAuthErrorResponse {
  if (ctx.options.rotateRefreshTokens) ctx.store.tokens.revokeGrant(grantId);
  return new OAuthErrorResponse("invalid_grant", "The refresh token has been revoked");
}
