/**
 * Writes the package's pages for the Pulumi Registry, as its publishing guide asks of a package repository
 * (pulumi/docs `content/docs/iac/guides/building-extending/packages/publishing-packages.md`): `docs/_index.md`, the
 * Overview tab (front matter `title` = the schema's `displayName`, `meta_desc`, `layout: package`; installation per
 * language, an overview, an example per language), and `docs/installation-configuration.md`, the Installation &
 * Configuration tab (titled `<displayName> Installation & Configuration`: install per language, sign-in, every setting).
 *
 * Every fact on them is taken from its home, so the pages cannot drift: the names (`kernel/names.ts`), the settings
 * table (`kernel/settings.ts` `SETTINGS`, its config keys from `kernel/config.ts`, `login`'s flags from
 * `cli/shared/settings.ts`), the schema (`provider/native/schema.ts`: display name, descriptions, events, version), the
 * release's file names (`scripts/release/`), the Java SDK's Maven coordinates (`sdk/java/pom.xml`) and the example
 * programs (`examples/`, shown as they are). tests/repo/registry-pages.test.ts renders them from the sources and fails
 * while the committed pages differ: after a change to any of those, run
 *
 *   npm run build && node scripts/docs/registry-pages.ts
 *
 * Node runs this file directly (type stripping); it takes the project's modules from the build (dist/), since the
 * sources import each other by `.js` names that Node does not map to `.ts` files. {@link registryPages} itself takes
 * them as arguments, so the test can hand it the sources.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CLIENT_SETTING_NAMES } from "../../cli/shared/settings.js";
import type * as Config from "../../kernel/config.js";
import type * as Names from "../../kernel/names.js";
import type * as PackageVersion from "../../kernel/package-version.js";
import type * as Published from "../../kernel/published.js";
import { required } from "../../kernel/required.ts";
import type * as Settings from "../../kernel/settings.js";
import type { PackageSchema } from "../../provider/native/schema.js";
import { BUILDABLE_TARGETS, RELEASE_TARGETS, ROOT } from "../release/executable.ts";
import { nodejsSdkTarball } from "../release/nodejs-sdk.ts";
import { pythonArtefactNames } from "../release/python.ts";
import { archiveEntries, archiveName } from "../release/release.ts";
import { publishedSentence } from "./published.ts";

/** The project's modules the pages are written from: the sources (in the test) or their build. */

export interface PageSources {
  /** `buildSchema()` of provider/native/schema.ts */
  schema: PackageSchema;
  names: typeof Names;
  settings: typeof Settings;
  config: typeof Config;
  packageVersion: typeof PackageVersion;
  /** which version the registries hold (`PUBLISHED_VERSION`) */
  published: typeof Published;
  /** `login`'s flag of each client setting (cli/shared/settings.ts `CLIENT_SETTING_NAMES`, each `settingFlag` of kernel/settings.ts) */
  clientFlags: Readonly<Partial<Record<(typeof CLIENT_SETTING_NAMES)[number], string>>>;
}

/**
 * `login`'s flag of each client setting.
 *
 * @param names cli/shared/settings.ts `CLIENT_SETTING_NAMES`
 * @param flagOf kernel/settings.ts `settingFlag`
 * @returns e.g. `{ baseUrl: "--base-url", ... }`
 */
export function clientFlagsOf<Name extends string>(
  names: readonly Name[],
  flagOf: (name: Name) => string,
): Readonly<Record<Name, string>> {
  return Object.fromEntries(names.map((name) => [name, flagOf(name)])) as Record<Name, string>;
}

/** The pages, by file name under docs/. */
export type RegistryPages = Record<"_index.md" | "installation-configuration.md", string>;

/** Where the generated Java SDK is (scripts/sdk/generate-java.sh writes it there): users install it from a clone. */
const JAVA_SDK_DIR = "sdk/java";

