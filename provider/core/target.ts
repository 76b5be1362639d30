/**
 * One help desk as a front end hands it to the provider core (`provider/core/webhooks.ts`): the settings it resolved once,
 * and how its user sets each of them (for messages).
 */
import type { ResolvedSettings, SettingName } from "../../kernel/settings.js";

/** How a front end's user sets a setting; messages about a missing setting say it. */
export interface SettingsPlace {
  /**
   * @param name a setting
   * @returns e.g. `config helpdesk:accessToken` (dynamic `Webhook`) or `the provider's accessToken` (native)
   */
  describe(name: SettingName): string;
  /**
   * The config namespace the settings were read from (`helpdesk`; `eu` for `login --namespace eu`), or undefined when
   * the front end cannot know it (a native provider's arguments may come from any namespace): messages that name a
   * `login` command use it.
   */
  readonly namespace: string | undefined;
}

/** One help desk, as a front end resolved it. */
export interface Target {
  /** The settings, resolved once by the front end (explicit, stack config, environment, default: `kernel/settings.ts`). */
  readonly settings: ResolvedSettings;
  /** How a person sets each setting in this front end. */
  readonly place: SettingsPlace;
}
