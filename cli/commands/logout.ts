/**
 * `pulumi-helpdesk logout`: removes the token keys from the stack config. The client settings stay, so the next
 * `login` needs no flags. The sign-in's entry in the local token cache stays too: another stack whose config holds
 * one of its refresh tokens may share the sign-in and need its newest refresh token (`auth/token-cache.ts`); logout
 * says where it is.
 */
import { CONFIG_KEYS } from "../../sdk/config.js";
import { configReaderOf, lineageOf, readLineage } from "../../auth/lineage.js";
import { TokenCacheError } from "../../auth/token-cache.js";
import { info, success, warn } from "../output.js";
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
  if (present.length === 0) {
    info(`Stack "${ref.stackName}" holds no tokens; nothing to do.`);
    return;
  }
  const cacheFile = cachedSignIn(config, ref.stackName);
  await removeStackConfig(stack, present);
  success(`Signed out stack "${ref.stackName}": removed ${present.join(", ")}.`);
  if (cacheFile) {
    info(`The local token cache keeps this sign-in's newest tokens in ${cacheFile} for any other stack that shares the sign-in; delete that file if none does.`);
  }
}

/** The cache file of the stack's sign-in, if one was written; a cache problem is shown, not fatal (logout goes on). */
function cachedSignIn(config: Record<string, string>, stack: string): string | undefined {
  const lineage = lineageOf(configReaderOf(config), { stack });
  if (!lineage) return undefined;
  try {
    return readLineage(lineage).file;
  } catch (error) {
    if (!(error instanceof TokenCacheError)) throw error;
    warn(error.message);
    return undefined;
  }
}
