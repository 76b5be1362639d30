/**
 * Test support: the sources of the generated documents (the README's blocks, the Pulumi Registry pages), read from
 * the source modules as the tests load them, where scripts/docs/registry-pages.ts `sourcesFromBuild` reads the build.
 */
import { CLIENT_SETTING_NAMES } from "../../cli/shared/settings.js";
import * as config from "../../kernel/config.js";
import * as names from "../../kernel/names.js";
import * as packageVersion from "../../kernel/package-version.js";
import * as published from "../../kernel/published.js";
import * as settings from "../../kernel/settings.js";
import { buildSchema } from "../../provider/native/schema.js";
import { clientFlagsOf, type PageSources } from "../../scripts/docs/registry-pages.ts";

/** The registry pages' sources (the schema, the names, the settings and config keys, the version and the published one, the CLI's flags). */
export function pageSources(): PageSources {
  return {
    schema: buildSchema(),
    names,
    settings,
    config,
    packageVersion,
    published,
    clientFlags: clientFlagsOf(CLIENT_SETTING_NAMES, settings.settingFlag),
  };
}
