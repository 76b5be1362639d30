/**
 * The Pulumi package schema of `helpdesk` (https://www.pulumi.com/docs/iac/extending-pulumi/schema/), built from the
 * project's own definitions so it cannot drift from them: the event names (`kernel/events.ts` `EVENTS`), the url rule
 * (`kernel/webhook-rules.ts` `URL_RULE_DESCRIPTION`), the config keys, which of them are secret, and their descriptions
 * (`kernel/settings.ts`), the resource's descriptions (`kernel/provider-contract.ts` `WEBHOOK_DESCRIPTIONS`) and the package
 * version and the plugin's download URL (package.json's `version` and `repository`). Served by the plugin's `GetSchema`; written to `dist/schema.json` by the build
 * (`scripts/build/schema.ts`) for SDK generation (the SDKs in sdk/ are generated from it: scripts/sdk/).
 */
import { isSecretSetting, PROVIDER_SETTING_NAMES, settingDocumentation, SETTINGS } from "../../kernel/settings.js";
import { EVENT_DESCRIPTION, EVENTS } from "../../kernel/events.js";
import { packageFacts, type PackageFacts } from "../../kernel/package-version.js";
import { WEBHOOK_DESCRIPTIONS } from "../../kernel/provider-contract.js";
import { githubRepository, githubRepositoryOf, goImportPath, type GitHubRepository } from "../../kernel/repository.js";
import { URL_RULE_DESCRIPTION } from "../../kernel/webhook-rules.js";
import { WEBHOOK_TYPE } from "./webhook.js";

/** The package name: the `helpdesk` of `helpdesk:index:Webhook` and of the stack config keys. */
export const PACKAGE = "helpdesk";
/** The schema type token of the event enum. */
export const EVENT_TYPE = "helpdesk:index:WebhookEvent";

