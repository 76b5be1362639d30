/**
 * Token lineages: the one mapping from a stack's config to the sign-in it uses ({@link lineageOf}), and the one
 * protocol by which a lineage's refresh token is spent ({@link refreshLineage}, RFC 6749 §6), shared by the provider
 * (`provider/tokens.ts`) and the CLI (`refresh`, `status`, `logout`).
 *
 * A lineage is a sign-in: the refresh token `login` wrote to stack config, and every refresh token rotated out of it
 * since. Its newest tokens live in the local token cache (`auth/token-cache.ts`, which documents the keying: an entry
 * per lineage, an index from the hash of every refresh token the lineage ever had). Stack config only points into a
 * lineage, possibly at an older token: two stacks may share one sign-in, and one of them may have been refreshed.
 *
 * The rules that keep a rotated refresh token from being lost or presented twice (with rotation, presenting a spent
 * refresh token revokes the whole grant: replay detection, RFC 6819 §5.2.2.3, RFC 9700 §4.14.2):
 * 1. Durable first: a refresh's answer is written to the cache (fsync, rename, fsync) before anything uses it; stack
 *    config is written from the cache afterwards, so config can lag but never lead.
 * 2. One refresh at a time per lineage, across processes: the lineage's lock is held around re-read, refresh and
 *    write. Inside it, the freshest entry decides: when another process already renewed (`stillNeeded` says no), its
 *    result is reused and nothing is spent.
 * 3. Never a spent token: a `pending` marker is stored durably before the request is sent and cleared with the
 *    answer. Found later, the request's fate is unknown (the process died, or the answer was lost): if the server
 *    rotated, the only valid refresh token went with the answer, and presenting the old one would trip replay
 *    detection. So the next refresh stops with `refresh_interrupted` (sign in again) instead, unless the server is
 *    known to keep refresh tokens (then presenting it again is harmless). A request refused before it reached the
 *    server (connection refused, DNS) or answered with an error clears the marker.
 * 4. A damaged cache is an error naming the file, never a reason to fall back to the token in stack config.
 */
import { hostname } from "node:os";
import { neverSent } from "../sdk/not-sent.js";
import { baseUrlText } from "../sdk/base-url.js";
import { configKeysFor, DEFAULT_CONFIG_NAMESPACE, stackConfigSettings } from "../sdk/config.js";
import { isSecretSetting, resolveSettings, type ResolvedSettings, type SettingName } from "../sdk/settings.js";
import { OAuthError, refreshAccessToken, type TokenSet } from "./oauth.js";
import {
  findEntry,
  lineageIdOf,
  readEntry,
  refreshTokenHash,
  removeEntry,
  TokenCacheError,
  tokenCacheDir,
  withLineageLock,
  writeEntry,
  type CacheEntry,
  type StoredEntry,
} from "./token-cache.js";

/** The client registration that may use the refresh grant (RFC 6749 §2, §6; `client_secret_post`, §2.3.1). */
export interface RefreshClient {
  /** API base URL (docs/helpdesk-api.md §1 `{base_url}`), as `sdk/base-url.ts` parsed it. */
  baseUrl: URL;
  /** `client_id` (docs/helpdesk-api.md §4.1). */
  clientId: string;
  /** `client_secret` (docs/helpdesk-api.md §4.2). */
  clientSecret: string;
}

/** The tokens of one point of a lineage. */
export interface LineageTokens {
  /** Bearer access token (RFC 6750 §2.1). */
  accessToken: string;
  /** Refresh token (RFC 6749 §1.5). */
  refreshToken: string;
  /** Access token expiry, ISO 8601 UTC, or undefined when unknown. */
  expiresAt: string | undefined;
  /** The access token's `expires_in` in seconds (RFC 6749 §5.1), or undefined when unknown. */
  lifetimeSeconds: number | undefined;
}

