/**
 * Test support: the explicit `Provider` block of the test programs that declare a second help desk, written from
 * the settings table (kernel/settings.ts) and what `login` may leave out (auth/grant.ts `OPTIONAL_LOGIN_SETTINGS`),
 * as the README's "Several help desks in one program" shows it: every setting `pulumi-helpdesk login --namespace`
 * writes that the provider takes, read from that namespace, a secret one as a secret.
 */
import { OPTIONAL_LOGIN_SETTINGS } from "../../auth/grant.js";
import { LOGIN_SETTING_NAMES, PROVIDER_SETTING_NAMES, SETTINGS, type SettingName } from "../../kernel/settings.js";

/** The settings of an explicit Provider that `login --namespace` writes, in the table's order. */
const PROVIDER_LOGIN_SETTINGS = LOGIN_SETTING_NAMES.filter((name) =>
  (PROVIDER_SETTING_NAMES as readonly SettingName[]).includes(name),
);

/** How a program reads one setting of `config`: `require`/`requireSecret`, or `get`/`getSecret` when login may omit it. */
function reader(name: SettingName, python: boolean): string {
  const optional = (OPTIONAL_LOGIN_SETTINGS as readonly SettingName[]).includes(name);
  const secret: boolean = SETTINGS[name].secret;
  const verb = `${optional ? "get" : "require"}${secret ? (python ? "_secret" : "Secret") : ""}`;
  return `${verb}(${JSON.stringify(name)})`;
}

/**
 * TypeScript: `const <config> = new pulumi.Config("<namespace>");` and `const <variable> = new Provider("<name>", {
 * ...the settings... });`, or with `argsType` the settings first as `const <variable>Args: <argsType> = {...};`. The
 * program imports `pulumi`, `Provider` (and the type) itself.
 *
 * @param names the Provider's resource name, the program's variables for it and its config, the namespace, and the
 *   type to declare its arguments with (e.g. `ProviderArgs`; default: none, the arguments inline)
 * @returns the lines of the block
 */
export function typescriptProviderBlock(names: {
  resource: string;
  variable: string;
  config: string;
  namespace: string;
  argsType?: string;
}): string[] {
  const settings = PROVIDER_LOGIN_SETTINGS.map((name) => `  ${name}: ${names.config}.${reader(name, false)},`);
  const provider = `const ${names.variable} = new Provider(${JSON.stringify(names.resource)}`;
  return [
    `const ${names.config} = new pulumi.Config(${JSON.stringify(names.namespace)});`,
    ...(names.argsType === undefined
      ? [`${provider}, {`, ...settings, "});"]
      : [
          `const ${names.variable}Args: ${names.argsType} = {`,
          ...settings,
          "};",
          `${provider}, ${names.variable}Args);`,
        ]),
  ];
}

/**
 * Python: `<config> = pulumi.Config("<namespace>")` and `<variable> = helpdesk.Provider("<name>", ...the settings in
 * snake case...)`. The program imports `pulumi` and `pulumi_helpdesk as helpdesk` itself.
 *
 * @param names as {@link typescriptProviderBlock}'s
 * @returns the lines of the block
 */
export function pythonProviderBlock(names: {
  resource: string;
  variable: string;
  config: string;
  namespace: string;
}): string[] {
  const snake = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return [
    `${names.config} = pulumi.Config(${JSON.stringify(names.namespace)})`,
    `${names.variable} = helpdesk.Provider(`,
    `    ${JSON.stringify(names.resource)},`,
    ...PROVIDER_LOGIN_SETTINGS.map((name) => `    ${snake(name)}=${names.config}.${reader(name, true)},`),
    ")",
  ];
}
