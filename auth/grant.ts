/**
 * The OAuth 2.0 grant this project holds for one help desk (RFC 6749 §1.3.1: the authorization code grant that
 * `pulumi-helpdesk login` obtains; §6: its refresh), as one object: {@link Grant}. It owns the access token to present
 * now (RFC 6750 §2.1), the reaction to a token the API rejected, the refresh, and the stack config entries that record
 * it. `login`, `refresh`, `status`, `logout`, both providers and the tests use it; nothing else spends a refresh token.
 *
 * A grant's tokens live in two places. Stack config holds what `login` (or a later `refresh`) wrote; the local token
 * cache (`auth/token-cache.ts`) holds the newest, because the provider runs inside the engine and cannot write stack
 * config. Config can lag behind the cache, never lead it: two stacks may share one grant, and one may have refreshed.
 *
 * The refresh protocol keeps a rotated refresh token from being lost or presented twice (with rotation, presenting a
 * spent refresh token revokes the whole grant: replay detection, RFC 6819 §5.2.2.3, RFC 9700 §4.14.2):
 * 1. Durable first: a refresh's response is written to the cache (fsync, rename, fsync) before anything uses it; stack
 *    config is written from the cache afterwards.
 * 2. One refresh at a time per grant, across processes: the grant's lock is held around re-read, refresh and write.
 *    Inside it, the freshest entry decides whether the refresh is still needed (see {@link RefreshReason}: the one
 *    home of that decision); when another process already refreshed, its result is reused and nothing is spent.
 * 3. Never a spent token: a `pending` marker is stored durably before the request is sent and cleared with the
 *    response. Found later, the request's fate is unknown (the process died, or the response was lost): if the server
 *    rotated, the only valid refresh token went with the response, and presenting the old one would trip replay
 *    detection. So the next refresh stops with `refresh_interrupted` (sign in again) instead, unless the server is
 *    known to keep refresh tokens (then presenting it again is harmless). A request refused before it reached the
 *    server (`kernel/not-sent.ts`) or responded with an error clears the marker.
 * 4. A damaged cache is an error naming the file, never a reason to fall back to the token in stack config.
 * @home token expiry (with its margin), whether a refresh may be skipped, the token keys, what login writes
 */
import { hostname } from "node:os";
import { baseUrlText } from "../kernel/base-url.js";
import { signInAgain, stackArguments } from "../kernel/commands.js";
import { configKeysFor, DEFAULT_CONFIG_NAMESPACE, stackConfigSettings } from "../kernel/config.js";
import { neverSent } from "../kernel/not-sent.js";
import { processExists } from "../kernel/processes.js";
import {
  isSecretSetting,
  LOGIN_SETTING_NAMES,
  type ResolvedSettings,
  resolveSettings,
  SETTINGS,
  type SettingName,
  type SettingOrigin,
  secretSettingValues,
} from "../kernel/settings.js";
import { refreshableTokenOrigin } from "./environment.js";
import { OAUTH_ERROR_CODES, OAuthError, refreshAccessToken, type TokenSet } from "./oauth.js";
import { registerSecret } from "./redact.js";
import {
  type CacheEntry,
  findEntry,
  grantIdOf,
  readEntry,
  refreshTokenHash,
  removeEntry,
  type StoredEntry,
  TokenCacheError,
  tokenCacheDir,
  withGrantLock,
  writeEntry,
} from "./token-cache.js";

/** The client registration that may use the refresh grant (RFC 6749 §2, §6; `client_secret_post`, §2.3.1). */
export interface GrantClient {
  /** API base URL (docs/helpdesk-api.md §1 `{base_url}`), as `kernel/base-url.ts` parsed it. */
  readonly baseUrl: URL;
  /** `client_id` (docs/helpdesk-api.md §4.1). */
  readonly clientId: string;
  /** `client_secret` (docs/helpdesk-api.md §4.2). */
  readonly clientSecret: string;
}

