/**
 * The access token an operation presents, kept fresh: when it has expired (by `helpdesk:tokenExpiresAt`, with a
 * margin) or the API answers 401, and a refresh token plus client credentials are configured, a new one is obtained
 * with the refresh grant (RFC 6749 §6) once per provider process, shared by every parallel operation.
 *
 * Rotated refresh tokens are never lost: every refresh result is written to the local token cache
 * (`auth/token-cache.ts`), which later runs read first and `pulumi-helpdesk refresh` copies back into stack config.
 */
import { refreshAccessToken, OAuthError } from "../auth/oauth.js";
import { readCachedTokens, writeCachedTokens, type LineageKey } from "../auth/token-cache.js";
import type { Credentials } from "./credentials.js";
import { HelpdeskError } from "./errors.js";

/**
 * Seconds before the recorded expiry at which a token already counts as expired (clock skew, request time): 60, or a
 * quarter of the token's lifetime when that is shorter (a server issuing 2-second tokens must not cause a refresh
 * before every request).
 */
const EXPIRY_MARGIN_SECONDS = 60;

/** A source of bearer tokens for one set of credentials. */
export interface TokenSource {
  /** The token to send now; refreshes first when the recorded expiry has passed. */
  current(): Promise<string>;
  /**
   * Called after a 401 for `rejected`: refreshes (once, shared) and returns the new token, or undefined when no
   * refresh is possible (no refresh token or client credentials, or the token came from `HELPDESK_ACCESS_TOKEN`).
   * @throws HelpdeskError code `credentials` when the refresh grant itself fails (e.g. the refresh token was revoked)
   */
  renew(rejected: string): Promise<string | undefined>;
  /** Every credential value this source knows, for redaction. */
  secrets(): string[];
}

/** Token sources by lineage, so all operations of one provider process share one refresh. */
const sources = new Map<string, TokenSource>();

/**
 * Returns the process-wide token source for these credentials.
 *
 * @param credentials resolved credentials (see `resolveCredentials`)
 * @param fromEnvironment true when the access token came from `HELPDESK_ACCESS_TOKEN` (never refreshed or cached)
 */
export function tokenSourceFor(credentials: Credentials, fromEnvironment: boolean): TokenSource {
  const id = JSON.stringify([credentials.baseUrl, credentials.clientId ?? "", credentials.refreshToken ?? "", fromEnvironment ? credentials.accessToken : ""]);
  let source = sources.get(id);
  if (!source) {
    source = createTokenSource(credentials, fromEnvironment);
    sources.set(id, source);
  }
  return source;
}

function createTokenSource(credentials: Credentials, fromEnvironment: boolean): TokenSource {
  const { baseUrl, clientId, clientSecret } = credentials;
  const lineage: LineageKey | undefined =
    !fromEnvironment && credentials.refreshToken && clientId && clientSecret
      ? { baseUrl, clientId, configRefreshToken: credentials.refreshToken }
      : undefined;

  // Start from the newest tokens of this lineage: a previous run may have refreshed (and rotated) them.
  const cached = lineage ? readCachedTokens(lineage) : undefined;
  let accessToken = cached?.accessToken ?? credentials.accessToken;
  let refreshToken = cached?.refreshToken ?? credentials.refreshToken;
  let expiresAt = cached ? cached.expiresAt : credentials.tokenExpiresAt;
  let marginMs = EXPIRY_MARGIN_SECONDS * 1000;
  const known = new Set([credentials.accessToken, credentials.refreshToken, clientSecret].filter((v): v is string => !!v));
  const remember = (...values: (string | undefined)[]) => values.forEach((v) => v && known.add(v));
  remember(accessToken, refreshToken);
  let inFlight: Promise<string> | undefined;

  const expired = (): boolean => {
    if (!expiresAt) return false;
    const at = Date.parse(expiresAt);
    return Number.isFinite(at) && at - marginMs <= Date.now();
  };

  const refresh = (): Promise<string> => {
    inFlight ??= (async () => {
      try {
        const tokens = await refreshAccessToken({ baseUrl, clientId: clientId!, clientSecret: clientSecret! }, refreshToken!);
        remember(tokens.accessToken, tokens.refreshToken);
        accessToken = tokens.accessToken;
        refreshToken = tokens.refreshToken ?? refreshToken;
        expiresAt = tokens.expiresAt;
        if (tokens.expiresIn !== undefined) marginMs = Math.min(EXPIRY_MARGIN_SECONDS, tokens.expiresIn / 4) * 1000;
        writeCachedTokens(lineage!, { accessToken, refreshToken: refreshToken!, expiresAt });
        return accessToken;
      } catch (error) {
        const why = error instanceof OAuthError ? error.message : String(error);
        throw new HelpdeskError(
          "credentials",
          `the access token expired and renewing it failed (${why}). Run \`pulumi-helpdesk login --stack <stack>\` to sign in again.`,
        );
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  };

  return {
    async current() {
      if (inFlight) return inFlight;
      if (lineage && expired()) return refresh();
      if (!lineage && expired() && !fromEnvironment) {
        throw new HelpdeskError(
          "credentials",
          `the access token expired at ${expiresAt} and no refresh token and client credentials are configured to renew it. ` +
            "Run `pulumi-helpdesk login --stack <stack>`, or set HELPDESK_ACCESS_TOKEN to a valid token.",
        );
      }
      return accessToken;
    },
    async renew(rejected) {
      if (!lineage) return undefined;
      if (inFlight) return inFlight;
      if (rejected !== accessToken) return accessToken; // another operation already renewed it
      return refresh();
    },
    secrets: () => [...known],
  };
}
