/**
 * `pulumi-helpdesk status`: what the stack's config (in one namespace: `helpdesk`, or `--namespace eu`) says about
 * the sign-in, without showing any credential.
 */

import { accessTokenExpired, Grant } from "../../auth/grant.js";
import { TokenCacheError, tokenCacheDir } from "../../auth/token-cache.js";
import { type SignInPlace, signInAgain, stackCommand } from "../../kernel/commands.js";
import { configKeysFor, DEFAULT_CONFIG_NAMESPACE } from "../../kernel/config.js";
import { commandNamespace } from "../shared/namespace.js";
import { info, result, warn } from "../shared/output.js";
import { openStack, readStackConfig, resolveStackRef } from "../shared/stack-config.js";

/** Options of `status`. */
export interface StatusOptions {
  /** Stack name (default: the selected stack). */
  stack?: string;
  /** Project directory (default: the current directory). */
  cwd?: string;
  /** Config namespace of the grant (default `helpdesk`). */
  namespace?: string;
  /** Print {@link SignInStatus} as JSON. */
  json: boolean;
}

/** The machine-readable status (`--json`); presence flags only, never values of secrets. */
export interface SignInStatus {
  stack: string;
  /** The config namespace read, e.g. `helpdesk` or `eu`. */
  namespace: string;
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
    /**
     * Whether the token counts as expired by the grant's rule (`auth/grant.ts` `accessTokenExpired`: a margin before
     * the expiry, when the provider already refreshes it), or null when the expiry is unknown.
     */
    expired: boolean | null;
  };
  refreshToken: { present: boolean };
  /** True when the provider refreshed the tokens during a run and `pulumi-helpdesk refresh` should store them. */
  newerTokensCached: boolean;
  /** What the local token cache holds for this grant (never token values). */
  tokenCache: {
    /** Absolute path of the grant's cache file, or null when no refresh has written one. */
    file: string | null;
    /** When a refresh was interrupted after its request was sent (ISO 8601), or null; the next refresh then stops. */
    interruptedAt: string | null;
    /** Why the cache cannot be used (e.g. a damaged file), naming the file and what to do; null when it can. */
    problem: string | null;
  };
}

/** Options of {@link describeStatus}. */
export interface DescribeStatusOptions {
  /** The config namespace to read (default `helpdesk`). */
  namespace?: string;
  /** The current time in milliseconds (for tests; default `Date.now()`). */
  now?: number;
  /** The token cache directory (default: `tokenCacheDir()`). */
  cacheDir?: string;
}

/**
 * Computes the sign-in status of a stack in one config namespace.
 *
 * @param stack the stack name
 * @param config the stack config (namespaced key → value, secrets decrypted; only their presence is reported)
 * @param options namespace, clock and token cache directory
 * @returns the status; a token cache problem is reported in `tokenCache.problem`, not thrown
 * @throws ConfigNamespaceError when `options.namespace` is not a valid namespace
 */
export function describeStatus(
  stack: string,
  config: Record<string, string>,
  options: DescribeStatusOptions = {},
): SignInStatus {
  const namespace = options.namespace ?? DEFAULT_CONFIG_NAMESPACE;
  const keys = configKeysFor(namespace);
  const get = (key: string): string | null => config[key] || null;
  const now = options.now ?? Date.now();
  const expiresAt = get(keys.tokenExpiresAt);
  const at = expiresAt ? Date.parse(expiresAt) : Number.NaN;
  const expiresInSeconds = Number.isFinite(at) ? Math.round((at - now) / 1000) : null;
  const baseUrl = get(keys.baseUrl);
  const clientId = get(keys.clientId);
  const refreshToken = get(keys.refreshToken);
  const cache = tokenCacheStatus(stack, namespace, config, options.cacheDir ?? tokenCacheDir());
  return {
    stack,
    namespace,
    baseUrl,
    clientId,
    redirectUri: get(keys.redirectUri),
    clientSecret: { present: Boolean(get(keys.clientSecret)) },
    accessToken: {
      present: Boolean(get(keys.accessToken)),
      expiresAt,
      expiresInSeconds,
      expired:
        expiresInSeconds === null
          ? null
          : accessTokenExpired({ expiresAt: expiresAt ?? undefined, lifetimeSeconds: undefined }, now),
    },
    refreshToken: { present: Boolean(refreshToken) },
    newerTokensCached: cache.newer,
    tokenCache: cache.status,
  };
}

