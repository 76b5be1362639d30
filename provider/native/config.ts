/**
 * The native provider's configuration: which settings a `helpdesk` provider takes (derived from `sdk/config.ts`, the
 * one home of the config keys), and the provider-config half of the plugin protocol: `CheckConfig`, `DiffConfig`, and
 * the adapter from `Configure`'s inputs to the {@link ConfigReader} that the provider core reads
 * (`resolveCredentials`, `lineageOf`, `resolveLimits`).
 *
 * A provider's inputs are named by the bare key (`accessToken`); the core asks for the namespaced one
 * (`helpdesk:accessToken`), exactly the stack config key that `pulumi-helpdesk login` writes. The default provider's
 * inputs are the stack's `helpdesk:*` config with the namespace stripped (pulumi/pulumi
 * `pkg/resource/deploy/target.go` `GetPackageConfig`), so login works unchanged for every language.
 */
import { CONFIG_KEYS, DEFAULT_CONFIG_NAMESPACE, SECRET_CONFIG_SETTINGS, type ConfigSettingName, type ProviderSettingName } from "../../sdk/config.js";
import type { ConfigReader } from "../../sdk/provider-contract.js";
import { registerSecret } from "../../auth/redact.js";
import { normaliseBaseUrl } from "../credentials.js";
import { HelpdeskError } from "../errors.js";
import { resolveLimits } from "../limits.js";
import type { PropertyMap } from "./proto.js";
import { asSecret, containsUnknown, reveal, UNKNOWN } from "./properties.js";

/** A setting of a `helpdesk` provider: a key of {@link CONFIG_KEYS} (`sdk/config.ts` {@link ProviderSettingName}). */
export type ProviderConfigName = ProviderSettingName;

/**
 * The settings a `helpdesk` provider takes, in schema order: every {@link CONFIG_KEYS} entry except `redirectUri`,
 * which only `pulumi-helpdesk login` reads.
 */
export const PROVIDER_CONFIG_NAMES: readonly ProviderConfigName[] = (Object.keys(CONFIG_KEYS) as Array<keyof typeof CONFIG_KEYS>).filter(
  (name): name is ProviderConfigName => name !== "redirectUri",
);

/** Settings whose value is a whole number (`provider/limits.ts` reads them); every other setting is a string. */
export const INTEGER_CONFIG_NAMES: ReadonlySet<ProviderConfigName> = new Set(["maxRetries", "requestTimeout"]);

/**
 * @param name a provider setting, e.g. `accessToken`
 * @returns true when {@link SECRET_CONFIG_SETTINGS} lists it (then it is only ever stored as a secret)
 */
export function isSecretConfig(name: string): boolean {
  return (SECRET_CONFIG_SETTINGS as readonly string[]).includes(name);
}

/**
 * The key the provider core reads a provider input under: the default namespace's ({@link CONFIG_KEYS}), whatever
 * namespace the program read the value from (`eu:accessToken` becomes input `accessToken`, read as
 * `helpdesk:accessToken`). Other inputs (`version`) are read under the default namespace too.
 */
function coreKeyOf(name: string): string {
  return Object.hasOwn(CONFIG_KEYS, name) ? CONFIG_KEYS[name as ConfigSettingName] : `${DEFAULT_CONFIG_NAMESPACE}:${name}`;
}

/**
 * Reads one provider input as the string a stack config value would be: secrets unwrapped, numbers and booleans as
 * their decimal / `true` text (a `Provider` of another language may send `maxRetries: 3`, the stack config sends
 * `"3"`), objects as JSON.
 *
 * @returns undefined for an absent, null or unknown value
 */
function asConfigString(value: unknown): string | undefined {
  const plain = reveal(value);
  if (plain === undefined || plain === null || plain === UNKNOWN) return undefined;
  if (typeof plain === "string") return plain;
  if (typeof plain === "number" || typeof plain === "boolean") return String(plain);
  return JSON.stringify(plain);
}

/**
 * Adapts a provider's inputs (what `Configure` received) to the core's {@link ConfigReader}: `get("helpdesk:baseUrl")`
 * reads input `baseUrl`. One reader per provider instance, so credential resolution, token lineage and the token cache
 * work per provider (`provider/tokens.ts` keys token sources by lineage). Registers every secret setting with the
 * redaction registry (`auth/redact.ts`) at once, so no later error can show one.
 *
 * @param inputs the provider's inputs, secrets wrapped or not
 * @returns a reader of `helpdesk:<name>` keys; other namespaces read as undefined
 */
export function configReaderOf(inputs: PropertyMap): ConfigReader {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(inputs)) {
    const text = asConfigString(value);
    if (text === undefined) continue;
    values.set(coreKeyOf(name), text);
    if (isSecretConfig(name)) registerSecret(text);
  }
  return { get: (key) => values.get(key) };
}

