/**
 * What the release carries for each package registry, in one list: the npm packages, the Python distributions and
 * the Go modules that `npm run release` writes (scripts/release/release.ts) and `npm run publish` sends
 * (scripts/publish/npm.ts, pypi.ts, go.ts), and the tests that check both (tests/publish/, tests/workflows/) read.
 * Each entry's names come from kernel/names.ts; this module only says which of them a release holds.
 *
 * - npm: the package `pulumi-helpdesk` (`npm pack` of the repository), the TypeScript SDK `@<owner>/helpdesk`
 *   (scripts/release/nodejs-sdk.ts) and the TypeScript receiver kit `@<owner>/receiver` (scripts/release/receiver.ts);
 * - Python: the Python SDK `pulumi_helpdesk` (scripts/release/python.ts) and the Python receiver kit
 *   `pulumi_helpdesk_receiver` (scripts/release/receiver.ts), each a wheel and an sdist;
 * - Go: the Go SDK's module in sdk/go and the Go receiver kit's module in receiver/go, each tagged `<folder>/v<version>`
 *   (Go's convention for a module in a subfolder: `go help modules`, "Mapping versions to commits").
 *
 * Imports only the project's sources (the publish job runs it with scripts/lib/source-imports.ts, no build).
 */
import {
  GO_SDK_DIR,
  goModulePath,
  nodejsSdkPackage,
  PYTHON_PACKAGE,
  RECEIVER_GO_DIR,
  RECEIVER_PYTHON_PACKAGE,
  receiverGoModulePath,
  receiverNpmPackage,
} from "../../kernel/names.ts";
import { PACKAGE_NAME } from "../../kernel/package-version.ts";
import { goVersion, pythonArtefactNamesOf } from "./prerelease.ts";

/** One package of the release: its name on its registry and what it is, for messages. */
export interface ReleasePackage {
  /** the registry's name: `@pulumi-helpdesk/receiver`; for Python the distribution's file-name form, `pulumi_helpdesk_receiver` */
  name: string;
  /** what it is, e.g. `the TypeScript receiver kit` */
  what: string;
}

/** A Go module of the release: a folder of the repository with its own go.mod. */
export interface ReleaseGoModule extends ReleasePackage {
  /** the folder, repository-relative, e.g. `receiver/go`: the prefix of its tags */
  dir: string;
}

/**
 * The release's npm packages, in the order they publish.
 *
 * @returns e.g. `[{ name: "pulumi-helpdesk", ... }, { name: "@pulumi-helpdesk/helpdesk", ... }, { name: "@pulumi-helpdesk/receiver", ... }]`
 * @throws Error when package.json's repository cannot be read (kernel/names.ts `githubRepositoryOf`)
 */
export function releaseNpmPackages(): ReleasePackage[] {
  return [
    { name: PACKAGE_NAME, what: "the package" },
    { name: nodejsSdkPackage(), what: "the TypeScript SDK" },
    { name: receiverNpmPackage(), what: "the TypeScript receiver kit" },
  ];
}

/**
 * The file name `npm pack` gives a package's tarball: the name without its scope's `@`, the scope's `/` a `-`.
 *
 * @param name e.g. `"@pulumi-helpdesk/receiver"`
 * @param version e.g. `"0.3.0"`
 * @returns e.g. `"pulumi-helpdesk-receiver-0.3.0.tgz"`
 */
export function npmTarballName(name: string, version: string): string {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

/**
 * The release's Python distributions, in the order they publish, each a wheel and an sdist.
 *
 * @returns `[{ name: "pulumi_helpdesk", ... }, { name: "pulumi_helpdesk_receiver", ... }]`
 */
export function releasePythonDistributions(): ReleasePackage[] {
  return [
    { name: PYTHON_PACKAGE, what: "the Python SDK" },
    { name: RECEIVER_PYTHON_PACKAGE, what: "the Python receiver kit" },
  ];
}

/**
 * A distribution's project name on a simple index (PEP 503's normalized form).
 *
 * @param distribution e.g. `"pulumi_helpdesk_receiver"`
 * @returns e.g. `"pulumi-helpdesk-receiver"`
 */
export function pythonProjectName(distribution: string): string {
  return distribution.replace(/[-_.]+/g, "-").toLowerCase();
}

/**
 * The file names of the release's Python files at a version: per distribution, its wheel then its sdist.
 *
 * @param version the release version, e.g. `"0.4.0-rc.1"`
 * @returns e.g. `["pulumi_helpdesk-0.4.0rc1-py3-none-any.whl", "pulumi_helpdesk-0.4.0rc1.tar.gz", "pulumi_helpdesk_receiver-..."]`
 * @throws Error for a version of no allowed form (scripts/publish/prerelease.ts)
 */
export function releasePythonFiles(version: string): string[] {
  return releasePythonDistributions().flatMap(({ name }) => {
    const names = pythonArtefactNamesOf(name, version);
    return [names.wheel, names.sdist];
  });
}

/**
 * The release's Go modules, in the order they publish.
 *
 * @returns e.g. `[{ name: "github.com/o/r/sdk/go", dir: "sdk/go", ... }, { name: "github.com/o/r/receiver/go", dir: "receiver/go", ... }]`
 * @throws Error when package.json's repository cannot be read (kernel/names.ts `githubRepositoryOf`)
 */
export function releaseGoModules(): ReleaseGoModule[] {
  return [
    { name: goModulePath(), dir: GO_SDK_DIR, what: "the Go SDK" },
    { name: receiverGoModulePath(), dir: RECEIVER_GO_DIR, what: "the Go receiver kit" },
  ];
}

/**
 * A Go module's tag at a version, Go's convention for a module in a subfolder: the folder, a slash, the Go version.
 *
 * @param dir the module's folder, e.g. `"receiver/go"`
 * @param version the release version, e.g. `"0.4.0-rc.1"`
 * @returns e.g. `"receiver/go/v0.4.0-rc.1"`
 * @throws Error for a version of no allowed form (scripts/publish/prerelease.ts)
 */
export function goModuleTag(dir: string, version: string): string {
  return `${dir}/${goVersion(version)}`;
}
