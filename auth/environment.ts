/**
 * What the environment decides in a sign-in: the folder of the token cache (`./token-cache.ts`) and that an access
 * token from the environment is never refreshed (`./grant.ts`). A module of its own, importing no OAuth client and no
 * lock library, because the CLI's help states both (cli/shared/help.ts) and loads nothing heavy to print it.
 */
import { PACKAGE_NAME } from "../kernel/package-version.js";
import type { SettingOrigin } from "../kernel/settings.js";

/** The environment variable that names the token cache's directory (`./token-cache.ts`); the CLI's help lists it. */
export const TOKEN_CACHE_DIR_VARIABLE = {
  name: "HELPDESK_TOKEN_CACHE_DIR",
  meaning: `the folder of the local token cache (default $XDG_CACHE_HOME/${PACKAGE_NAME}/tokens, else ~/.cache/${PACKAGE_NAME}/tokens)`,
} as const;

/**
 * Whether an access token from this source may be refreshed: one from the environment is used as given, never
 * refreshed (the refresh token of the config does not belong to it) and never written to the token cache
 * (docs/design.md "Settings precedence"). The one home of that rule: the grant follows it, and the CLI's help states it.
 * @home an access token from the environment is used as given, never refreshed (the grant, the help's environment list)
 *
 * @param origin where the access token came from
 */
export function refreshableTokenOrigin(origin: SettingOrigin | undefined): boolean {
  return origin !== "environment";
}
