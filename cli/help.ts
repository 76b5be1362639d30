/**
 * The parts of the CLI's help that state a rule kept elsewhere, generated from its home so they cannot drift: the
 * settings' precedence (`kernel/settings.ts` `SETTING_PRECEDENCE`), each setting's flag and environment variable
 * (`SETTINGS`), and the environment variables of the other homes (the token cache's folder, the plugin launcher's,
 * `CI`, `NO_COLOR`). tests/cli/help.test.ts holds the built CLI's `--help` to them.
 * @home the help text's precedence sentence and environment list, built from the homes above
 */
import { refreshableTokenOrigin, TOKEN_CACHE_DIR_VARIABLE } from "../auth/environment.js";
import { NAMESPACE_FLAG } from "../kernel/commands.js";
import { DEFAULT_CONFIG_NAMESPACE } from "../kernel/config.js";
import { CLI_EXECUTABLE } from "../kernel/names.js";
import {
  SETTING_NAMES,
  SETTING_PRECEDENCE,
  SETTINGS,
  type SettingName,
  type SourceOrigin,
  settingFlag,
  settingSourceName,
} from "../kernel/settings.js";
import { ID_RULE_DESCRIPTION } from "../kernel/webhook-rules.js";
import { WEBHOOK_URLS_KEY } from "./import/declarations.js";
import { NAME_RULE, OPTIONAL_COLUMNS, REQUIRED_COLUMNS } from "./import/webhook-file.js";
import { NO_COLOR_VARIABLE } from "./output.js";
import { LAUNCHER_VARIABLES } from "./plugin/plugin.js";
import { NON_INTERACTIVE_VARIABLE } from "./prompt.js";
import { CLIENT_SETTING_NAMES } from "./settings.js";
import { TRIGGER_SETTING_NAMES } from "./trigger/trigger.js";

/** The width the generated paragraphs are wrapped to: that of the help's hand-written text. */
const WIDTH = 115;

/**
 * Wraps text at spaces to {@link WIDTH} columns.
 *
 * @param text one paragraph
 * @param first what the first line starts with; @param rest what every further line starts with
 */
function wrap(text: string, first = "", rest = ""): string[] {
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
interface VariableHelp {
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

/**
 * Who reads a setting's environment variable: `login --base-url`, `trigger --base-url`, the provider, `refresh`. An
 * access token from the environment is the provider's alone: it is never refreshed (auth/environment.ts
 * `refreshableTokenOrigin`), so `refresh` has nothing to do with it.
 */
function readersOf(name: SettingName): string {
  const readers: string[] = [];
  if ((CLIENT_SETTING_NAMES as readonly SettingName[]).includes(name)) readers.push(`login ${settingFlag(name)}`);
  if ((TRIGGER_SETTING_NAMES as readonly SettingName[]).includes(name)) readers.push(`trigger ${settingFlag(name)}`);
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

/** Every environment variable the CLI and the plugin read: the settings' rows, then those of the other homes. */
export function environmentVariables(): VariableHelp[] {
  const settings = SETTING_NAMES.flatMap((name) => {
    const env = (SETTINGS[name] as { env?: string }).env;
    return env ? [{ name: env, meaning: readersOf(name) }] : [];
  });
  return [
    ...settings,
    TOKEN_CACHE_DIR_VARIABLE,
    ...LAUNCHER_VARIABLES,
    {
      name: `${NON_INTERACTIVE_VARIABLE.name}=${NON_INTERACTIVE_VARIABLE.value}`,
      meaning: NON_INTERACTIVE_VARIABLE.meaning,
    },
    NO_COLOR_VARIABLE,
  ];
}

/** The top-level help's text after the commands: exit codes, the settings' precedence, the environment. */
export function programHelpAfter(): string {
  const variables = environmentVariables();
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

/** `login --help`'s sentence on where its settings come from. */
export function loginPrecedence(): string {
  return `Settings come from ${precedencePhrase({ explicit: "flags", config: "the stack's existing config (in the namespace)", environment: "the environment" })}`;
}

/**
 * A commander option for a setting: its flag (`settingFlag`) with a value name, and its description followed by the
 * setting's environment variable.
 *
 * @param name the setting
 * @param value the value's name in the usage line, e.g. `url`
 * @param what what the value is
 * @param more further words after the variable, e.g. a default
 * @returns `[flags, description]` for `Command.option`
 */
export function settingOption(name: SettingName, value: string, what: string, more?: string): [string, string] {
  return [
    `${settingFlag(name)} <${value}>`,
    `${what} (${settingSourceName(name, "environment")}${more ? `; ${more}` : ""})`,
  ];
}

/**
 * `import --help`'s text after the options: the file's form and rules (from `webhook-file.ts` and the webhook rule's
 * home), what is trusted, where the urls go, the exit codes.
 */
export function importHelpAfter(): string {
  return [
    "",
    ...wrap(
      `The file: CSV whose header names the columns ${REQUIRED_COLUMNS.join(",")} (and optionally ${OPTIONAL_COLUMNS.join(",")}: the resource name, ` +
        "by default the event and the id), or a JSON array of objects with those fields. Every row is checked first: the event is one of the " +
        `help desk's events, the url follows the url rule, ${ID_RULE_DESCRIPTION}, ${NAME_RULE}; no id or name twice, and none held by ` +
        "another webhook of the stack. A bad row ends the command with exit code 2, its row number and what is wrong (never the url), and " +
        "nothing changed. Rows already adopted are skipped, so a rerun is harmless.",
    ),
    "",
    ...wrap(
      "The help desk cannot be asked (no read endpoint): event and url are recorded as the file gives them. They are adopted in one " +
        `\`pulumi import\` run, each url a secret; the urls go to the secret stack config ${WEBHOOK_URLS_KEY}, which the printed ` +
        "declarations read, so no url lands in code. Under the default provider, or with --namespace <ns> under the stack's explicit provider " +
        "configured from <ns>:*. Protected, as pulumi import protects (the declarations say so too): a pulumi up before " +
        "they are in the program fails, naming them, instead of deleting them; --no-protect adopts them unprotected.",
    ),
    "",
    "Examples:",
    `  $ ${CLI_EXECUTABLE} import --stack dev --from webhooks.csv`,
    `  $ ${CLI_EXECUTABLE} import --stack dev --namespace eu --from webhooks.json`,
    `  $ cat webhooks.csv | ${CLI_EXECUTABLE} import --from -`,
  ].join("\n");
}

/**
 * The text after `migrate --help`: the two steps, what a failure leaves, what is checked first, and examples.
 */
export function migrateHelpAfter(): string {
  return [
    "",
    ...wrap(
      "First every dynamic Webhook is checked (its event and url, its name free among the native webhooks, nothing depending on it) " +
        "and the stack's helpdesk:* config by the native provider's rules: a problem ends the command with exit code 2, all problems " +
        "listed, nothing changed.",
    ),
    "",
    ...wrap(
      "Then the native webhooks are adopted, protected, in one `pulumi import` run (each url a secret, the urls also in the secret stack " +
        `config ${WEBHOOK_URLS_KEY} that the printed declarations read), under the default provider, which reads the same helpdesk:* ` +
        "config. Only then do the dynamic ones leave the state with `pulumi state delete` (never a destroy: the help desk keeps them). " +
        "If the import fails, nothing is removed; if the removal fails, run the command again: it skips what is adopted and finishes.",
    ),
    "",
    "Examples:",
    `  $ ${CLI_EXECUTABLE} migrate --stack dev --dry-run`,
    `  $ ${CLI_EXECUTABLE} migrate --stack dev > migrated.ts`,
  ].join("\n");
}
