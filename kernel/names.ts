/**
 * Every name pulumi-helpdesk goes by, in one place, derived from package.json: its `name` (`pulumi-helpdesk`, which
 * `kernel/package-version.ts` {@link PACKAGE_NAME} finds the package by) and its `repository` (read by
 * `packageFacts`, or built into the release executable), by Pulumi's conventions:
 *
 * - the Pulumi package name ({@link PULUMI_PACKAGE}, `helpdesk`): package.json's name without the `pulumi-` that
 *   Pulumi's providers put before their package name in their repositories' and packages' names (`pulumi-aws` for
 *   `aws`). It is the type tokens' package (`helpdesk:index:Webhook`, `pulumi:providers:helpdesk`), the default
 *   config namespace (`helpdesk:baseUrl`), the plugin's name (`pulumi-resource-helpdesk`) and the SDKs' package
 *   names (`pulumi_helpdesk`, `@<owner>/helpdesk`, `.../sdk/go/helpdesk`, `<base>.helpdesk`);
 * - the executables: the CLI `pulumi-helpdesk` (package.json's `bin`), the plugin `pulumi-resource-helpdesk` and the
 *   policy pack `pulumi-analyzer-helpdesk`, and the policy pack's name `helpdesk`;
 * - from the repository (GitHub only: Go resolves a `github.com/<owner>/<name>/...` module path from the repository
 *   itself, and release downloads follow GitHub's URL scheme): the Go module path, the npm scope, the Java package and
 *   the Maven coordinates of the SDKs, the plugin's download URL, the repository's and the logo's URLs.
 *
 * Constants are computed when this module loads (they need only the package's name); what comes from the repository
 * is computed when asked for, since reading it can fail.
 * @home the package's names derived from the npm name (Pulumi package, type tokens, Python, Go and Java names, Maven coordinates, executables, download URL)
 */
import { PACKAGE_NAME, type PackageFacts, packageFacts } from "./package-version.js";

/** The Pulumi package name within an npm package name of the form `pulumi-<package>`. */
type PulumiPackageOf<N extends string> = N extends `pulumi-${infer P}` ? P : never;

/**
 * @param npmName package.json's name, e.g. `"pulumi-helpdesk"`
 * @returns the Pulumi package name, e.g. `"helpdesk"`
 * @throws Error when the name is not `pulumi-` followed by a lower-case letter and lower-case letters or digits (a
 *   Pulumi package name that is also a Python identifier and a Go package name, as `pulumi_<package>` and
 *   `sdk/go/<package>` need)
 */
function pulumiPackageOf<N extends string>(npmName: N): PulumiPackageOf<N> {
  const match = /^pulumi-([a-z][a-z0-9]*)$/.exec(npmName);
  if (!match)
    throw new Error(
      `package.json's name ${JSON.stringify(npmName)} is not pulumi-<package> (lower-case letters and digits): the Pulumi package name is derived from it`,
    );
  return match[1] as PulumiPackageOf<N>;
}

/** The Pulumi package name, `helpdesk`: the package of the type tokens, the plugin and the SDKs, and the default config namespace. */
export const PULUMI_PACKAGE = pulumiPackageOf(PACKAGE_NAME);

/** The native resource's type token (the schema's `resources`): `helpdesk:index:Webhook`. */
export const WEBHOOK_TYPE = `${PULUMI_PACKAGE}:index:Webhook` as const;
/** The schema type token of the event enum: `helpdesk:index:WebhookEvent`. */
export const WEBHOOK_EVENT_TYPE = `${PULUMI_PACKAGE}:index:WebhookEvent` as const;
/** The type token of the package's provider resource, as the engine names it: `pulumi:providers:helpdesk`. */
export const PROVIDER_TYPE = `pulumi:providers:${PULUMI_PACKAGE}` as const;

/** The module under which the dynamic `Webhook` registers its type (`dynamic.Resource`'s `module` argument). */
export const DYNAMIC_MODULE = PULUMI_PACKAGE;
/** The dynamic `Webhook`'s type name within {@link DYNAMIC_MODULE}. */
export const DYNAMIC_WEBHOOK_NAME = "Webhook";
/** The dynamic `Webhook`'s type token, as `@pulumi/pulumi` makes it: `pulumi-nodejs:dynamic/helpdesk:Webhook`. */
export const DYNAMIC_WEBHOOK_TYPE = `pulumi-nodejs:dynamic/${DYNAMIC_MODULE}:${DYNAMIC_WEBHOOK_NAME}` as const;