/** The tokens of one point of a grant. */
export interface GrantTokens {
  /** Bearer access token (RFC 6750 §2.1). */
  readonly accessToken: string;
  /** Refresh token (RFC 6749 §1.5). */
  readonly refreshToken: string;
  /** Access token expiry, ISO 8601 UTC, or undefined when unknown. */
  readonly expiresAt: string | undefined;
  /** The access token's `expires_in` in seconds (RFC 6749 §5.1), or undefined when unknown. */
  readonly lifetimeSeconds: number | undefined;
}

/** One stack config entry to write (the shape of `cli/shared/stack-config.ts`'s `ConfigEntry`). */
export interface GrantConfigEntry {
  /** Namespaced key, e.g. `helpdesk:accessToken` or `eu:accessToken`. */
  readonly key: string;
  /** The value. */
  readonly value: string;
  /** Store as a Pulumi secret: true for the secret settings of `kernel/settings.ts` (in any namespace). */
  readonly secret: boolean;
}

/**
 * Why a refresh is asked for; the refresh happens only while the reason still holds for the grant's freshest tokens,
 * read under the grant's lock (so a refresh another process made meanwhile is reused, never repeated):
 * - `expired`: the access token is past its expiry (see {@link accessTokenExpired}); the provider, before a request.
 * - `rejected`: the API responded with 401 for `token` (RFC 6750 §3.1); spent only while `token` is still the newest.
 * - `requested`: a person asked (`pulumi-helpdesk refresh`); spent only while the newest refresh token is the one this
 *   call found before taking the lock, so one request never spends twice.
 */
export type RefreshReason =
  | { readonly because: "expired" }
  | { readonly because: "rejected"; readonly token: string }
  | { readonly because: "requested" };

/** A step of a refresh, reported to `onStep` (the CLI's crash-injection tests stop the process there). */
export type RefreshStep =
  /** The lock is held and a refresh is needed; nothing is written or sent yet. */
  | "lock-acquired"
  /** The token endpoint responded with new tokens; they are not stored yet. */
  | "token-response"
  /** The new tokens are durably in the cache; the lock is still held. */
  | "cache-written";

/** What {@link Grant.refresh} did. */
export interface RefreshOutcome {
  /** The grant's newest tokens, durably in the cache when `refreshed`. */
  readonly tokens: GrantTokens;
  /** True when this call spent a refresh token; false when it reused what another process obtained. */
  readonly refreshed: boolean;
}

/** What the cache knows about a grant ({@link Grant.state}). */
export interface GrantState {
  /** The newest tokens: the cache entry's, else the stack config's. */
  readonly tokens: GrantTokens;
  /** Absolute path of the grant's cache file, or undefined when no refresh has written one. */
  readonly file: string | undefined;
  /** True when the cache holds tokens the stack config lacks (`pulumi-helpdesk refresh` stores them). */
  readonly newerThanConfig: boolean;
  /** When a refresh was interrupted after its request was sent (ISO 8601), else undefined. */
  readonly interruptedAt: string | undefined;
}

/** Where a grant's settings come from, for messages and for the config entries it writes. */
export interface GrantOptions {
  /** The stack's name for messages (`pulumi-helpdesk login --stack <stack>`), or undefined when not known. */
  readonly stack?: string | undefined;
  /**
   * The config namespace the settings were read from (default `helpdesk`; `eu` for what `login --namespace eu`
   * wrote): where {@link Grant.configEntries} writes, and what messages name. Undefined for a native provider's
   * arguments, whose namespace is not known (then `helpdesk`, for messages only: a provider writes no config).
   */
  readonly namespace?: string | undefined;
  /** The token cache directory (default {@link tokenCacheDir}). */
  readonly cacheDir?: string | undefined;
}

/** Seconds before the recorded expiry at which an access token already counts as expired (clock skew, request time). */
const EXPIRY_MARGIN_SECONDS = 60;

/**
 * Whether an access token counts as expired: its expiry minus a margin has passed. The margin is 60 s, or a quarter
 * of the token's lifetime when that is shorter (a server issuing 2-second tokens must not cause a refresh before
 * every request).
 *
 * @param tokens the tokens (`expiresAt` ISO 8601; `lifetimeSeconds` in seconds)
 * @param now the current time in milliseconds since the epoch
 * @returns false when the expiry is unknown or unparsable (the server's 401 tells then)
 */
