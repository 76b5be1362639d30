import { PulumiHelpdeskError } from "./errors.js";
import { PULUMI_PACKAGE } from "./names.js";
import { SECRET_SETTING_NAMES, SETTING_NAMES, type SettingName, type SettingReader } from "./settings.js";

/**
 * The stack config namespace of the default `helpdesk` provider and of the dynamic `Webhook`: the one that
 * `pulumi-helpdesk login` writes when no `--namespace` is given (`helpdesk:baseUrl`, ...). It is the Pulumi package
 * name (`kernel/names.ts`), so the engine hands these keys to the default provider (pulumi/pulumi `GetPackageConfig`).
 */
export const DEFAULT_CONFIG_NAMESPACE = PULUMI_PACKAGE;

/**
 * Read access to the stack config, as Pulumi's `dynamic.Config` offers it: `get("helpdesk:accessToken")` returns the
 * value (secrets decrypted) or undefined.
 */
export interface ConfigReader {
  get(key: string): string | undefined;
}

/**
 * The stack config keys of one namespace, in Pulumi's `namespace:key` form: `ConfigKeys<"eu">["accessToken"]` is
 * `"eu:accessToken"`. Built by {@link configKeysFor}; {@link CONFIG_KEYS} is the default namespace's.
 *
 * @typeParam N the namespace, e.g. `"helpdesk"` or `"eu"`
 */
export type ConfigKeys<N extends string = typeof DEFAULT_CONFIG_NAMESPACE> = {
  readonly [K in SettingName]: `${N}:${K}`;
};

/** A refused config namespace: the message says what is wrong and what a namespace may be. */
export class ConfigNamespaceError extends PulumiHelpdeskError<"invalid_namespace"> {
  /** The namespace as given. */
  readonly namespace: string;

  /**
   * @param code always `invalid_namespace`
   * @param message why, and what is allowed
   * @param options `namespace`: the namespace refused; `cause`: what this wraps, if anything
   */
  constructor(code: "invalid_namespace", message: string, options: { namespace: string; cause?: unknown }) {
    super(code, message, options);
    this.namespace = options.namespace;
  }
}

/** What a config namespace may look like: a Pulumi package- or project-like name. */
const NAMESPACE_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$/;

/** What {@link configNamespaceProblem} messages say is allowed. */
const NAMESPACE_RULE =
  'a config namespace is a name of at most 100 letters, digits, "-", "_" or ".", starting with a letter, e.g. eu or helpdesk-eu';

/**
 * Namespaces that belong to Pulumi itself: `pulumi:` holds the engine's own settings (`pulumi:tags`,
 * `pulumi:template`, `pulumi:disable-default-providers`), and `config` is the middle part of the old key form
 * `<namespace>:config:<name>` (pulumi/pulumi `pkg/resource/config/key.go` `ParseKey`). Compared in lower case.
 */
const RESERVED_NAMESPACES: Readonly<Record<string, string>> = {
  pulumi: "it is Pulumi's own namespace (pulumi:tags, pulumi:template, pulumi:disable-default-providers)",
  config:
    "Pulumi reads `<namespace>:config:<key>` as the old form of `<namespace>:<key>`, so `config` is no namespace of its own",
};

/**
 * Why a string cannot be the namespace of help-desk settings in stack config, or undefined when it can.
 *
 * Allowed: a name of letters, digits, `-`, `_` and `.`, starting with a letter, at most 100 characters (what
 * `new pulumi.Config(name)`, `pulumi.Config(name)` and a YAML `configuration:` entry's `name: <ns>:<key>` all accept),
 * other than `pulumi` and `config` (see {@link RESERVED_NAMESPACES}). `helpdesk` is the default namespace.
 *
 * @param namespace e.g. `eu`
 * @returns a message for people naming the problem and the rule, or undefined when the namespace is fine
 * @home what a config namespace may be
 */
