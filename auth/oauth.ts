/**
 * OAuth 2.0 authorization-code client helpers for the help-desk API (docs/helpdesk-api.md §4.1, §4.2, §5), on `oauth4webapi` with
 * Node's global fetch (the undici bundled in Node.js; see provider/core/http.ts for why not the undici package) as its
 * HTTP client, and the undici package's fetch for a `localhost` base URL only ({@link loopbackFetch}). Used by `pulumi-helpdesk login` / `refresh` and by the provider's refresh of expired
 * access tokens.
 *
 * Decisions the spec leaves open, each after a standard (docs/design.md "Decisions the service leaves open"): client authentication `client_secret_post`
 * (RFC 6749 §2.3.1), form-encoded token requests (§4.1.3), `expires_in` in seconds (§5.1), refresh with
 * `grant_type=refresh_token` (§6), `state` (§10.12) and PKCE S256 (RFC 7636) always sent.
 */
import * as oauth from "oauth4webapi";
import { allowsPlainHttp, baseUrlText, endpointUrl } from "../kernel/base-url.js";
import { messageOf, PulumiHelpdeskError } from "../kernel/errors.js";
import { isLocalhostName, localhostLookup } from "../kernel/loopback.js";
import { MAX_RESPONSE_BYTES, readAtMost, tooLargeText } from "../kernel/response-limit.js";
import { registerSecret, serverText } from "./redact.js";

/** The OAuth client registration of docs/helpdesk-api.md §5.2: issued id and secret, and the redirect URI supplied in advance. */
export interface OAuthClientConfig {
  /** API base URL (docs/helpdesk-api.md §1 `{base_url}`), as `kernel/base-url.ts` parsed it. */
  baseUrl: URL;
  /** `client_id` (docs/helpdesk-api.md §4.1). */
  clientId: string;
  /** `client_secret` (docs/helpdesk-api.md §4.2). */
  clientSecret: string;
  /** `redirect_uri`, exactly as registered (docs/helpdesk-api.md §5.3). */
  redirectUri: string;
}

/** The token response of docs/helpdesk-api.md §2.2 / RFC 6749 §5.1, with the expiry made absolute. */
export interface TokenSet {
  /** `access_token`, presented as `Authorization: Bearer` (RFC 6750 §2.1). */
  accessToken: string;
  /** `token_type`, lower-cased (`"bearer"`). */
  tokenType: string;
  /** `refresh_token`, when the server issued one. */
  refreshToken: string | undefined;
  /** `expires_in` in seconds (RFC 6749 §5.1), when given. */
  expiresIn: number | undefined;
  /** Expiry as ISO 8601 UTC (now + `expires_in`), when `expires_in` was given. */
  expiresAt: string | undefined;
}

/** What {@link startAuthorization} returns: the URL to open and the values the callback is checked against. */
export interface AuthorizationRequest {
  /** `{base_url}/oauth/authorize?client_id&response_type=code&redirect_uri&state&code_challenge&code_challenge_method`. */
  url: URL;
  /** The `state` sent; the callback must carry the same (RFC 6749 §10.12). */
  state: string;
  /** The PKCE `code_verifier` (RFC 7636 §4.1) to send with the code. */
  codeVerifier: string;
}

/**
 * The codes of {@link OAuthError}, constants as oauth4webapi exports its own: the `error` values a server sends
 * (RFC 6749 §4.1.2.1 from the authorization endpoint, §5.2 from the token endpoint; RFC 6750 §3.1 of a bearer token),
 * and this client's: `state_mismatch` (a redirect whose `state` is not the sign-in's, RFC 6749 §10.12),
 * `bad_response` (a response the client cannot use), `network` (no response), and `unknown_error` (a server's `error`
 * that is none of these, or none at all; the message quotes what the server sent).
 */
export const OAUTH_ERROR_CODES = Object.freeze({
  INVALID_REQUEST: "invalid_request",
  INVALID_CLIENT: "invalid_client",
  INVALID_GRANT: "invalid_grant",
  UNAUTHORIZED_CLIENT: "unauthorized_client",
  UNSUPPORTED_GRANT_TYPE: "unsupported_grant_type",
  INVALID_SCOPE: "invalid_scope",
  ACCESS_DENIED: "access_denied",
  UNSUPPORTED_RESPONSE_TYPE: "unsupported_response_type",
  SERVER_ERROR: "server_error",
  TEMPORARILY_UNAVAILABLE: "temporarily_unavailable",
  INVALID_TOKEN: "invalid_token",
  INSUFFICIENT_SCOPE: "insufficient_scope",
  STATE_MISMATCH: "state_mismatch",
  BAD_RESPONSE: "bad_response",
  NETWORK: "network",
  UNKNOWN_ERROR: "unknown_error",
} as const);

