/**
 * The Pulumi package schema of `helpdesk` (https://www.pulumi.com/docs/iac/extending-pulumi/schema/), built from the
 * project's own definitions so it cannot drift from them: the event names (`kernel/events.ts` `EVENTS`), the url rule
 * (`kernel/webhook-rules.ts` `URL_RULE_DESCRIPTION`), the config keys, which of them are secret, and their descriptions
 * (`kernel/settings.ts`), the resource's descriptions (`kernel/provider-contract.ts` `WEBHOOK_DESCRIPTIONS`) and the package
 * version, and the names (`kernel/names.ts`: the package name, the type tokens, the SDKs' package names, the plugin's
 * download URL, the repository's and the logo's URLs, from package.json's `name` and `repository`). Served by the
 * plugin's `GetSchema`; written to `dist/schema.json` by the build (`scripts/build/schema.ts`) for SDK generation (the
 * SDKs in sdk/ are generated from it: scripts/sdk/).
 */

import { DEFAULT_CONFIG_NAMESPACE } from "../../kernel/config.js";
import { DELIVERY_TOKEN_DESCRIPTIONS, DELIVERY_TOKEN_SECRET_OUTPUTS } from "../../kernel/delivery-token-inputs.js";
import { EVENT_DESCRIPTION, EVENTS } from "../../kernel/events.js";
import {
  CLI_EXECUTABLE,
  githubRepository,
  goImportPath,
  javaBasePackage,
  logoUrl,
  nodejsSdkPackage,
  PLUGIN_EXECUTABLE,
  PULUMI_PACKAGE,
  PYTHON_PACKAGE,
  pluginDownloadUrl,
  repositoryUrl,
  WEBHOOK_EVENT_TYPE,
  WEBHOOK_TYPE,
} from "../../kernel/names.js";
import { PACKAGE_NAME, packageFacts } from "../../kernel/package-version.js";
import { WEBHOOK_DESCRIPTIONS } from "../../kernel/provider-contract.js";
import { isSecretSetting, PROVIDER_SETTING_NAMES, SETTINGS, settingDocumentation } from "../../kernel/settings.js";
import { URL_RULE_DESCRIPTION } from "../../kernel/webhook-rules.js";

/** One property of the schema (the subset this package uses). */
export interface SchemaProperty {
  type?: "string" | "integer" | "boolean";
  $ref?: string;
  description: string;
  secret?: boolean;
}

/** The schema document (the subset of Pulumi's package schema this package uses). */
export interface PackageSchema {
  name: string;
  displayName: string;
  version: string;
  pluginDownloadURL: string;
  description: string;
  keywords: string[];
  license: string;
  publisher: string;
  homepage: string;
  repository: string;
  logoUrl: string;
  config: { variables: Record<string, SchemaProperty> };
  provider: {
    description: string;
    inputProperties: Record<string, SchemaProperty>;
    properties: Record<string, SchemaProperty>;
  };
  types: Record<string, { type: "string"; description: string; enum: Array<{ value: string; name: string }> }>;
  resources: Record<
    string,
    {
      description: string;
      inputProperties: Record<string, SchemaProperty>;
      requiredInputs: string[];
      properties: Record<string, SchemaProperty>;
      required: string[];
    }
  >;
  language: Record<string, Record<string, unknown>>;
}

/** `ticket_opened` → `TicketOpened`: the enum member name SDK generators use. */
function enumName(value: string): string {
  return value.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase());
}

/**
 * Builds the schema.
 *
 * @returns the schema document; `version` is the installed package's version, `pluginDownloadURL` its release URL
 * @throws Error when the package's own package.json cannot be found (see `kernel/package-version.ts`), or its
 *   repository is not on GitHub (`kernel/names.ts` `githubRepositoryOf`)
 */
