/**
 * The provider's settings: the one table ({@link SETTINGS}) from which everything else about a setting is derived —
 * the stack config keys (`kernel/config.ts`), the environment variables, which settings are secret, which are whole
 * numbers with which range and default, the native schema's config and `Provider` inputs
 * (`provider/native/schema.ts`), the native TypeScript `Provider`'s arguments, the limit checks, the docs, and what
 * `pulumi-helpdesk login` writes — and the one resolution of a setting's value ({@link resolveSettings}).
 *
 * Precedence (docs/design.md "Settings precedence"), the same for the dynamic `Webhook`, the native provider and the
 * CLI: a value set explicitly (a provider's argument, a command-line flag) wins; then the stack config; then the
 * environment variable, which only fills what neither sets; then the default. This is Pulumi's own convention
 * (pulumi-go-provider's `infer` defaults, `@pulumi/aws`, `@pulumi/github`): a CI job that exports
 * `HELPDESK_BASE_URL` for one help desk must not redirect a stack or a provider configured for another.
 */
import { parseBaseUrl } from "./base-url.js";
import { PulumiHelpdeskError } from "./errors.js";
import { LOOPBACK_HOSTS } from "./loopback.js";
import { CLI_EXECUTABLE } from "./names.js";
import { required } from "./required.js";

/** What a setting's value is. */
export type SettingType = "string" | "url" | "redirect_uri" | "timestamp" | "integer";

/** One row of {@link SETTINGS}. */
export interface SettingSpec {
  /** Holds a credential: only ever stored as a Pulumi secret, registered for redaction, never shown. */
  readonly secret: boolean;
  /**
   * `url`: an absolute http(s) base URL (`kernel/base-url.ts`); `redirect_uri`: an absolute http(s) URL without a
   * fragment (RFC 6749 §3.1.2); `timestamp`: ISO 8601; `integer`: a whole number in {@link SettingSpec.range};
   * `string`: any non-empty text.
   */
  readonly type: SettingType;
  /** For `integer` settings: the allowed range, both ends included, and the unit when there is one. */
  readonly range?: { readonly min: number; readonly max: number; readonly unit?: "seconds" };
  /** The value used when no source sets one (integer settings only). */
  readonly default?: number;
  /** The environment variable that fills the setting when neither the program nor the stack config sets it. */
  readonly env?: string;
  /** A setting of a `helpdesk` provider (native `Provider` input, schema config); false for login-only settings. */
  readonly provider: boolean;
  /** Written to stack config by `pulumi-helpdesk login`. */
  readonly writtenByLogin: boolean;
  /** What the setting means, for people: the schema, the SDKs' docs and the README say this. */
  readonly description: string;
}

/**
 * The settings, in the order the schema, the SDKs and `login` list them. Stack config keys are `<namespace>:<name>`
 * (`helpdesk:baseUrl`; `eu:baseUrl` for `login --namespace eu`): see `kernel/config.ts`.
 * @home the settings: secret, type, range, default, environment variable, description
 */
export const SETTINGS = {
  baseUrl: {
    secret: false,
    type: "url",
    env: "HELPDESK_BASE_URL",
    provider: true,
    writtenByLogin: true,
    description: `Base URL of the help-desk API, e.g. \`https://helpdesk.example.com\` (docs/helpdesk-api.md §1 \`{base_url}\`): absolute https (plain http only to a loopback host: ${LOOPBACK_HOSTS}), no query, fragment or user info.`,
  },
  clientId: {
    secret: false,
    type: "string",
    env: "HELPDESK_CLIENT_ID",
    provider: true,
    writtenByLogin: true,
    description:
      "OAuth 2.0 client identifier (docs/helpdesk-api.md §4.1, RFC 6749 §2.2); with `clientSecret` and `refreshToken` it lets the provider refresh an expired access token.",
  },
  clientSecret: {
    secret: true,
    type: "string",
    env: "HELPDESK_CLIENT_SECRET",
    provider: true,
    writtenByLogin: true,
    description:
      "OAuth 2.0 client secret (docs/helpdesk-api.md §4.2, RFC 6749 §2.3.1, sent as `client_secret_post`). Secret.",
  },
  redirectUri: {
    secret: false,
    type: "redirect_uri",
    env: "HELPDESK_REDIRECT_URI",
    provider: false,
    writtenByLogin: true,
    description: `Registered OAuth redirect URI (docs/helpdesk-api.md §4.1, §5.3; RFC 6749 §3.1.2); used by \`${CLI_EXECUTABLE} login\` only.`,
  },
  accessToken: {
    secret: true,
    type: "string",
    env: "HELPDESK_ACCESS_TOKEN",
    provider: true,
    writtenByLogin: true,
    description: `Bearer access token (docs/helpdesk-api.md §2.2, RFC 6750 §2.1), as written by \`${CLI_EXECUTABLE} login\`. Secret.`,
  },
  refreshToken: {
    secret: true,
    type: "string",
    provider: true,
    writtenByLogin: true,
    description:
      "Refresh token (docs/helpdesk-api.md §2.2, RFC 6749 §6), used to refresh the access token when it has expired or is rejected. Secret.",
  },
  tokenExpiresAt: {
    secret: false,
    type: "timestamp",
    provider: true,
    writtenByLogin: true,
    description:
      "When the access token expires: ISO 8601 UTC, login time + `expires_in` seconds. Past it, the provider refreshes the token first.",
  },
  maxRetries: {
    secret: false,
    type: "integer",
    range: { min: 0, max: 50 },
    default: 10,
    provider: true,
    writtenByLogin: false,
    description:
      "Retries of one API request after 429 / 503 (after `Retry-After`), 5xx on delete, or a lost connection (a create only when its request was never sent).",
  },
  requestTimeout: {
    secret: false,
    type: "integer",
    range: { min: 1, max: 600, unit: "seconds" },
    default: 30,
    provider: true,
    writtenByLogin: false,
    description: "Timeout of one API request attempt.",
  },
} as const satisfies Record<string, SettingSpec>;