export function accessTokenExpired(
  tokens: Pick<GrantTokens, "expiresAt" | "lifetimeSeconds">,
  now = Date.now(),
): boolean {
  if (!tokens.expiresAt) return false;
  const at = Date.parse(tokens.expiresAt);
  if (!Number.isFinite(at)) return false;
  const marginSeconds = Math.min(EXPIRY_MARGIN_SECONDS, (tokens.lifetimeSeconds ?? Number.POSITIVE_INFINITY) / 4);
  return at - marginSeconds * 1000 <= now;
}

/**
 * The settings `login` writes only when the token response carries them: `refresh_token` and `expires_in` are
 * optional in a token response (RFC 6749 §5.1). A program reads them with `config.get` / `getSecret`.
 */
export const OPTIONAL_LOGIN_SETTINGS = ["refreshToken", "tokenExpiresAt"] as const satisfies readonly SettingName[];

/**
 * The stack config entries `pulumi-helpdesk login` writes for a new grant, in the settings table's order
 * (`LOGIN_SETTING_NAMES`), secret as the table says: base URL, client id, client secret, redirect URI, access token,
 * and ({@link OPTIONAL_LOGIN_SETTINGS}) the refresh token and the access token's expiry (ISO 8601) when the token
 * response gave them.
 *
 * @param client the client registration and redirect URI the grant was obtained with
 * @param tokens the token response (RFC 6749 §5.1)
 * @param namespace the config namespace (default `helpdesk`)
 * @returns the entries, e.g. `{ key: "eu:accessToken", value, secret: true }`; an absent refresh token or expiry is
 *   left out
 * @throws ConfigNamespaceError when `namespace` is not allowed
 */
export function loginConfigEntries(
  client: GrantClient & { readonly redirectUri: string },
  tokens: Pick<TokenSet, "accessToken" | "refreshToken" | "expiresAt">,
  namespace: string = DEFAULT_CONFIG_NAMESPACE,
): GrantConfigEntry[] {
  const values: Partial<Record<SettingName, string | undefined>> = {
    baseUrl: baseUrlText(client.baseUrl),
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    redirectUri: client.redirectUri,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    tokenExpiresAt: tokens.expiresAt,
  };
  return configEntriesOf(LOGIN_SETTING_NAMES, values, namespace);
}

/**
 * The settings that hold a grant's tokens, in the settings table's order: what `refresh` writes
 * ({@link Grant.configEntries}) and `logout` removes ({@link tokenConfigKeys}); the other settings `login` writes
 * (base URL, client, redirect URI) stay for the next sign-in.
 */
export const TOKEN_SETTING_NAMES = [
  "accessToken",
  "refreshToken",
  "tokenExpiresAt",
] as const satisfies readonly SettingName[];

/**
 * The stack config keys of a grant's tokens in one namespace ({@link TOKEN_SETTING_NAMES}), e.g. `eu:accessToken`,
 * `eu:refreshToken`, `eu:tokenExpiresAt`: what `pulumi-helpdesk logout` removes.
 *
 * @param namespace the config namespace (default `helpdesk`)
 * @throws ConfigNamespaceError when `namespace` is not allowed
 */
export function tokenConfigKeys(namespace: string = DEFAULT_CONFIG_NAMESPACE): string[] {
  const keys = configKeysFor(namespace);
  return TOKEN_SETTING_NAMES.map((name) => keys[name]);
}

/** The entries of `names` that have a value, under `namespace`, secret as the settings table says. */
function configEntriesOf(
  names: readonly SettingName[],
  values: Partial<Record<SettingName, string | undefined>>,
  namespace: string,
): GrantConfigEntry[] {
  const keys = configKeysFor(namespace);
  return names.flatMap((name) => {
    const value = values[name];
    return value === undefined ? [] : [{ key: keys[name], value, secret: isSecretSetting(name) }];
  });
}

