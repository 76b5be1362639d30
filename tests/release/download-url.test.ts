/**
 * The plugin's download URL: derived from package.json's `repository` by one function, carried by the schema (and so
 * by every SDK generated from it) with `${VERSION}` for the engine to fill in.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildSchema, pluginDownloadUrl, pluginDownloadUrlOf } from "../../provider/native/schema.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { repository: { type: string; url: string } };
const RELEASES = "https://github.com/octo/helpdesk/releases/download/v${VERSION}/";

describe("pluginDownloadURL", () => {
  it("is the GitHub release URL of every way package.json may name the repository", () => {
    for (const repository of [
      { type: "git", url: "git+https://github.com/octo/helpdesk.git" },
      { url: "https://github.com/octo/helpdesk" },
      "https://github.com/octo/helpdesk.git",
      "git+ssh://git@github.com/octo/helpdesk.git",
      "git@github.com:octo/helpdesk.git",
      "github:octo/helpdesk",
      "octo/helpdesk",
    ]) {
      expect(pluginDownloadUrlOf(repository), JSON.stringify(repository)).toBe(RELEASES);
    }
  });

  it("refuses a missing repository and one not on GitHub, saying why", () => {
    expect(() => pluginDownloadUrlOf(undefined)).toThrow(/has no repository/);
    expect(() => pluginDownloadUrlOf({ type: "git" })).toThrow(/has no repository/);
    expect(() => pluginDownloadUrlOf("gitlab:octo/helpdesk")).toThrow(/not a GitHub repository/);
    expect(() => pluginDownloadUrlOf("https://git.example.com/octo/helpdesk.git")).toThrow(/not a GitHub repository/);
  });

  it("is in the schema, https, with ${VERSION}, from this package's repository", () => {
    const url = buildSchema().pluginDownloadURL;
    expect(url).toBe(pluginDownloadUrl());
    expect(url).toBe(pluginDownloadUrlOf(pkg.repository));
    expect(url).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/releases\/download\/v\$\{VERSION\}\/$/);
  });
});
