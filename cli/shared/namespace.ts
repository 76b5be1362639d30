/**
 * What the commands with `--namespace <ns>` (`./options.ts` `namespaceOption`) do with it: which stack config
 * namespace holds the sign-in (`helpdesk`, the default provider's; or e.g. `eu`, read by an explicit provider of the
 * native plugin through `new pulumi.Config("eu")`). What a namespace may be, and which keys it holds, is decided in
 * `kernel/config.ts` (`configNamespaceProblem`, `configKeysFor`); this module turns its responses into CLI usage errors
 * and hints.
 */
import { OPTIONAL_LOGIN_SETTINGS } from "../../auth/grant.js";
import { NAMESPACE_FLAG } from "../../kernel/commands.js";
import { configNamespaceProblem, DEFAULT_CONFIG_NAMESPACE } from "../../kernel/config.js";
import { nodejsSdkPackage } from "../../kernel/names.js";
import { LOGIN_SETTING_NAMES, SETTING_NAMES, SETTINGS, type SettingName } from "../../kernel/settings.js";
import { CliError } from "./output.js";

/**
 * The namespace a command works on: the option's value, else `helpdesk`, checked again for callers that bypass
 * commander.
 *
 * @param namespace the `--namespace` value, if any
 * @returns the namespace
 * @throws CliError (exit 2) when it is not a valid namespace (`kernel/config.ts` `configNamespaceProblem` says why)
 */
export function commandNamespace(namespace: string | undefined): string {
  const chosen = namespace ?? DEFAULT_CONFIG_NAMESPACE;
  const problem = configNamespaceProblem(chosen);
  if (problem) throw new CliError("usage", `${NAMESPACE_FLAG}: ${problem}`);
  return chosen;
}

/**
 * Keys of the stack config in `namespace` that are no help-desk setting (e.g. `aws:region` for `--namespace aws`):
 * a sign that another package or the program owns the namespace, whose provider would then see the help-desk keys.
 *
 * @param config the stack config (namespaced key → value; only keys are looked at)
 * @param namespace the namespace
 * @returns the foreign keys, sorted (names only, never values)
 */
export function foreignKeysIn(config: Readonly<Record<string, string>>, namespace: string): string[] {
  const prefix = `${namespace}:`;
  const settings = new Set<string>(SETTING_NAMES);
  return Object.keys(config)
    .filter((key) => key.startsWith(prefix) && !settings.has(key.slice(prefix.length)))
    .sort();
}

/**
 * A few lines that show how a program uses the keys of a non-default namespace: a TypeScript explicit provider, and
 * the Python and YAML spelling of a secret key. Written so that the redaction every output line passes through
 * (`auth/redact.ts`, which blanks the text after `accessToken:`) leaves them whole: the secret settings are passed
 * by shorthand property.
 *
 * @param namespace e.g. `eu` (a valid namespace: it is printed into code as is)
 * @returns the lines, without trailing newlines
 */
export function programHint(namespace: string): string[] {
  const ns = JSON.stringify(namespace);
  // What login wrote that a provider takes, read as a program must: secrets as secrets, optional ones with get.
  const names = LOGIN_SETTING_NAMES.filter((name) => SETTINGS[name].provider);
  const read = (name: SettingName, secret: boolean): string =>
    `cfg.${(OPTIONAL_LOGIN_SETTINGS as readonly SettingName[]).includes(name) ? "get" : "require"}${secret ? "Secret" : ""}(${JSON.stringify(name)})`;
  const secrets = names.filter((name) => SETTINGS[name].secret);
  const plain = names.filter((name) => !SETTINGS[name].secret);
  const secret = SETTINGS.accessToken.secret;
  return [
    `Use them in a program through an explicit provider of the native plugin, e.g. in TypeScript (${nodejsSdkPackage()}):`,
    `  const cfg = new pulumi.Config(${ns});`,
    `  const ${secrets.map((name) => `${name} = ${read(name, true)}`).join(", ")};`,
    `  const desk = new Provider(${ns}, { ${[...plain.map((name) => `${name}: ${read(name, false)}`), ...secrets].join(", ")} });`,
    '  new Webhook("...", { event: "ticket_opened", url: "..." }, { provider: desk });',
    `Python: pulumi.Config(${ns}).require${secret ? "_secret" : ""}("accessToken"); YAML: a configuration: entry per key, e.g. name: ${namespace}:accessToken, type: String, secret: ${secret}.`,
  ];
}

/**
 * What messages add after a stack's name to say which namespace they mean: nothing for `helpdesk`, else
 * ` (namespace "eu")`.
 *
 * @param namespace the command's namespace
 */
export function namespaceNote(namespace: string): string {
  return namespace === DEFAULT_CONFIG_NAMESPACE ? "" : ` (namespace "${namespace}")`;
}