/** A setting's name, e.g. `accessToken`: a key of {@link SETTINGS}. */
export type SettingName = keyof typeof SETTINGS;

/** Every setting's name, in table order. */
export const SETTING_NAMES: readonly SettingName[] = Object.freeze(Object.keys(SETTINGS) as SettingName[]);

/** The settings a `helpdesk` provider takes (every one but the login-only `redirectUri`). */
export type ProviderSettingName = {
  [K in SettingName]: (typeof SETTINGS)[K]["provider"] extends true ? K : never;
}[SettingName];

/** {@link ProviderSettingName}s in table order. */
export const PROVIDER_SETTING_NAMES: readonly ProviderSettingName[] = Object.freeze(
  SETTING_NAMES.filter((name): name is ProviderSettingName => SETTINGS[name].provider),
);

/** The settings that hold credentials and must only ever be stored as Pulumi secrets, in any namespace. */
export const SECRET_SETTING_NAMES: readonly SettingName[] = Object.freeze(
  SETTING_NAMES.filter((name) => SETTINGS[name].secret),
);

/**
 * The values of the secret settings ({@link SECRET_SETTING_NAMES}) among `values`: what must be registered for
 * redaction before anything can show them.
 *
 * @param values settings by name (resolved settings, or a provider's inputs as text); other keys are ignored
 * @returns the non-empty string values of the secret settings, in table order
 * @home which values to redact (registered in `auth/redact.ts`)
 */
export function secretSettingValues(values: Readonly<Partial<Record<SettingName, unknown>>>): string[] {
  return SECRET_SETTING_NAMES.flatMap((name) => {
    const value = values[name];
    return typeof value === "string" && value !== "" ? [value] : [];
  });
}

/** The settings `pulumi-helpdesk login` writes, in the order it writes them. */
export const LOGIN_SETTING_NAMES: readonly SettingName[] = Object.freeze(
  SETTING_NAMES.filter((name) => SETTINGS[name].writtenByLogin),
);

/** The integer settings: `maxRetries`, `requestTimeout`. */
export type IntegerSettingName = {
  [K in SettingName]: (typeof SETTINGS)[K]["type"] extends "integer" ? K : never;
}[SettingName];

/**
 * @param name a setting's name, or any other string
 * @returns true when the setting holds a credential ({@link SettingSpec.secret})
 */
export function isSecretSetting(name: string): boolean {
  return Object.hasOwn(SETTINGS, name) && SETTINGS[name as SettingName].secret;
}

/**
 * The rule of a setting as one sentence for people (the schema, the SDKs' docs, error messages): the description
 * plus the range, unit, default and environment variable the table gives.
 *
 * @param name the setting
 * @returns e.g. "Timeout of one API request attempt: a whole number of seconds from 1 to 600 (default 30). When
 *   unset, the environment variable ... fills it."
 */
export function settingDocumentation(name: SettingName): string {
  const spec: SettingSpec = SETTINGS[name];
  let text = spec.description;
  if (spec.range)
    text = `${text.replace(/\.$/, "")}: ${rangeText(spec.range)}${spec.default !== undefined ? ` (default ${spec.default})` : ""}.`;
  if (spec.env)
    text += ` When neither the program nor the stack config sets it, the environment variable \`${spec.env}\` fills it.`;
  return text;
}