/** A code of {@link OAUTH_ERROR_CODES}. */
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[keyof typeof OAUTH_ERROR_CODES];

const KNOWN_CODES: ReadonlySet<string> = new Set(Object.values(OAUTH_ERROR_CODES));

/** Whether a text is one of {@link OAUTH_ERROR_CODES}. */
function isOAuthErrorCode(text: string): text is OAuthErrorCode {
  return KNOWN_CODES.has(text);
}

/**
 * The code of an `error` a server sent (RFC 6749 §4.1.2.1, §5.2; RFC 6750 §3.1).
 *
 * @param error the server's value, as {@link serverText} made it fit to show
 * @returns the value when it is one of {@link OAUTH_ERROR_CODES}, else `unknown_error`
 */
export function oauthErrorCodeOf(error: string): OAuthErrorCode {
  return isOAuthErrorCode(error) ? error : OAUTH_ERROR_CODES.UNKNOWN_ERROR;
}

/**
 * An OAuth failure with a stable `code` (one of {@link OAUTH_ERROR_CODES}). The message never contains a code, token
 * or secret.
 */
export class OAuthError extends PulumiHelpdeskError<OAuthErrorCode> {
  /** HTTP status of the token endpoint's response, when there was one. */
  readonly status: number | undefined;

  /**
   * @param code one of {@link OAUTH_ERROR_CODES}
   * @param message human-readable, credential-free message
   * @param options `status`: the HTTP status when known; `cause`: the error this one wraps (oauth4webapi's or
   *   undici's), kept for debugging, never shown as such
   */
  constructor(code: OAuthErrorCode, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(code, message, options);
    this.status = options.status;
  }
}

/**
 * The authorization server of a help-desk API: fixed endpoints `/oauth/authorize` and `/oauth/token` (docs/helpdesk-api.md §4.1,
 * §4.2, §9: no version prefix). The spec has no discovery document, so the metadata is built, not fetched.
 */
export function authorizationServer(baseUrl: URL): oauth.AuthorizationServer {
  return {
    issuer: baseUrlText(baseUrl),
    authorization_endpoint: endpointUrl(baseUrl, "/oauth/authorize").href,
    token_endpoint: endpointUrl(baseUrl, "/oauth/token").href,
  };
}

/**
 * Options every oauth4webapi request gets: plain http only where the base URL rule allows it (loopback hosts,
 * `kernel/base-url.ts` `allowsPlainHttp`), a 30 s deadline for the whole exchange (body included), and
 * {@link boundedFetch}.
 */
function requestOptions(baseUrl: URL): oauth.TokenEndpointRequestOptions {
  return {
    [oauth.allowInsecureRequests]: allowsPlainHttp(baseUrl),
    [oauth.customFetch]: boundedFetch,
    signal: AbortSignal.timeout(30_000),
  };
}

/** Final statuses whose response has no body (Fetch standard "null body status"): a `Response` with one cannot be built. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** What {@link boundedFetch} reads of a fetch's response: the status line, the headers and the body stream. */
type FetchedResponse = Pick<Response, "status" | "statusText" | "headers" | "body">;

/** A fetch of a token request (oauth4webapi's options) that gives the response's {@link FetchedResponse} parts. */
type TokenFetch = (url: string, options: oauth.CustomFetchOptions<"POST", URLSearchParams>) => Promise<FetchedResponse>;

/** The fetch of {@link loopbackFetch}, once loaded. */
let loadedLoopbackFetch: Promise<TokenFetch> | undefined;

/**
 * A fetch for a `localhost` token endpoint that connects to the loopback addresses without asking a resolver
 * (kernel/loopback.ts `localhostLookup`, RFC 6761 §6.3): the undici package's fetch over an Agent with that lookup.
 * Why not Node's global fetch there: the undici inside Node.js takes no `lookup`, and no dispatcher of the undici
 * package either (measured with Node 24.21 and undici 8: "invalid onRequestStart method"). Loaded on first use, so a
 * provider process loads undici only for a local help desk (see provider/core/http.ts on its memory).
 */
