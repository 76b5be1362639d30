/**
 * `pulumi-helpdesk logout`: removes the token keys from the stack config. The client settings stay, so the next
 * `login` needs no flags. The grant's entry in the local token cache stays too: another stack whose config holds
 * one of its refresh tokens may share the grant and need its newest refresh token (`auth/token-cache.ts`); logout
 * says where it is.
 */
import { Grant, tokenConfigKeys } from "../../auth/grant.js";
import { TokenCacheError } from "../../auth/token-cache.js";
import { commandNamespace, namespaceNote } from "../shared/namespace.js";
import { info, success, warn } from "../shared/output.js";
import { openStack, readStackConfig, removeStackConfig, resolveStackRef } from "../shared/stack-config.js";

/** Options of `logout`. */
export interface LogoutOptions {
  /** Stack name (default: the selected stack). */
  stack?: string;
  /** Project directory (default: the current directory). */
  cwd?: string;
  /** Config namespace of the grant (default `helpdesk`). */
  namespace?: string;
}

/**
 * Signs the stack out of one namespace: removes the grant's token keys there (`auth/grant.ts` `tokenConfigKeys`;
 * other namespaces and the client settings stay). Idempotent: a namespace with no tokens is left as it is.
 *
 * @param options the parsed flags
 * @throws CliError exit 2 on a bad `--namespace`, a wrong `--cwd`, no project or no stack selected; exit 1 when the
 *   stack cannot be opened or `pulumi config rm` fails
 */
export async function logout(options: LogoutOptions): Promise<void> {
  const namespace = commandNamespace(options.namespace);
  const tokenKeys = tokenConfigKeys(namespace);
  const ref = await resolveStackRef(options.stack, options.cwd);
  const stack = await openStack(ref, false);
  const config = await readStackConfig(stack);
  const present = tokenKeys.filter((key) => config[key] !== undefined);
  const where = namespaceNote(namespace);
  if (present.length === 0) {
    info(`Stack "${ref.stackName}"${where} holds no tokens; nothing to do.`);
    return;
  }
  const cacheFile = cachedSignIn(config, ref.stackName, namespace);
  await removeStackConfig(stack, present);
  success(`Signed out stack "${ref.stackName}"${where}: removed ${present.join(", ")}.`);
  if (cacheFile) {
    info(
      `The local token cache keeps this grant's newest tokens in ${cacheFile} for any other stack that shares the grant; delete that file if none does.`,
    );
  }
}

/** The cache file of the stack's sign-in, if one was written; a cache problem is shown, not fatal (logout goes on). */
function cachedSignIn(config: Record<string, string>, stack: string, namespace: string): string | undefined {
  const grant = Grant.fromStackConfig(config, { stack, namespace });
  if (!grant?.refreshable) return undefined;
  try {
    return grant.state().file;
  } catch (error) {
    if (!(error instanceof TokenCacheError)) throw error;
    warn(error.message);
    return undefined;
  }
}