/** The CLI's name: package.json's `bin` names it after the package, `pulumi-helpdesk`. */
export const CLI_EXECUTABLE = PACKAGE_NAME;
/** The plugin's name, as Pulumi runs the resource plugin of a package (`pulumi-resource-<package>`): `pulumi-resource-helpdesk`. */
export const PLUGIN_EXECUTABLE = `pulumi-resource-${PULUMI_PACKAGE}` as const;

/**
 * The policy pack's executable name, as Pulumi names an analyzer plugin (`pulumi-analyzer-<name>`, pulumi/pulumi
 * `sdk/go/common/workspace/plugins.go`): `pulumi-analyzer-helpdesk`. The release's executable is the policy pack
 * under this name (`bin/release.ts`), which `pulumi preview --policy-pack <folder>/pulumi-analyzer-helpdesk` runs.
 */
export const ANALYZER_EXECUTABLE = `pulumi-analyzer-${PULUMI_PACKAGE}` as const;

/**
 * The policy pack's name, as `pulumi preview` shows it beside each violation (`helpdesk@v<version>`, the package's
 * version), and the name both shipping forms serve their policies under (`policy/`): the Pulumi package name, `helpdesk`.
 */
export const POLICY_PACK = PULUMI_PACKAGE;

/**
 * The plugin executable's file name on a platform: Windows finds programs by their `.exe`, and so does Pulumi's
 * search for a plugin there.
 *
 * @param platform a Node.js platform name (`process.platform`), e.g. `"linux"`, `"win32"`
 * @returns `pulumi-resource-helpdesk`, or `pulumi-resource-helpdesk.exe` on `win32`
 */
export function pluginExecutableFile(platform: NodeJS.Platform): string {
  return platform === "win32" ? `${PLUGIN_EXECUTABLE}.exe` : PLUGIN_EXECUTABLE;
}

/**
 * The folder of Pulumi's plugin cache (`$PULUMI_HOME/plugins/`) that holds the plugin at a version (pulumi/pulumi
 * `sdk/go/common/workspace/plugins.go`: `<kind>-<name>-v<version>`).
 *
 * @param version e.g. `"0.1.0"`
 * @returns e.g. `"resource-helpdesk-v0.1.0"`
 */
export function pluginCacheFolder(version: string): string {
  return `resource-${PULUMI_PACKAGE}-v${version}`;
}

/** The Python SDK's package and distribution name, as Pulumi's providers name theirs (`pulumi_<package>`): `pulumi_helpdesk`. */
export const PYTHON_PACKAGE = `pulumi_${PULUMI_PACKAGE}` as const;

/** A GitHub repository, as `https://github.com/<owner>/<name>` names it. */
export interface GitHubRepository {
  owner: string;
  name: string;
}

/**
 * Reads the GitHub owner and name out of package.json's `repository`.
 *
 * @param repository package.json's `repository`: `{ "type": "git", "url": "git+https://github.com/o/r.git" }`, or a
 *   string `"https://github.com/o/r"`, `"git@github.com:o/r.git"`, `"github:o/r"` or `"o/r"` (npm's shorthands)
 * @returns `{ owner: "o", name: "r" }` (a trailing `.git` dropped)
 * @throws Error when there is no repository, or it is not on GitHub
 */