export function buildSchema(): PackageSchema {
  const configProperties: Record<string, SchemaProperty> = {};
  for (const name of PROVIDER_SETTING_NAMES) {
    configProperties[name] = {
      type: SETTINGS[name].type === "integer" ? "integer" : "string",
      description: settingDocumentation(name),
      ...(isSecretSetting(name) ? { secret: true } : {}),
    };
  }
  // Provider outputs: the plain settings only (secret ones are recorded encrypted but not offered as outputs).
  const providerOutputs = Object.fromEntries(
    Object.entries(configProperties).filter(
      ([name, property]) => !property.secret && property.type === "string" && name !== "tokenExpiresAt",
    ),
  );
  // No `replaceOnChanges`: the plugin's Diff says that a change of either replaces the webhook. As a resource option
  // (which the SDKs would add from the schema), the engine would also compare an adopted webhook's declared event and
  // url with the nothing its import read (the API has no read endpoint), and refuse the `import` option outright.
  const event: SchemaProperty = {
    $ref: `#/types/${WEBHOOK_EVENT_TYPE}`,
    description: `${EVENT_DESCRIPTION} Changing it replaces the webhook.`,
  };
  const url: SchemaProperty = {
    type: "string",
    description: `${URL_RULE_DESCRIPTION} Changing it replaces the webhook.`,
  };
  // The delivery token (kernel/delivery-token-inputs.ts): opt-in inputs; the token and the registered url are always
  // secret outputs (`secret` makes the SDKs wrap a given token and name both in additionalSecretOutputs).
  const secret = (name: string) =>
    (DELIVERY_TOKEN_SECRET_OUTPUTS as readonly string[]).includes(name) ? { secret: true } : {};
  const tokenInputs: Record<string, SchemaProperty> = {
    useDeliveryToken: { type: "boolean", description: DELIVERY_TOKEN_DESCRIPTIONS.useDeliveryToken },
    deliveryToken: {
      type: "string",
      description: DELIVERY_TOKEN_DESCRIPTIONS.deliveryToken,
      ...secret("deliveryToken"),
    },
    deliveryTokenRotation: { type: "string", description: DELIVERY_TOKEN_DESCRIPTIONS.deliveryTokenRotation },
  };
  const tokenOutputs: Record<string, SchemaProperty> = {
    ...tokenInputs,
    registeredUrl: {
      type: "string",
      description: DELIVERY_TOKEN_DESCRIPTIONS.registeredUrl,
      ...secret("registeredUrl"),
    },
  };
  // The SDKs' descriptions name the project and the plugin they run.
  const sdkOf = `the ${PACKAGE_NAME} native provider (\`${PLUGIN_EXECUTABLE}\`)`;
  return {
    name: PULUMI_PACKAGE,
    displayName: "Help desk",
    version: packageFacts().version,
    pluginDownloadURL: pluginDownloadUrl(),
    description: `Manage help-desk webhooks as code (${PACKAGE_NAME}).`,
    keywords: ["pulumi", PULUMI_PACKAGE, "webhooks", "category/utility", "kind/native"],
    license: "Apache-2.0",
    publisher: githubRepository().owner,
    homepage: repositoryUrl(),
    repository: repositoryUrl(),
    logoUrl: logoUrl(),
    config: { variables: configProperties },
    provider: {
      description:
        `The provider of help-desk resources. Without settings it reads the stack's \`${DEFAULT_CONFIG_NAMESPACE}:*\` config, which ` +
        `\`${CLI_EXECUTABLE} login\` writes; an explicit provider takes its settings as inputs (one help desk per provider).`,
      inputProperties: configProperties,
      properties: providerOutputs,
    },
    types: {
      [WEBHOOK_EVENT_TYPE]: {
        type: "string",
        description: EVENT_DESCRIPTION,
        enum: EVENTS.map((value) => ({ value, name: enumName(value) })),
      },
    },
    resources: {
      [WEBHOOK_TYPE]: {
        description: WEBHOOK_DESCRIPTIONS.resource,
        inputProperties: { event, url, ...tokenInputs },
        requiredInputs: ["event", "url"],
        properties: { event, url, state: { type: "string", description: WEBHOOK_DESCRIPTIONS.state }, ...tokenOutputs },
        required: ["event", "url", "state"],
      },
    },
    language: {
      // The Go SDK (sdk/go, generated by scripts/sdk/generate.sh): its import path comes from package.json's
      // repository (kernel/names.ts); the schema's version is written into it, so the engine knows which plugin
      // version a Go program needs.
      go: {
        importBasePath: goImportPath(),
        respectSchemaVersion: true,
      },
      // The Java SDK (sdk/java, generated by pulumi-java-gen in scripts/sdk/generate-java.sh): its Java package is
      // derived from package.json's repository (kernel/names.ts).
      java: {
        basePackage: javaBasePackage(),
      },
      // The TypeScript SDK (sdk/nodejs, generated by scripts/sdk/nodejs.sh), published as its own npm package, as
      // Pulumi's providers publish theirs: its package.json "pulumi" section makes `pulumi up` install the plugin.
      // It cannot be the package `pulumi-helpdesk` itself: that section would make programs that use only the
      // dynamic `Webhook` ask for the plugin. The build also compiles it into `pulumi-helpdesk/native` (scripts/build.sh).
      nodejs: {
        packageName: nodejsSdkPackage(),
        packageDescription: `Help-desk webhooks as code: the TypeScript/JavaScript SDK of ${sdkOf}.`,
        dependencies: { "@pulumi/pulumi": "^3.139.0" },
        respectSchemaVersion: true,
        readme:
          `Help-desk webhooks as code: the TypeScript/JavaScript SDK of ${sdkOf}, ` +
          "with `Provider` (one help desk and its credentials) and `Webhook`. `pulumi up` installs the plugin it names. " +
          `Sign in with \`${CLI_EXECUTABLE} login\` (the npm package \`${PACKAGE_NAME}\`, or the CLI in the plugin's release archive).`,
      },
      python: {
        packageName: PYTHON_PACKAGE,
        requires: { pulumi: ">=3.0.0,<4.0.0" },
        pyproject: { enabled: true },
        respectSchemaVersion: true,
        readme: `Help-desk webhooks as code: the Python SDK of ${sdkOf}.`,
      },
    },
  };
}

/**
 * @returns {@link buildSchema} as the JSON text `GetSchema` serves and the build writes (2-space indented)
 */
export function schemaJson(): string {
  return `${JSON.stringify(buildSchema(), null, 2)}\n`;
}
