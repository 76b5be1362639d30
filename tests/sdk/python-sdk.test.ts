/**
 * The Python SDK kept in the repository (sdk/python, distribution `pulumi_helpdesk`): it is exactly what
 * scripts/sdk/python.sh writes from the build's dist/schema.json (never edited by hand, never stale), and it carries
 * the plugin's name, version and download URL (`pulumi-plugin.json`), so that `pip install` of the wheel the release
 * builds from it is all a Python program needs for Pulumi to fetch the plugin.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { toolAvailable } from "../support/tools.js";
import { expectSdkFresh } from "../support/tree.js";

const sdk = join(repoRoot, "sdk", "python");
const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
const codegen = join(
  process.env.HELPDESK_CACHE ?? join(process.env.HOME ?? "", ".cache", "pulumi-helpdesk"),
  "bin",
  "helpdesk-codegen",
);

describe.skipIf(
  !(
    toolAvailable("the SDK generator helpdesk-codegen (scripts/setup.sh --test)", existsSync(codegen)) &&
    toolAvailable("the build's dist/schema.json (scripts/build.sh)", existsSync(join(repoRoot, "dist", "schema.json")))
  ),
)("the Python SDK sdk/python", () => {
  it("is what scripts/sdk/python.sh writes from the schema, file for file", async () => {
    await expectSdkFresh("python.sh", "python");
  });

  it("names the plugin helpdesk at the package's version, downloadable from the schema's pluginDownloadURL", () => {
    const schema = JSON.parse(readFileSync(join(repoRoot, "dist", "schema.json"), "utf8")) as {
      pluginDownloadURL: string;
    };
    expect(JSON.parse(readFileSync(join(sdk, "pulumi_helpdesk", "pulumi-plugin.json"), "utf8"))).toEqual({
      resource: true,
      name: "helpdesk",
      version: pkg.version,
      server: schema.pluginDownloadURL,
    });
    expect(readFileSync(join(sdk, "pyproject.toml"), "utf8")).toContain(`version = "${pkg.version}"`);
  });
});