/** The token cache's view of the stack's grant; a cache problem is reported, not thrown (status always responds). */
function tokenCacheStatus(
  stack: string,
  namespace: string,
  config: Record<string, string>,
  dir: string,
): { newer: boolean; status: SignInStatus["tokenCache"] } {
  const grant = Grant.fromStackConfig(config, { stack, namespace, cacheDir: dir });
  if (!grant?.refreshable) return { newer: false, status: { file: null, interruptedAt: null, problem: null } };
  try {
    const state = grant.state();
    return {
      newer: state.newerThanConfig,
      status: { file: state.file ?? null, interruptedAt: state.interruptedAt ?? null, problem: null },
    };
  } catch (error) {
    if (!(error instanceof TokenCacheError)) throw error;
    return { newer: false, status: { file: error.file, interruptedAt: null, problem: error.message } };
  }
}

/**
 * A duration relative to now, for people.
 *
 * @param seconds seconds from now (negative: in the past)
 * @returns e.g. "in 1 h 59 min", "3 min ago"
 */
export function relativeTime(seconds: number): string {
  const abs = Math.abs(seconds);
  const parts =
    abs >= 86_400
      ? `${Math.floor(abs / 86_400)} d ${Math.floor((abs % 86_400) / 3600)} h`
      : abs >= 3600
        ? `${Math.floor(abs / 3600)} h ${Math.floor((abs % 3600) / 60)} min`
        : abs >= 60
          ? `${Math.floor(abs / 60)} min`
          : `${abs} s`;
  return seconds >= 0 ? `in ${parts}` : `${parts} ago`;
}

/**
 * Prints the status of the stack's sign-in in one namespace (text, or JSON with `--json`). Exit code 0 even when
 * signed out.
 *
 * @param options the parsed flags
 * @throws CliError exit 2 on a bad `--namespace`, a wrong `--cwd`, no project or no stack selected; exit 1 when the
 *   stack cannot be opened
 */
export async function status(options: StatusOptions): Promise<void> {
  const namespace = commandNamespace(options.namespace);
  const ref = await resolveStackRef(options.stack, options.cwd);
  const stack = await openStack(ref, false);
  const s = describeStatus(ref.stackName, await readStackConfig(stack), { namespace });
  const place: SignInPlace = { stack: s.stack, namespace };
  if (options.json) {
    result(JSON.stringify(s, null, 2));
    return;
  }
  const token = s.accessToken;
  const expiry =
    token.expiresAt && token.expiresInSeconds !== null
      ? `${token.expired ? (token.expiresInSeconds > 0 ? "counts as expired, expires" : "expired") : "expires"} ${relativeTime(token.expiresInSeconds)} (${token.expiresAt})`
      : "expiry unknown";
  result(`stack:          ${s.stack}`);
  result(`namespace:      ${s.namespace}`);
  result(`base URL:       ${s.baseUrl ?? "(not set)"}`);
  result(`client id:      ${s.clientId ?? "(not set)"}`);
  result(`redirect URI:   ${s.redirectUri ?? "(not set)"}`);
  result(`client secret:  ${s.clientSecret.present ? "present (secret)" : "missing"}`);
  result(`access token:   ${token.present ? `present (secret), ${expiry}` : "missing"}`);
  result(`refresh token:  ${s.refreshToken.present ? "present (secret)" : "missing"}`);
  if (s.tokenCache.file) result(`token cache:    ${s.tokenCache.file}`);
  if (s.tokenCache.problem) warn(s.tokenCache.problem);
  else if (s.tokenCache.interruptedAt)
    warn(
      `a refresh of this grant was interrupted at ${s.tokenCache.interruptedAt}: run ${stackCommand("refresh", place)} to see what to do.`,
    );
  else if (s.newerTokensCached)
    info(
      `Newer tokens from a provider run wait in the local cache: run ${stackCommand("refresh", place)} to store them.`,
    );
  if (!token.present) info(`Not signed in: run ${stackCommand("login", place)}.`);
  else if (token.expired) {
    info(
      s.refreshToken.present
        ? `The access token expired; \`pulumi up\` renews it, or run ${stackCommand("refresh", place)}.`
        : `The access token expired: ${signInAgain(place)}.`,
    );
  }
}
