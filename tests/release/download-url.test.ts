/**
 * The plugin's download URL: derived from package.json's `repository` by one function, carried by the schema (and so
 * by every SDK generated from it) with `${VERSION}` for the engine to fill in.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  PLUGIN_VERSION_PLACEHOLDER,
  pluginDownloadUrl,
  pluginDownloadUrlFor,
  pluginDownloadUrlOf,
} from "../../kernel/names.js";
import { buildSchema } from "../../provider/native/schema.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  repository: { type: string; url: string };
};
const RELEASES = `https://github.com/octo/helpdesk/releases/download/v${PLUGIN_VERSION_PLACEHOLDER}/`;

describe("pluginDownloadURL", () => {
  // Every form of package.json's repository is read by kernel/names.ts (tests/repo/names.test.ts): here, the URL
  // built from what it reads, and its refusals passed on.
  it("is the GitHub release URL of the repository", () => {
    expect(pluginDownloadUrlOf({ type: "git", url: "git+https://github.com/octo/helpdesk.git" })).toBe(RELEASES);
    expect(pluginDownloadUrlOf("octo/helpdesk")).toBe(RELEASES);
    expect(() => pluginDownloadUrlOf("gitlab:octo/helpdesk")).toThrow(/not a GitHub repository/);
  });

  it("of one version is that URL with the version filled in, as the engine fills it", () => {
    expect(pluginDownloadUrlFor("0.3.0", "octo/helpdesk")).toBe(
      "https://github.com/octo/helpdesk/releases/download/v0.3.0/",
    );
    expect(pluginDownloadUrlFor("0.3.0")).toBe(pluginDownloadUrl().replaceAll(PLUGIN_VERSION_PLACEHOLDER, "0.3.0"));
  });

  it(`is in the schema, https, with ${PLUGIN_VERSION_PLACEHOLDER}, from this package's repository`, () => {
    const url = buildSchema().pluginDownloadURL;
    expect(url).toBe(pluginDownloadUrl());
    expect(url).toBe(pluginDownloadUrlOf(pkg.repository));
    expect(url).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/releases\/download\/v\$\{VERSION\}\/$/);
  });
});