/** The example programs, one per language, in the order the pages show them: Hugo's chooser language, file, code fence. */
const EXAMPLES = [
  { language: "typescript", file: "examples/typescript/index.ts", fence: "typescript" },
  { language: "python", file: "examples/python/__main__.py", fence: "python" },
  { language: "go", file: "examples/go/main.go", fence: "go" },
  { language: "java", file: "examples/java/src/main/java/helpdeskexample/App.java", fence: "java" },
  { language: "yaml", file: "examples/yaml/Pulumi.yaml", fence: "yaml" },
] as const;

/**
 * The Pulumi program of the Go example: its `program` function and the comment above it. The rest of main.go runs it
 * inline with the Automation API, which the page points to rather than shows.
 *
 * @param source main.go's text
 * @returns the function's lines
 * @throws Error when main.go has no top-level `func program(` ending in a line `}`
 */
export function goProgramOf(source: string): string {
  const lines = source.split("\n");
  let start = lines.findIndex((line) => line.startsWith("func program("));
  const end = lines.findIndex((line, index) => index > start && line === "}");
  if (start < 0 || end < 0)
    throw new Error(
      "examples/go/main.go has no top-level `func program(...)` ending in a line `}`: the registry page shows that function",
    );
  while (start > 0 && lines[start - 1]?.startsWith("//")) start--;
  return lines.slice(start, end + 1).join("\n");
}

/**
 * Maven's coordinates of the Java SDK, as its generated pom.xml states them (scripts/sdk/generate-java.sh).
 *
 * @param pom sdk/java/pom.xml's text
 * @returns e.g. `"io.github.pulumi-helpdesk:helpdesk"` (kernel/names.ts `mavenCoordinates`)
 * @throws Error when the pom has no project `groupId` or `artifactId` after its `modelVersion`
 */
export function javaCoordinatesOf(pom: string): string {
  const project =
    /<modelVersion>[^<]*<\/modelVersion>\s*<groupId>([^<]+)<\/groupId>\s*<artifactId>([^<]+)<\/artifactId>/.exec(pom);
  if (!project)
    throw new Error(
      "sdk/java/pom.xml names no groupId and artifactId after its modelVersion: run scripts/sdk/generate-java.sh",
    );
  return `${project[1]}:${project[2]}`;
}

/** A table cell: no line breaks, pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");
}

/** A fenced code block. */
function fenced(language: string, code: string): string {
  return `\`\`\`${language}\n${code.replace(/\n+$/, "")}\n\`\`\``;
}

/** The front matter: the generator's note, then the fields the Registry reads. */
function frontMatter(title: string, metaDesc: string): string {
  return [
    "---",
    "# Written by scripts/docs/registry-pages.ts from the package's schema, names, settings and examples: do not edit by",
    "# hand. tests/repo/registry-pages.test.ts fails while this file differs from what the script writes.",
    `title: ${JSON.stringify(title)}`,
    `meta_desc: ${JSON.stringify(metaDesc)}`,
    "layout: package",
    "---",
  ].join("\n");
}

/**
 * The table of every setting, one row each of `kernel/settings.ts` `SETTINGS`: its config key, environment variable,
 * secretness, default, whether a provider takes it, what `login` does with it, and its description. The one statement
 * of the table: the registry's Installation & Configuration page and the README (scripts/docs/readme.ts) show it.
 *
 * @param sources the homes (only `settings`, `config`, `names` and `clientFlags` are read)
 * @returns the Markdown table's lines
 */
export function settingsTable(sources: Pick<PageSources, "settings" | "config" | "names" | "clientFlags">): string[] {
  const { settings, config, names, clientFlags } = sources;
  const row = (name: Settings.SettingName): string => {
    const spec: Settings.SettingSpec = settings.SETTINGS[name];
    const defaultValue =
      spec.default === undefined ? "none" : `${spec.default}${spec.range?.unit ? ` ${spec.range.unit}` : ""}`;
    const flag = (clientFlags as Readonly<Record<string, string>>)[name];
    const login =
      [spec.writtenByLogin ? "writes it" : "", flag ? `takes \`${flag}\`` : ""].filter(Boolean).join("; ") || "no";
    return `| \`${config.CONFIG_KEYS[name]}\` | ${spec.env ? `\`${spec.env}\`` : "none"} | ${spec.secret ? "yes" : "no"} | ${defaultValue} | ${spec.provider ? "yes" : "no"} | ${login} | ${cell(settings.settingDocumentation(name))} |`;
  };
  return [
    `| Config key | Environment variable | Secret | Default | Provider input | \`${names.CLI_EXECUTABLE} login\` | Description |`,
    "|---|---|---|---|---|---|---|",
    ...settings.SETTING_NAMES.map(row),
  ];
}