/** One failing provider setting, as `CheckConfig` reports it. */
export interface ConfigFailure {
  /** The setting, e.g. `maxRetries`. */
  property: string;
  /** Why, for people; never a secret's value. */
  reason: string;
}

/**
 * `CheckConfig` of a `helpdesk` provider: validates what can be validated before any request, and marks credentials
 * secret whatever the program did (state never holds one in plaintext).
 *
 * - `baseUrl`, `maxRetries` and `requestTimeout` follow the core's rules (an absolute http(s) URL without query or
 *   fragment; whole numbers 0..50 and 1..600 seconds, as numbers or decimal text);
 * - `tokenExpiresAt`, when given, must parse as an ISO 8601 date;
 * - missing credentials are no failure here: the environment (`HELPDESK_BASE_URL`, `HELPDESK_ACCESS_TOKEN`) may supply
 *   them when the provider runs, and create/delete then say what is missing, as the dynamic provider does;
 * - unknown values (preview) pass; settings of other names (`version`, `redirectUri` from the stack config) pass
 *   through untouched.
 *
 * @param news the proposed inputs (the engine sends CheckConfig values without secret wrappers)
 * @returns the inputs to record (the {@link SECRET_CONFIG_SETTINGS} settings wrapped as secrets) and the failures
 */
export function checkProviderConfig(news: PropertyMap): { inputs: PropertyMap; failures: ConfigFailure[] } {
  const failures: ConfigFailure[] = [];
  const inputs: PropertyMap = {};
  for (const [name, value] of Object.entries(news)) {
    inputs[name] = isSecretConfig(name) && value !== null && value !== undefined ? asSecret(value) : value;
    if (containsUnknown(value)) continue;
    const text = asConfigString(value);
    if (text === undefined || text === "") continue;
    const problem = coreRuleProblem(name, text);
    if (problem) failures.push({ property: name, reason: problem });
  }
  return { inputs, failures };
}

/**
 * Why a setting's value breaks the rule the provider core applies when it runs, or undefined: the core's own checks
 * (`normaliseBaseUrl` of provider/credentials.ts, `resolveLimits` of provider/limits.ts), so that preview refuses
 * exactly what `up` would; plus `tokenExpiresAt`, which must parse as a date.
 */
function coreRuleProblem(name: string, text: string): string | undefined {
  try {
    if (name === "baseUrl") normaliseBaseUrl(text);
    else if (INTEGER_CONFIG_NAMES.has(name as ProviderConfigName)) resolveLimits({ get: (key) => (key === coreKeyOf(name) ? text : undefined) });
    else if (name === "tokenExpiresAt" && Number.isNaN(Date.parse(text))) {
      return `tokenExpiresAt must be an ISO 8601 date such as 2030-01-01T00:00:00Z, got ${JSON.stringify(text.slice(0, 40))}`;
    }
    return undefined;
  } catch (error) {
    if (error instanceof HelpdeskError) return error.message;
    throw error;
  }
}

/** What `DiffConfig` decided. */
export interface ConfigDiff {
  /** Settings whose value changed (or may change: unknown). */
  changed: string[];
  /** Settings whose change replaces the provider, and with it every webhook it manages: `baseUrl` only. */
  replaces: string[];
}

/**
 * `DiffConfig` of a `helpdesk` provider. A different help desk (`baseUrl`, compared without trailing slashes) makes
 * the old webhooks unmanageable by the new provider, so it replaces the provider (the engine then replaces its
 * webhooks: created on the new help desk, deleted from the old one with the old settings). Any other change (a new
 * token after `pulumi-helpdesk login`, other limits) updates the provider in place and touches no webhook.
 *
 * @param olds the recorded provider outputs; @param news the new inputs (both as the engine sends them: no secret
 *   wrappers, maybe unknowns). `version` is ignored.
 */
export function diffProviderConfig(olds: PropertyMap, news: PropertyMap): ConfigDiff {
  const names = new Set([...Object.keys(olds), ...Object.keys(news)].filter((name) => name !== "version"));
  const changed: string[] = [];
  const replaces: string[] = [];
  for (const name of names) {
    const before = reveal(olds[name]);
    const after = reveal(news[name]);
    const same = name === "baseUrl" ? normalise(before) === normalise(after) : JSON.stringify(before ?? null) === JSON.stringify(after ?? null);
    if (same) continue;
    changed.push(name);
    if (name === "baseUrl" && !containsUnknown(after)) replaces.push(name);
  }
  return { changed, replaces };
}

/** A base URL without trailing slashes, for comparison. */
function normalise(value: unknown): unknown {
  return typeof value === "string" ? value.replace(/\/+$/, "") : (value ?? null);
}
