/**
 * `pulumi-helpdesk login`: the OAuth 2.0 authorization-code flow (spec §4.1, §4.2; RFC 6749 §4.1 with `state` and
 * PKCE) ending in the stack config of DESIGN.md step 1, secrets encrypted by Pulumi.
 */
import open from "open";
import { CONFIG_KEYS } from "../../sdk/config.js";
import { exchangeAuthorizationCode, OAuthError, startAuthorization, type TokenSet } from "../../sdk/oauth.js";
import { isLoopbackRedirect, listenForCallback } from "../callback-server.js";
import { CliError, info, result, success } from "../output.js";
import { missingSettingsError, pickClientSettings, requireHttpUrl, type ClientFlags, type ClientSettings } from "../settings.js";
import { openStack, readStackConfig, writeStackConfig, type ConfigEntry } from "../stack-config.js";

/** Options of `login` as parsed by commander. */
export interface LoginOptions extends ClientFlags {
  /** Stack name. */
  stack: string;
  /** Project directory (default: the current directory). */
  cwd?: string;
  /** `false` with `--no-browser`: print the URL only. */
  browser: boolean;
  /** Seconds to wait for the redirect (default 300). */
  timeout: number;
}

/**
 * Runs the login.
 *
 * @throws CliError on missing settings (exit 2), a denied or failed authorization, a timeout, a taken port, or a
 *   failed config write (exit 1); messages never contain the code, a token or the client secret
 */
export async function login(options: LoginOptions): Promise<void> {
  const ref = { stackName: options.stack, workDir: options.cwd ?? process.cwd() };
  const stack = await openStack(ref);
  const { found, missing } = pickClientSettings(options, await readStackConfig(stack));
  if (missing.length > 0) throw missingSettingsError(missing);
  const settings = found as ClientSettings;
  requireHttpUrl("baseUrl", settings.baseUrl);
  const redirectUri = requireHttpUrl("redirectUri", settings.redirectUri);
  if (!isLoopbackRedirect(redirectUri)) {
    throw new CliError(`--redirect-uri ${redirectUri.href} is not on this machine; login needs a loopback redirect URI (http://127.0.0.1:<port>/<path>)`, 2);
  }

  const receiver = await listenForCallback(redirectUri, options.timeout);
  let tokens: TokenSet;
  try {
    const request = await startAuthorization(settings);
    info(`Open this URL in a browser to sign in to ${settings.baseUrl}:`);
    process.stderr.write(`  ${request.url.href}\n`);
    if (options.browser && process.stdout.isTTY && process.env.CI !== "true") {
      await open(request.url.href).catch(() => undefined); // printing the URL is the fallback
    }
    info(`Waiting for the redirect to ${redirectUri.href} (up to ${options.timeout} s)…`);
    const callback = await receiver.callback;
    tokens = await exchangeAuthorizationCode(settings, callback, request);
  } catch (error) {
    if (error instanceof OAuthError) throw new CliError(`login failed: ${error.message}`);
    throw error;
  } finally {
    await receiver.close();
  }

  const entries: ConfigEntry[] = [
    { key: CONFIG_KEYS.baseUrl, value: settings.baseUrl, secret: false },
    { key: CONFIG_KEYS.clientId, value: settings.clientId, secret: false },
    { key: CONFIG_KEYS.redirectUri, value: settings.redirectUri, secret: false },
    { key: CONFIG_KEYS.clientSecret, value: settings.clientSecret, secret: true },
    { key: CONFIG_KEYS.accessToken, value: tokens.accessToken, secret: true },
  ];
  if (tokens.refreshToken) entries.push({ key: CONFIG_KEYS.refreshToken, value: tokens.refreshToken, secret: true });
  if (tokens.expiresAt) entries.push({ key: CONFIG_KEYS.tokenExpiresAt, value: tokens.expiresAt, secret: false });
  await writeStackConfig(stack, ref, entries);

  success(`Signed in to ${settings.baseUrl}; wrote stack "${options.stack}" config:`);
  for (const entry of entries) result(`  ${entry.key}${entry.secret ? " (secret)" : ""}`);
  if (tokens.expiresAt) info(`The access token expires at ${tokens.expiresAt}.`);
}