/** A sign-in that can be renewed: what a stack's config (and the environment) say about it. */
export interface Lineage {
  /** Who refreshes. */
  client: RefreshClient;
  /** The tokens the stack config holds; the lineage's newest may be later ones (see {@link readLineage}). */
  configTokens: LineageTokens;
  /** The stack's name for messages (`pulumi-helpdesk login --stack <stack>`), or undefined when not known. */
  stack: string | undefined;
  /**
   * The stack config namespace the sign-in was read from (`helpdesk`, or e.g. `eu` for `login --namespace eu`): where
   * {@link tokenConfigEntries} writes its tokens back, and what messages name besides the stack.
   */
  namespace: string;
}

/** One stack config entry to write (the shape of `cli/stack-config.ts`'s `ConfigEntry`). */
export interface TokenConfigEntry {
  /** Namespaced key, e.g. `helpdesk:accessToken` or `eu:accessToken`. */
  key: string;
  /** The value. */
  value: string;
  /** Store as a Pulumi secret: true for the secret settings of `sdk/settings.ts` (in any namespace). */
  secret: boolean;
}

/** Options of {@link lineageOf}. */
export interface LineageOptions {
  /** The stack's name for messages. */
  stack?: string;
  /**
   * The config namespace the settings were read from (default `helpdesk`; `eu` for what `pulumi-helpdesk login
   * --namespace eu` wrote), where refreshed tokens are written back; undefined for a native provider's arguments,
   * whose namespace is not known (then `helpdesk`, for messages only: the provider writes no config).
   */
  namespace?: string | undefined;
}

/**
 * Maps a help desk's resolved settings to its token lineage: the one place that knows which settings make a sign-in
 * renewable. A sign-in is renewable when the settings hold a base URL, a client id and secret, an access token and a
 * refresh token, and the access token did not come from the environment (`HELPDESK_ACCESS_TOKEN` is used as given:
 * the refresh token of the config does not belong to it).
 *
 * @param settings resolved by `resolveSettings` (`sdk/settings.ts`): explicit, stack config, environment
 * @param options `stack`, the stack's name for messages; `namespace` (default `helpdesk`)
 * @returns the lineage, or undefined when the access token cannot be renewed
 * @throws ConfigNamespaceError when `options.namespace` is not a valid namespace (`sdk/config.ts` `configKeysFor`)
 */
export function lineageOf(settings: ResolvedSettings, options: LineageOptions = {}): Lineage | undefined {
  const namespace = options.namespace ?? DEFAULT_CONFIG_NAMESPACE;
  configKeysFor(namespace); // refuses a namespace that is not allowed
  const { baseUrl, clientId, clientSecret, accessToken, refreshToken } = settings;
  if (settings.origins.accessToken === "environment") return undefined;
  if (!baseUrl || !clientId || !clientSecret || !accessToken || !refreshToken) return undefined;
  return {
    client: { baseUrl, clientId, clientSecret },
    configTokens: { accessToken, refreshToken, expiresAt: settings.tokenExpiresAt, lifetimeSeconds: undefined },
    stack: options.stack,
    namespace,
  };
}

/**
 * The lineage of a stack's sign-in in one namespace, as the CLI sees it: the stack config of that namespace, with
 * the environment variables filling what it leaves unset (`sdk/settings.ts` precedence).
 *
 * @param config the stack's config by namespaced key (decrypted)
 * @param options `stack` for messages; `namespace` (default `helpdesk`); `env` (default `process.env`)
 * @returns the lineage, or undefined when the sign-in cannot be renewed
 * @throws SettingError `config` when a setting breaks its rule; ConfigNamespaceError for a bad namespace
 */
export function stackLineage(config: Readonly<Record<string, string | undefined>>, options: LineageOptions & { env?: NodeJS.ProcessEnv } = {}): Lineage | undefined {
  const namespace = options.namespace ?? DEFAULT_CONFIG_NAMESPACE;
  const settings = resolveSettings({ config: stackConfigSettings(config, namespace), env: options.env ?? process.env, configPrefix: `${namespace}:` });
  return lineageOf(settings, { stack: options.stack, namespace });
}

