/**
 * The access token an operation presents (RFC 6750 §2.1), kept fresh.
 *
 * Two kinds of source, and the types say which is which:
 * - {@link RenewingTokenSource}, for a sign-in that can be renewed (a `Lineage`: refresh token plus client
 *   credentials, `auth/lineage.ts`). It starts from the lineage's newest tokens in the local token cache, and when
 *   the access token has expired (by `helpdesk:tokenExpiresAt`, with a margin) or the API answers 401, renews it
 *   with `refreshLineage` (RFC 6749 §6): durably cached first, one process at a time per lineage, and once per
 *   provider process, shared by every parallel operation.
 * - {@link FixedTokenSource}, for a token that cannot be renewed: from `HELPDESK_ACCESS_TOKEN`, or a config without
 *   a refresh token or client credentials.
 */
import { OAuthError } from "../auth/oauth.js";
import { accessTokenExpired, readLineage, refreshLineage, type Lineage, type LineageTokens } from "../auth/lineage.js";
import { registerSecret } from "../auth/redact.js";
import { TokenCacheError } from "../auth/token-cache.js";
import { HelpdeskError } from "./errors.js";

/** A source of bearer tokens for one set of credentials. */
export interface TokenSource {
  /**
   * The token to send now; renews first when the recorded expiry has passed.
   * @throws HelpdeskError code `credentials` when it expired and cannot be renewed, or renewing it failed
   */
  current(): Promise<string>;
  /**
   * Called after a 401 for `rejected`: renews (once, shared) and returns the new token, or undefined when the token
   * cannot be renewed (no refresh token or client credentials, or it came from `HELPDESK_ACCESS_TOKEN`).
   * @throws HelpdeskError code `credentials` when the refresh grant itself fails (e.g. the refresh token was revoked)
   *   or the local token cache stops it (damaged file, interrupted refresh: the message names the file)
   */
  renew(rejected: string): Promise<string | undefined>;
  /** Every credential value this source knows, for redaction. */
  secrets(): string[];
}

/** Token sources by identity, so all operations of one provider process share one renewal. */
const sources = new Map<string, TokenSource>();

/**
 * Returns the process-wide token source for these credentials.
 *
 * @param credentials the access token, its expiry, and the sign-in (`lineageOf`) when the token
 *   can be renewed
 */
export function tokenSourceFor(credentials: { accessToken: string; tokenExpiresAt: string | undefined; lineage: Lineage | undefined }): TokenSource {
  const lineage = credentials.lineage;
  const id = lineage
    ? JSON.stringify(["renewing", lineage.client.baseUrl, lineage.client.clientId, lineage.configTokens.refreshToken])
    : JSON.stringify(["fixed", credentials.accessToken, credentials.tokenExpiresAt ?? ""]);
  let source = sources.get(id);
  if (!source) {
    source = lineage ? new RenewingTokenSource(lineage) : new FixedTokenSource(credentials.accessToken, credentials.tokenExpiresAt);
    sources.set(id, source);
  }
  return source;
}

/** A token that cannot be renewed: used until its recorded expiry, if any, passes. */
export class FixedTokenSource implements TokenSource {
  private readonly accessToken: string;
  private readonly expiresAt: string | undefined;

  /**
   * @param accessToken the bearer token
   * @param expiresAt its expiry as ISO 8601, or undefined when unknown (always for `HELPDESK_ACCESS_TOKEN`)
   */
  constructor(accessToken: string, expiresAt: string | undefined) {
    this.accessToken = accessToken;
    this.expiresAt = expiresAt;
  }

  /** @throws HelpdeskError `credentials` once the recorded expiry has passed (nothing can renew it) */
  async current(): Promise<string> {
    if (accessTokenExpired({ expiresAt: this.expiresAt, lifetimeSeconds: undefined })) {
      throw new HelpdeskError(
        "credentials",
        `the access token expired at ${this.expiresAt} and no refresh token and client credentials are configured to renew it. ` +
          "Run `pulumi-helpdesk login --stack <stack>`, or set HELPDESK_ACCESS_TOKEN to a valid token.",
      );
    }
    return this.accessToken;
  }