/**
 * One OAuth 2.0 grant: the access token to present, and, when the settings allow it, its refresh.
 *
 * A grant is refreshable when its settings hold a base URL, a client id and secret, an access token and a refresh
 * token, and the access token did not come from the environment (the access token's variable, `SETTINGS.accessToken.env`,
 * is used as given: the refresh token of the config does not belong to it). A grant that is not refreshable presents
 * its access token until the recorded expiry passes.
 *
 * Operations of one process on one grant share one refresh ({@link Grant.shared}); across processes the token cache's
 * lock and the protocol of this module's doc do.
 */
export class Grant {
  /** The client that may refresh, or undefined when the grant is not refreshable. */
  readonly client: GrantClient | undefined;
  /** The tokens the settings (stack config, a provider's arguments, the environment) hold. */
  readonly configTokens:
    | GrantTokens
    | {
        readonly accessToken: string;
        readonly refreshToken: undefined;
        readonly expiresAt: string | undefined;
        readonly lifetimeSeconds: undefined;
      };
  /** The stack's name for messages, or undefined. */
  readonly stack: string | undefined;
  /** The config namespace of the settings (`helpdesk` when not known). */
  readonly namespace: string;
  /** Where the access token came from, and how messages name that source (`config eu:accessToken`). */
  private readonly tokenSource: { readonly origin: SettingOrigin | undefined; readonly name: string | undefined };
  private readonly cacheDir: string | undefined;
  /** The newest tokens this process knows; read from the token cache on first use. */
  private newest: GrantTokens | undefined;
  /** The refresh under way in this process, shared by every operation that needs it. */
  private refreshing: Promise<RefreshOutcome> | undefined;
  /** Every token and secret of this grant seen by this process, for redaction. */
  private readonly known = new Set<string>();

  /**
   * @param settings the help desk's settings, resolved once (`kernel/settings.ts` `resolveSettings`)
   * @param options the stack and namespace they came from, the cache directory
   * @throws TypeError when the settings hold no access token (callers say which setting is missing first)
   * @throws ConfigNamespaceError when `options.namespace` is not allowed
   */
  constructor(settings: ResolvedSettings, options: GrantOptions = {}) {
    const { baseUrl, clientId, clientSecret, accessToken, refreshToken, tokenExpiresAt } = settings;
    if (!accessToken) throw new TypeError("Grant: the settings hold no access token");
    this.namespace = options.namespace ?? DEFAULT_CONFIG_NAMESPACE;
    configKeysFor(this.namespace); // refuses a namespace that is not allowed
    this.stack = options.stack;
    this.cacheDir = options.cacheDir;
    this.tokenSource = { origin: settings.origins.accessToken, name: settings.sourceNames.accessToken };
    const refreshable =
      refreshableTokenOrigin(settings.origins.accessToken) && baseUrl && clientId && clientSecret && refreshToken;
    this.client = refreshable ? { baseUrl, clientId, clientSecret } : undefined;
    this.configTokens =
      refreshable && refreshToken
        ? { accessToken, refreshToken, expiresAt: tokenExpiresAt, lifetimeSeconds: undefined }
        : { accessToken, refreshToken: undefined, expiresAt: tokenExpiresAt, lifetimeSeconds: undefined };
    this.remember(...secretSettingValues(settings));
  }

  /**
   * The grant of a stack's config in one namespace, as the CLI reads it: that namespace's config, with the
   * environment filling what it leaves unset (docs/design.md "Settings precedence").
   *
   * @param config the stack's config by namespaced key (decrypted)
   * @param options `stack`, `namespace` (default `helpdesk`), `cacheDir`; `env` (default `process.env`)
   * @returns the grant, or undefined when the config holds no access token
   * @throws SettingError `config` when a setting breaks its rule; ConfigNamespaceError for a bad namespace
   */
  static fromStackConfig(
    config: Readonly<Record<string, string | undefined>>,
    options: GrantOptions & { env?: NodeJS.ProcessEnv } = {},
  ): Grant | undefined {
    const namespace = options.namespace ?? DEFAULT_CONFIG_NAMESPACE;
    const settings = resolveSettings({
      config: stackConfigSettings(config, namespace),
      env: options.env ?? process.env,
    });
    return settings.accessToken ? new Grant(settings, { ...options, namespace }) : undefined;
  }

