/**
 * The parts of the CLI's help that state a rule kept elsewhere, generated from its home so they cannot drift: the
 * settings' precedence (`kernel/settings.ts` `SETTING_PRECEDENCE`), each setting's environment variable (`SETTINGS`)
 * with the commands whose flag it fills (read off the wings' options of `./options.ts` `settingOption`), and the
 * environment variables of the other homes (the token cache's folder, those a wing declares with
 * {@link readsEnvironment}, `CI`, `NO_COLOR`). tests/cli/help.test.ts holds the built CLI's `--help` to them.
 * @home the help text's precedence sentence and environment list, built from the homes above
 */
import type { Command } from "commander";
import { refreshableTokenOrigin, TOKEN_CACHE_DIR_VARIABLE } from "../../auth/environment.js";
import { NAMESPACE_FLAG } from "../../kernel/commands.js";
import { DEFAULT_CONFIG_NAMESPACE } from "../../kernel/config.js";
import {
  SETTING_NAMES,
  SETTING_PRECEDENCE,
  SETTINGS,
  type SettingName,
  type SourceOrigin,
} from "../../kernel/settings.js";
import { settingOf } from "./options.js";
import { NO_COLOR_VARIABLE } from "./output.js";
import { NON_INTERACTIVE_VARIABLE } from "./prompt.js";

/** The width the generated paragraphs are wrapped to: that of the help's hand-written text. */
const WIDTH = 115;

/**
 * Wraps text at spaces to {@link WIDTH} columns.
 *
 * @param text one paragraph
 * @param first what the first line starts with; @param rest what every further line starts with
 */
export function wrap(text: string, first = "", rest = ""): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = rest;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}

/** An environment variable as the help lists it. */
export interface VariableHelp {
  /** The variable, e.g. `HELPDESK_BASE_URL`, or `CI=true` when one value matters. */
  readonly name: string;
  /** What it does. */
  readonly meaning: string;
}

/**
 * The settings' precedence as a phrase, in the order `SETTING_PRECEDENCE` gives: "flags, else the stack's config,
 * else the environment".
 *
 * @param words how this help names each source
 */
export function precedencePhrase(words: Readonly<Record<SourceOrigin, string>>): string {
  return SETTING_PRECEDENCE.map((origin) => words[origin]).join(", else ");
}

/** The top-level help's sentence on where every setting comes from. */
function settingsParagraph(): string {
  const phrase = precedencePhrase({
    explicit: "its flag (for a provider: its argument)",
    config: `the stack's config (${DEFAULT_CONFIG_NAMESPACE}:<name>, or <ns>:<name> with ${NAMESPACE_FLAG} <ns>)`,
    environment: "its environment variable",
  });
  return `Settings: each comes from ${phrase}; the first that sets it wins, and a default fills the rest. So an environment variable only fills what the flags and the stack's config leave unset.`;
}

/** Every command of the tree under `parent`, depth first in the order they were added. */
function commandsUnder(parent: Command): Command[] {
  return parent.commands.flatMap((command) => [command, ...commandsUnder(command)]);
}

/**
 * Who reads a setting's environment variable: each command with the setting's flag (`login --base-url`,
 * `trigger --base-url`: the options of `./options.ts` `settingOption`), then the provider and `refresh`. An access
 * token from the environment is the provider's alone: it is never refreshed (auth/environment.ts
 * `refreshableTokenOrigin`), so `refresh` has nothing to do with it.
 */
function readersOf(name: SettingName, program: Command): string {
  const readers = commandsUnder(program).flatMap((command) =>
    command.options.filter((option) => settingOf(option) === name).map((option) => `${command.name()} ${option.long}`),
  );
  // refresh, status and logout read the provider's settings as the provider does (auth/grant.ts `Grant.fromStackConfig`).
  if (SETTINGS[name].provider) {
    readers.push(
      name === "accessToken" && !refreshableTokenOrigin("environment")
        ? "the provider, as given (never refreshed)"
        : "the provider and refresh",
    );
  }
  return `${name}${SETTINGS[name].secret ? " (secret)" : ""}: ${readers.join(", ")}`;
}

/** The environment variables a command's own code reads, beside the settings' ({@link readsEnvironment}). */
const VARIABLES_OF_COMMAND = new WeakMap<Command, readonly VariableHelp[]>();

/**
 * Declares the environment variables a command reads besides the settings' (e.g. those of the plugin's launcher), so
 * that the top-level help lists them.
 *
 * @param command the wing's command
 * @param variables the variables, as the help lists them
 * @returns the command
 */
export function readsEnvironment(command: Command, variables: readonly VariableHelp[]): Command {
  VARIABLES_OF_COMMAND.set(command, variables);
  return command;
}

/**
 * Every environment variable the CLI and the plugin read: the settings' rows, the token cache's folder, those the
 * commands declare ({@link readsEnvironment}), then those of every command's output.
 *
 * @param program the CLI with its commands
 */
export function environmentVariables(program: Command): VariableHelp[] {
  const settings = SETTING_NAMES.flatMap((name) => {
    const env = (SETTINGS[name] as { env?: string }).env;
    return env ? [{ name: env, meaning: readersOf(name, program) }] : [];
  });
  return [
    ...settings,
    TOKEN_CACHE_DIR_VARIABLE,
    ...commandsUnder(program).flatMap((command) => VARIABLES_OF_COMMAND.get(command) ?? []),
    {
      name: `${NON_INTERACTIVE_VARIABLE.name}=${NON_INTERACTIVE_VARIABLE.value}`,
      meaning: NON_INTERACTIVE_VARIABLE.meaning,
    },
    NO_COLOR_VARIABLE,
  ];
}

/**
 * The top-level help's text after the commands: exit codes, the settings' precedence, the environment.
 *
 * @param program the CLI with its commands
 */
export function programHelpAfter(program: Command): string {
  const variables = environmentVariables(program);
  const width = Math.max(...variables.map((variable) => variable.name.length)) + 2;
  return [
    "",
    "Exit codes: 0 success, 1 the operation failed, 2 bad usage (unknown flag, missing setting).",
    "",
    ...wrap(settingsParagraph()),
    "",
    "Environment:",
    ...variables.flatMap((variable) =>
      wrap(variable.meaning, `  ${variable.name.padEnd(width)}`, " ".repeat(width + 2)),
    ),
  ].join("\n");
}
