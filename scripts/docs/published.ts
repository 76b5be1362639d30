/**
 * The docs' sentences about what is published and how to check a download, written from their homes: which version
 * the registries hold (`kernel/published.ts` `PUBLISHED_VERSION`), this checkout's version (package.json), the names
 * (`kernel/names.ts`: the packages, the repository, the release tag, the plugin's cache folder and download URL), the
 * release's file names (`scripts/release/`) and the signature bundle's name (`kernel/names.ts`
 * `SUMS_SIGNATURE`). scripts/docs/readme.ts puts them into README.md's and the examples' READMEs' generated blocks,
 * scripts/docs/registry-pages.ts into the Pulumi Registry pages; CHANGELOG.md's unreleased heading is
 * {@link unreleasedHeading}.
 */

import type * as Names from "../../kernel/names.js";
import { archiveName } from "../release/release.ts";

/**
 * The release workflow's file: its run at the tag `v<version>` signs `SHA256SUMS` keylessly (cosign, the bundle
 * `SUMS_SIGNATURE` of kernel/names.ts) and attests the release's files (actions/attest-build-provenance), so the signature's
 * certificate names this file at that tag (tests/repo/readme.test.ts checks that the file does both).
 */
export const RELEASE_WORKFLOW = ".github/workflows/release.yml";

/** The OIDC issuer of GitHub Actions' tokens, which a keyless signature made in a workflow is certified for. */
export const GITHUB_ACTIONS_ISSUER = "https://token.actions.githubusercontent.com";

/** What the docs' sentences are written from. */
export interface PublishedFacts {
  /** package.json's version: what this checkout builds and its docs describe */
  version: string;
  /** kernel/published.ts `PUBLISHED_VERSION` */
  published: string | undefined;
  /** kernel/package-version.ts `PACKAGE_NAME`: the npm package's name, which is the project's */
  packageName: string;
  names: typeof Names;
}

/** The README's generated blocks written here, by name. */
export type PublishedBlocks = Record<"published" | "install" | "verify", string>;

/** Whether this checkout's version is the one on the registries. */
function isPublished(facts: PublishedFacts): boolean {
  return facts.published === facts.version;
}

/**
 * One sentence on what the registries hold, for the registry pages and the examples' READMEs.
 *
 * @param facts the homes
 * @returns e.g. "pulumi-helpdesk is not published yet: ..."
 */
export function publishedSentence(facts: PublishedFacts): string {
  const { version, published, names, packageName } = facts;
  const goTag = `\`${names.GO_SDK_DIR}/${names.releaseTag(version)}\``;
  if (isPublished(facts))
    return (
      `${packageName} ${version} is published: on npm, the Python Package Index and Maven Central, as the Go ` +
      `module's tag ${goTag}, and as the GitHub release \`${names.releaseTag(version)}\`, from which Pulumi downloads the plugin.`
    );
  const now = published
    ? `the registries hold ${published}; ${version}, which this describes, is not published yet`
    : "no version is on any registry yet";
  return (
    `${packageName} is not published yet (${now}): npm, the Python Package Index and Maven Central do not ` +
    `hold ${version}, the Go module has no tag ${goTag}, and there is no GitHub release \`${names.releaseTag(version)}\` ` +
    "for Pulumi to download the plugin from. Until there is, install from the release's files, which " +
    "`npm run release` writes into `release/` in a clone of the repository."
  );
}

/**
 * The heading of CHANGELOG.md's one section of what is not published yet (its rule: CHANGELOG.md's top), or of the
 * newest section once that version is published.
 *
 * @param facts the homes
 * @returns e.g. `"0.3.0 (unreleased)"`, or `"0.3.0"` once it is published
 */
export function unreleasedHeading(facts: PublishedFacts): string {
  return isPublished(facts) ? facts.version : `${facts.version} (unreleased)`;
}

/**
 * The README's blocks: `published` (the top's statement), `install` (step 2 of "Before you start": the install
 * table and the CLI's install from the plugin), `verify` (checking a downloaded file against the release workflow's
 * signature and attestation).
 *
 * @param facts the homes
 * @returns each block's text, ending in a newline
 * @throws Error as kernel/names.ts `githubRepository` (no GitHub repository in package.json)
 */