  /** Grants by identity: every operation of a provider process on one grant shares one refresh. */
  private static readonly registry = new Map<string, Grant>();

  /**
   * The process-wide grant of these settings: the same object for every operation on the same grant (same client
   * and refresh token, or the same fixed access token), so parallel operations share one refresh.
   *
   * @param settings the resolved settings (with an access token)
   * @param options as for the constructor
   */
  static shared(settings: ResolvedSettings, options: GrantOptions = {}): Grant {
    const candidate = new Grant(settings, options);
    const id = candidate.client
      ? JSON.stringify([
          "refreshable",
          baseUrlText(candidate.client.baseUrl),
          candidate.client.clientId,
          candidate.configTokens.refreshToken,
          candidate.cacheDir ?? "",
        ])
      : JSON.stringify(["fixed", candidate.configTokens.accessToken, candidate.configTokens.expiresAt ?? ""]);
    const existing = Grant.registry.get(id);
    if (existing) return existing;
    Grant.registry.set(id, candidate);
    return candidate;
  }

  /** True when the grant can be refreshed (see the class doc). */
  get refreshable(): boolean {
    return this.client !== undefined;
  }

  /**
   * The access token to present now (RFC 6750 §2.1). A refreshable grant whose newest access token has expired is
   * refreshed first (reason `expired`).
   *
   * @throws OAuthError `invalid_token` (RFC 6750 §3.1) when the token expired and the grant is not refreshable; the
   *   errors of {@link Grant.refresh}
   */
  async accessToken(): Promise<string> {
    if (this.refreshing) return (await this.refreshing).tokens.accessToken;
    if (!this.client) {
      if (accessTokenExpired(this.configTokens)) {
        throw new OAuthError(
          OAUTH_ERROR_CODES.INVALID_TOKEN,
          `the access token${this.tokenSource.name ? ` (${this.tokenSource.name})` : ""} expired at ${this.configTokens.expiresAt} and no refresh token ` +
            `and client credentials are configured to refresh it: ${this.expiredTokenRemedy()}.`,
        );
      }
      return this.configTokens.accessToken;
    }
    const tokens = this.newestTokens();
    return accessTokenExpired(tokens)
      ? (await this.refresh({ because: "expired" })).tokens.accessToken
      : tokens.accessToken;
  }

  /**
   * What to do about an access token that expired and cannot be refreshed, by where it came from. A token from the
   * environment is replaced there; any other (the stack config, a provider's argument) wins over the environment
   * (kernel/settings.ts `SETTING_PRECEDENCE`), so the remedy is to sign in again, never to set the variable.
   */
  private expiredTokenRemedy(): string {
    const env = SETTINGS.accessToken.env;
    const signIn = signInAgain({ stack: this.stack, namespace: this.namespace });
    if (this.tokenSource.origin === "environment") return `set ${env} to a valid token, or unset it and ${signIn}`;
    return `${signIn} (${env} does not replace ${this.tokenSource.name ?? "a configured token"}: it only fills an access token nothing else sets)`;
  }

  /**
   * The reaction to a token the API rejected with 401 (RFC 6750 §3.1): a refreshable grant refreshes once (reason
   * `rejected`; another operation's refresh is joined or reused) and returns the new token.
   *
   * @param token the access token that was rejected
   * @returns the token to try instead, or undefined when the grant is not refreshable
   * @throws the errors of {@link Grant.refresh}
   */
  async rejected(token: string): Promise<string | undefined> {
    if (!this.client) return undefined;
    if (this.refreshing) return (await this.refreshing).tokens.accessToken;
    const tokens = this.newestTokens();
    if (tokens.accessToken !== token) return tokens.accessToken; // another operation already refreshed it
    return (await this.refresh({ because: "rejected", token })).tokens.accessToken;
  }