export function configNamespaceProblem(namespace: string): string | undefined {
  const shown = JSON.stringify(namespace.length > 60 ? `${namespace.slice(0, 60)}…` : namespace);
  if (namespace.trim() === "") return `the namespace is empty: ${NAMESPACE_RULE}`;
  if (namespace.includes(":")) {
    return `namespace ${shown} contains ":", which separates a namespace from its key in Pulumi config (eu:accessToken): give the namespace alone; ${NAMESPACE_RULE}`;
  }
  const reserved = RESERVED_NAMESPACES[namespace.toLowerCase()];
  if (reserved) return `namespace ${shown} is reserved: ${reserved}; choose another, e.g. eu or helpdesk-eu`;
  if (!NAMESPACE_PATTERN.test(namespace)) return `namespace ${shown} is not allowed: ${NAMESPACE_RULE}`;
  return undefined;
}

/**
 * The stack config keys of the help-desk settings under `namespace`: the one mapping from a setting to its key.
 * `configKeysFor("helpdesk")` is {@link CONFIG_KEYS}; `configKeysFor("eu").accessToken` is `"eu:accessToken"`, what
 * `pulumi-helpdesk login --namespace eu` writes and `new pulumi.Config("eu").requireSecret("accessToken")` reads.
 *
 * @param namespace the config namespace (see {@link configNamespaceProblem} for what is allowed)
 * @returns a frozen object from every {@link SettingName} to its namespaced key
 * @throws ConfigNamespaceError (code `invalid_namespace`) when the namespace is not allowed
 * @home the config keys of a namespace
 */
export function configKeysFor<N extends string>(namespace: N): ConfigKeys<N> {
  const problem = configNamespaceProblem(namespace);
  if (problem) throw new ConfigNamespaceError("invalid_namespace", problem, { namespace });
  return Object.freeze(
    Object.fromEntries(SETTING_NAMES.map((name) => [name, `${namespace}:${name}`])),
  ) as unknown as ConfigKeys<N>;
}

/**
 * The stack config keys this project reads and writes for the default provider, in Pulumi's `namespace:key` form
 * (`helpdesk:baseUrl`, ...): `configKeysFor("helpdesk")`.
 *
 * Written by `pulumi-helpdesk login` (docs/design.md "The data flow of the main job", step 1), read by the provider's `configure` at call time.
 * Keys marked secret ({@link SECRET_CONFIG_KEYS}) are always stored with `pulumi config set --secret` semantics, so
 * the stack file and the state hold only their ciphertext. `login --namespace eu` writes the same settings as `eu:*`
 * ({@link configKeysFor}), for an explicit native provider.
 */
export const CONFIG_KEYS: ConfigKeys = configKeysFor(DEFAULT_CONFIG_NAMESPACE);

/**
 * The secret keys of one namespace: `SECRET_SETTING_NAMES` (`kernel/settings.ts`) under `namespace`, e.g. `eu:accessToken`.
 *
 * @param namespace the config namespace
 * @throws ConfigNamespaceError when the namespace is not allowed (see {@link configKeysFor})
 */
export function secretConfigKeysFor(namespace: string): readonly string[] {
  const keys = configKeysFor(namespace);
  return Object.freeze(SECRET_SETTING_NAMES.map((name) => keys[name]));
}

/** Which {@link CONFIG_KEYS} hold credentials and must only ever be stored as Pulumi secrets. */
export const SECRET_CONFIG_KEYS: readonly string[] = secretConfigKeysFor(DEFAULT_CONFIG_NAMESPACE);

/**
 * The settings of one namespace of a stack config, read by bare name: `stackConfigSettings(config, "eu").get("baseUrl")`
 * reads `eu:baseUrl`, and messages name that value `config eu:baseUrl` (its `key`). What `resolveSettings`
 * (`kernel/settings.ts`) takes as its `config` source.
 *
 * @param config the stack config by namespaced key (Pulumi's `dynamic.Config`, or the CLI's decrypted map), or
 *   undefined when there is none
 * @param namespace the config namespace (default `helpdesk`)
 * @throws ConfigNamespaceError when `namespace` is not allowed
 */
export function stackConfigSettings(
  config: ConfigReader | Readonly<Record<string, string | undefined>> | undefined,
  namespace: string = DEFAULT_CONFIG_NAMESPACE,
): SettingReader {
  const keys = configKeysFor(namespace);
  const read = (key: string): string | undefined =>
    config === undefined
      ? undefined
      : typeof config.get === "function"
        ? (config as ConfigReader).get(key)
        : (config as Record<string, string | undefined>)[key];
  return { get: (name) => read(keys[name]), key: (name) => keys[name] };
}
