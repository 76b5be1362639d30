/**
 * `pulumi-helpdesk logout`: removes the token keys from the stack config (and the provider's cached tokens). The
 * client settings stay, so the next `login` needs no flags.
 */
import { CONFIG_KEYS } from "../../sdk/config.js";
import { clearCachedTokens } from "../../auth/token-cache.js";
import { info, success } from "../output.js";
import { openStack, readStackConfig, removeStackConfig, resolveStackRef } from "../stack-config.js";

/** Options of `logout`. */
export interface LogoutOptions {
  stack?: string;
  cwd?: string;
}

const TOKEN_KEYS = [CONFIG_KEYS.accessToken, CONFIG_KEYS.refreshToken, CONFIG_KEYS.tokenExpiresAt];

/** Signs the stack out. Idempotent: a stack with no tokens is left as it is. */
export async function logout(options: LogoutOptions): Promise<void> {
  const ref = await resolveStackRef(options.stack, options.cwd);
  const stack = await openStack(ref, false);
  const config = await readStackConfig(stack);
  const present = TOKEN_KEYS.filter((key) => config[key] !== undefined);
  const baseUrl = config[CONFIG_KEYS.baseUrl];
  const clientId = config[CONFIG_KEYS.clientId];
  const refreshToken = config[CONFIG_KEYS.refreshToken];
  if (baseUrl && clientId && refreshToken) clearCachedTokens({ baseUrl, clientId, configRefreshToken: refreshToken });
  if (present.length === 0) {
    info(`Stack "${ref.stackName}" holds no tokens; nothing to do.`);
    return;
  }
  await removeStackConfig(stack, present);
  success(`Signed out stack "${ref.stackName}": removed ${present.join(", ")}.`);
}
