/**
 * The OAuth client settings `login` needs (docs/helpdesk-api.md §4.1, §4.2), collected as every resolution collects
 * settings (`kernel/settings.ts` `collectSettings`: the one precedence, `SETTING_PRECEDENCE`, with the flags as the
 * explicit values and the stack's config in the command's namespace as the config); each value checked by the table's
 * rule (the base URL by `kernel/base-url.ts`, as the provider checks it), and each missing one named with its flag and
 * variable.
 */

import { parseBaseUrl } from "../../kernel/base-url.js";
import { stackConfigSettings } from "../../kernel/config.js";
import {
  collectSettings,
  type SettingName,
  settingFlag,
  settingProblem,
  settingReaderOf,
  settingSourceName,
} from "../../kernel/settings.js";
import { CliError } from "./output.js";

/** The settings `login` needs before it can sign in. */
export const CLIENT_SETTING_NAMES = [
  "baseUrl",
  "clientId",
  "clientSecret",
  "redirectUri",
] as const satisfies readonly SettingName[];

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

/** Flag values as commander parses them (all optional; each flag is `settingFlag(name)`, e.g. `--base-url`). */
export type ClientFlags = Partial<Record<ClientSettingName, string>>;

/** What {@link pickClientSettings} found: values by name (trimmed, checked), and the names still missing. */
export interface PickedClientSettings {
  found: Partial<Record<ClientSettingName, string>>;
  missing: ClientSettingName[];
}

/**
 * Picks each client setting by the settings' precedence (`kernel/settings.ts` `collectSettings`): its flag, else the
 * stack config of `namespace` (`<ns>:baseUrl`, ...), else its environment variable, and checks it.
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
export function pickClientSettings(
  flags: ClientFlags,
  stackConfig: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv = process.env,
  namespace?: string,
): PickedClientSettings {
  const sources = {
    explicit: settingReaderOf(flags),
    explicitSource: "flag",
    config: stackConfigSettings(stackConfig, namespace),
    env,
  } as const;
  const { picked, missing, problems } = collectSettings(CLIENT_SETTING_NAMES, sources);
  if (problems[0]) throw new CliError("usage", problems[0].message);
  const found: Partial<Record<ClientSettingName, string>> = {};
  for (const name of CLIENT_SETTING_NAMES) if (picked[name]) found[name] = picked[name].value;
  return { found, missing: [...missing] };
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
  return {
    baseUrl: parsed.url,
    clientId: found.clientId,
    clientSecret: found.clientSecret,
    redirectUri: found.redirectUri,
  };
}

/**
 * The error for settings that are still missing when no one can be asked (no terminal, or `CI=true`).
 *
 * @param missing the settings still missing
 * @returns a CliError `usage` (exit 2) listing the flag and environment variable of each
 */
export function missingSettingsError(missing: readonly ClientSettingName[]): CliError {
  const lines = missing.map((name) => `  ${settingFlag(name).padEnd(16)} or ${settingSourceName(name, "environment")}`);
  return new CliError(
    "usage",
    `missing ${missing.length === 1 ? "a setting" : "settings"} and no terminal to ask on; set:\n${lines.join("\n")}`,
  );
}
