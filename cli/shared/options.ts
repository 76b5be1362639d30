/**
 * The options and option parsers that more than one command takes, each written once for every wing's `command.ts`:
 * `--stack`, `--namespace`, `--cwd`, a setting's flag ({@link settingOption}), the emulator's address, and the parsers
 * of whole numbers and shares. Each builder returns a new commander `Option`, for `Command.addOption`.
 *
 * Light on purpose: every command's definition loads it, and so does `--help` (tests/cli/lazy-loading.test.ts).
 */
import { InvalidArgumentError, Option } from "commander";
import { NAMESPACE_FLAG, STACK_FLAG } from "../../kernel/commands.js";
import { configNamespaceProblem, DEFAULT_CONFIG_NAMESPACE } from "../../kernel/config.js";
import { type SettingName, settingFlag, settingSourceName } from "../../kernel/settings.js";

/** `-s, --stack <name>`: the stack whose config holds the credentials. */
export function stackOption(): Option {
  return new Option(
    `-s, ${STACK_FLAG} <name>`,
    "stack whose config holds the credentials (default: the selected stack)",
  );
}

/**
 * `-n, --namespace <ns>`: which stack config namespace holds the sign-in (`helpdesk`, the default provider's, or e.g.
 * `eu`, read by an explicit provider through `new pulumi.Config("eu")`), checked as soon as the command line is read
 * ({@link parseNamespaceOption}); default `helpdesk`.
 */
export function namespaceOption(): Option {
  return new Option(
    `-n, ${NAMESPACE_FLAG} <ns>`,
    `stack config namespace of the sign-in: e.g. eu (keys eu:*) for an explicit provider that reads new pulumi.Config("eu")`,
  )
    .argParser(parseNamespaceOption)
    .default(DEFAULT_CONFIG_NAMESPACE);
}

/**
 * commander's parser of `--namespace`: what a namespace may be is decided in `kernel/config.ts`
 * (`configNamespaceProblem`).
 *
 * @param value the flag's value
 * @returns the value unchanged when it is a valid namespace
 * @throws InvalidArgumentError (commander prints it with the option's name; exit 2) saying what is wrong and what a
 *   namespace may be
 */
export function parseNamespaceOption(value: string): string {
  const problem = configNamespaceProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
}

/** `-C, --cwd <dir>`: the project directory, found as `pulumi` finds it when not given. */
export function cwdOption(): Option {
  return new Option(
    "-C, --cwd <dir>",
    "project directory holding Pulumi.yaml (default: the nearest one from the current directory upwards, as pulumi finds it)",
  );
}

/** The setting each option of {@link settingOption} stands for: the help (`./help.ts`) lists who reads what by it. */
const SETTING_OF_OPTION = new WeakMap<Option, SettingName>();

/**
 * A command's option for a setting: its flag (`settingFlag`) with a value name, and its description followed by the
 * setting's environment variable, which fills it when the flag is not given (`kernel/settings.ts` `collectSettings`).
 *
 * @param name the setting
 * @param value the value's name in the usage line, e.g. `url`
 * @param what what the value is
 * @param more further words after the variable, e.g. a default
 * @returns the option, known to {@link settingOf}
 */
export function settingOption(name: SettingName, value: string, what: string, more?: string): Option {
  const option = new Option(
    `${settingFlag(name)} <${value}>`,
    `${what} (${settingSourceName(name, "environment")}${more ? `; ${more}` : ""})`,
  );
  SETTING_OF_OPTION.set(option, name);
  return option;
}

/**
 * @returns the setting an option of {@link settingOption} stands for, else undefined
 */
export function settingOf(option: Option): SettingName | undefined {
  return SETTING_OF_OPTION.get(option);
}

/**
 * A parser of a whole number >= 0, for an option's value.
 *
 * @param name the flag, e.g. `--port`, for the message
 * @returns the parser
 * @throws InvalidArgumentError (from the parser; exit 2) for anything else
 */
export function positiveInt(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0)
      throw new InvalidArgumentError(`${name} must be a whole number >= 0, got ${JSON.stringify(value)}`);
    return n;
  };
}

/**
 * A parser of a share from 0 to 1, for an option's value (a fault rate).
 *
 * @param name the flag, e.g. `--rate-429`, for the message
 * @returns the parser
 * @throws InvalidArgumentError (from the parser; exit 2) for anything else
 */
export function share(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0 || n > 1)
      throw new InvalidArgumentError(`${name} must be a share from 0 to 1, got ${JSON.stringify(value)}`);
    return n;
  };
}

/** The port `pulumi-helpdesk emulator` listens on by default, on 127.0.0.1. */
export const DEFAULT_EMULATOR_PORT = 8080;

/** Where `pulumi-helpdesk emulator` listens by default, and so where `trigger` looks when nothing says otherwise. */
export const DEFAULT_EMULATOR_URL = `http://127.0.0.1:${DEFAULT_EMULATOR_PORT}`;