export function githubRepositoryOf(repository: PackageFacts["repository"]): GitHubRepository {
  const given = typeof repository === "string" ? repository : repository?.url;
  if (!given)
    throw new Error(
      "package.json has no repository: the Go module path and the plugin's download URL are derived from it",
    );
  const shorthand = /^(?:github:)?([\w.-]+)\/([\w.-]+)$/.exec(given);
  const url = /^(?:git\+)?(?:https?|ssh|git):\/\/(?:[^@/]+@)?github\.com\/([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(
    given,
  );
  const scp = /^git@github\.com:([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(given);
  const [, owner, name] = shorthand ?? url ?? scp ?? [];
  if (owner === undefined || name === undefined)
    throw new Error(
      `package.json's repository ${JSON.stringify(given)} is not a GitHub repository: the Go module path and the plugin's download URL cannot be derived from it`,
    );
  return { owner, name: name.replace(/\.git$/, "") };
}

/**
 * @returns {@link githubRepositoryOf} this package's `repository`
 * @throws Error as {@link githubRepositoryOf}, and when the package's facts cannot be read (`kernel/package-version.ts`)
 */
export function githubRepository(): GitHubRepository {
  return githubRepositoryOf(packageFacts().repository);
}

/**
 * The repository's web page (the schema's `repository` and `homepage`: the project has no other site).
 *
 * @param repository default: this package's
 * @returns e.g. `"https://github.com/pulumi-helpdesk/pulumi-helpdesk"`
 * @throws Error as {@link githubRepositoryOf}
 */
export function repositoryUrl(repository: GitHubRepository = githubRepository()): string {
  return `https://github.com/${repository.owner}/${repository.name}`;
}

/**
 * The git tag of a release: the tag whose GitHub release holds the plugin archives, and at which the Pulumi Registry
 * reads a package's files.
 *
 * @param version e.g. `"0.1.0"`, or the engine's placeholder {@link PLUGIN_VERSION_PLACEHOLDER}
 * @returns e.g. `"v0.1.0"`
 */
export function releaseTag(version: string): string {
  return `v${version}`;
}

/**
 * The signature bundle of the release's `SHA256SUMS` on its GitHub release: the release workflow signs `SHA256SUMS`
 * keylessly with cosign into it (`cosign sign-blob --bundle`, scripts/ci/sign-sums.sh), and users check it with
 * `cosign verify-blob --bundle` (the README's verify commands).
 */
export const SUMS_SIGNATURE = "SHA256SUMS.sigstore.json";

/** The package's logo, an SVG file of the repository (what the Pulumi Registry shows beside the package's name). */
export const LOGO_FILE = "docs/logo.svg";

/**
 * The web address of {@link LOGO_FILE} at the release tag of a version ({@link releaseTag}), as GitHub serves a raw
 * file: the schema's `logoUrl`, which the Pulumi Registry shows (its publishing guide asks for an SVG in the package's
 * repository). It resolves once that tag is pushed to GitHub.
 *
 * @param version the package version, default this package's (package.json's)
 * @param repository default: this package's
 * @returns e.g. `"https://raw.githubusercontent.com/pulumi-helpdesk/pulumi-helpdesk/v0.1.0/docs/logo.svg"`
 * @throws Error as {@link githubRepositoryOf}
 */
export function logoUrl(
  version: string = packageFacts().version,
  repository: GitHubRepository = githubRepository(),
): string {
  return `https://raw.githubusercontent.com/${repository.owner}/${repository.name}/${releaseTag(version)}/${LOGO_FILE}`;
}

/**
 * The URL from which the Pulumi engine downloads the plugin when a program needs it and the plugin cache lacks it:
 * the release page of the package's GitHub repository. The engine appends the archive's name
 * (`pulumi-resource-helpdesk-v<version>-<os>-<arch>.tar.gz`) and fills in `${VERSION}` (pulumi/pulumi
 * `sdk/go/common/workspace/plugins.go`); mirrors override it with `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES`.
 *
 * @param repository package.json's `repository`, in any form {@link githubRepositoryOf} reads
 * @returns e.g. `"https://github.com/o/r/releases/download/v${VERSION}/"` (with a literal `${VERSION}`)
 * @throws Error when there is no repository, or it is not on GitHub (no release URL scheme is known for it)
 */
export function pluginDownloadUrlOf(repository: PackageFacts["repository"]): string {
  return `${repositoryUrl(githubRepositoryOf(repository))}/releases/download/${releaseTag(PLUGIN_VERSION_PLACEHOLDER)}/`;
}

/**
 * The placeholder in {@link pluginDownloadUrlOf}'s URL that the Pulumi engine replaces with the plugin's version
 * (pulumi/pulumi `sdk/go/common/workspace/plugins.go`): a literal `${VERSION}` in the schema and the SDKs.
 */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the engine's literal placeholder, not a template of ours
export const PLUGIN_VERSION_PLACEHOLDER = "${VERSION}";

/**
 * @returns {@link pluginDownloadUrlOf} this package's `repository`
 * @throws Error as {@link pluginDownloadUrlOf}, and when the package's facts cannot be read (`kernel/package-version.ts`)
 */
export function pluginDownloadUrl(): string {
  return pluginDownloadUrlOf(packageFacts().repository);
}

/**
 * The download URL of one version of the plugin, as the engine makes it of {@link pluginDownloadUrl}: the
 * placeholder filled in. What a resource option `pluginDownloadURL` names (the declarations `import` and `migrate`
 * print), and where a mirror's folder stands for.
 *
 * @param version e.g. `"0.3.0"`
 * @param repository package.json's `repository`, in any form {@link githubRepositoryOf} reads; default this package's
 * @returns e.g. `"https://github.com/o/r/releases/download/v0.3.0/"`
 * @throws Error as {@link pluginDownloadUrlOf}, and when the package's facts cannot be read (`kernel/package-version.ts`)
 */
export function pluginDownloadUrlFor(
  version: string,
  repository: PackageFacts["repository"] = packageFacts().repository,
): string {
  return pluginDownloadUrlOf(repository).replaceAll(PLUGIN_VERSION_PLACEHOLDER, version);
}

/** Where the generated Go SDK lives in the repository: its `go.mod` is there, its package in `<GO_SDK_DIR>/<package>`. */
export const GO_SDK_DIR = "sdk/go";

/**
 * The Go module path of the generated Go SDK (what `go get` takes): the repository's path under `github.com` followed
 * by {@link GO_SDK_DIR}, as Pulumi's Go code generator lays out a module in `sdk/go` (its `go.mod` one level above
 * the package).
 *
 * @param repository default: this package's
 * @returns e.g. `"github.com/pulumi-helpdesk/pulumi-helpdesk/sdk/go"`
 * @throws Error as {@link githubRepositoryOf}
 */
export function goModulePath(repository: GitHubRepository = githubRepository()): string {
  return `github.com/${repository.owner}/${repository.name}/${GO_SDK_DIR}`;
}

/**
 * The import path of the Go SDK's package (the schema's `language.go.importBasePath`): the module path and the
 * Pulumi package name, also the Go package's name and folder.
 *
 * @param repository default: this package's
 * @returns e.g. `"github.com/pulumi-helpdesk/pulumi-helpdesk/sdk/go/helpdesk"`
 * @throws Error as {@link githubRepositoryOf}
 */
export function goImportPath(repository: GitHubRepository = githubRepository()): string {
  return `${goModulePath(repository)}/${PULUMI_PACKAGE}`;
}

/**
 * The npm name of the TypeScript SDK (the schema's `language.nodejs.packageName`): the Pulumi package under the scope
 * of the repository's owner, as third-party Pulumi providers name theirs (`@pulumi/<name>` is Pulumi's own scope).
 * npm scopes are lower case (npm's `validate-npm-package-name`).
 *
 * @param repository default: this package's
 * @returns e.g. `"@pulumi-helpdesk/helpdesk"` for the owner `pulumi-helpdesk`
 * @throws Error as {@link githubRepositoryOf}
 */
export function nodejsSdkPackage(repository: GitHubRepository = githubRepository()): string {
  return `@${repository.owner.toLowerCase()}/${PULUMI_PACKAGE}`;
}

/** Java's reserved words (JLS §3.9), which a package name's part may not be. */
const JAVA_KEYWORDS = new Set(
  (
    "abstract assert boolean break byte case catch char class const continue default do double else enum extends final " +
    "finally float for goto if implements import instanceof int interface long native new package private protected " +
    "public return short static strictfp super switch synchronized this throw throws transient try void volatile while " +
    "true false null _"
  ).split(" "),
);

/**
 * The Java package under which pulumi-java-gen writes the Java SDK (the schema's `language.java.basePackage`; the
 * SDK's package is `<base>.helpdesk`; its Maven groupId is another name, {@link mavenGroupId}). Without it the
 * generator writes `com.pulumi.helpdesk`, a namespace that is Pulumi's, not ours. Java packages start with the
 * reversed domain of their owner (JLS §6.1): for a project on GitHub, `com.github.<owner>`. Not `io.github.<owner>`
 * (the namespace Maven Central grants GitHub accounts today, which the groupId uses), because Pulumi's Java SDK
 * (com.pulumi:pulumi 1.16.0, `PulumiPlugins`) finds a package's `plugin.json` only under `com/<namespace>/<name>/`
 * on the classpath: under `io/` the engine would not learn which plugin a program needs before running it. The owner
 * becomes a package name part as JLS §6.1 says: lower case, a hyphen (or any other character an identifier cannot
 * hold) becomes an underscore, and a part that starts with a digit or is a keyword gets a leading underscore.
 *
 * @param repository default: this package's
 * @returns e.g. `"com.github.pulumi_helpdesk"` for the owner `pulumi-helpdesk`
 * @throws Error as {@link githubRepositoryOf}
 */
export function javaBasePackage(repository: GitHubRepository = githubRepository()): string {
  let part = repository.owner.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  if (/^[0-9]/.test(part) || JAVA_KEYWORDS.has(part)) part = `_${part}`;
  return `com.github.${part}`;
}

/**
 * The Maven groupId of the Java SDK (its pom.xml, written by scripts/sdk/generate-java.sh; what a user's pom.xml
 * depends on): `io.github.<owner>`, the namespace Maven Central grants the owner of a GitHub account or
 * organisation (Sonatype's Central Portal documentation, "Register a Namespace" and "Choose your coordinates": GitHub
 * Pages gives `<owner>` the domain `<owner>.github.io`, whose reversal Central verifies; `com.github.*` is no longer
 * granted). A groupId names who publishes, not the classes: it is independent of the Java package, which stays
 * {@link javaBasePackage} (under `com/`, where Pulumi's Java SDK finds the plugin's `plugin.json`). The owner is
 * lower-cased, as a domain name is read (GitHub's names ignore case); a hyphen stays, as Maven allows in an id
 * (`[A-Za-z0-9_.-]`) and as the domain has it.
 *
 * @param repository default: this package's
 * @returns e.g. `"io.github.pulumi-helpdesk"` for the owner `pulumi-helpdesk`
 * @throws Error as {@link githubRepositoryOf}
 */
export function mavenGroupId(repository: GitHubRepository = githubRepository()): string {
  return `io.github.${repository.owner.toLowerCase()}`;
}

/** The Maven artifactId of the Java SDK: the Pulumi package name, as pulumi-java-gen's build files name it. */
export const MAVEN_ARTIFACT_ID = PULUMI_PACKAGE;

/**
 * The Java SDK's Maven coordinates without the version, as a user names them (`<groupId>:<artifactId>`).
 *
 * @param repository default: this package's
 * @returns e.g. `"io.github.pulumi-helpdesk:helpdesk"`
 * @throws Error as {@link githubRepositoryOf}
 */
export function mavenCoordinates(repository: GitHubRepository = githubRepository()): string {
  return `${mavenGroupId(repository)}:${MAVEN_ARTIFACT_ID}`;
}

/**
 * The receiver kits (receiver/, issue 44): each its own package, since a service that receives deliveries installs no
 * Pulumi. Named after the package and the field's word, "receiver".
 */
export const RECEIVER = "receiver";

/** Where the Go receiver kit lives in the repository: its `go.mod` is there, its package `receiver` too. */
export const RECEIVER_GO_DIR = `${RECEIVER}/go`;

/** The Python receiver kit's distribution name on PyPI (PEP 503 form): `pulumi-helpdesk-receiver`. */
export const RECEIVER_PYTHON_DISTRIBUTION = `${PACKAGE_NAME}-${RECEIVER}` as const;

/** The Python receiver kit's import package, the distribution's name as an identifier: `pulumi_helpdesk_receiver`. */
export const RECEIVER_PYTHON_PACKAGE = `${PYTHON_PACKAGE}_${RECEIVER}` as const;

/**
 * The npm name of the TypeScript receiver kit: beside the TypeScript SDK, under the scope of the repository's owner.
 *
 * @param repository default: this package's
 * @returns e.g. `"@pulumi-helpdesk/receiver"` for the owner `pulumi-helpdesk`
 * @throws Error as {@link githubRepositoryOf}
 */
export function receiverNpmPackage(repository: GitHubRepository = githubRepository()): string {
  return `@${repository.owner.toLowerCase()}/${RECEIVER}`;
}

/**
 * The Go module path of the Go receiver kit (its own module, so a service depends on no Pulumi module): the
 * repository's path under `github.com` followed by {@link RECEIVER_GO_DIR}. Its package is named `receiver`.
 *
 * @param repository default: this package's
 * @returns e.g. `"github.com/pulumi-helpdesk/pulumi-helpdesk/receiver/go"`
 * @throws Error as {@link githubRepositoryOf}
 */
export function receiverGoModulePath(repository: GitHubRepository = githubRepository()): string {
  return `github.com/${repository.owner}/${repository.name}/${RECEIVER_GO_DIR}`;
}