  /**
   * Refreshes the grant with the refresh token grant (RFC 6749 §6) while `reason` still holds for its freshest
   * tokens, under the grant's lock (see the module doc). Concurrent calls in one process join one refresh.
   *
   * @param reason why (see {@link RefreshReason})
   * @param options `onStep`, called at each {@link RefreshStep}
   * @returns the newest tokens and whether this call spent a refresh token
   * @throws TypeError when the grant is not refreshable (check {@link Grant.refreshable} first)
   * @throws TokenCacheError `cache_damaged`, `cache_inaccessible`, `lock_timeout`, `refresh_interrupted`,
   *   `refresh_in_progress` (nothing was sent); OAuthError from the token endpoint (RFC 6749 §5.2: `invalid_grant`
   *   when the refresh token was revoked; `network`)
   */
  async refresh(
    reason: RefreshReason,
    options: { onStep?: (step: RefreshStep) => void } = {},
  ): Promise<RefreshOutcome> {
    const client = this.client;
    const rootToken = this.configTokens.refreshToken;
    if (!client || rootToken === undefined)
      throw new TypeError("Grant.refresh: this grant has no refresh token and client credentials");
    if (this.refreshing) return this.refreshing;
    const stillNeeded = this.stillNeeded(reason);
    this.refreshing = this.refreshUnderLock(
      client,
      rootToken,
      stillNeeded,
      options.onStep ?? (() => undefined),
    ).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /**
   * The tokens a stack's config should hold now: what `pulumi-helpdesk refresh` stores. When the cache holds tokens
   * newer than the config's that are still valid (not {@link accessTokenExpired}: a provider run, or another stack
   * sharing the grant, refreshed them), those, and nothing is spent; otherwise a refresh (reason `requested`).
   *
   * @param options `onStep`, as for {@link Grant.refresh}
   * @returns the tokens, and whether this call spent a refresh token
   * @throws TypeError when the grant is not refreshable; the errors of {@link Grant.state} and {@link Grant.refresh}
   */
  async tokensForConfig(options: { onStep?: (step: RefreshStep) => void } = {}): Promise<RefreshOutcome> {
    const state = this.state();
    if (state.newerThanConfig && !accessTokenExpired(state.tokens)) return { tokens: state.tokens, refreshed: false };
    return this.refresh({ because: "requested" }, options);
  }

  /**
   * What the cache knows about this grant, without locking (entries are replaced atomically).
   *
   * @returns the state; for a grant that is not refreshable, its configured tokens and no file
   * @throws TokenCacheError `cache_damaged` (the file named; nothing falls back to the token in config) or
   *   `cache_inaccessible`
   */
  state(): GrantState {
    const config = this.configTokens;
    const none = { file: undefined, newerThanConfig: false, interruptedAt: undefined };
    if (config.refreshToken === undefined) return { tokens: { ...config, refreshToken: "" }, ...none };
    const refreshToken = config.refreshToken;
    const stored = this.named(() => findEntry(refreshTokenHash(refreshToken), this.dir()));
    if (!stored) return { tokens: config as GrantTokens, ...none };
    const tokens = tokensOf(stored.entry);
    return {
      tokens,
      file: stored.file,
      newerThanConfig: tokens.accessToken !== config.accessToken || tokens.refreshToken !== config.refreshToken,
      interruptedAt: stored.entry.pending?.startedAt,
    };
  }

  /**
   * The stack config entries that record these tokens in this grant's namespace ({@link TOKEN_SETTING_NAMES}: access
   * and refresh token, secret; when known, the expiry, ISO 8601, plain), in the settings table's order. What `refresh`
   * writes.
   *
   * @param tokens the tokens to record (an undefined refresh token or expiry is left out)
   */
  configEntries(
    tokens: Pick<GrantTokens, "accessToken" | "expiresAt"> & { readonly refreshToken?: string | undefined },
  ): GrantConfigEntry[] {
    return configEntriesOf(
      TOKEN_SETTING_NAMES,
      { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, tokenExpiresAt: tokens.expiresAt },
      this.namespace,
    );
  }

  /** @returns every token and secret of this grant seen by this process (for redaction) */
  secrets(): string[] {
    return [...this.known];
  }

  /** The newest tokens this process knows, read from the cache the first time. */
  private newestTokens(): GrantTokens {
    if (!this.newest) {
      this.newest = this.state().tokens;
      this.remember(this.newest.accessToken, this.newest.refreshToken);
    }
    return this.newest;
  }

  /** The one home of "is this refresh still needed", for each {@link RefreshReason}. */
  private stillNeeded(reason: RefreshReason): (newest: GrantTokens) => boolean {
    switch (reason.because) {
      case "expired":
        return (newest) => accessTokenExpired(newest);
      case "rejected":
        return (newest) => newest.accessToken === reason.token;
      case "requested": {
        const seen = this.state().tokens.refreshToken;
        return (newest) => newest.refreshToken === seen;
      }
    }
  }

  /**
   * One refresh through the cache, under the grant's lock (module doc, rules 1 to 3).
   *
   * @param rootToken the configured refresh token, the root of the grant's lineage
   */
  private async refreshUnderLock(
    client: GrantClient,
    rootToken: string,
    stillNeeded: (newest: GrantTokens) => boolean,
    onStep: (step: RefreshStep) => void,
  ): Promise<RefreshOutcome> {
    const dir = this.dir();
    const outcome = await this.named(async () => {
      const configHash = refreshTokenHash(rootToken);
      const id = findEntry(configHash, dir)?.entry.lineage ?? grantIdOf(configHash);
      return withGrantLock(dir, id, async () => {
        const stored = readEntry(dir, id); // re-read under the lock: another process may have refreshed meanwhile
        const entry = stored?.entry ?? this.rootEntry(client, id, rootToken, configHash);
        refuseUnsettled(entry, stored);
        if (!stillNeeded(tokensOf(entry))) return { tokens: tokensOf(entry), refreshed: false };
        onStep("lock-acquired");
        writeEntry(dir, { ...entry, pending: pendingRefresh(entry.refreshToken), updatedAt: new Date().toISOString() });
        const tokens = await presentRefreshToken(client, entry, dir, stored === undefined);
        onStep("token-response");
        const next = advance(entry, tokens, client);
        writeEntry(dir, next);
        onStep("cache-written");
        return { tokens: tokensOf(next), refreshed: true };
      });
    });
    this.newest = outcome.tokens;
    this.remember(outcome.tokens.accessToken, outcome.tokens.refreshToken);
    return outcome;
  }

  /** The first entry of a grant the cache has not seen: the configured tokens, the configured refresh token as root. */
  private rootEntry(client: GrantClient, id: string, rootToken: string, rootHash: string): CacheEntry {
    const tokens = this.configTokens;
    return {
      format: 1,
      lineage: id,
      baseUrl: baseUrlText(client.baseUrl),
      clientId: client.clientId,
      accessToken: tokens.accessToken,
      refreshToken: rootToken,
      expiresAt: tokens.expiresAt && Number.isFinite(Date.parse(tokens.expiresAt)) ? tokens.expiresAt : null,
      lifetimeSeconds: null,
      refreshTokenHashes: [rootHash],
      rotation: "unknown",
      pending: null,
      updatedAt: new Date().toISOString(),
    };
  }

  /** The cache directory, resolved when first needed (the environment may name it). */
  private dir(): string {
    return this.cacheDir ?? tokenCacheDir();
  }

  /** Runs `work`, giving a {@link TokenCacheError} the stack's name (and namespace) in its remedy. */
  private named<T>(work: () => T): T {
    const named = (error: unknown): never => {
      throw error instanceof TokenCacheError ? error.forStack(stackArguments(this.stack, this.namespace)) : error;
    };
    try {
      const result = work();
      return result instanceof Promise ? (result.catch(named) as T) : result;
    } catch (error) {
      return named(error);
    }
  }

  /** Adds values to the redaction sets: this grant's and the process-wide registry. */
  private remember(...values: Array<string | undefined>): void {
    for (const value of values) {
      if (!value) continue;
      this.known.add(value);
      registerSecret(value);
    }
  }
}

/** The tokens an entry holds. */
function tokensOf(entry: CacheEntry): GrantTokens {
  return {
    accessToken: entry.accessToken,
    refreshToken: entry.refreshToken,
    expiresAt: entry.expiresAt ?? undefined,
    lifetimeSeconds: entry.lifetimeSeconds ?? undefined,
  };
}

/** The marker stored before presenting `refreshToken`. */
function pendingRefresh(refreshToken: string): NonNullable<CacheEntry["pending"]> {
  return {
    presented: refreshTokenHash(refreshToken),
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
  };
}

/** How long a refresh can be under way: the token request's 30 s timeout (`auth/oauth.ts`) with room to spare. */
const REFRESH_IN_PROGRESS_MS = 120_000;

/**
 * Stops when the entry carries the marker of an earlier refresh whose outcome is unknown, unless presenting the
 * refresh token again is known to be harmless (the server keeps refresh tokens).
 */
function refuseUnsettled(entry: CacheEntry, stored: StoredEntry | undefined): void {
  const pending = entry.pending;
  if (!pending || !stored || entry.rotation === "keeps") return;
  const running = pending.hostname === hostname() && pending.pid !== process.pid && processExists(pending.pid);
  if (running && Date.now() - Date.parse(pending.startedAt) < REFRESH_IN_PROGRESS_MS) {
    throw new TokenCacheError(
      "refresh_in_progress",
      `process ${pending.pid} has been refreshing this grant's tokens since ${pending.startedAt} (${stored.file}); ` +
        "try again in a minute, when it has stored the response.",
      { file: stored.file },
    );
  }
  throw new TokenCacheError(
    "refresh_interrupted",
    `a refresh of this grant's tokens (process ${pending.pid} on ${pending.hostname}, ${pending.startedAt}) sent its request ` +
      "and never stored the response (the process ended, or the response was lost). If the server rotated the refresh token, " +
      "the only valid one went with that response, and presenting the old one again would get the whole grant revoked " +
      "(RFC 9700 §4.14.2), so nothing was sent. The current access token may still work until it expires. " +
      // The stack is filled in by TokenCacheError.forStack, with the namespace (Grant.named).
      `To go on, ${signInAgain()} (in every stack that shares this grant); ${stored.file} then stays as the record of it.`,
    { file: stored.file },
  );
}

/**
 * Sends the refresh request. When it fails in a way that proves no new tokens were issued (the server responded with an
 * error, or the connection was never made), the pending marker is settled: cleared, or the entry removed when this
 * attempt created it (it held nothing the stack config lacks). Otherwise the marker stays (see the module doc).
 */
async function presentRefreshToken(
  client: GrantClient,
  entry: CacheEntry,
  dir: string,
  createdNow: boolean,
): Promise<TokenSet> {
  try {
    return await refreshAccessToken(client, entry.refreshToken);
  } catch (error) {
    if (error instanceof OAuthError && (error.status !== undefined || neverSent(error.cause))) {
      if (createdNow) removeEntry(dir, entry.lineage);
      else writeEntry(dir, { ...entry, updatedAt: new Date().toISOString() });
    }
    throw error;
  }
}

/** The entry after a successful refresh: new tokens, the new refresh token indexed, rotation learnt, marker cleared. */
function advance(entry: CacheEntry, tokens: TokenSet, client: GrantClient): CacheEntry {
  const refreshToken = tokens.refreshToken ?? entry.refreshToken;
  const rotated = refreshToken !== entry.refreshToken;
  return {
    ...entry,
    baseUrl: baseUrlText(client.baseUrl),
    clientId: client.clientId,
    accessToken: tokens.accessToken,
    refreshToken,
    expiresAt: tokens.expiresAt ?? null,
    lifetimeSeconds: tokens.expiresIn ?? null,
    refreshTokenHashes: rotated
      ? [...entry.refreshTokenHashes, refreshTokenHash(refreshToken)]
      : entry.refreshTokenHashes,
    rotation: rotated ? "rotates" : "keeps",
    pending: null,
    updatedAt: new Date().toISOString(),
  };
}
