/**
 * How a message names a `pulumi-helpdesk` command that fixes something: the one home of the remedy "sign in again"
 * (`pulumi-helpdesk login --stack dev --namespace eu`) and of its kin (`pulumi-helpdesk refresh --stack dev`). The
 * grant, the token cache, the provider core and the CLI all build their remedies here, and the CLI declares its
 * `--stack` and `--namespace` options with the same flags.
 * @home the commands of every remedy ("sign in again", `refresh`, ...)
 */
import { DEFAULT_CONFIG_NAMESPACE } from "./config.js";
import { CLI_EXECUTABLE } from "./names.js";

/** The CLI's flag that names the stack whose config holds the sign-in. */
export const STACK_FLAG = "--stack";

/** The CLI's flag that names the config namespace of the sign-in (`eu` for keys `eu:*`). */
export const NAMESPACE_FLAG = "--namespace";

/** What a remedy says in place of the stack's name where the code that writes it does not know it (the provider). */
export const STACK_PLACEHOLDER = "<stack>";

/** The commands a remedy may advise, each acting on one stack's sign-in in one namespace. */
export type StackCommand = "login" | "refresh" | "status" | "logout" | "migrate";

/** Which sign-in a command acts on. */
export interface SignInPlace {
  /** The stack's name, or undefined when not known (then {@link STACK_PLACEHOLDER}). */
  readonly stack?: string | undefined;
  /** The config namespace (default `helpdesk`, which the command line leaves out). */
  readonly namespace?: string | undefined;
}

/**
 * The arguments that name a sign-in's place in a command: the stack, and `--namespace <ns>` unless it is the default
 * namespace, e.g. `dev --namespace eu` (what follows `--stack`).
 *
 * @param stack the stack name, or undefined when not known: then undefined
 * @param namespace the config namespace (default `helpdesk`)
 */
export function stackArguments(
  stack: string | undefined,
  namespace: string = DEFAULT_CONFIG_NAMESPACE,
): string | undefined {
  if (stack === undefined) return undefined;
  return namespace === DEFAULT_CONFIG_NAMESPACE ? stack : `${stack} ${NAMESPACE_FLAG} ${namespace}`;
}

/**
 * A command as a remedy writes it, in backticks: `` `pulumi-helpdesk login --stack dev --namespace eu` ``.
 *
 * @param command the subcommand
 * @param place the stack (default {@link STACK_PLACEHOLDER}) and namespace
 */
export function stackCommand(command: StackCommand, place: SignInPlace = {}): string {
  return `\`${CLI_EXECUTABLE} ${command} ${STACK_FLAG} ${stackArguments(place.stack ?? STACK_PLACEHOLDER, place.namespace)}\``;
}

/**
 * The one remedy "sign in again": `` run `pulumi-helpdesk login --stack dev` to sign in again ``. Signing in writes
 * the stack's tokens to its config, where they win over any environment variable (kernel/settings.ts
 * `SETTING_PRECEDENCE`), so this is the remedy for every token that cannot be used or refreshed.
 *
 * @param place the stack (default {@link STACK_PLACEHOLDER}) and namespace
 * @returns the clause, lower case, without a final full stop (callers capitalise it at a sentence's start)
 */
export function signInAgain(place: SignInPlace = {}): string {
  return `run ${stackCommand("login", place)} to sign in again`;
}
