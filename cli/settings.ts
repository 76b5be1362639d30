/**
 * Resolves the OAuth client settings a command needs, from (in order) flags, environment variables and the stack's
 * existing config, and says exactly what to set when something is missing.
 */
import { CONFIG_KEYS, ENV_VARS } from "../sdk/config.js";
import { CliError } from "./output.js";

/** The settings of spec §4.1 / §4.2 that login needs. */
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

const SOURCES: Record<keyof ClientSettings, { flag: string; env: string; key: string }> = {
  baseUrl: { flag: "--base-url", env: ENV_VARS.baseUrl, key: CONFIG_KEYS.baseUrl },
  clientId: { flag: "--client-id", env: ENV_VARS.clientId, key: CONFIG_KEYS.clientId },
  clientSecret: { flag: "--client-secret", env: ENV_VARS.clientSecret, key: CONFIG_KEYS.clientSecret },
  redirectUri: { flag: "--redirect-uri", env: ENV_VARS.redirectUri, key: CONFIG_KEYS.redirectUri },
};

/**
 * Picks each setting from flags, else env, else stack config.
 *
 * @param flags parsed command-line flags
 * @param stackConfig the stack's current config (decrypted), or `{}`
 * @param env environment (default `process.env`)
 * @returns the settings found, and the names of those missing
 */
export function pickClientSettings(
  flags: ClientFlags,
  stackConfig: Record<string, string>,
  env: NodeJS.ProcessEnv = process.env,
): { found: Partial<ClientSettings>; missing: (keyof ClientSettings)[] } {
  const found: Partial<ClientSettings> = {};
  const missing: (keyof ClientSettings)[] = [];
  for (const name of Object.keys(SOURCES) as (keyof ClientSettings)[]) {
    const source = SOURCES[name];
    const value = flags[name] || env[source.env] || stackConfig[source.key];
    if (value) found[name] = value.trim();
    else missing.push(name);
  }
  if (found.baseUrl) found.baseUrl = found.baseUrl.replace(/\/+$/, "");
  return { found, missing };
}

/**
 * The error for settings that are still missing when no one can be asked (no terminal, or `CI=true`).
 */
export function missingSettingsError(missing: readonly (keyof ClientSettings)[]): CliError {
  const lines = missing.map((name) => `  ${SOURCES[name].flag.padEnd(16)} or env ${SOURCES[name].env}`);
  return new CliError(`missing ${missing.length === 1 ? "a setting" : "settings"} and no terminal to ask on; set:\n${lines.join("\n")}`, 2);
}

/**
 * Checks that a URL setting is an absolute http(s) URL.
 *
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