/**
 * Renders both pages.
 *
 * @param sources the project's modules (see {@link PageSources})
 * @param root the repository, whose examples/ and sdk/java/pom.xml are read (default: this one)
 * @returns the pages' texts, each ending in a newline
 * @throws Error when an example or the Java SDK's pom.xml is missing or not as {@link goProgramOf} and
 *   {@link javaCoordinatesOf} expect, or when sdk/nodejs/package.json is missing
 */
export function registryPages(sources: PageSources, root: string = ROOT): RegistryPages {
  const { schema, names, settings, config, packageVersion, published, clientFlags } = sources;
  const version = schema.version;
  const repository = names.repositoryUrl();
  const cli = names.CLI_EXECUTABLE;
  const npmPackage = packageVersion.PACKAGE_NAME;
  const nodejsSdk = names.nodejsSdkPackage();
  const javaCoordinates = javaCoordinatesOf(readFileSync(join(root, JAVA_SDK_DIR, "pom.xml"), "utf8"));
  const python = pythonArtefactNames(version);
  const nodejsTarball = nodejsSdkTarball(version);
  const linuxArchive = archiveName(version, { os: "linux", arch: "x64" });
  // The archives that hold the CLI beside the plugin (Windows's holds the plugin only: release.ts archiveEntries).
  const withCli = RELEASE_TARGETS.filter((target) => archiveEntries(target).includes(cli)).map(
    (target) => `\`${archiveName(version, target)}\``,
  );
  // And those that hold the policy pack's name (the same archives today; found apart, so the page follows release.ts).
  const withAnalyzer = RELEASE_TARGETS.filter((target) =>
    archiveEntries(target).includes(names.ANALYZER_EXECUTABLE),
  ).map((target) => `\`${archiveName(version, target)}\``);
  // `npm pack`'s name for the unscoped package.
  const npmTarball = `${npmPackage}-${version}.tgz`;
  const goTag = `${names.GO_SDK_DIR}/${names.releaseTag(version)}`;
  const installationPage = `/registry/packages/${names.PULUMI_PACKAGE}/installation-configuration/`;
  const onRegistries = published.PUBLISHED_VERSION === version;
  const publication = publishedSentence({
    version,
    published: published.PUBLISHED_VERSION,
    names,
    packageName: npmPackage,
  });

  const webhook = required(schema.resources[names.WEBHOOK_TYPE], `the schema's resource ${names.WEBHOOK_TYPE}`);
  const events = required(schema.types[names.WEBHOOK_EVENT_TYPE], `the schema's type ${names.WEBHOOK_EVENT_TYPE}`);
  const index = [
    frontMatter(schema.displayName, schema.description),
    "",
    "## Installation",
    "",
    `The ${schema.displayName} provider (Pulumi package \`${names.PULUMI_PACKAGE}\`, plugin \`${names.PLUGIN_EXECUTABLE}\`) is available as a package in these Pulumi languages:`,
    "",
    `* JavaScript/TypeScript: \`${nodejsSdk}\``,
    `* Python: \`${names.PYTHON_PACKAGE}\``,
    `* Go: \`${names.goImportPath()}\``,
    `* Java: \`${javaCoordinates}\``,
    "* YAML: no package; the program names the plugin",
    "",
    `${publication} See [Installation & Configuration](${installationPage}).`,
    "",
    "## Overview",
    "",
    `${schema.description} ${schema.provider.description}`,
    "",
    `\`${names.WEBHOOK_TYPE}\`: ${webhook.description}`,
    "",
    `${events.description} The events: ${events.enum.map((member) => `\`${member.value}\``).join(", ")}.`,
    "",
    `Paths such as \`docs/helpdesk-api.md\` name files of [the repository](${repository}).`,
    "",
    "## Example",
    "",
    "One webhook on the help desk of the default provider, and one on a second help desk through an explicit provider:",
    `the example programs of the repository's \`examples/\`. The Go one is the \`program\` function of \`examples/go/main.go\`,`,
    "which runs it inline with the Automation API.",
    "",
    `{{< chooser language "${EXAMPLES.map((example) => example.language).join(",")}" >}}`,
    ...EXAMPLES.flatMap((example) => {
      const source = readFileSync(join(root, example.file), "utf8");
      return [
        `{{% choosable language ${example.language} %}}`,
        "",
        fenced(example.fence, example.language === "go" ? goProgramOf(source) : source),
        "",
        "{{% /choosable %}}",
      ];
    }),
    "{{< /chooser >}}",
    "",
  ].join("\n");

  const secretSettings = settings.SECRET_SETTING_NAMES.map((name) => `\`${name}\``).join(", ");

  const installation = [
    frontMatter(
      `${schema.displayName} Installation & Configuration`,
      `How to install the ${schema.displayName} provider, sign in to a help desk and configure the provider.`,
    ),
    "",
    "## Installation",
    "",
    publication,
    "",
    `What the release holds (the files of the GitHub release \`${names.releaseTag(version)}\`${onRegistries ? "" : " once published"}, and of \`npm run release\` but ${RELEASE_TARGETS.filter(
      (target) => !BUILDABLE_TARGETS.includes(target),
    )
      .map((target) => `\`${archiveName(version, target)}\``)
      .join(", ")}, which only the release workflow's macOS job builds):`,
    "",
    `* ${RELEASE_TARGETS.map((target) => `\`${archiveName(version, target)}\``).join(", ")}: the plugin as Pulumi installs it; ${withCli.join(" and ")} also hold the CLI \`${cli}\`${withAnalyzer.join() === withCli.join() ? " and" : `, ${withAnalyzer.join(" and ")}`} the policy pack \`${names.ANALYZER_EXECUTABLE}\` (the same executable under other names, no Node.js needed)`,
    `* \`${nodejsTarball}\`: the TypeScript SDK \`${nodejsSdk}\``,
    `* \`${python.wheel}\` and \`${python.sdist}\`: the Python SDK \`${names.PYTHON_PACKAGE}\``,
    `* \`${npmTarball}\`: the npm package \`${npmPackage}\` (\`npm install ./${npmTarball}\` in the program's folder): the CLI on Node.js (\`npx ${cli}\`), the policy pack's folder, and a dynamic \`Webhook\` for TypeScript programs with one help desk per stack`,
    "* `SHA256SUMS` of all of them",
    "",
    "### The plugin",
    "",
    `The SDKs name the plugin, its version and its download URL (\`${schema.pluginDownloadURL}\`), so \`pulumi up\` downloads it into the plugin cache${onRegistries ? "" : " once the release is published there"}. ${onRegistries ? "From a copy of the release's files" : "Until then"}, check the archive against \`SHA256SUMS\` (it prints \`OK\`, or \`FAILED\` and installs nothing; \`pulumi plugin install --file\` ignores \`--checksum\`) and install it:`,
    "",
    fenced(
      "bash",
      `grep '  ${linuxArchive}$' SHA256SUMS | sha256sum -c - &&\n  pulumi plugin install resource ${names.PULUMI_PACKAGE} ${version} --file ${linuxArchive}`,
    ),
    "",
    "### Node.js (JavaScript/TypeScript)",
    "",
    fenced("bash", onRegistries ? `npm install ${nodejsSdk}` : `npm install ./${nodejsTarball}`),
    "",
    "### Python",
    "",
    fenced("bash", onRegistries ? `pip install ${names.PYTHON_PACKAGE}` : `pip install ./${python.wheel}`),
    "",
    "### Go",
    "",
    fenced("bash", `go get ${names.goModulePath()}@${names.releaseTag(version)}`),
    "",
    onRegistries
      ? `The module's tag is \`${goTag}\`, Go's form for a module in a subfolder.`
      : `This resolves once the repository is published with the tag \`${goTag}\`. Until then, point your module at the \`${names.GO_SDK_DIR}\` folder of a clone: \`go mod edit -replace ${names.goModulePath()}=<clone>/${names.GO_SDK_DIR}\`.`,
    "",
    "### Java",
    "",
    ...(onRegistries
      ? [
          `Depend on \`${javaCoordinates}:${version}\` in the program's \`pom.xml\`; Maven downloads it from Maven Central.`,
        ]
      : [
          fenced("bash", `mvn install -f ${JAVA_SDK_DIR}   # in a clone of the repository`),
          "",
          `Then depend on \`${javaCoordinates}:${version}\` in the program's \`pom.xml\`.`,
        ]),
    "",
    "### YAML",
    "",
    `No package: the program names the plugin, with the resource options \`version: ${version}\` and \`pluginDownloadURL\` on each resource of the package (a \`plugins:\` entry of \`Pulumi.yaml\` names a local folder, not a download URL).`,
    "",
    "## Sign-in",
    "",
    `\`${cli} login\` signs a stack in to a help desk with its OAuth 2.0 authorization-code flow and writes the settings so marked below into the stack's config, the secret ones (${secretSettings}) as Pulumi secrets:`,
    "",
    fenced(
      "bash",
      `${cli} login --stack dev ${settings.LOGIN_SETTING_NAMES.filter(
        (name) => name in clientFlags && !settings.SETTINGS[name].secret,
      )
        .map((name) => `${(clientFlags as Readonly<Record<string, string>>)[name]} <${name}>`)
        .join(" ")}`,
    ),
    "",
    `Give the client secret through \`${settings.SETTINGS.clientSecret.env}\` rather than a flag (flags show in process lists). The CLI is \`${cli}\` in the plugin archives above, or \`npx ${cli}\` with the npm package \`${npmPackage}\`. With \`--namespace <ns>\`, \`login\` writes the same settings as \`<ns>:*\`, for an explicit provider (\`Provider\` in the SDKs, \`${names.PROVIDER_TYPE}\` in YAML) that takes them as inputs: one program, several help desks.`,
    "",
    "## Configuration",
    "",
    `The default provider reads the stack's \`${config.DEFAULT_CONFIG_NAMESPACE}:*\` config; an explicit provider takes the same settings as inputs. Every setting:`,
    "",
    ...settingsTable(sources),
    "",
  ].join("\n");

  return { "_index.md": index, "installation-configuration.md": installation };
}

