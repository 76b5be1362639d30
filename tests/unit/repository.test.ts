/**
 * The repository's names (kernel/repository.ts): the GitHub owner and name read out of package.json's `repository` in
 * every form npm accepts, and the Go SDK's module and import paths derived from them, which the schema carries.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildSchema, PACKAGE } from "../../provider/native/schema.js";
import { githubRepository, githubRepositoryOf, goImportPath, goModulePath } from "../../kernel/repository.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { repository: { type: string; url: string } };

describe("the repository", () => {
  it("is read from every way package.json may name a GitHub repository", () => {
    for (const repository of [
      { type: "git", url: "git+https://github.com/octo/helpdesk.git" },
      { url: "https://github.com/octo/helpdesk" },
      "https://github.com/octo/helpdesk.git",
      "git+ssh://git@github.com/octo/helpdesk.git",
      "git@github.com:octo/helpdesk.git",
      "github:octo/helpdesk",
      "octo/helpdesk",
    ]) {
      expect(githubRepositoryOf(repository), JSON.stringify(repository)).toEqual({ owner: "octo", name: "helpdesk" });
    }
  });

  it("refuses a missing repository and one not on GitHub, saying why", () => {
    expect(() => githubRepositoryOf(undefined)).toThrow(/has no repository/);
    expect(() => githubRepositoryOf({ type: "git" })).toThrow(/has no repository/);
    expect(() => githubRepositoryOf("gitlab:octo/helpdesk")).toThrow(/not a GitHub repository/);
    expect(() => githubRepositoryOf("https://git.example.com/octo/helpdesk.git")).toThrow(/not a GitHub repository/);
  });

  it("gives the Go SDK its module path (sdk/go) and import path (sdk/go/<package>)", () => {
    const octo = { owner: "octo", name: "helpdesk" };
    expect(goModulePath(octo)).toBe("github.com/octo/helpdesk/sdk/go");
    expect(goImportPath("helpdesk", octo)).toBe("github.com/octo/helpdesk/sdk/go/helpdesk");
  });

  it("is this package's own in the schema's language.go.importBasePath", () => {
    const own = githubRepositoryOf(pkg.repository);
    expect(githubRepository()).toEqual(own);
    expect(buildSchema().language.go).toMatchObject({ importBasePath: `github.com/${own.owner}/${own.name}/sdk/go/${PACKAGE}`, respectSchemaVersion: true });
  });
});