  /** @returns undefined: a fixed token cannot be renewed */
  async renew(): Promise<undefined> {
    return undefined;
  }

  /** @returns the token */
  secrets(): string[] {
    return [this.accessToken];
  }
}

/** A sign-in renewed with the refresh grant through its token lineage; one renewal at a time. */
export class RenewingTokenSource implements TokenSource {
  private readonly lineage: Lineage;
  /** The newest tokens this process knows; read from the token cache on first use. */
  private newest: LineageTokens | undefined;
  /** The renewal under way, shared by every operation that needs it. */
  private renewal: Promise<LineageTokens> | undefined;
  private readonly known = new Set<string>();

  /** @param lineage the sign-in, from `lineageOf` */
  constructor(lineage: Lineage) {
    this.lineage = lineage;
    this.remember(lineage.configTokens, lineage.client.clientSecret);
  }

  /** @throws HelpdeskError `credentials` when the token cache cannot be read or renewing fails */
  async current(): Promise<string> {
    if (this.renewal) return (await this.renewal).accessToken;
    const tokens = this.tokens();
    return accessTokenExpired(tokens) ? this.renewWhile((newest) => accessTokenExpired(newest)) : tokens.accessToken;
  }

  /** @throws HelpdeskError `credentials` when the token cache cannot be read or renewing fails */
  async renew(rejected: string): Promise<string> {
    if (this.renewal) return (await this.renewal).accessToken;
    const tokens = this.tokens();
    if (tokens.accessToken !== rejected) return tokens.accessToken; // another operation already renewed it
    return this.renewWhile((newest) => newest.accessToken === rejected);
  }

  /** @returns every token and secret of the sign-in seen by this source */
  secrets(): string[] {
    return [...this.known];
  }

  /** The newest known tokens, read from the cache the first time. */
  private tokens(): LineageTokens {
    if (!this.newest) {
      try {
        this.newest = readLineage(this.lineage).tokens;
      } catch (error) {
        throw renewalFailure(error);
      }
      this.remember(this.newest);
    }
    return this.newest;
  }

  /** Starts a renewal (or joins the one under way) that spends a refresh token only while `stillNeeded` says so. */
  private async renewWhile(stillNeeded: (newest: LineageTokens) => boolean): Promise<string> {
    this.renewal ??= this.renewLineage(stillNeeded).finally(() => (this.renewal = undefined));
    return (await this.renewal).accessToken;
  }

  /** One renewal through the lineage (cache first, cross-process lock), kept as the newest tokens. */
  private async renewLineage(stillNeeded: (newest: LineageTokens) => boolean): Promise<LineageTokens> {
    try {
      const { tokens } = await refreshLineage(this.lineage, { stillNeeded });
      this.newest = tokens;
      this.remember(tokens);
      return tokens;
    } catch (error) {
      throw renewalFailure(error);
    }
  }

  /** Adds tokens (and the client secret) to the redaction sets: this source's and the process-wide registry. */
  private remember(tokens: LineageTokens, ...more: string[]): void {
    for (const value of [tokens.accessToken, tokens.refreshToken, ...more]) {
      this.known.add(value);
      registerSecret(value);
    }
  }
}

/** The error a person sees when renewing failed: what happened and that `login` fixes it. */
function renewalFailure(error: unknown): HelpdeskError {
  if (error instanceof TokenCacheError) return new HelpdeskError("credentials", error.message, { cause: error });
  const why = error instanceof OAuthError ? error.message : String(error);
  return new HelpdeskError(
    "credentials",
    `the access token expired and renewing it failed (${why}). Run \`pulumi-helpdesk login --stack <stack>\` to sign in again.`,
    { cause: error },
  );
}