/**
 * The stack config entries that store a lineage point: access and refresh token (secret, as the settings table
 * says) and, when known, `<ns>:tokenExpiresAt` (ISO 8601, plain), in that order.
 *
 * @param tokens the tokens to store (an undefined refresh token or expiry is left out)
 * @param namespace the config namespace to write under (default `helpdesk`; pass the lineage's `namespace` when
 *   writing a lineage back)
 * @returns the entries, e.g. `{ key: "eu:accessToken", value, secret: true }`
 * @throws ConfigNamespaceError when `namespace` is not a valid namespace
 */
export function tokenConfigEntries(
  tokens: Pick<LineageTokens, "accessToken" | "expiresAt"> & { refreshToken?: string | undefined; lifetimeSeconds?: number | undefined },
  namespace: string = DEFAULT_CONFIG_NAMESPACE,
): TokenConfigEntry[] {
  const keys = configKeysFor(namespace);
  const values: [SettingName, string | undefined][] = [
    ["accessToken", tokens.accessToken],
    ["refreshToken", tokens.refreshToken],
    ["tokenExpiresAt", tokens.expiresAt],
  ];
  return values
    .filter((pair): pair is [SettingName, string] => pair[1] !== undefined)
    .map(([name, value]) => ({ key: keys[name], value, secret: isSecretSetting(name) }));
}

/**
 * The arguments that name a sign-in's place in a `pulumi-helpdesk` command: the stack, and `--namespace <ns>` unless
 * it is the default namespace, e.g. `dev --namespace eu` (what follows `login --stack` in a remedy).
 *
 * @param stack the stack name, or undefined when not known (the provider): then undefined
 * @param namespace the config namespace (default `helpdesk`)
 */
