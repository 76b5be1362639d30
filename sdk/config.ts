import { PulumiHelpdeskError } from "./errors.js";

/**
 * The stack config namespace of the default `helpdesk` provider and of the dynamic `Webhook`: the one that
 * `pulumi-helpdesk login` writes when no `--namespace` is given (`helpdesk:baseUrl`, ...). It is the Pulumi package
 * name, so the engine hands these keys to the default provider (pulumi/pulumi `GetPackageConfig`).
 */
export const DEFAULT_CONFIG_NAMESPACE = "helpdesk";

/**
 * The settings this project reads and writes, by bare name, in the order of {@link CONFIG_KEYS}. Each is described in
 * {@link CONFIG_DESCRIPTIONS}; which ones are secret says {@link SECRET_CONFIG_SETTINGS}.
 */
export const CONFIG_SETTINGS = [
  "baseUrl",
  "clientId",
  "clientSecret",
  "redirectUri",
  "accessToken",
  "refreshToken",
  "tokenExpiresAt",
  "maxRetries",
  "requestTimeout",
] as const;

/** A bare setting name, e.g. `accessToken`: one of {@link CONFIG_SETTINGS}. */
export type ConfigSettingName = (typeof CONFIG_SETTINGS)[number];

/**
 * The stack config keys of one namespace, in Pulumi's `namespace:key` form: `ConfigKeys<"eu">["accessToken"]` is
 * `"eu:accessToken"`. Built by {@link configKeysFor}; {@link CONFIG_KEYS} is the default namespace's.
 *
 * @typeParam N the namespace, e.g. `"helpdesk"` or `"eu"`
 */
export interface ConfigKeys<N extends string = typeof DEFAULT_CONFIG_NAMESPACE> {
  /** Base URL of the help-desk API (docs/helpdesk-api.md §1 `{base_url}`), e.g. `https://helpdesk.example.com`. Plain. */
  readonly baseUrl: `${N}:baseUrl`;
  /** OAuth 2.0 client identifier (docs/helpdesk-api.md §4.1, RFC 6749 §2.2). Plain. */
  readonly clientId: `${N}:clientId`;
  /** OAuth 2.0 client secret (docs/helpdesk-api.md §4.2, RFC 6749 §2.3.1). Secret. */
  readonly clientSecret: `${N}:clientSecret`;
  /** Registered redirect URI (docs/helpdesk-api.md §4.1, §5.3; RFC 6749 §3.1.2). Plain. */
  readonly redirectUri: `${N}:redirectUri`;
  /** Bearer access token (docs/helpdesk-api.md §2.2, RFC 6750). Secret. */
  readonly accessToken: `${N}:accessToken`;
  /** Refresh token (docs/helpdesk-api.md §2.2, RFC 6749 §6). Secret. */
  readonly refreshToken: `${N}:refreshToken`;
  /** When the access token expires: ISO 8601 UTC, computed as login time + `expires_in` seconds. Plain. */
  readonly tokenExpiresAt: `${N}:tokenExpiresAt`;
  /** Retries of one API request after 429, 503, 5xx on delete, or a lost connection (default 10). Plain. */
  readonly maxRetries: `${N}:maxRetries`;
  /** Timeout of one API request attempt, in seconds (default 30). Plain. */
  readonly requestTimeout: `${N}:requestTimeout`;
}

// ConfigKeys and CONFIG_SETTINGS name the same settings (a compile error here when one gains a name the other lacks).
type SameNames<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const sameNames: SameNames<keyof ConfigKeys, ConfigSettingName> = true;
void sameNames;

/** A refused config namespace: the message says what is wrong and what a namespace may be. */
export class ConfigNamespaceError extends PulumiHelpdeskError<"invalid_namespace"> {
  /** The namespace as given. */
  readonly namespace: string;

  /**
   * @param namespace the namespace refused
   * @param message why, and what is allowed
   */
  constructor(namespace: string, message: string) {
    super("invalid_namespace", message);
    this.namespace = namespace;
  }
}

/** What a config namespace may look like: a Pulumi package- or project-like name. */
const NAMESPACE_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$/;

/** What {@link configNamespaceProblem} messages say is allowed. */
const NAMESPACE_RULE = 'a config namespace is a name of at most 100 letters, digits, "-", "_" or ".", starting with a letter, e.g. eu or helpdesk-eu';

/**
 * Namespaces that belong to Pulumi itself: `pulumi:` holds the engine's own settings (`pulumi:tags`,
 * `pulumi:template`, `pulumi:disable-default-providers`), and `config` is the middle part of the old key form
 * `<namespace>:config:<name>` (pulumi/pulumi `pkg/resource/config/key.go` `ParseKey`). Compared in lower case.
 */
const RESERVED_NAMESPACES: Readonly<Record<string, string>> = {
  pulumi: "it is Pulumi's own namespace (pulumi:tags, pulumi:template, pulumi:disable-default-providers)",
  config: "Pulumi reads `<namespace>:config:<key>` as the old form of `<namespace>:<key>`, so `config` is no namespace of its own",
};

/**
 * Why a string cannot be the namespace of help-desk settings in stack config, or undefined when it can.
 *
 * Allowed: a name of letters, digits, `-`, `_` and `.`, starting with a letter, at most 100 characters (what
 * `new pulumi.Config(name)`, `pulumi.Config(name)` and a YAML `configuration:` entry's `name: <ns>:<key>` all accept),
 * other than `pulumi` and `config` (see {@link RESERVED_NAMESPACES}). `helpdesk` is the default namespace.
 *
 * @param namespace e.g. `eu`
 * @returns a message for people naming the problem and the rule, or undefined when the namespace is fine
 */
