/**
 * `pulumi-helpdesk login`: the OAuth 2.0 authorization-code flow (docs/helpdesk-api.md §4.1, §4.2; RFC 6749 §4.1 with `state`,
 * RFC 7636 PKCE, RFC 8252 loopback redirect) ending in the stack config of docs/design.md "The data flow of the main job", step 1, secrets encrypted by
 * Pulumi. `--namespace eu` writes the same settings as `eu:*` instead of `helpdesk:*`, for an explicit provider of
 * the native plugin (one program, several help desks).
 */
import open from "open";
import { loginConfigEntries } from "../../auth/grant.js";
import {
  type AuthorizationRequest,
  exchangeAuthorizationCode,
  OAuthError,
  startAuthorization,
  type TokenSet,
} from "../../auth/oauth.js";
import { baseUrlText } from "../../kernel/base-url.js";
import { DEFAULT_CONFIG_NAMESPACE } from "../../kernel/config.js";
import { SETTINGS, settingSourceName } from "../../kernel/settings.js";
import { commandNamespace, foreignKeysIn, namespaceNote, programHint } from "../shared/namespace.js";
import { CliError, info, result, success, warn } from "../shared/output.js";
import { ask, isInteractive, readLineFromStdin } from "../shared/prompt.js";
import {
  type ClientFlags,
  type ClientSettingName,
  type ClientSettings,
  checkAnswer,
  clientSettingsOf,
  missingSettingsError,
  pickClientSettings,
} from "../shared/settings.js";
import { spinner } from "../shared/spinner.js";
import {
  type ConfigEntry,
  openStack,
  PulumiNotFoundError,
  readStackConfig,
  resolveStackRef,
  writeStackConfig,
} from "../shared/stack-config.js";
import {
  type AuthorizationCallback,
  type CallbackOptions,
  isLoopbackRedirect,
  listenForCallback,
} from "./callback-server.js";

/** Options of `login` as parsed by commander. */
export interface LoginOptions extends ClientFlags {
  /** Stack name (default: the selected stack). */
  stack?: string;
  /** Project directory (default: the current directory). */
  cwd?: string;
  /** Config namespace to read the settings from and write the sign-in to (default `helpdesk`). */
  namespace?: string;
  /** `false` with `--no-browser`: print the URL only. */
  browser: boolean;
  /** Seconds to wait for the redirect (default 300). */
  timeout: number;
}

/** What login asks for each missing client setting, on a terminal; a secret setting's answer is not echoed. */
const PROMPTS: Record<ClientSettingName, { what: string; example?: string }> = {
  baseUrl: { what: "Help-desk API base URL" },
  clientId: { what: "OAuth client id" },
  clientSecret: { what: "OAuth client secret" },
  redirectUri: { what: "Registered redirect URI", example: "http://127.0.0.1:8976/callback" },
};

/** The question for one setting: `OAuth client secret (not shown): ` for a secret one (kernel/settings.ts `SETTINGS`). */
function question(name: ClientSettingName): string {
  const { what, example } = PROMPTS[name];
  const note = SETTINGS[name].secret ? "not shown" : example ? `e.g. ${example}` : undefined;
  return `${what}${note ? ` (${note})` : ""}: `;
}

/**
 * Runs the login: reads the client settings (`cli/shared/settings.ts` `pickClientSettings`, by the settings' one precedence,
 * in the namespace), signs in, and writes what `auth/grant.ts` `loginConfigEntries` gives (the settings the table marks
 * `writtenByLogin`, secret ones as Pulumi secrets) to the stack config; no other key is touched. Prints the keys
 * written (never a value) and, for a namespace other than `helpdesk`, how a program declares a provider with them.
 *
 * @param options the parsed flags
 * @throws CliError exit 2 on a bad `--namespace`, a wrong `--cwd`, no Pulumi project, missing or malformed settings;
 *   exit 1 when `pulumi` is not on PATH (checked before the browser step); exit 1 on a denied or failed authorization, a timeout, a taken
 *   port, a failed config write, or a pasted redirect URL whose `state` differs (at the loopback receiver such a
 *   redirect is ignored and the wait goes on, RFC 6749 §10.12). Messages never contain the code, a token or the
 *   client secret.
 */
export async function login(options: LoginOptions): Promise<void> {
  const namespace = commandNamespace(options.namespace);
  const ref = await resolveStackRef(options.stack, options.cwd);
  // Read what the stack already has without creating it: a login that fails must leave no trace. A missing stack is
  // fine (it is created after the sign-in); a missing `pulumi` is not, so stop before the browser step.
  const existingStack = await openStack(ref, false).catch((error: unknown) => {
    if (error instanceof PulumiNotFoundError) throw error;
    return undefined;
  });
  const existing = existingStack ? await readStackConfig(existingStack) : {};
  const foreign = namespace === DEFAULT_CONFIG_NAMESPACE ? [] : foreignKeysIn(existing, namespace);
  if (foreign.length > 0) {
    warn(
      `stack "${ref.stackName}" already holds config in namespace "${namespace}" that is no help-desk setting (${foreign.slice(0, 5).join(", ")}${foreign.length > 5 ? ", ..." : ""}): ` +
        `if a package of that name reads it, its provider will see the help-desk keys too; a namespace of your own (e.g. helpdesk-${namespace}) avoids that`,
    );
  }
  const settings = await completeSettings(options, existing, namespace);
  const redirectUri = new URL(settings.redirectUri); // checked by the settings table's rule (absolute http(s))

  await authorize(settings, redirectUri, options, async (tokens) => {
    const entries: ConfigEntry[] = loginConfigEntries(settings, tokens, namespace);
    const stack = existingStack ?? (await openStack(ref));
    await writeStackConfig(stack, ref, entries);
    // A new refresh token starts a new grant by itself (auth/token-cache.ts); the previous grant's cache entry
    // stays, because another stack may share that grant.

    const where = namespaceNote(namespace);
    success(
      `Signed in to ${baseUrlText(settings.baseUrl)} as client ${settings.clientId}; wrote stack "${ref.stackName}" config${where}:`,
    );
    for (const entry of entries) result(`  ${entry.key}${entry.secret ? " (secret)" : ""}`);
    if (tokens.expiresAt) info(`The access token expires at ${tokens.expiresAt}.`);
    if (namespace !== DEFAULT_CONFIG_NAMESPACE) for (const line of programHint(namespace)) info(line);
  });
}