function loopbackFetch(): Promise<TokenFetch> {
  loadedLoopbackFetch ??= import("undici").then(({ Agent, fetch: undiciFetch }) => {
    const dispatcher = new Agent({ connect: { lookup: localhostLookup } });
    return async (url, options) => {
      const response = await undiciFetch(url, { ...options, dispatcher });
      return {
        status: response.status,
        statusText: response.statusText,
        headers: new Headers([...response.headers]),
        body: response.body as ReadableStream<Uint8Array> | null,
      };
    };
  });
  return loadedLoopbackFetch;
}

/**
 * Node's global fetch ({@link loopbackFetch} for a `localhost` token endpoint) with the response's body read here, at most `MAX_RESPONSE_BYTES` (kernel/response-limit.ts: 1 MiB,
 * far above any token response), and handed to oauth4webapi as a `Response` already in memory. oauth4webapi reads
 * the body with `response.json()`, which has no limit; its `customFetch` option is the hook it offers for this.
 * Bytes are counted after fetch's decompression, so a small compressed body that inflates is cut off too.
 *
 * @param url the token endpoint; @param options what oauth4webapi passes to fetch (method, headers, body, signal)
 * @throws OAuthError `bad_response` when the body is longer than the limit (the connection is closed at once);
 *   fetch's errors as they are
 */
async function boundedFetch(
  url: string,
  options: oauth.CustomFetchOptions<"POST", URLSearchParams>,
): Promise<Response> {
  const response: FetchedResponse = isLocalhostName(new URL(url).hostname)
    ? await (await loopbackFetch())(url, options)
    : await fetch(url, options);
  const stream = response.body;
  const body =
    stream === null
      ? Buffer.alloc(0)
      : await readAtMost(
          stream,
          MAX_RESPONSE_BYTES,
          response.headers.get("content-length"),
          () => void stream.cancel().catch(() => undefined),
        );
  if (body === undefined)
    throw new OAuthError(OAUTH_ERROR_CODES.BAD_RESPONSE, tooLargeText("the token endpoint", MAX_RESPONSE_BYTES), {
      status: response.status,
    });
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  return new Response(NULL_BODY_STATUSES.has(response.status) ? null : new Uint8Array(body), init);
}

/**
 * Builds the authorization request of RFC 6749 §4.1.1 (docs/helpdesk-api.md §4.1) with a fresh `state` and PKCE S256 challenge.
 *
 * @param config the client registration
 * @returns the URL to open in a browser and the `state` / `code_verifier` to keep for the callback
 */
export async function startAuthorization(config: OAuthClientConfig): Promise<AuthorizationRequest> {
  const state = oauth.generateRandomState();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const url = endpointUrl(config.baseUrl, "/oauth/authorize");
  url.searchParams.set("client_id", config.clientId);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("redirect_uri", config.redirectUri);
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set("code_challenge_method", "S256");
  return { url, state, codeVerifier };
}

/**
 * Completes the flow: checks the redirect's parameters (RFC 6749 §4.1.2, `state` included), then exchanges the
 * authorization code at the token endpoint (§4.1.3, docs/helpdesk-api.md §4.2) and checks the response (§5.1).
 *
 * @param config the client registration
 * @param callback the URL the browser was redirected to (or just its query parameters)
 * @param request the `state` and `code_verifier` of {@link startAuthorization}
 * @returns the tokens, with the expiry as ISO 8601
 * @throws OAuthError `access_denied` (the person clicked Deny) or another RFC 6749 §4.1.2.1 error from the
 *   redirect; `state_mismatch`; an RFC 6749 §5.2 error from the token endpoint; `bad_response`; `network`
 */
export async function exchangeAuthorizationCode(
  config: OAuthClientConfig,
  callback: URL | URLSearchParams,
  request: Pick<AuthorizationRequest, "state" | "codeVerifier">,
): Promise<TokenSet> {
  const as = authorizationServer(config.baseUrl);
  const client: oauth.Client = { client_id: config.clientId };
  registerSecret(config.clientSecret);
  registerSecret(request.codeVerifier);
  registerSecret(new URLSearchParams(callback instanceof URL ? callback.search : callback).get("code") ?? undefined);
  let parameters: URLSearchParams;
  try {
    parameters = oauth.validateAuthResponse(as, client, callback, request.state);
  } catch (error) {
    throw toOAuthError(error, "authorization");
  }
  return tokenRequest("authorization code exchange", () =>
    oauth
      .authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretPost(config.clientSecret),
        parameters,
        config.redirectUri,
        request.codeVerifier,
        requestOptions(config.baseUrl),
      )
      .then((response) => oauth.processAuthorizationCodeResponse(as, client, response)),
  );
}

