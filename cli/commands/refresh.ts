/**
 * `pulumi-helpdesk refresh`: a new access token with the refresh grant (RFC 6749 §6), written back to the stack
 * config; also stores tokens the provider renewed during a run (the local token cache), so a rotated refresh token
 * reaches the stack config.
 */
import { CONFIG_KEYS } from "../../sdk/config.js";
import { OAuthError, refreshAccessToken } from "../../auth/oauth.js";
import { clearCachedTokens, readCachedTokens } from "../../auth/token-cache.js";
import { CliError, info, result, success } from "../output.js";
import { openStack, readStackConfig, resolveStackRef, writeStackConfig, type ConfigEntry } from "../stack-config.js";

/** Options of `refresh`. */
export interface RefreshOptions {
  stack?: string;
  cwd?: string;
}

/**
 * Refreshes the stack's tokens.
 *
 * @throws CliError exit 1 when the stack lacks what the refresh grant needs, or the server rejects it (then: login)
 */
export async function refresh(options: RefreshOptions): Promise<void> {
  const ref = await resolveStackRef(options.stack, options.cwd);
  const stack = await openStack(ref, false);
  const config = await readStackConfig(stack);
  const baseUrl = config[CONFIG_KEYS.baseUrl];
  const clientId = config[CONFIG_KEYS.clientId];
  const clientSecret = config[CONFIG_KEYS.clientSecret];
  const configRefreshToken = config[CONFIG_KEYS.refreshToken];
  if (!baseUrl || !clientId || !clientSecret || !configRefreshToken) {
    throw new CliError(`stack "${ref.stackName}" has no refresh token or client credentials to refresh with: run \`pulumi-helpdesk login --stack ${ref.stackName}\``);
  }
  const lineage = { baseUrl, clientId, configRefreshToken };
  // Under rotation the stack's refresh token may already be spent; the provider kept the newest one in the cache.
  const cached = readCachedTokens(lineage);
  if (cached) info("Using the newer tokens a provider run left in the local token cache.");
  let tokens;
  try {
    tokens = await refreshAccessToken({ baseUrl, clientId, clientSecret }, cached?.refreshToken ?? configRefreshToken);
  } catch (error) {
    const why = error instanceof OAuthError ? error.message : String(error);
    throw new CliError(`${why}. Run \`pulumi-helpdesk login --stack ${ref.stackName}\` to sign in again.`);
  }
  const entries: ConfigEntry[] = [
    { key: CONFIG_KEYS.accessToken, value: tokens.accessToken, secret: true },
    { key: CONFIG_KEYS.refreshToken, value: tokens.refreshToken ?? configRefreshToken, secret: true },
  ];
  if (tokens.expiresAt) entries.push({ key: CONFIG_KEYS.tokenExpiresAt, value: tokens.expiresAt, secret: false });
  await writeStackConfig(stack, ref, entries);
  clearCachedTokens(lineage);
  success(`Refreshed the tokens of stack "${ref.stackName}"${tokens.refreshToken && tokens.refreshToken !== configRefreshToken ? " (the server issued a new refresh token)" : ""}:`);
  for (const entry of entries) result(`  ${entry.key}${entry.secret ? " (secret)" : ""}`);
  if (tokens.expiresAt) info(`The access token expires at ${tokens.expiresAt}.`);
}
