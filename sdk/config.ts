/**
 * The stack config keys this project reads and writes, in Pulumi's `namespace:key` form.
 *
 * Written by `pulumi-helpdesk login` (DESIGN.md, data flow step 1), read by the provider's `configure` at call time.
 * Keys marked `secret: true` are always stored with `pulumi config set --secret` semantics, so the stack file and the
 * state hold only their ciphertext.
 */
export const CONFIG_KEYS = {
  /** Base URL of the help-desk API (spec §1 `{base_url}`), e.g. `https://helpdesk.example.com`. Plain. */
  baseUrl: "helpdesk:baseUrl",
  /** OAuth 2.0 client identifier (spec §4.1, RFC 6749 §2.2). Plain. */
  clientId: "helpdesk:clientId",
  /** OAuth 2.0 client secret (spec §4.2, RFC 6749 §2.3.1). Secret. */
  clientSecret: "helpdesk:clientSecret",
  /** Registered redirect URI (spec §4.1, §5.3; RFC 6749 §3.1.2). Plain. */
  redirectUri: "helpdesk:redirectUri",
  /** Bearer access token (spec §2.2, RFC 6750). Secret. */
  accessToken: "helpdesk:accessToken",
  /** Refresh token (spec §2.2, RFC 6749 §6). Secret. */
  refreshToken: "helpdesk:refreshToken",
  /** When the access token expires: ISO 8601 UTC, computed as login time + `expires_in` seconds. Plain. */
  tokenExpiresAt: "helpdesk:tokenExpiresAt",
  /** Retries of one API request after 429, 503, 5xx on delete, or a lost connection (default 10). Plain. */
  maxRetries: "helpdesk:maxRetries",
  /** Timeout of one API request attempt, in seconds (default 30). Plain. */
  requestTimeout: "helpdesk:requestTimeout",
} as const;

/**
 * The settings of a native `helpdesk` provider (`pulumi-helpdesk/native` `Provider`, the plugin's provider config):
 * every {@link CONFIG_KEYS} name except `redirectUri`, which only `pulumi-helpdesk login` reads.
 */
export type ProviderSettingName = Exclude<keyof typeof CONFIG_KEYS, "redirectUri">;

/** Which {@link CONFIG_KEYS} hold credentials and must only ever be stored as Pulumi secrets. */
export const SECRET_CONFIG_KEYS: readonly string[] = [
  CONFIG_KEYS.clientSecret,
  CONFIG_KEYS.accessToken,
  CONFIG_KEYS.refreshToken,
];

/**
 * Environment variables that take precedence over stack config at call time (so a CI job can inject a token
 * without `login`, and `pulumi destroy` run from stored state still sees a fresh one).
 */
export const ENV_VARS = {
  baseUrl: "HELPDESK_BASE_URL",
  accessToken: "HELPDESK_ACCESS_TOKEN",
  clientId: "HELPDESK_CLIENT_ID",
  clientSecret: "HELPDESK_CLIENT_SECRET",
  redirectUri: "HELPDESK_REDIRECT_URI",
} as const;

/**
 * What each {@link CONFIG_KEYS} setting means, for people: the one home of that prose. The native provider's schema
 * (`provider/native/schema.ts`: provider config and `Provider` inputs) and the TypeScript `Provider` class's docs say
 * the same; keep the JSDoc of {@link CONFIG_KEYS} in step with it.
 */
export const CONFIG_DESCRIPTIONS: Readonly<Record<keyof typeof CONFIG_KEYS, string>> = {
  baseUrl: "Base URL of the help-desk API, e.g. `https://helpdesk.example.com` (spec §1 `{base_url}`).",
  clientId: "OAuth 2.0 client identifier (spec §4.1, RFC 6749 §2.2); with `clientSecret` and `refreshToken` it lets the provider renew an expired access token.",
  clientSecret: "OAuth 2.0 client secret (spec §4.2, RFC 6749 §2.3.1, sent as `client_secret_post`). Secret.",
  redirectUri: "Registered OAuth redirect URI (spec §4.1, §5.3; RFC 6749 §3.1.2); used by `pulumi-helpdesk login` only.",
  accessToken: "Bearer access token (spec §2.2, RFC 6750 §2.1), as written by `pulumi-helpdesk login`. Secret.",
  refreshToken: "Refresh token (spec §2.2, RFC 6749 §6), used to renew the access token when it has expired or is rejected. Secret.",
  tokenExpiresAt: "When the access token expires: ISO 8601 UTC, login time + `expires_in` seconds. Past it, the provider renews the token first.",
  maxRetries: "Retries of one API request after 429 / 503 (after `Retry-After`), 5xx on delete, or a lost connection: a whole number from 0 to 50 (default 10).",
  requestTimeout: "Timeout of one API request attempt, in seconds: a whole number from 1 to 600 (default 30).",
};
