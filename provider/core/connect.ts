/**
 * From a help desk's resolved settings to a client of its API: the one place the provider core says which settings
 * an API call needs and what to do when they are missing. Loaded by `provider/core/webhooks.ts` on the first create or
 * delete, never at start-up (it pulls in the HTTP client and the OAuth code).
 */

import { Grant } from "../../auth/grant.js";
import { stackCommand } from "../../kernel/commands.js";
import { type SettingName, settingSourceName } from "../../kernel/settings.js";
import { HelpdeskClient } from "./client.js";
import { HELPDESK_ERROR_CODES, HelpdeskError } from "./errors.js";
import type { Target } from "./target.js";

/**
 * The client of each target, made on its first create or delete. A target's settings are resolved once and never
 * change, so one client serves all its operations: the native plugin keeps one target per `Configure` and sends
 * hundreds of creates through it in one `pulumi up`, which then skip building a client, looking up the grant and
 * registering its credentials each time (the dynamic provider resolves a new target per call, by design).
 */
const clients = new WeakMap<Target, HelpdeskClient>();

/** The settings an API call cannot do without, and how messages name each. */
const REQUIRED_SETTING_WORDS = {
  baseUrl: "the API base URL",
  accessToken: "the access token",
} as const satisfies Partial<Record<SettingName, string>>;

/** The keys of {@link REQUIRED_SETTING_WORDS}. */
const REQUIRED_SETTINGS = Object.keys(REQUIRED_SETTING_WORDS) as Array<keyof typeof REQUIRED_SETTING_WORDS>;

/**
 * The client of the help desk `target` names (the same one for every call with this target), sharing this process's
 * token refresh with every other operation on the same grant (whose settings' credentials the grant registers with the
 * redaction registry, `auth/grant.ts`).
 *
 * @param target the resolved settings and how to name them
 * @returns the client
 * @throws HelpdeskError `credentials` when the base URL or the access token is missing: the message names each
 *   missing setting with where to set it (the front end's place, or its environment variable, which fills it as
 *   nothing else sets it) and says that `pulumi-helpdesk login` writes them
 */
export function connect(target: Target): HelpdeskClient {
  const known = clients.get(target);
  if (known) return known;
  const { settings, place } = target;
  const missing = REQUIRED_SETTINGS.filter((name) => settings[name] === undefined);
  if (missing.length > 0 || settings.baseUrl === undefined || settings.accessToken === undefined) {
    const named = missing.map(
      (name) =>
        `${REQUIRED_SETTING_WORDS[name]} (${place.describe(name)}, or ${settingSourceName(name, "environment")})`,
    );
    throw new HelpdeskError(
      HELPDESK_ERROR_CODES.CREDENTIALS,
      `helpdesk credentials are missing: ${named.join(" and ")} ${named.length > 1 ? "are" : "is"} not set. ` +
        `Run ${stackCommand("login", { namespace: place.namespace })} in the project directory, or set the environment variables.`,
    );
  }
  const client = new HelpdeskClient({
    baseUrl: settings.baseUrl,
    grant: Grant.shared(settings, { namespace: place.namespace }),
    limits: settings.limits,
    describe: place.describe,
  });
  clients.set(target, client);
  return client;
}