/** Fills in missing settings by asking, when someone can answer; otherwise says what to set. */
async function completeSettings(
  flags: ClientFlags,
  stackConfig: Record<string, string>,
  namespace: string,
): Promise<ClientSettings> {
  const { found, missing } = pickClientSettings(flags, stackConfig, process.env, namespace);
  if (missing.length > 0 && !isInteractive()) throw missingSettingsError(missing);
  for (const name of missing) {
    const answer = await ask(question(name), SETTINGS[name].secret);
    if (!answer.trim()) throw new CliError("usage", `${PROMPTS[name].what} is required`);
    found[name] = checkAnswer(name, answer);
  }
  return clientSettingsOf(found as Record<ClientSettingName, string>);
}

/**
 * Sends the person to the authorize URL, comes back with tokens, and lets `complete` store them. With a loopback
 * redirect URI the browser's request is held open meanwhile (cli/login/callback-server.ts), so its page says "signed in"
 * only after the code exchange and `complete` succeeded, and shows the failure otherwise.
 *
 * @throws CliError for every failure: OAuth errors become `login failed: <message>`
 */
async function authorize(
  settings: ClientSettings,
  redirectUri: URL,
  options: LoginOptions,
  complete: (tokens: TokenSet) => Promise<void>,
): Promise<void> {
  // Local only (random state and PKCE verifier), so it can come before listening.
  const request = await startAuthorization(settings);
  // Listen before printing the URL, so a taken port fails before anyone signs in.
  const receiver = isLoopbackRedirect(redirectUri)
    ? await listenForCallback(redirectUri, {
        state: request.state,
        timeoutSeconds: options.timeout,
        onIgnored: warnOnceAboutForeignState(redirectUri),
      })
    : undefined;
  let callback: AuthorizationCallback | undefined;
  try {
    info(`Open this URL in a browser to sign in to ${baseUrlText(settings.baseUrl)}:`);
    process.stderr.write(`  ${request.url.href}\n`);
    if (options.browser && isInteractive()) {
      await open(request.url.href).catch(() => undefined); // the printed URL is the fallback
    }
    callback = receiver ? await waitForRedirect(receiver.callback, redirectUri, options.timeout) : undefined;
    const tokens = await exchangeAuthorizationCode(
      settings,
      callback?.url ?? (await pastedCallback(request, redirectUri)),
      request,
    );
    await complete(tokens);
    callback?.respond({ ok: true });
  } catch (error) {
    // OAuthError and CliError messages are credential-free; the page passes them through the redaction registry too.
    const failure =
      error instanceof OAuthError ? new CliError("failed", `login failed: ${error.message}`, { cause: error }) : error;
    callback?.respond({ ok: false, message: failure instanceof CliError ? failure.message : "login failed" });
    throw failure;
  } finally {
    await receiver?.close();
  }
}

/**
 * Warns once when a redirect with another `state` reaches the callback (a tab left from an earlier sign-in, or a
 * forged link): it is ignored, and without a word the person would only see the wait time out.
 */
function warnOnceAboutForeignState(redirectUri: URL): CallbackOptions["onIgnored"] {
  let warned = false;
  return (reason) => {
    if (reason !== "state_mismatch" || warned) return;
    warned = true;
    if (process.stderr.isTTY) process.stderr.write("\r\u001b[K"); // clear the spinner's line
    warn(
      `ignored a request to ${redirectUri.href} whose state does not belong to this sign-in (an older browser tab, or a forged link); still waiting`,
    );
  };
}

async function waitForRedirect(
  callback: Promise<AuthorizationCallback>,
  redirectUri: URL,
  timeoutSeconds: number,
): Promise<AuthorizationCallback> {
  const stop = spinner(`Waiting for the browser to return to ${redirectUri.href} (up to ${timeoutSeconds} s)…`);
  try {
    return await callback;
  } finally {
    stop();
  }
}

/**
 * For a redirect URI that is not on this machine: the person pastes the URL they were sent to (or just the code).
 * A bare code carries no `state`, so it is taken as vouched for by the person who pasted it.
 */
async function pastedCallback(request: AuthorizationRequest, redirectUri: URL): Promise<URL | URLSearchParams> {
  const question = `After approving, paste the URL you were redirected to (${redirectUri.origin}…), or just the code: `;
  let pasted: string;
  try {
    if (isInteractive()) pasted = await ask(question);
    else {
      info(question);
      pasted = await readLineFromStdin();
    }
  } catch {
    throw new CliError(
      "failed",
      `the redirect URI ${redirectUri.href} is not on this machine, so login needs the redirected URL pasted on stdin, and none came. ` +
        "Register a loopback redirect URI (http://127.0.0.1:<port>/callback) for unattended use. (A token given through " +
        `${settingSourceName("accessToken", "environment")} reaches only a stack whose config holds no access token: it never replaces a signed-in one.)`,
    );
  }
  if (/^https?:\/\//i.test(pasted)) return new URL(pasted);
  return new URLSearchParams({ code: pasted, state: request.state });
}