export function stackArguments(stack: string | undefined, namespace: string = DEFAULT_CONFIG_NAMESPACE): string | undefined {
  if (stack === undefined) return undefined;
  return namespace === DEFAULT_CONFIG_NAMESPACE ? stack : `${stack} --namespace ${namespace}`;
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
export function accessTokenExpired(tokens: Pick<LineageTokens, "expiresAt" | "lifetimeSeconds">, now = Date.now()): boolean {
  if (!tokens.expiresAt) return false;
  const at = Date.parse(tokens.expiresAt);
  if (!Number.isFinite(at)) return false;
  const marginSeconds = Math.min(EXPIRY_MARGIN_SECONDS, (tokens.lifetimeSeconds ?? Number.POSITIVE_INFINITY) / 4);
  return at - marginSeconds * 1000 <= now;
}

/** What the cache knows about a stack's lineage. */
export interface LineageState {
  /** The newest tokens: the cache entry's, else the stack config's. */
  tokens: LineageTokens;
  /** Absolute path of the lineage's cache file, or undefined when no refresh has written one. */
  file: string | undefined;
  /** True when the cache holds tokens the stack config lacks (`pulumi-helpdesk refresh` stores them). */
  newerThanConfig: boolean;
  /** When a refresh was interrupted after its request was sent (ISO 8601), else undefined. */
  interruptedAt: string | undefined;
}

/**
 * Reads the newest state of a lineage, without locking (entries are replaced atomically).
 *
 * @param lineage from {@link lineageOf}
 * @param dir the cache directory (default {@link tokenCacheDir})
 * @throws TokenCacheError `cache_damaged` (the file named; nothing falls back to the token in config) or
 *   `cache_inaccessible`
 */
export function readLineage(lineage: Lineage, dir = tokenCacheDir()): LineageState {
  const stored = withStackName(lineage, () => findEntry(refreshTokenHash(lineage.configTokens.refreshToken), dir));
  if (!stored) return { tokens: lineage.configTokens, file: undefined, newerThanConfig: false, interruptedAt: undefined };
  const tokens = tokensOf(stored.entry);
  const config = lineage.configTokens;
  return {
    tokens,
    file: stored.file,
    newerThanConfig: tokens.accessToken !== config.accessToken || tokens.refreshToken !== config.refreshToken,
    interruptedAt: stored.entry.pending?.startedAt,
  };
}

/** A step of {@link refreshLineage}, reported to `onStep` (the CLI's crash-injection tests stop the process there). */
export type RefreshStep =
  /** The lock is held and a refresh is needed; nothing is written or sent yet. */
  | "lock-acquired"
  /** The token endpoint answered with new tokens; they are not stored yet. */
  | "token-response"
  /** The new tokens are durably in the cache; the lock is still held. */
  | "cache-written";

/** Options of {@link refreshLineage}. */
export interface RefreshOptions {
  /**
   * Decides, under the lock and given the lineage's freshest tokens, whether a refresh is still needed; false reuses
   * them (another process renewed meanwhile). E.g. "the access token is expired", "the access token is still the one
   * the API rejected", "the refresh token is still the one I saw".
   */
  stillNeeded: (newest: LineageTokens) => boolean;
  /** Called at each {@link RefreshStep}. */
  onStep?: (step: RefreshStep) => void;
  /** The cache directory (default {@link tokenCacheDir}). */
  dir?: string;
}

/** What {@link refreshLineage} did. */
export interface RefreshOutcome {
  /** The lineage's newest tokens, durably in the cache when `renewed`. */
  tokens: LineageTokens;
  /** True when this call spent a refresh token; false when it reused what another process obtained. */
  renewed: boolean;
}

/**
 * Renews a lineage's access token with the refresh grant (RFC 6749 §6), at most one process at a time (see the
 * module doc for the rules). The refresh token presented is always the lineage's newest, read under the lock.
 *
 * @param lineage from {@link lineageOf}
 * @param options when a refresh is still needed, step hook, cache directory
 * @returns the newest tokens and whether this call obtained them
 * @throws TokenCacheError `cache_damaged`, `cache_inaccessible`, `lock_timeout`, `refresh_interrupted`,
 *   `refresh_in_progress` (nothing was sent); OAuthError from the token endpoint (RFC 6749 §5.2: `invalid_grant`
 *   when the refresh token was revoked; `network`)
 */
export async function refreshLineage(lineage: Lineage, options: RefreshOptions): Promise<RefreshOutcome> {
  const dir = options.dir ?? tokenCacheDir();
  const onStep = options.onStep ?? (() => undefined);
  return withStackName(lineage, async () => {
    const configHash = refreshTokenHash(lineage.configTokens.refreshToken);
    const id = findEntry(configHash, dir)?.entry.lineage ?? lineageIdOf(configHash);
    return withLineageLock(dir, id, async () => {
      const stored = readEntry(dir, id); // re-read under the lock: another process may have renewed meanwhile
      const entry = stored?.entry ?? rootEntry(lineage, id, configHash);
      refuseUnsettled(entry, stored);
      if (!options.stillNeeded(tokensOf(entry))) return { tokens: tokensOf(entry), renewed: false };
      onStep("lock-acquired");
      writeEntry(dir, { ...entry, pending: pendingRefresh(entry.refreshToken), updatedAt: new Date().toISOString() });
      const answer = await presentRefreshToken(lineage.client, entry, dir, stored === undefined);
      onStep("token-response");
      const next = advance(entry, answer, lineage.client);
      writeEntry(dir, next);
      onStep("cache-written");
      return { tokens: tokensOf(next), renewed: true };
    });
  });
}

/** Runs `work`, giving a {@link TokenCacheError} the stack's name (and namespace) in its remedy. */
function withStackName<T>(lineage: Lineage, work: () => T): T {
  const named = (error: unknown): never => {
    throw error instanceof TokenCacheError ? error.forStack(stackArguments(lineage.stack, lineage.namespace)) : error;
  };
  try {
    const result = work();
    return result instanceof Promise ? (result.catch(named) as T) : result;
  } catch (error) {
    return named(error);
  }
}

/** The tokens an entry holds. */
function tokensOf(entry: CacheEntry): LineageTokens {
  return {
    accessToken: entry.accessToken,
    refreshToken: entry.refreshToken,
    expiresAt: entry.expiresAt ?? undefined,
    lifetimeSeconds: entry.lifetimeSeconds ?? undefined,
  };
}

/** The first entry of a lineage the cache has not seen: the stack config's tokens, the config's refresh token as root. */
function rootEntry(lineage: Lineage, id: string, rootHash: string): CacheEntry {
  const { configTokens: tokens, client } = lineage;
  return {
    format: 1,
    lineage: id,
    baseUrl: baseUrlText(client.baseUrl),
    clientId: client.clientId,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: tokens.expiresAt && Number.isFinite(Date.parse(tokens.expiresAt)) ? tokens.expiresAt : null,
    lifetimeSeconds: null,
    refreshTokenHashes: [rootHash],
    rotation: "unknown",
    pending: null,
    updatedAt: new Date().toISOString(),
  };
}

/** The marker stored before presenting `refreshToken`. */
function pendingRefresh(refreshToken: string): NonNullable<CacheEntry["pending"]> {
  return { presented: refreshTokenHash(refreshToken), pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() };
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
  const running = pending.hostname === hostname() && pending.pid !== process.pid && processAlive(pending.pid);
  if (running && Date.now() - Date.parse(pending.startedAt) < REFRESH_IN_PROGRESS_MS) {
    throw new TokenCacheError("refresh_in_progress", `process ${pending.pid} has been refreshing this sign-in's tokens since ${pending.startedAt} (${stored.file}); ` +
        "try again in a minute, when it has stored the answer.", { file: stored.file });
  }
  throw new TokenCacheError("refresh_interrupted", `a refresh of this sign-in's tokens (process ${pending.pid} on ${pending.hostname}, ${pending.startedAt}) sent its request ` +
      "and never stored the answer (the process ended, or the answer was lost). If the server rotated the refresh token, " +
      "the only valid one went with that answer, and presenting the old one again would get the whole sign-in revoked " +
      "(RFC 9700 §4.14.2), so nothing was sent. The current access token may still work until it expires. " +
      `Run \`pulumi-helpdesk login --stack <stack>\` to sign in again (in every stack that shares this sign-in); ${stored.file} then stays as the record of it.`, { file: stored.file });
}

/** Whether a process with this id exists on this machine (EPERM: it exists, under another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}

/**
 * Sends the refresh request. When it fails in a way that proves no new tokens were issued (the server answered an
 * error, or the connection was never made), the pending marker is settled: cleared, or the entry removed when this
 * attempt created it (it held nothing the stack config lacks). Otherwise the marker stays (see the module doc).
 */
async function presentRefreshToken(client: RefreshClient, entry: CacheEntry, dir: string, createdNow: boolean): Promise<TokenSet> {
  try {
    return await refreshAccessToken(client, entry.refreshToken);
  } catch (error) {
    if (noTokensIssued(error)) {
      if (createdNow) removeEntry(dir, entry.lineage);
      else writeEntry(dir, { ...entry, updatedAt: new Date().toISOString() });
    }
    throw error;
  }
}

/** True when a refresh failure proves the server issued no tokens: an HTTP error answer, or no connection at all. */
function noTokensIssued(error: unknown): boolean {
  if (!(error instanceof OAuthError)) return false;
  return error.status !== undefined || neverSent(error.cause);
}

/** The entry after a successful refresh: new tokens, the new refresh token indexed, rotation learnt, marker cleared. */
function advance(entry: CacheEntry, answer: TokenSet, client: RefreshClient): CacheEntry {
  const refreshToken = answer.refreshToken ?? entry.refreshToken;
  const rotated = refreshToken !== entry.refreshToken;
  return {
    ...entry,
    baseUrl: baseUrlText(client.baseUrl),
    clientId: client.clientId,
    accessToken: answer.accessToken,
    refreshToken,
    expiresAt: answer.expiresAt ?? null,
    lifetimeSeconds: answer.expiresIn ?? null,
    refreshTokenHashes: rotated ? [...entry.refreshTokenHashes, refreshTokenHash(refreshToken)] : entry.refreshTokenHashes,
    rotation: rotated ? "rotates" : "keeps",
    pending: null,
    updatedAt: new Date().toISOString(),
  };
}