/** "a whole number of seconds from 1 to 600" */
function rangeText(range: NonNullable<SettingSpec["range"]>): string {
  return `a whole number${range.unit ? ` of ${range.unit}` : ""} from ${range.min} to ${range.max}`;
}

/** A setting whose value is not allowed; the message names the setting, where it came from, and what is allowed. */
export class SettingError extends PulumiHelpdeskError<"config"> {
  /** The setting refused. */
  readonly setting: SettingName;

  /**
   * @param code always `config`
   * @param message what was wrong and what is allowed; never the value of a secret setting
   * @param options `setting`: the setting refused; `cause`: what the check threw, if anything
   */
  constructor(code: "config", message: string, options: { setting: SettingName; cause?: unknown }) {
    super(code, message, options);
    this.setting = options.setting;
  }
}

/** Where a resolved value came from; messages and the token logic use it. */
export type SettingOrigin = "explicit" | "config" | "environment" | "default";

/** The sources of a value, the first that sets one winning (see {@link SETTING_PRECEDENCE}). */
export type SourceOrigin = Exclude<SettingOrigin, "default">;

/**
 * The precedence of the settings (docs/design.md "Settings precedence"): the sources a value is taken from, the first
 * that sets one winning; {@link SettingSpec.default} fills what none sets. The one definition of the order: the
 * resolution ({@link pickSetting}) follows it, and the CLI's help text is generated from it.
 * @home where a setting's value comes from, first match wins
 */
export const SETTING_PRECEDENCE: readonly SourceOrigin[] = Object.freeze([
  "explicit",
  "config",
  "environment",
] as const);

/**
 * What a front end's explicit values are: `flag`, a command-line flag of the CLI (named `--base-url`, see
 * {@link settingFlag}); `argument`, a provider's argument or input (named by the bare setting, `baseUrl`).
 */
export type ExplicitSource = "flag" | "argument";

/** Reads a setting by bare name (`baseUrl`) from one source; empty strings count as unset. */
export interface SettingReader {
  /** @returns the setting's text, or undefined when this source does not set it */
  get(name: SettingName): string | undefined;
  /**
   * Where this source keeps a setting, for messages: the stack config key (`eu:baseUrl`, from kernel/config.ts
   * `stackConfigSettings`); absent: the bare name.
   */
  readonly key?: (name: SettingName) => string;
}

/** The sources of one resolution, each optional, and how messages name them; see the module doc for the order. */
export interface SettingSources {
  /** Values set explicitly: a native provider's arguments, a command's flags. */
  explicit?: SettingReader;
  /** The stack config (one namespace of it, by bare name). */
  config?: SettingReader;
  /** The environment (default: none; pass `process.env` to let {@link SettingSpec.env} variables fill gaps). */
  env?: NodeJS.ProcessEnv;
  /** What the explicit values are, for messages (default `argument`). */
  explicitSource?: ExplicitSource;
}

/**
 * A setting's command-line flag: its name in kebab case, e.g. `--base-url` for `baseUrl` (the CLI's options are
 * declared with it).
 *
 * @param name the setting
 */
