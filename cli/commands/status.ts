/**
 * `pulumi-helpdesk status`: what the stack's config says about the sign-in, without showing any credential.
 */
import { CONFIG_KEYS } from "../../sdk/config.js";
import { configReaderOf, lineageOf, readLineage } from "../../auth/lineage.js";
import { TokenCacheError, tokenCacheDir } from "../../auth/token-cache.js";
import { info, result, warn } from "../output.js";
import { openStack, readStackConfig, resolveStackRef } from "../stack-config.js";

/** Options of `status`. */
export interface StatusOptions {
  stack?: string;
  cwd?: string;
  json: boolean;
}

/** The machine-readable status (`--json`); presence flags only, never values of secrets. */
export interface SignInStatus {
  stack: string;
  baseUrl: string | null;
  clientId: string | null;
  redirectUri: string | null;
  clientSecret: { present: boolean };
  accessToken: {
    present: boolean;
    /** ISO 8601, or null when unknown. */
    expiresAt: string | null;
    /** Seconds until expiry (negative once expired), or null when unknown. */
    expiresInSeconds: number | null;
    expired: boolean | null;
  };
  refreshToken: { present: boolean };
  /** True when the provider renewed the tokens during a run and `pulumi-helpdesk refresh` should store them. */
  newerTokensCached: boolean;
  /** What the local token cache holds for this sign-in (never token values). */
  tokenCache: {
    /** Absolute path of the sign-in's cache file, or null when no refresh has written one. */
    file: string | null;
    /** When a refresh was interrupted after its request was sent (ISO 8601), or null; the next refresh then stops. */
    interruptedAt: string | null;
    /** Why the cache cannot be used (e.g. a damaged file), naming the file and what to do; null when it can. */
    problem: string | null;
  };
}

/**
 * Computes the sign-in status of a stack.
 *
 * @param stack the stack name
 * @param config the stack config (namespaced key → value, secrets decrypted; only their presence is reported)
 * @param now the current time in milliseconds (for tests)
 * @param cacheDir the token cache directory (default: `tokenCacheDir()`)
 */
export function describeStatus(stack: string, config: Record<string, string>, now = Date.now(), cacheDir = tokenCacheDir()): SignInStatus {
  const get = (key: string): string | null => config[key] || null;
  const expiresAt = get(CONFIG_KEYS.tokenExpiresAt);
  const at = expiresAt ? Date.parse(expiresAt) : Number.NaN;
  const expiresInSeconds = Number.isFinite(at) ? Math.round((at - now) / 1000) : null;
  const baseUrl = get(CONFIG_KEYS.baseUrl);
  const clientId = get(CONFIG_KEYS.clientId);
  const refreshToken = get(CONFIG_KEYS.refreshToken);
  const cache = tokenCacheStatus(stack, config, cacheDir);
  return {
    stack,
    baseUrl,
    clientId,
    redirectUri: get(CONFIG_KEYS.redirectUri),
    clientSecret: { present: Boolean(get(CONFIG_KEYS.clientSecret)) },
    accessToken: {
      present: Boolean(get(CONFIG_KEYS.accessToken)),
      expiresAt,
      expiresInSeconds,
      expired: expiresInSeconds === null ? null : expiresInSeconds <= 0,
    },
    refreshToken: { present: Boolean(refreshToken) },
    newerTokensCached: cache.newer,
    tokenCache: cache.status,
  };
}

/** The token cache's view of the stack's sign-in; a cache problem is reported, not thrown (status always answers). */
function tokenCacheStatus(stack: string, config: Record<string, string>, dir: string): { newer: boolean; status: SignInStatus["tokenCache"] } {
  const lineage = lineageOf(configReaderOf(config), { stack });
  if (!lineage) return { newer: false, status: { file: null, interruptedAt: null, problem: null } };
  try {
    const state = readLineage(lineage, dir);
    return { newer: state.newerThanConfig, status: { file: state.file ?? null, interruptedAt: state.interruptedAt ?? null, problem: null } };
  } catch (error) {
    if (!(error instanceof TokenCacheError)) throw error;
    return { newer: false, status: { file: error.file, interruptedAt: null, problem: error.message } };
  }
}

/** "in 1 h 59 min", "3 min ago". */
export function relativeTime(seconds: number): string {
  const abs = Math.abs(seconds);
  const parts =
    abs >= 86_400 ? `${Math.floor(abs / 86_400)} d ${Math.floor((abs % 86_400) / 3600)} h`
    : abs >= 3600 ? `${Math.floor(abs / 3600)} h ${Math.floor((abs % 3600) / 60)} min`
    : abs >= 60 ? `${Math.floor(abs / 60)} min`
    : `${abs} s`;
  return seconds >= 0 ? `in ${parts}` : `${parts} ago`;
}

/** Prints the status of the stack (text, or JSON with `--json`). Exit code 0 even when signed out. */
export async function status(options: StatusOptions): Promise<void> {
  const ref = await resolveStackRef(options.stack, options.cwd);
  const stack = await openStack(ref, false);
  const s = describeStatus(ref.stackName, await readStackConfig(stack));
  if (options.json) {
    result(JSON.stringify(s, null, 2));
    return;
  }
  const token = s.accessToken;
  const expiry =
    token.expiresAt && token.expiresInSeconds !== null
      ? `${token.expired ? "expired" : "expires"} ${relativeTime(token.expiresInSeconds)} (${token.expiresAt})`
      : "expiry unknown";
  result(`stack:          ${s.stack}`);
  result(`base URL:       ${s.baseUrl ?? "(not set)"}`);
  result(`client id:      ${s.clientId ?? "(not set)"}`);
  result(`redirect URI:   ${s.redirectUri ?? "(not set)"}`);
  result(`client secret:  ${s.clientSecret.present ? "present (secret)" : "missing"}`);
  result(`access token:   ${token.present ? `present (secret), ${expiry}` : "missing"}`);
  result(`refresh token:  ${s.refreshToken.present ? "present (secret)" : "missing"}`);
  if (s.tokenCache.file) result(`token cache:    ${s.tokenCache.file}`);
  if (s.tokenCache.problem) warn(s.tokenCache.problem);
  else if (s.tokenCache.interruptedAt) warn(`a refresh of this sign-in was interrupted at ${s.tokenCache.interruptedAt}: run \`pulumi-helpdesk refresh --stack ${s.stack}\` to see what to do.`);
  else if (s.newerTokensCached) info("Newer tokens from a provider run wait in the local cache: run `pulumi-helpdesk refresh` to store them.");
  if (!token.present) info(`Not signed in: run \`pulumi-helpdesk login --stack ${s.stack}\`.`);
  else if (token.expired) info(s.refreshToken.present ? "The access token expired; `pulumi up` renews it, or run `pulumi-helpdesk refresh`." : "The access token expired: run `pulumi-helpdesk login`.");
}
