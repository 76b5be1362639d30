/**
 * Where pulumi-helpdesk's source lives, derived from one place: package.json's `repository` (read by
 * `kernel/package-version.ts` `packageFacts`, or built into the release executable). Everything that names the
 * repository is computed here from it: the Go SDK's module path (the schema's `language.go.importBasePath`) and, for
 * the plugin's download URL, the repository's owner and name.
 *
 * Only GitHub repositories are understood: Go resolves a `github.com/<owner>/<name>/...` module path from the
 * repository itself, and release downloads follow GitHub's URL scheme.
 */
import { packageFacts, type PackageFacts } from "./package-version.js";

/** A GitHub repository, as `https://github.com/<owner>/<name>` names it. */
export interface GitHubRepository {
  owner: string;
  name: string;
}

/** Where the generated Go SDK lives in the repository: its `go.mod` is there, its package in `<GO_SDK_DIR>/<package>`. */
export const GO_SDK_DIR = "sdk/go";

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
  if (!given) throw new Error("package.json has no repository: the Go module path and the plugin's download URL are derived from it");
  const shorthand = /^(?:github:)?([\w.-]+)\/([\w.-]+)$/.exec(given);
  const url = /^(?:git\+)?(?:https?|ssh|git):\/\/(?:[^@/]+@)?github\.com\/([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(given);
  const scp = /^git@github\.com:([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(given);
  const match = shorthand ?? url ?? scp;
  if (!match) throw new Error(`package.json's repository ${JSON.stringify(given)} is not a GitHub repository: the Go module path and the plugin's download URL cannot be derived from it`);
  return { owner: match[1]!, name: match[2]!.replace(/\.git$/, "") };
}

/**
 * @returns {@link githubRepositoryOf} this package's `repository`
 * @throws Error as {@link githubRepositoryOf}, and when the package's facts cannot be read (`kernel/package-version.ts`)
 */
export function githubRepository(): GitHubRepository {
  return githubRepositoryOf(packageFacts().repository);
}

/**
 * The Go module path of the generated Go SDK (what `go get` takes): the repository's path under `github.com` followed
 * by {@link GO_SDK_DIR}, as Pulumi's Go code generator lays out a module in `sdk/go` (its `go.mod` one level above
 * the package).
 *
 * @param repository as {@link githubRepositoryOf}; default: this package's
 * @returns e.g. `"github.com/pulumi-helpdesk/pulumi-helpdesk/sdk/go"`
 * @throws Error as {@link githubRepositoryOf}
 */
export function goModulePath(repository: GitHubRepository = githubRepository()): string {
  return `github.com/${repository.owner}/${repository.name}/${GO_SDK_DIR}`;
}

/**
 * The import path of the Go SDK's package for a Pulumi package (the schema's `language.go.importBasePath`).
 *
 * @param packageName the Pulumi package name, e.g. `"helpdesk"` (also the Go package's name and folder)
 * @param repository as {@link goModulePath}
 * @returns e.g. `"github.com/pulumi-helpdesk/pulumi-helpdesk/sdk/go/helpdesk"`
 * @throws Error as {@link githubRepositoryOf}
 */
export function goImportPath(packageName: string, repository: GitHubRepository = githubRepository()): string {
  return `${goModulePath(repository)}/${packageName}`;
}