/**
 * Obtains a new access token with a refresh token (RFC 6749 §6; the service does not show refresh, docs/helpdesk-api.md §5.6).
 * A server that rotates refresh tokens returns a new one; callers must store it (the old one may be revoked).
 *
 * @param config the client registration (`redirectUri` unused)
 * @param refreshToken the current refresh token
 * @returns the new tokens; `refreshToken` is the new one when rotated, else the one passed in
 * @throws OAuthError an RFC 6749 §5.2 error (`invalid_grant` when the refresh token is no longer valid), `network`
 */
export async function refreshAccessToken(
  config: Pick<OAuthClientConfig, "baseUrl" | "clientId" | "clientSecret">,
  refreshToken: string,
): Promise<TokenSet> {
  const as = authorizationServer(config.baseUrl);
  const client: oauth.Client = { client_id: config.clientId };
  registerSecret(config.clientSecret);
  registerSecret(refreshToken);
  const tokens = await tokenRequest("refresh", () =>
    oauth
      .refreshTokenGrantRequest(
        as,
        client,
        oauth.ClientSecretPost(config.clientSecret),
        refreshToken,
        requestOptions(config.baseUrl),
      )
      .then((response) => oauth.processRefreshTokenResponse(as, client, response)),
  );
  return { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken };
}

async function tokenRequest(what: string, call: () => Promise<oauth.TokenEndpointResponse>): Promise<TokenSet> {
  let response: oauth.TokenEndpointResponse;
  try {
    response = await call();
  } catch (error) {
    throw toOAuthError(error, what);
  }
  registerSecret(response.access_token);
  registerSecret(response.refresh_token);
  const expiresIn = typeof response.expires_in === "number" ? response.expires_in : undefined;
  return {
    accessToken: response.access_token,
    tokenType: response.token_type,
    refreshToken: response.refresh_token,
    expiresIn,
    expiresAt: expiresIn === undefined ? undefined : new Date(Date.now() + expiresIn * 1000).toISOString(),
  };
}

/** Maps oauth4webapi's and undici's errors to {@link OAuthError} with a message a person can act on. */
function toOAuthError(error: unknown, what: string): OAuthError {
  // Everything a server wrote (error codes, descriptions, messages quoting the body) is untrusted text: it passes
  // through serverText (escapes removed, credentials removed, shortened) before it is part of a message.
  const described = (description: string | undefined): string =>
    description ? `: ${serverText(description, [], 200)}` : "";
  if (error instanceof OAuthError)
    return new OAuthError(error.code, `${what} failed: ${error.message}`, { status: error.status, cause: error });
  if (error instanceof oauth.AuthorizationResponseError) {
    const sent = serverText(error.error, [], 64);
    const code = oauthErrorCodeOf(sent);
    const hint = code === OAUTH_ERROR_CODES.ACCESS_DENIED ? " (access was denied in the browser)" : "";
    return new OAuthError(code, `authorization failed with ${sent}${hint}${described(error.error_description)}`, {
      cause: error,
    });
  }
  if (error instanceof oauth.ResponseBodyError) {
    const sent = serverText(error.error, [], 64);
    return new OAuthError(
      oauthErrorCodeOf(sent),
      `${what} failed: the token endpoint responded with ${error.status} ${sent}${described(error.error_description)}`,
      { status: error.status, cause: error },
    );
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const sent = serverText(error.cause[0]?.parameters.error ?? OAUTH_ERROR_CODES.INVALID_CLIENT, [], 64);
    return new OAuthError(
      oauthErrorCodeOf(sent),
      `${what} failed: the token endpoint responded with ${error.status} ${sent} (check the client id and secret)`,
      { status: error.status, cause: error },
    );
  }
  if (error instanceof oauth.OperationProcessingError) {
    const code =
      error.code === oauth.INVALID_RESPONSE && /state/i.test(error.message)
        ? OAUTH_ERROR_CODES.STATE_MISMATCH
        : OAUTH_ERROR_CODES.BAD_RESPONSE;
    return new OAuthError(code, `${what} failed: ${serverText(error.message)}`, { cause: error });
  }
  const message = messageOf(error);
  return new OAuthError(OAUTH_ERROR_CODES.NETWORK, `${what} failed: ${serverText(message)}`, { cause: error });
}