export function settingFlag(name: SettingName): string {
  return `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

/**
 * How a message names a setting's value by where it came from: the one spelling of every source, which messages put
 * before what is wrong with a value (`--base-url: ...`, `config eu:baseUrl: ...`, `env HELPDESK_BASE_URL: ...`).
 *
 * @param name the setting
 * @param origin where its value came from
 * @param naming `explicitSource`: what explicit values are (default `argument`: the bare name, `baseUrl`);
 *   `config`: the stack config source, whose {@link SettingReader.key} spells the key
 * @returns `--base-url` (a flag), `baseUrl` (an argument), `config eu:baseUrl`, or `env HELPDESK_BASE_URL` (the
 *   setting's variable; for a setting without one, the bare name)
 * @home how the source of a value is named in a message (`--base-url`, `config eu:baseUrl`, `env HELPDESK_BASE_URL`)
 */
export function settingSourceName(
  name: SettingName,
  origin: SourceOrigin,
  naming: Pick<SettingSources, "explicitSource" | "config"> = {},
): string {
  switch (origin) {
    case "explicit":
      return naming.explicitSource === "flag" ? settingFlag(name) : name;
    case "config":
      return `config ${naming.config?.key?.(name) ?? name}`;
    case "environment": {
      const env = (SETTINGS[name] as SettingSpec).env;
      return env ? `env ${env}` : name;
    }
  }
}

/** One resolved setting: its text and where it came from. */
export interface PickedSetting {
  /** The value as text, trimmed. */
  readonly value: string;
  /** Where it came from. */
  readonly origin: SourceOrigin;
}

/**
 * The value of one setting by precedence ({@link SETTING_PRECEDENCE}): explicit, then stack config, then the
 * environment variable; not the default (see {@link resolveSettings}). Values are trimmed; empty ones count as unset.
 *
 * @param name the setting
 * @param sources where to look
 * @returns the value and its origin, or undefined when no source sets it
 */
export function pickSetting(name: SettingName, sources: SettingSources): PickedSetting | undefined {
  const spec: SettingSpec = SETTINGS[name];
  const read: Record<SourceOrigin, () => string | undefined> = {
    explicit: () => sources.explicit?.get(name),
    config: () => sources.config?.get(name),
    environment: () => (spec.env ? sources.env?.[spec.env] : undefined),
  };
  for (const origin of SETTING_PRECEDENCE) {
    const value = read[origin]()?.trim();
    if (value) return { value, origin };
  }
  return undefined;
}

/** A value that breaks its setting's rule, as {@link collectSettings} reports it. */
export interface SettingProblem {
  /** The setting refused. */
  readonly setting: SettingName;
  /** What is wrong and what is allowed, naming where the value came from ({@link settingSourceName}); never a secret. */
  readonly message: string;
}

/**
 * What {@link collectSettings} found.
 *
 * @typeParam N the settings collected
 */
export interface CollectedSettings<N extends SettingName = SettingName> {
  /** The values that keep their rule, by setting: trimmed text and origin. */
  readonly picked: Readonly<Partial<Record<N, PickedSetting>>>;
  /** The settings of the collection that no source sets, in the order asked. */
  readonly missing: readonly N[];
  /** The values that break their rule, in the order asked. */
  readonly problems: readonly SettingProblem[];
}

/**
 * The one collection of settings from their sources, which every resolution runs (the providers' and the grant's
 * {@link resolveSettings}, `login`'s client settings, the native `CheckConfig`): each setting picked by precedence
 * ({@link pickSetting}) and checked by its rule ({@link settingProblem}), a refused value named by where it came from
 * ({@link settingSourceName}).
 *
 * @param names the settings to collect, in the order messages should report them
 * @param sources where to look, and how to name them
 * @returns the values, the missing settings and the problems; throws nothing (the caller decides what a problem is)
 * @home collecting and checking settings (one collector for both providers, `login` and `trigger`)
 */
export function collectSettings<N extends SettingName>(
  names: readonly N[],
  sources: SettingSources,
): CollectedSettings<N> {
  const picked: Partial<Record<N, PickedSetting>> = {};
  const missing: N[] = [];
  const problems: SettingProblem[] = [];
  for (const name of names) {
    const found = pickSetting(name, sources);
    if (!found) {
      missing.push(name);
      continue;
    }
    const problem = settingProblem(name, found.value, settingSourceName(name, found.origin, sources));
    if (problem) problems.push({ setting: name, message: problem });
    else picked[name] = found;
  }
  return { picked, missing, problems };
}

/** Limits of the provider's HTTP behaviour. */
export interface RequestLimits {
  /** Retries after the first attempt ({@link SETTINGS} `maxRetries`: 0..50, default 10). */
  readonly maxRetries: number;
  /** Timeout of one attempt in seconds ({@link SETTINGS} `requestTimeout`: 1..600, default 30). */
  readonly requestTimeoutSeconds: number;
}

/** The limits when nothing sets them: the table's defaults. */
export const DEFAULT_LIMITS: RequestLimits = Object.freeze({
  maxRetries: SETTINGS.maxRetries.default,
  requestTimeoutSeconds: SETTINGS.requestTimeout.default,
});

/** Every setting resolved once into the typed values the provider core, the grant and the CLI take. */
export interface ResolvedSettings {
  /** The API base URL (`kernel/base-url.ts`), or undefined when no source sets it. */
  readonly baseUrl: URL | undefined;
  /** `client_id`, or undefined. */
  readonly clientId: string | undefined;
  /** `client_secret`, or undefined. */
  readonly clientSecret: string | undefined;
  /** Registered `redirect_uri`, or undefined. */
  readonly redirectUri: string | undefined;
  /** Bearer access token, or undefined. */
  readonly accessToken: string | undefined;
  /** Refresh token, or undefined. */
  readonly refreshToken: string | undefined;
  /** Access token expiry, ISO 8601, or undefined. */
  readonly tokenExpiresAt: string | undefined;
  /** The limits, defaults filled in. */
  readonly limits: RequestLimits;
  /** Where each set value came from (absent: unset or default). */
  readonly origins: Readonly<Partial<Record<SettingName, SettingOrigin>>>;
  /** How messages name where each set value came from ({@link settingSourceName}, e.g. `config eu:accessToken`). */
  readonly sourceNames: Readonly<Partial<Record<SettingName, string>>>;
}

/**
 * Why a setting's text breaks its rule, or undefined: the rule of {@link SETTINGS} (`url`: `kernel/base-url.ts`;
 * `redirect_uri`: absolute http(s), no fragment; `integer`: a whole number in range, decimal text; `timestamp`: a date
 * `Date.parse` reads, ISO 8601).
 *
 * @param name the setting
 * @param text its value as text (a number given as a number is its decimal text)
 * @param where how the message names the setting, e.g. `helpdesk:maxRetries` (default the bare name)
 * @returns a message that names the setting and what is allowed (never a secret's value), or undefined
 */
export function settingProblem(name: SettingName, text: string, where: string = name): string | undefined {
  const spec: SettingSpec = SETTINGS[name];
  const shown = spec.secret
    ? "(secret value not shown)"
    : JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  switch (spec.type) {
    case "url": {
      const parsed = parseBaseUrl(text);
      return "problem" in parsed ? `${where}: ${parsed.problem}` : undefined;
    }
    case "integer": {
      const value = /^\s*-?\d+\s*$/.test(text) ? Number(text) : Number.NaN;
      const range = required(spec.range, `the range of integer setting ${name}`);
      return Number.isSafeInteger(value) && value >= range.min && value <= range.max
        ? undefined
        : `${where} must be ${rangeText(range)}, got ${shown}`;
    }
    case "redirect_uri": {
      const url = URL.canParse(text) ? new URL(text) : undefined;
      if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
        return `${where} must be an absolute http or https URL such as http://127.0.0.1:8976/callback, got ${shown}`;
      }
      return text.includes("#") ? `${where} must not carry a fragment ("#", RFC 6749 §3.1.2), got ${shown}` : undefined;
    }
    case "timestamp":
      return Number.isNaN(Date.parse(text))
        ? `${where} must be an ISO 8601 date such as 2030-01-01T00:00:00Z, got ${shown}`
        : undefined;
    case "string":
      return undefined;
  }
}

