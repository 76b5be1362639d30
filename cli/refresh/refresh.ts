/**
 * `pulumi-helpdesk refresh`: brings the stack config up to the newest tokens of its grant. When the local token
 * cache holds newer, still valid tokens (a provider run, or another stack sharing the grant, refreshed them), those
 * are stored; otherwise a new access token is obtained with the refresh grant (RFC 6749 §6) through the grant's
 * protocol (`auth/grant.ts`: durably cached first, one refresh at a time per grant), then stored. Stack config
 * is always written from what the cache holds, so a crash or a failed `pulumi config set` loses nothing: the next
 * `refresh` or provider run finds the tokens in the cache.
 *
 * For tests only: `HELPDESK_TEST_CRASH_AT=<step>` ends the process with SIGKILL at that step (see {@link CRASH_POINTS}).
 */
import { Grant, type RefreshOutcome } from "../../auth/grant.js";
import { OAuthError } from "../../auth/oauth.js";
import { TokenCacheError } from "../../auth/token-cache.js";
import { signInAgain } from "../../kernel/commands.js";
import { commandNamespace, namespaceNote } from "../shared/namespace.js";
import { CliError, info, result, success } from "../shared/output.js";
import { openStack, readStackConfig, resolveStackRef, writeStackConfig } from "../shared/stack-config.js";

/** Options of `refresh`. */
export interface RefreshOptions {
  /** Stack name (default: the selected stack). */
  stack?: string;
  /** Project directory (default: the current directory). */
  cwd?: string;
  /** Config namespace of the grant (default `helpdesk`). */
  namespace?: string;
}

/**
 * The steps at which `HELPDESK_TEST_CRASH_AT` can stop `refresh`: the three of `Grant.refresh` (`lock-acquired`,
 * `token-response`, `cache-written`) and `config-written` (the stack config holds the new tokens; the last step).
 */
export const CRASH_POINTS = ["lock-acquired", "token-response", "cache-written", "config-written"] as const;

/** One of {@link CRASH_POINTS}. */
export type CrashPoint = (typeof CRASH_POINTS)[number];

/**
 * Refreshes the tokens of the stack's grant in one namespace (`<ns>:accessToken`, `<ns>:refreshToken`,
 * `<ns>:tokenExpiresAt`; no other key is written).
 *
 * @param options the parsed flags
 * @throws CliError exit 1 when the namespace lacks what the refresh grant needs, the server rejects it, or the token
 *   cache stops it (damaged file, interrupted refresh, lock held: the message names the file and says what to do;
 *   the error it reports is its `cause`); exit 2 on a bad `--namespace` or when `HELPDESK_TEST_CRASH_AT` names no
 *   step
 */
export async function refresh(options: RefreshOptions): Promise<void> {
  const crashAt = crashHook(process.env.HELPDESK_TEST_CRASH_AT);
  const namespace = commandNamespace(options.namespace);
  const ref = await resolveStackRef(options.stack, options.cwd);
  const where = namespaceNote(namespace);
  const stack = await openStack(ref, false);
  const config = await readStackConfig(stack);
  const grant = Grant.fromStackConfig(config, { stack: ref.stackName, namespace });
  if (!grant?.refreshable) {
    throw new CliError(
      "failed",
      `stack "${ref.stackName}"${where} has no refresh token or client credentials to refresh with: ${signInAgain({ stack: ref.stackName, namespace })}`,
    );
  }
  const { tokens, refreshed } = await newestTokens(grant, crashAt);
  const entries = grant.configEntries(tokens);
  await writeStackConfig(stack, ref, entries);
  crashAt("config-written");
  const rotated = tokens.refreshToken !== grant.configTokens.refreshToken;
  const origin = refreshed
    ? ""
    : " from the local token cache (a provider run or a stack sharing this grant had refreshed them)";
  success(
    `Refreshed the tokens of stack "${ref.stackName}"${where}${origin}${rotated ? " (the server issued a new refresh token)" : ""}:`,
  );
  for (const entry of entries) result(`  ${entry.key}${entry.secret ? " (secret)" : ""}`);
  if (tokens.expiresAt) info(`The access token expires at ${tokens.expiresAt}.`);
}

/** The tokens to store, as the grant decides them (`Grant.tokensForConfig`); its failures as CLI errors. */
async function newestTokens(grant: Grant, crashAt: (step: string) => void): Promise<RefreshOutcome> {
  try {
    return await grant.tokensForConfig({ onStep: crashAt });
  } catch (error) {
    if (error instanceof TokenCacheError) throw new CliError("failed", error.message, { cause: error });
    if (error instanceof OAuthError)
      throw new CliError("failed", `${error.message}; ${signInAgain(grant)}.`, { cause: error });
    throw error;
  }
}

/**
 * The crash hook of `HELPDESK_TEST_CRASH_AT` (tests only): a function that ends the process abruptly (SIGKILL: no
 * cleanup, no lock release, as a power cut or `kill -9` would) when called with the named step, and otherwise does
 * nothing.
 *
 * @param value the variable's value, or undefined
 * @throws CliError exit 2 when the value is set but names no {@link CrashPoint} (a typo must not pass a test)
 */
function crashHook(value: string | undefined): (step: string) => void {
  if (!value) return () => undefined;
  if (!(CRASH_POINTS as readonly string[]).includes(value)) {
    throw new CliError(
      "usage",
      `HELPDESK_TEST_CRASH_AT must be one of ${CRASH_POINTS.join(", ")}; got ${JSON.stringify(value)}`,
    );
  }
  return (step) => {
    if (step === value) process.kill(process.pid, "SIGKILL");
  };
}
