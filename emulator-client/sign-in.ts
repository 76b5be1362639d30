/**
 * Headless sign-in against an auto-approving emulator, for tests, benchmarks and scripts: the real OAuth client code
 * of `auth/oauth.ts` (state, PKCE, code exchange), with an HTTP request standing in for the browser.
 */
import { request } from "undici";
import { exchangeAuthorizationCode, type OAuthClientConfig, startAuthorization, type TokenSet } from "../auth/oauth.js";
import { parseBaseUrl } from "../kernel/base-url.js";

/**
 * Runs the authorization-code flow (docs/helpdesk-api.md §4.1, §4.2) against an emulator started with `autoApprove`.
 *
 * @param config the emulator's base URL (text, or as `kernel/base-url.ts` parsed it) and one of its registered clients
 * @returns the token set of docs/helpdesk-api.md §2.2 (`expiresAt` as ISO 8601)
 * @throws Error when the authorize endpoint does not redirect (auto-approve off, unknown client, redirect URI
 *   mismatch); OAuthError from the code exchange
 */
export async function signInAutoApproved(
  settings: Omit<OAuthClientConfig, "baseUrl"> & { baseUrl: string | URL },
): Promise<TokenSet> {
  const parsed = typeof settings.baseUrl === "string" ? parseBaseUrl(settings.baseUrl) : { url: settings.baseUrl };
  if ("problem" in parsed) throw new TypeError(parsed.problem);
  const config: OAuthClientConfig = { ...settings, baseUrl: parsed.url };
  const authorization = await startAuthorization(config);
  const response = await request(authorization.url);
  await response.body.dump();
  const location = response.headers.location;
  if (response.statusCode !== 302 || typeof location !== "string") {
    throw new Error(`authorize responded with ${response.statusCode}, expected a 302 redirect (is autoApprove on?)`);
  }
  return exchangeAuthorizationCode(config, new URL(location), authorization);
}

/**
 * Plays the browser for a sign-in that another program started (for example `pulumi-helpdesk login --no-browser`,
 * which prints the authorize URL and listens on its loopback redirect URI): GETs the authorize URL of an emulator
 * started with `autoApprove` (docs/helpdesk-api.md §4.1), then follows the redirect to the redirect URI, where that program receives
 * the authorization code (RFC 6749 §4.1.2).
 *
 * @param authorizeUrl the `{base_url}/oauth/authorize?...` URL the program printed
 * @throws Error when the authorize endpoint does not redirect, or the redirect URI does not respond with 200
 */
export async function completeAuthorizationAutoApproved(authorizeUrl: string): Promise<void> {
  const consent = await request(authorizeUrl);
  await consent.body.dump();
  const location = consent.headers.location;
  if (consent.statusCode !== 302 || typeof location !== "string") {
    throw new Error(`authorize responded with ${consent.statusCode}, expected a 302 redirect (is autoApprove on?)`);
  }
  const callback = await request(location);
  await callback.body.dump();
  if (callback.statusCode !== 200)
    throw new Error(`the redirect URI responded with ${callback.statusCode}, expected 200`);
}
