/**
 * Test support: signs in to an emulator with the real OAuth client code (sdk/oauth.ts), playing the browser against
 * the emulator's auto-approve mode.
 */
import { request } from "undici";
import { exchangeAuthorizationCode, startAuthorization, type OAuthClientConfig, type TokenSet } from "../../sdk/oauth.js";

/**
 * Runs the authorization-code flow against an auto-approving emulator.
 *
 * @returns the token set of spec §2.2
 */
export async function signIn(config: OAuthClientConfig): Promise<TokenSet> {
  const authorization = await startAuthorization(config);
  const response = await request(authorization.url);
  await response.body.dump();
  const location = response.headers.location;
  if (response.statusCode !== 302 || typeof location !== "string") {
    throw new Error(`authorize answered ${response.statusCode}, expected a 302 redirect (is autoApprove on?)`);
  }
  return exchangeAuthorizationCode(config, new URL(location), authorization);
}