export function publishedBlocks(facts: PublishedFacts): PublishedBlocks {
  const { version, published, names, packageName } = facts;
  const tag = names.releaseTag(version);
  const repository = names.githubRepository();
  const ownerRepo = `${repository.owner}/${repository.name}`;
  const server = `${names.repositoryUrl()}/releases/download/${tag}/`;
  const archive = archiveName(version, { os: "linux", arch: "x64" });
  const offline = "[the release files](#offline-from-the-release-files)";

  const top = isPublished(facts)
    ? `**Version ${version} is published**: on npm, PyPI and Maven Central, as the Go module's tag \`${names.GO_SDK_DIR}/${tag}\`, ` +
      `and as the GitHub release \`${tag}\`, from which Pulumi downloads the plugin. The install commands below take it.`
    : `**Not published yet.** ${
        published
          ? `The registries hold ${published}; this README describes ${version}, which is not published yet.`
          : `No version of ${packageName} is on a registry yet.`
      } npm, PyPI and Maven Central do not hold ${version}, the Go module has no tag \`${names.GO_SDK_DIR}/${tag}\`, and ` +
      `there is no GitHub release \`${tag}\` for Pulumi to download the plugin from: the install commands below are ` +
      `what will work once ${version} is published. Until then, install from ${offline} (\`npm run release\` in a ` +
      "clone of this repository writes them into `release/`).";

  const lead = isPublished(facts)
    ? `Each language installs ${packageName} by name from its registry`
    : `Once ${version} is published (until then: ${offline}), each language installs ${packageName} by name from its registry`;
  const install = [
    `**2. The packages.** ${lead} (its section below says how), and Pulumi downloads the provider plugin (one ` +
      "self-contained executable, no Node.js needed) from the GitHub release its SDK names, the first time a program " +
      "needs it:",
    "",
    `| language | install${isPublished(facts) ? "" : " (once published)"} |`,
    "|---|---|",
    `| TypeScript / JavaScript | \`npm install ${packageName}\` (the dynamic \`Webhook\`, the CLI, the emulator); \`npm install ${names.nodejsSdkPackage()}\` (the native SDK) |`,
    // The distribution's name as pip normalizes it (PEP 503): `pulumi_helpdesk` is installed as `pulumi-helpdesk`.
    `| Python | \`pip install ${names.PYTHON_PACKAGE.replace(/_/g, "-")}\` |`,
    `| Go | \`go get ${names.goModulePath()}@${tag}\` |`,
    `| Java | Maven: \`${names.mavenCoordinates()}:${version}\` |`,
    "| YAML | nothing: the program names the plugin's version and download URL |",
    "",
    `Put the CLI \`${names.CLI_EXECUTABLE}\` on your \`PATH\` (any language; it is the plugin's executable, which Pulumi installs ` +
      "into its plugin cache, `$PULUMI_HOME/plugins`, by default `~/.pulumi/plugins`):",
    "",
    "```bash",
    `pulumi plugin install resource ${names.PULUMI_PACKAGE} ${version} --server ${server}`,
    `mkdir -p ~/.local/bin && ln -sf "\${PULUMI_HOME:-$HOME/.pulumi}/plugins/${names.pluginCacheFolder(version)}/${names.CLI_EXECUTABLE}" ~/.local/bin/${names.CLI_EXECUTABLE}   # ~/.local/bin must be on PATH`,
    `${names.CLI_EXECUTABLE} --version`,
    "```",
    "",
  ].join("\n");

  const verify = [
    `**Check \`SHA256SUMS\` itself.** The check above finds a damaged or swapped file, not one whose \`SHA256SUMS\` was ` +
      `rewritten to match. For that, a file downloaded from the GitHub release \`${tag}\` is checked against what only the ` +
      `release workflow could make: \`${RELEASE_WORKFLOW}\` of ${ownerRepo}, run for the tag \`${tag}\`, signs \`SHA256SUMS\` ` +
      `keylessly with cosign (the bundle \`${names.SUMS_SIGNATURE}\`, published beside it) and attests every file it lists with ` +
      "GitHub's build provenance. With [cosign](https://docs.sigstore.dev/cosign/) (it fetches Sigstore's trusted root " +
      "once), in the folder holding the downloads:",
    "",
    "```bash",
    `cosign verify-blob --bundle ${names.SUMS_SIGNATURE} \\`,
    `  --certificate-identity '${names.repositoryUrl()}/${RELEASE_WORKFLOW}@refs/tags/${tag}' \\`,
    `  --certificate-oidc-issuer ${GITHUB_ACTIONS_ISSUER} SHA256SUMS &&`,
    "  sha256sum -c --ignore-missing SHA256SUMS",
    "```",
    "",
    "`cosign` prints `Verified OK`, and each file you have then prints `OK`; anything else, stop. Or, with the GitHub CLI " +
      "(`gh auth login` first), one file at a time:",
    "",
    "```bash",
    `gh attestation verify ${archive} --repo ${ownerRepo}`,
    "```",
    "",
    "Files built with `npm run release` carry neither: they are what the clone they were built from is.",
    "",
  ].join("\n");

  return { published: `${top}\n`, install, verify };
}
