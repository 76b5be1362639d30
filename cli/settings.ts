/**
 * Resolves the OAuth client settings a command needs, from (in order) flags, environment variables and the stack's
 * existing config, and says exactly what to set when something is missing.
 */
import { configKeysFor, DEFAULT_CONFIG_NAMESPACE, ENV_VARS } from "../sdk/config.js";
import { CliError } from "./output.js";

/** The settings of docs/helpdesk-api.md §4.1 / §4.2 that login needs. */
export interface ClientSettings {
  /** API base URL, no trailing slash. */
  baseUrl: string;
  /** `client_id`. */
  clientId: string;
  /** `client_secret`. */
  clientSecret: string;
  /** Registered `redirect_uri`. */
  redirectUri: string;
}

/** Flag values as commander parses them (all optional). */
export interface ClientFlags {
  baseUrl?: string;
  clientId?: string;
  clientSecret?: string;
  redirectUri?: string;
}

/** Where each setting comes from besides stack config (whose key is the setting's under the command's namespace). */
const SOURCES: Record<keyof ClientSettings, { flag: string; env: string }> = {
  baseUrl: { flag: "--base-url", env: ENV_VARS.baseUrl },
  clientId: { flag: "--client-id", env: ENV_VARS.clientId },
  clientSecret: { flag: "--client-secret", env: ENV_VARS.clientSecret },
  redirectUri: { flag: "--redirect-uri", env: ENV_VARS.redirectUri },
};

/**
 * Picks each setting from flags, else env, else the stack config of `namespace` (`<ns>:baseUrl`, ...).
 *
 * @param flags parsed command-line flags
 * @param stackConfig the stack's current config (decrypted), or `{}`
 * @param env environment (default `process.env`)
 * @param namespace the config namespace whose keys are read (default `helpdesk`; a valid namespace)
 * @returns the settings found (trimmed; the base URL without trailing slashes), and the names of those missing
 * @throws ConfigNamespaceError when `namespace` is not a valid namespace
 */
export function pickClientSettings(
  flags: ClientFlags,
  stackConfig: Record<string, string>,
  env: NodeJS.ProcessEnv = process.env,
  namespace: string = DEFAULT_CONFIG_NAMESPACE,
): { found: Partial<ClientSettings>; missing: (keyof ClientSettings)[] } {
  const keys = configKeysFor(namespace);
  const found: Partial<ClientSettings> = {};
  const missing: (keyof ClientSettings)[] = [];
  for (const name of Object.keys(SOURCES) as (keyof ClientSettings)[]) {
    const source = SOURCES[name];
    const value = flags[name] || env[source.env] || stackConfig[keys[name]];
    if (value) found[name] = value.trim();
    else missing.push(name);
  }
  if (found.baseUrl) found.baseUrl = found.baseUrl.replace(/\/+$/, "");
  return { found, missing };
}

/**
 * The error for settings that are still missing when no one can be asked (no terminal, or `CI=true`).
 *
 * @param missing the settings still missing
 * @returns a CliError (exit 2) listing the flag and environment variable of each
 */
export function missingSettingsError(missing: readonly (keyof ClientSettings)[]): CliError {
  const lines = missing.map((name) => `  ${SOURCES[name].flag.padEnd(16)} or env ${SOURCES[name].env}`);
  return new CliError(`missing ${missing.length === 1 ? "a setting" : "settings"} and no terminal to ask on; set:\n${lines.join("\n")}`, 2);
}

/**
 * Checks that a URL setting is an absolute http(s) URL.
 *
 * @param name which setting (for the flag named in the message)
 * @param value the setting's value
 * @returns the parsed URL
 * @throws CliError (exit code 2) naming the flag and what is allowed
 */
export function requireHttpUrl(name: keyof ClientSettings, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${SOURCES[name].flag} ${JSON.stringify(value)} is not an absolute URL (expected e.g. http://127.0.0.1:8976/callback)`, 2);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`${SOURCES[name].flag} must be an http or https URL, got ${url.protocol.replace(/:$/, "")}`, 2);
  }
  return url;
}