/** One property of the schema (the subset this package uses). */
export interface SchemaProperty {
  type?: "string" | "integer";
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
  config: { variables: Record<string, SchemaProperty> };
  provider: { description: string; inputProperties: Record<string, SchemaProperty>; properties: Record<string, SchemaProperty> };
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

/**
 * The URL from which the Pulumi engine downloads the plugin when a program needs it and the plugin cache lacks it:
 * the release page of the package's GitHub repository. The engine appends the archive's name
 * (`pulumi-resource-helpdesk-v<version>-<os>-<arch>.tar.gz`) and fills in `${VERSION}` (pulumi/pulumi
 * `sdk/go/common/workspace/plugins.go`); mirrors override it with `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES`.
 *
 * @param repository package.json's `repository`: `{ "type": "git", "url": "git+https://github.com/o/r.git" }`, or a
 *   string `"https://github.com/o/r"`, `"git@github.com:o/r.git"`, `"github:o/r"` or `"o/r"` (npm's shorthands)
 * @returns e.g. `"https://github.com/o/r/releases/download/v${VERSION}/"` (with a literal `${VERSION}`)
 * @throws Error when there is no repository, or it is not on GitHub (no release URL scheme is known for it)
 */
export function pluginDownloadUrlOf(repository: PackageFacts["repository"]): string {
  const { owner, name } = githubRepositoryOf(repository);
  return `https://github.com/${owner}/${name}/releases/download/v\${VERSION}/`;
}

/**
 * @returns {@link pluginDownloadUrlOf} this package's `repository`
 * @throws Error as {@link pluginDownloadUrlOf}, and when the package's facts cannot be read (`kernel/package-version.ts`)
 */
export function pluginDownloadUrl(): string {
  return pluginDownloadUrlOf(packageFacts().repository);
}

/** Java's reserved words (JLS §3.9), which a package name's part may not be. */
const JAVA_KEYWORDS = new Set(
  ("abstract assert boolean break byte case catch char class const continue default do double else enum extends final " +
    "finally float for goto if implements import instanceof int interface long native new package private protected " +
    "public return short static strictfp super switch synchronized this throw throws transient try void volatile while " +
    "true false null _").split(" "),
);

/**
 * The Java package under which pulumi-java-gen writes the Java SDK (the schema's `language.java.basePackage`; the
 * SDK's package is `<base>.helpdesk`, also its Maven groupId). Without it the generator writes `com.pulumi.helpdesk`,
 * a namespace that is Pulumi's, not ours. Java packages start with the reversed domain of their owner (JLS §6.1): for
 * a project on GitHub, `com.github.<owner>`. Not `io.github.<owner>` (the namespace Maven Central grants GitHub
 * accounts today), because Pulumi's Java SDK (com.pulumi:pulumi 1.16.0, `PulumiPlugins`) finds a package's
 * `plugin.json` only under `com/<namespace>/<name>/` on the classpath: under `io/` the engine would not learn which
 * plugin a program needs before running it. The owner becomes a package name part as JLS §6.1 says: lower case, a
 * hyphen (or any other character an identifier cannot hold) becomes an underscore, and a part that starts with a
 * digit or is a keyword gets a leading underscore.
 *
 * @param repository the GitHub repository (package.json's `repository`, kernel/repository.ts)
 * @returns e.g. `"com.github.pulumi_helpdesk"` for the owner `pulumi-helpdesk`
 */
export function javaBasePackageOf(repository: GitHubRepository): string {
  let part = repository.owner.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  if (/^[0-9]/.test(part) || JAVA_KEYWORDS.has(part)) part = `_${part}`;
  return `com.github.${part}`;
}

/**
 * The npm name of the TypeScript SDK (the schema's `language.nodejs.packageName`): the package `helpdesk` under the
 * scope of the repository's owner, as third-party Pulumi providers name theirs (`@pulumi/<name>` is Pulumi's own
 * scope). npm scopes are lower case (npm's `validate-npm-package-name`).
 *
 * @param repository the GitHub repository (package.json's `repository`, kernel/repository.ts)
 * @returns e.g. `"@pulumi-helpdesk/helpdesk"` for the owner `pulumi-helpdesk`
 */
export function nodejsSdkPackageOf(repository: GitHubRepository): string {
  return `@${repository.owner.toLowerCase()}/${PACKAGE}`;
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
 *   repository is not on GitHub ({@link pluginDownloadUrlOf})
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
    Object.entries(configProperties).filter(([name, property]) => !property.secret && property.type === "string" && name !== "tokenExpiresAt"),
  );
  // No `replaceOnChanges`: the plugin's Diff says that a change of either replaces the webhook. As a resource option
  // (which the SDKs would add from the schema), the engine would also compare an adopted webhook's declared event and
  // url with the nothing its import read (the API has no read endpoint), and refuse the `import` option outright.
  const event: SchemaProperty = { $ref: `#/types/${EVENT_TYPE}`, description: `${EVENT_DESCRIPTION} Changing it replaces the webhook.` };
  const url: SchemaProperty = { type: "string", description: `${URL_RULE_DESCRIPTION} Changing it replaces the webhook.` };
  return {
    name: PACKAGE,
    displayName: "Help desk",
    version: packageFacts().version,
    pluginDownloadURL: pluginDownloadUrl(),
    description: "Manage help-desk webhooks as code (pulumi-helpdesk).",
    keywords: ["pulumi", "helpdesk", "webhooks", "category/utility", "kind/native"],
    license: "Apache-2.0",
    publisher: "pulumi-helpdesk",
    config: { variables: configProperties },
    provider: {
      description:
        "The provider of help-desk resources. Without settings it reads the stack's `helpdesk:*` config, which " +
        "`pulumi-helpdesk login` writes; an explicit provider takes its settings as inputs (one help desk per provider).",
      inputProperties: configProperties,
      properties: providerOutputs,
    },
    types: {
      [EVENT_TYPE]: { type: "string", description: EVENT_DESCRIPTION, enum: EVENTS.map((value) => ({ value, name: enumName(value) })) },
    },
    resources: {
      [WEBHOOK_TYPE]: {
        description: WEBHOOK_DESCRIPTIONS.resource,
        inputProperties: { event, url },
        requiredInputs: ["event", "url"],
        properties: { event, url, state: { type: "string", description: WEBHOOK_DESCRIPTIONS.state } },
        required: ["event", "url", "state"],
      },
    },
    language: {
      // The Go SDK (sdk/go, generated by scripts/sdk/generate.sh): its import path comes from package.json's
      // repository (kernel/repository.ts); the schema's version is written into it, so the engine knows which plugin
      // version a Go program needs.
      go: {
        importBasePath: goImportPath(PACKAGE),
        respectSchemaVersion: true,
      },
      // The Java SDK (sdk/java, generated by pulumi-java-gen in scripts/sdk/generate-java.sh): its Java package is
      // derived from package.json's repository ({@link javaBasePackageOf}).
      java: {
        basePackage: javaBasePackageOf(githubRepository()),
      },
      // The TypeScript SDK (sdk/nodejs, generated by scripts/sdk/nodejs.sh), published as its own npm package, as
      // Pulumi's providers publish theirs: its package.json "pulumi" section makes `pulumi up` install the plugin.
      // It cannot be the package `pulumi-helpdesk` itself: that section would make programs that use only the
      // dynamic `Webhook` ask for the plugin. The build also compiles it into `pulumi-helpdesk/native` (scripts/build.sh).
      nodejs: {
        packageName: nodejsSdkPackageOf(githubRepository()),
        packageDescription: "Help-desk webhooks as code: the TypeScript/JavaScript SDK of the pulumi-helpdesk native provider (`pulumi-resource-helpdesk`).",
        dependencies: { "@pulumi/pulumi": "^3.139.0" },
        respectSchemaVersion: true,
        readme:
          "Help-desk webhooks as code: the TypeScript/JavaScript SDK of the pulumi-helpdesk native provider (`pulumi-resource-helpdesk`), " +
          "with `Provider` (one help desk and its credentials) and `Webhook`. `pulumi up` installs the plugin it names. " +
          "Sign in with `pulumi-helpdesk login` (the npm package `pulumi-helpdesk`, or the CLI in the plugin's release archive).",
      },
      python: {
        packageName: "pulumi_helpdesk",
        requires: { "pulumi": ">=3.0.0,<4.0.0" },
        pyproject: { enabled: true },
        respectSchemaVersion: true,
        readme: "Help-desk webhooks as code: the Python SDK of the pulumi-helpdesk native provider (`pulumi-resource-helpdesk`).",
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