/**
 * Resolves every setting once, by precedence (explicit, stack config, environment, default), into typed values, and
 * checks each against its rule.
 *
 * @param sources where to look (see {@link SettingSources})
 * @returns the settings; a missing credential is `undefined` here (the caller says what it needs)
 * @throws SettingError (code `config`) for the first value that breaks its rule: the message names the source it came
 *   from ({@link settingSourceName}: `config helpdesk:baseUrl`, `env HELPDESK_BASE_URL`, the argument `baseUrl`) and
 *   what is allowed
 */
export function resolveSettings(sources: SettingSources): ResolvedSettings {
  const { picked, problems } = collectSettings(SETTING_NAMES, sources);
  const problem = problems[0];
  if (problem) throw new SettingError("config", problem.message, { setting: problem.setting });
  const value = (name: SettingName): string | undefined => picked[name]?.value;
  const integer = (name: IntegerSettingName): number =>
    picked[name] === undefined ? SETTINGS[name].default : Number(picked[name].value);
  const baseUrl = picked.baseUrl === undefined ? undefined : parseBaseUrl(picked.baseUrl.value);
  const origins: Partial<Record<SettingName, SettingOrigin>> = {};
  const sourceNames: Partial<Record<SettingName, string>> = {};
  for (const name of SETTING_NAMES) {
    const found = picked[name];
    if (!found) continue;
    origins[name] = found.origin;
    sourceNames[name] = settingSourceName(name, found.origin, sources);
  }
  return {
    baseUrl: baseUrl && "url" in baseUrl ? baseUrl.url : undefined,
    clientId: value("clientId"),
    clientSecret: value("clientSecret"),
    redirectUri: value("redirectUri"),
    accessToken: value("accessToken"),
    refreshToken: value("refreshToken"),
    tokenExpiresAt: value("tokenExpiresAt"),
    limits: { maxRetries: integer("maxRetries"), requestTimeoutSeconds: integer("requestTimeout") },
    origins,
    sourceNames,
  };
}

/**
 * A {@link SettingReader} over a plain object of values by bare name (e.g. a native provider's inputs already turned
 * into text, or a command's flags).
 *
 * @param values bare name → value; other keys are ignored
 */
export function settingReaderOf(values: Readonly<Partial<Record<string, string | undefined>>>): SettingReader {
  return { get: (name) => (Object.hasOwn(values, name) ? values[name] : undefined) };
}
