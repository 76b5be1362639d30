/**
 * Headless sign-in against an auto-approving emulator, for tests, benchmarks and scripts: the real OAuth client code
 * of `sdk/oauth.ts` (state, PKCE, code exchange), with an HTTP request standing in for the browser.
 */
import { request } from "undici";
import { exchangeAuthorizationCode, startAuthorization, type OAuthClientConfig, type TokenSet } from "../sdk/oauth.js";

/**
 * Runs the authorization-code flow (spec §4.1, §4.2) against an emulator started with `autoApprove`.
 *
 * @param config the emulator's base URL and one of its registered clients
 * @returns the token set of spec §2.2 (`expiresAt` as ISO 8601)
 * @throws Error when the authorize endpoint does not redirect (auto-approve off, unknown client, redirect URI
 *   mismatch); OAuthError from the code exchange
 */
export async function signInAutoApproved(config: OAuthClientConfig): Promise<TokenSet> {
  const authorization = await startAuthorization(config);
  const response = await request(authorization.url);
  await response.body.dump();
  const location = response.headers.location;
  if (response.statusCode !== 302 || typeof location !== "string") {
    throw new Error(`authorize answered ${response.statusCode}, expected a 302 redirect (is autoApprove on?)`);
  }
  return exchangeAuthorizationCode(config, new URL(location), authorization);
}
