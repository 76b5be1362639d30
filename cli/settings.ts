/**
 * The OAuth client settings `login` needs (docs/helpdesk-api.md §4.1, §4.2), resolved with the one precedence of the
 * settings table (`kernel/settings.ts`): a flag, then the stack's config in the command's namespace, then the
 * environment variable; each value checked by the table's rule (the base URL by `kernel/base-url.ts`, as the provider
 * checks it), and each missing one named with its flag and variable.
 */
import { DEFAULT_CONFIG_NAMESPACE, stackConfigSettings } from "../kernel/config.js";
import { describeOrigin, pickSetting, settingProblem, settingReaderOf, SETTINGS, type SettingName } from "../kernel/settings.js";
import { parseBaseUrl } from "../kernel/base-url.js";
import { CliError } from "./output.js";

/** The settings `login` needs before it can sign in. */
export const CLIENT_SETTING_NAMES = ["baseUrl", "clientId", "clientSecret", "redirectUri"] as const satisfies readonly SettingName[];

/** One of {@link CLIENT_SETTING_NAMES}. */
export type ClientSettingName = (typeof CLIENT_SETTING_NAMES)[number];

/** The settings of docs/helpdesk-api.md §4.1 / §4.2 that login needs, checked. */
export interface ClientSettings {
  /** API base URL, as `kernel/base-url.ts` parsed it. */
  baseUrl: URL;
  /** `client_id`. */
  clientId: string;
  /** `client_secret`. */
  clientSecret: string;
  /** Registered `redirect_uri`, exactly as given (RFC 6749 §3.1.2: compared as a string by the server). */
  redirectUri: string;
}

/** Flag values as commander parses them (all optional). */
export type ClientFlags = Partial<Record<ClientSettingName, string>>;

/** The command-line flag of each client setting. */
export const CLIENT_FLAGS: Readonly<Record<ClientSettingName, string>> = {
  baseUrl: "--base-url",
  clientId: "--client-id",
  clientSecret: "--client-secret",
  redirectUri: "--redirect-uri",
};

/** What {@link pickClientSettings} found: values by name (trimmed, checked), and the names still missing. */
export interface PickedClientSettings {
  found: Partial<Record<ClientSettingName, string>>;
  missing: ClientSettingName[];
}

/**
 * Picks each client setting by precedence: its flag, else the stack config of `namespace` (`<ns>:baseUrl`, ...),
 * else its environment variable, and checks it.
 *
 * @param flags parsed command-line flags
 * @param stackConfig the stack's current config (decrypted, by namespaced key), or `{}`
 * @param env environment (default `process.env`)
 * @param namespace the config namespace whose keys are read (default `helpdesk`; a valid namespace)
 * @returns the settings found and the names of those missing
 * @throws CliError `usage` when a value breaks its rule: the message names where it came from (`--base-url`,
 *   `config eu:baseUrl`, `env HELPDESK_BASE_URL`) and what is allowed
 * @throws ConfigNamespaceError when `namespace` is not a valid namespace
 */
export function pickClientSettings(flags: ClientFlags, stackConfig: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv = process.env, namespace?: string): PickedClientSettings {
  const sources = { explicit: settingReaderOf(flags), config: stackConfigSettings(stackConfig, namespace), env, configPrefix: `${namespace ?? DEFAULT_CONFIG_NAMESPACE}:` };
  const found: Partial<Record<ClientSettingName, string>> = {};
  const missing: ClientSettingName[] = [];
  for (const name of CLIENT_SETTING_NAMES) {
    const picked = pickSetting(name, sources);
    if (!picked) {
      missing.push(name);
      continue;
    }
    const where = picked.origin === "explicit" ? CLIENT_FLAGS[name] : describeOrigin(name, picked.origin, sources);
    const problem = settingProblem(name, picked.value, where);
    if (problem) throw new CliError("usage", problem);
    found[name] = picked.value;
  }
  return { found, missing };
}

/**
 * Checks one value a person typed at the prompt.
 *
 * @param name the setting asked for; @param value the answer
 * @throws CliError `usage` when it breaks the setting's rule
 */
export function checkAnswer(name: ClientSettingName, value: string): string {
  const problem = settingProblem(name, value.trim(), name);
  if (problem) throw new CliError("usage", problem);
  return value.trim();
}

/**
 * The checked settings, once none is missing.
 *
 * @param found every client setting, each already checked by {@link pickClientSettings} or {@link checkAnswer}
 */
export function clientSettingsOf(found: Readonly<Record<ClientSettingName, string>>): ClientSettings {
  const parsed = parseBaseUrl(found.baseUrl);
  if ("problem" in parsed) throw new CliError("usage", parsed.problem); // checked already; kept for the type
  return { baseUrl: parsed.url, clientId: found.clientId, clientSecret: found.clientSecret, redirectUri: found.redirectUri };
}

/**
 * The error for settings that are still missing when no one can be asked (no terminal, or `CI=true`).
 *
 * @param missing the settings still missing
 * @returns a CliError `usage` (exit 2) listing the flag and environment variable of each
 */
export function missingSettingsError(missing: readonly ClientSettingName[]): CliError {
  const lines = missing.map((name) => `  ${CLIENT_FLAGS[name].padEnd(16)} or env ${SETTINGS[name].env}`);
  return new CliError("usage", `missing ${missing.length === 1 ? "a setting" : "settings"} and no terminal to ask on; set:\n${lines.join("\n")}`);
}