/**
 * @returns the project's modules from the build (dist/), for running this file with Node
 * @throws Error when dist/ is missing (run `npm run build`)
 */
export async function sourcesFromBuild(): Promise<PageSources> {
  const dist = (module: string): string => new URL(`../../dist/${module}.js`, import.meta.url).href;
  const { buildSchema } = (await import(dist("provider/native/schema"))) as { buildSchema: () => PackageSchema };
  const settings = (await import(dist("kernel/settings"))) as typeof Settings;
  return {
    schema: buildSchema(),
    names: (await import(dist("kernel/names"))) as typeof Names,
    settings,
    config: (await import(dist("kernel/config"))) as typeof Config,
    packageVersion: (await import(dist("kernel/package-version"))) as typeof PackageVersion,
    published: (await import(dist("kernel/published"))) as typeof Published,
    clientFlags: clientFlagsOf(
      ((await import(dist("cli/shared/settings"))) as { CLIENT_SETTING_NAMES: typeof CLIENT_SETTING_NAMES })
        .CLIENT_SETTING_NAMES,
      settings.settingFlag,
    ),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pages = registryPages(await sourcesFromBuild());
  for (const [file, text] of Object.entries(pages)) {
    writeFileSync(join(ROOT, "docs", file), text);
    console.error(`registry page: docs/${file}`);
  }
}
