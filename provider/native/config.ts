/**
 * The native provider's configuration, the provider-config half of the plugin protocol: `CheckConfig`, `DiffConfig`,
 * and the resolution of `Configure`'s inputs into the {@link Target} the provider core takes. Which settings a
 * `helpdesk` provider has, which are secret or whole numbers, and their rules all come from the settings table
 * (`kernel/settings.ts`).
 *
 * A provider's inputs are named by the bare setting (`accessToken`). The default provider's inputs are the stack's
 * `helpdesk:*` config with the namespace stripped (pulumi/pulumi `pkg/resource/deploy/target.go`
 * `GetPackageConfig`); an explicit provider's are its arguments, wherever the program read them from (`eu:*` config
 * that `login --namespace eu` wrote, say). Either way they are the values set explicitly, and they win: the
 * environment variables only fill settings the inputs leave unset (docs/design.md "Settings precedence").
 */

import { registerSecret } from "../../auth/redact.js";
import { baseUrlText, parseBaseUrl } from "../../kernel/base-url.js";
import { stackConfigSettings } from "../../kernel/config.js";
import { UNKNOWN } from "../../kernel/pulumi-wire.js";
import {
  collectSettings,
  isSecretSetting,
  resolveSettings,
  SETTINGS,
  type SettingName,
  secretSettingValues,
  settingReaderOf,
  settingSourceName,
} from "../../kernel/settings.js";
import type { Target } from "../core/target.js";
import { asSecret, containsUnknown, reveal } from "./properties.js";
import type { CheckOutcome, DiffOutcome, PropertyMap } from "./proto.js";

/**
 * Reads one provider input as the text a stack config value would be: secrets unwrapped, numbers and booleans as
 * their decimal / `true` text (a `Provider` of another language may send `maxRetries: 3`, the stack config sends
 * `"3"`), objects as JSON.
 *
 * @returns undefined for an absent, null or unknown value
 */
function asSettingText(value: unknown): string | undefined {
  const plain = reveal(value);
  if (plain === undefined || plain === null || plain === UNKNOWN) return undefined;
  if (typeof plain === "string") return plain;
  if (typeof plain === "number" || typeof plain === "boolean") return String(plain);
  return JSON.stringify(plain);
}

/** @returns true when `name` is a setting of the table (other inputs: `version`, ...) */
function isSetting(name: string): name is SettingName {
  return Object.hasOwn(SETTINGS, name);
}

/**
 * The inputs that are settings, as text ({@link asSettingText}), in the order given; inputs that are no setting
 * (`version`), absent, null or (in part) unknown are left out.
 */
function settingTexts(inputs: PropertyMap): Partial<Record<SettingName, string>> {
  const texts: Partial<Record<SettingName, string>> = {};
  for (const [name, value] of Object.entries(inputs)) {
    if (!isSetting(name) || containsUnknown(value)) continue;
    const text = asSettingText(value);
    if (text !== undefined) texts[name] = text;
  }
  return texts;
}

/** The stack config the default provider's inputs come from (`helpdesk:*`), for messages that say where to set one. */
const DEFAULT_PROVIDER_CONFIG = stackConfigSettings(undefined);

/**
 * The help desk of one provider instance: its inputs (what `Configure` received) resolved once with the settings
 * table's precedence (the inputs, then the environment, then the defaults). Registers every secret input with the
 * redaction registry (`auth/redact.ts`) at once, so no later error can show one.
 *
 * @param inputs the provider's inputs, secrets wrapped or not
 * @returns the target the core's create and delete take
 * @throws SettingError `config` when a value breaks its rule (CheckConfig has refused it already, unless it came from
 *   the environment)
 */
export function providerTarget(inputs: PropertyMap): Target {
  const values = settingTexts(inputs);
  for (const secret of secretSettingValues(values)) registerSecret(secret);
  return {
    settings: resolveSettings({ explicit: settingReaderOf(values), explicitSource: "argument", env: process.env }),
    place: {
      describe: (name) =>
        `the provider's \`${settingSourceName(name, "explicit", { explicitSource: "argument" })}\` (${settingSourceName(name, "config", { config: DEFAULT_PROVIDER_CONFIG })} for the default provider)`,
      namespace: undefined,
    },
  };
}

/**
 * `CheckConfig` of a `helpdesk` provider: validates each setting with its rule from the settings table
 * (`kernel/settings.ts` `settingProblem`: the base URL rule of `kernel/base-url.ts`, the integer ranges, ISO 8601 for
 * `tokenExpiresAt`), so preview refuses exactly what `up` would; and marks credentials secret whatever the program did
 * (state never holds one in plaintext).
 *
 * Missing credentials are no failure here: the environment may fill them when the provider runs, and create/delete
 * then say what is missing. Unknown values (preview) pass; inputs that are no setting (`version`) pass untouched.
 *
 * @param news the proposed inputs (the engine sends CheckConfig values without secret wrappers)
 * @returns the inputs to record (secret settings wrapped as secrets) and the failures
 */
export function checkProviderConfig(news: PropertyMap): CheckOutcome {
  const inputs: PropertyMap = {};
  for (const [name, value] of Object.entries(news))
    inputs[name] = isSecretSetting(name) && value !== null && value !== undefined ? asSecret(value) : value;
  const texts = settingTexts(news);
  const { problems } = collectSettings(Object.keys(texts) as SettingName[], {
    explicit: settingReaderOf(texts),
    explicitSource: "argument",
  });
  return { inputs, failures: problems.map((problem) => ({ property: problem.setting, reason: problem.message })) };
}

/**
 * `DiffConfig` of a `helpdesk` provider. A different help desk (`baseUrl`, compared as `kernel/base-url.ts` parses it:
 * `https://h.example/` and `https://h.example` are the same) makes the old webhooks unmanageable by the new provider,
 * so it replaces the provider (the engine then replaces its webhooks: created on the new help desk, deleted from the
 * old one with the old settings). Any other change (a new token after `pulumi-helpdesk login`, other limits) updates
 * the provider in place and touches no webhook.
 *
 * @param olds the recorded provider outputs; @param news the new inputs (both as the engine sends them: no secret
 *   wrappers, maybe unknowns). `version` is ignored.
 * @returns `diffs`: the settings whose value changed (or may change: unknown); `replaces`: those whose change replaces
 *   the provider, and with it every webhook it manages (`baseUrl` only); `changes`: whether `diffs` has any
 */
export function diffProviderConfig(olds: PropertyMap, news: PropertyMap): DiffOutcome {
  const names = new Set([...Object.keys(olds), ...Object.keys(news)].filter((name) => name !== "version"));
  const changed: string[] = [];
  const replaces: string[] = [];
  for (const name of names) {
    const before = reveal(olds[name]);
    const after = reveal(news[name]);
    const same =
      name === "baseUrl"
        ? comparableBaseUrl(before) === comparableBaseUrl(after)
        : JSON.stringify(before ?? null) === JSON.stringify(after ?? null);
    if (same) continue;
    changed.push(name);
    if (name === "baseUrl" && !containsUnknown(after)) replaces.push(name);
  }
  return { changes: changed.length > 0, replaces, diffs: changed };
}

/** A base URL as the one parser normalises it, for comparison; other values as they are. */
function comparableBaseUrl(value: unknown): unknown {
  if (typeof value !== "string") return value ?? null;
  const parsed = parseBaseUrl(value);
  return "url" in parsed ? baseUrlText(parsed.url) : value;
}
