import { CONFIG_KEYS, ENV_VARS } from "../sdk/config.js";
import { configSetting, lineageOf, type Lineage } from "../auth/lineage.js";
import { HelpdeskError } from "./errors.js";

import type { ConfigReader } from "../sdk/provider-contract.js";

export type { ConfigReader };

/**
 * The credentials one provider operation uses, resolved at call time.
 *
 * Precedence (docs/design.md "Settings precedence"): environment variables first, then the stack config passed to `configure`. `destroy` and
 * `refresh` run with the config stored in state, so the environment is how a fresh token reaches them.
 */
export interface Credentials {
  /** API base URL without a trailing slash (docs/helpdesk-api.md §1 `{base_url}`). */
  baseUrl: string;
  /** Bearer access token (docs/helpdesk-api.md §2.2, RFC 6750 §2.1). */
  accessToken: string;
  /** Refresh token (RFC 6749 §6), when login stored one. */
  refreshToken: string | undefined;
  /** OAuth client id, needed with `clientSecret` for the refresh grant. */
  clientId: string | undefined;
  /** OAuth client secret (client_secret_post, RFC 6749 §2.3.1). */
  clientSecret: string | undefined;
  /** Access token expiry, ISO 8601, as written by login; undefined when unknown. */
  tokenExpiresAt: string | undefined;
  /** True when the access token came from `HELPDESK_ACCESS_TOKEN` (then it is used as given, never renewed). */
  accessTokenFromEnvironment: boolean;
  /**
   * The sign-in to renew the access token with (`auth/lineage.ts` `lineageOf`), or undefined when it cannot be
   * renewed: the token came from `HELPDESK_ACCESS_TOKEN`, or the config lacks a refresh token or client credentials.
   */
  lineage: Lineage | undefined;
}

/**
 * Resolves the credentials for one operation.
 *
 * @param config the stack config given to `configure` (undefined when the engine sent none)
 * @param env the environment (default `process.env`)
 * @returns the credentials, base URL normalised (no trailing slash)
 * @throws HelpdeskError code `credentials` when the base URL or access token is missing (the message says which env
 *   var or `pulumi-helpdesk login` fixes it); `config` when the base URL is not an absolute http(s) URL
 */
export function resolveCredentials(config: ConfigReader | undefined, env: NodeJS.ProcessEnv = process.env): Credentials {
  const pick = (envName: string | undefined, key: string): string | undefined => configSetting(config, key, envName, env);
  const rawBaseUrl = pick(ENV_VARS.baseUrl, CONFIG_KEYS.baseUrl);
  const accessToken = pick(ENV_VARS.accessToken, CONFIG_KEYS.accessToken);
  const missing: string[] = [];
  if (!rawBaseUrl) missing.push(`the API base URL (env ${ENV_VARS.baseUrl} or config ${CONFIG_KEYS.baseUrl})`);
  if (!accessToken) missing.push(`the access token (env ${ENV_VARS.accessToken} or config ${CONFIG_KEYS.accessToken})`);
  if (!rawBaseUrl || !accessToken) {
    throw new HelpdeskError(
      "credentials",
      `helpdesk credentials are missing: ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set. ` +
        "Run `pulumi-helpdesk login --stack <stack>` in the project directory, or set the environment variables.",
    );
  }
  const accessTokenFromEnvironment = Boolean(env[ENV_VARS.accessToken]);
  return {
    baseUrl: normaliseBaseUrl(rawBaseUrl),
    accessToken,
    refreshToken: pick(undefined, CONFIG_KEYS.refreshToken),
    clientId: pick(ENV_VARS.clientId, CONFIG_KEYS.clientId),
    clientSecret: pick(ENV_VARS.clientSecret, CONFIG_KEYS.clientSecret),
    tokenExpiresAt: accessTokenFromEnvironment ? undefined : pick(undefined, CONFIG_KEYS.tokenExpiresAt),
    accessTokenFromEnvironment,
    lineage: accessTokenFromEnvironment ? undefined : lineageOf(config, { env }),
  };
}

/**
 * Checks and normalises a base URL: absolute http or https, no query or fragment, trailing slashes removed.
 *
 * @param raw e.g. `"http://127.0.0.1:8080/"`
 * @returns e.g. `"http://127.0.0.1:8080"`
 * @throws HelpdeskError code `config` when `raw` is not such a URL
 */
export function normaliseBaseUrl(raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new HelpdeskError("config", `helpdesk base URL ${JSON.stringify(raw)} is not an absolute URL; expected e.g. https://helpdesk.example.com`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new HelpdeskError("config", `helpdesk base URL must use http or https, got ${parsed.protocol.replace(/:$/, "")}`);
  }
  if (parsed.search || parsed.hash) {
    throw new HelpdeskError("config", "helpdesk base URL must not carry a query or fragment");
  }
  return parsed.toString().replace(/\/+$/, "");
}