export function configNamespaceProblem(namespace: string): string | undefined {
  const shown = JSON.stringify(namespace.length > 60 ? `${namespace.slice(0, 60)}…` : namespace);
  if (namespace.trim() === "") return `the namespace is empty: ${NAMESPACE_RULE}`;
  if (namespace.includes(":")) {
    return `namespace ${shown} contains ":", which separates a namespace from its key in Pulumi config (eu:accessToken): give the namespace alone; ${NAMESPACE_RULE}`;
  }
  const reserved = RESERVED_NAMESPACES[namespace.toLowerCase()];
  if (reserved) return `namespace ${shown} is reserved: ${reserved}; choose another, e.g. eu or helpdesk-eu`;
  if (!NAMESPACE_PATTERN.test(namespace)) return `namespace ${shown} is not allowed: ${NAMESPACE_RULE}`;
  return undefined;
}

/**
 * The stack config keys of the help-desk settings under `namespace`: the one mapping from a setting to its key.
 * `configKeysFor("helpdesk")` is {@link CONFIG_KEYS}; `configKeysFor("eu").accessToken` is `"eu:accessToken"`, what
 * `pulumi-helpdesk login --namespace eu` writes and `new pulumi.Config("eu").requireSecret("accessToken")` reads.
 *
 * @param namespace the config namespace (see {@link configNamespaceProblem} for what is allowed)
 * @returns a frozen object from every {@link ConfigSettingName} to its namespaced key
 * @throws ConfigNamespaceError (code `invalid_namespace`) when the namespace is not allowed
 */
export function configKeysFor<N extends string>(namespace: N): ConfigKeys<N> {
  const problem = configNamespaceProblem(namespace);
  if (problem) throw new ConfigNamespaceError(namespace, problem);
  return Object.freeze(Object.fromEntries(CONFIG_SETTINGS.map((name) => [name, `${namespace}:${name}`]))) as unknown as ConfigKeys<N>;
}

/**
 * The stack config keys this project reads and writes for the default provider, in Pulumi's `namespace:key` form
 * (`helpdesk:baseUrl`, ...): `configKeysFor("helpdesk")`.
 *
 * Written by `pulumi-helpdesk login` (docs/design.md "The data flow of the main job", step 1), read by the provider's `configure` at call time.
 * Keys marked secret ({@link SECRET_CONFIG_KEYS}) are always stored with `pulumi config set --secret` semantics, so
 * the stack file and the state hold only their ciphertext. `login --namespace eu` writes the same settings as `eu:*`
 * ({@link configKeysFor}), for an explicit native provider.
 */
export const CONFIG_KEYS: ConfigKeys = configKeysFor(DEFAULT_CONFIG_NAMESPACE);

/**
 * The settings of a native `helpdesk` provider (`pulumi-helpdesk/native` `Provider`, the plugin's provider config):
 * every {@link CONFIG_KEYS} name except `redirectUri`, which only `pulumi-helpdesk login` reads.
 */
export type ProviderSettingName = Exclude<ConfigSettingName, "redirectUri">;

/** The settings that hold credentials and must only ever be stored as Pulumi secrets, in any namespace. */
export const SECRET_CONFIG_SETTINGS: readonly ConfigSettingName[] = Object.freeze(["clientSecret", "accessToken", "refreshToken"] as const);

/**
 * The secret keys of one namespace: {@link SECRET_CONFIG_SETTINGS} under `namespace`, e.g. `eu:accessToken`.
 *
 * @param namespace the config namespace
 * @throws ConfigNamespaceError when the namespace is not allowed (see {@link configKeysFor})
 */
export function secretConfigKeysFor(namespace: string): readonly string[] {
  const keys = configKeysFor(namespace);
  return Object.freeze(SECRET_CONFIG_SETTINGS.map((name) => keys[name]));
}

/** Which {@link CONFIG_KEYS} hold credentials and must only ever be stored as Pulumi secrets. */
export const SECRET_CONFIG_KEYS: readonly string[] = secretConfigKeysFor(DEFAULT_CONFIG_NAMESPACE);

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
 * the same; keep the JSDoc of {@link ConfigKeys} in step with it.
 */
export const CONFIG_DESCRIPTIONS: Readonly<Record<ConfigSettingName, string>> = {
  baseUrl: "Base URL of the help-desk API, e.g. `https://helpdesk.example.com` (docs/helpdesk-api.md §1 `{base_url}`).",
  clientId: "OAuth 2.0 client identifier (docs/helpdesk-api.md §4.1, RFC 6749 §2.2); with `clientSecret` and `refreshToken` it lets the provider renew an expired access token.",
  clientSecret: "OAuth 2.0 client secret (docs/helpdesk-api.md §4.2, RFC 6749 §2.3.1, sent as `client_secret_post`). Secret.",
  redirectUri: "Registered OAuth redirect URI (docs/helpdesk-api.md §4.1, §5.3; RFC 6749 §3.1.2); used by `pulumi-helpdesk login` only.",
  accessToken: "Bearer access token (docs/helpdesk-api.md §2.2, RFC 6750 §2.1), as written by `pulumi-helpdesk login`. Secret.",
  refreshToken: "Refresh token (docs/helpdesk-api.md §2.2, RFC 6749 §6), used to renew the access token when it has expired or is rejected. Secret.",
  tokenExpiresAt: "When the access token expires: ISO 8601 UTC, login time + `expires_in` seconds. Past it, the provider renews the token first.",
  maxRetries: "Retries of one API request after 429 / 503 (after `Retry-After`), 5xx on delete, or a lost connection: a whole number from 0 to 50 (default 10).",
  requestTimeout: "Timeout of one API request attempt, in seconds: a whole number from 1 to 600 (default 30).",
};
