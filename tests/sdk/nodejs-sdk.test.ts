/**
 * The TypeScript SDK kept in the repository (sdk/nodejs, npm package `@pulumi-helpdesk/helpdesk`): it is exactly what
 * scripts/sdk/nodejs.sh writes from the build's dist/schema.json (never edited by hand, never stale); its package.json
 * carries the plugin's name, version and download URL (the "pulumi" section the Node.js language host reads), and the
 * build's `pulumi-helpdesk/native` is that SDK compiled, at the same version, with no such section.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { toolAvailable } from "../support/tools.js";
import { expectSdkFresh } from "../support/tree.js";

const sdk = join(repoRoot, "sdk", "nodejs");
const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
const codegen = join(
  process.env.HELPDESK_CACHE ?? join(process.env.HOME ?? "", ".cache", "pulumi-helpdesk"),
  "bin",
  "helpdesk-codegen",
);
const schemaFile = join(repoRoot, "dist", "schema.json");

describe.skipIf(
  !(
    toolAvailable("the SDK generator helpdesk-codegen (scripts/setup.sh --test)", existsSync(codegen)) &&
    toolAvailable("the build's dist/schema.json (scripts/build.sh)", existsSync(schemaFile))
  ),
)("the TypeScript SDK sdk/nodejs", () => {
  it("is what scripts/sdk/nodejs.sh writes from the schema, file for file", async () => {
    await expectSdkFresh("nodejs.sh", "nodejs");
  });

  it("names the plugin helpdesk at the package's version, downloadable from the schema's pluginDownloadURL", () => {
    const schema = JSON.parse(readFileSync(schemaFile, "utf8")) as {
      pluginDownloadURL: string;
      language: { nodejs: { packageName: string } };
    };
    const generated = JSON.parse(readFileSync(join(sdk, "package.json"), "utf8")) as {
      name: string;
      version: string;
      pulumi: unknown;
    };
    expect(generated.name).toBe(schema.language.nodejs.packageName);
    expect(generated.version).toBe(pkg.version);
    expect(generated.pulumi).toEqual({
      resource: true,
      name: "helpdesk",
      version: pkg.version,
      server: schema.pluginDownloadURL,
    });
  });

  it('is pulumi-helpdesk/native once built: same version, its classes, no "pulumi" section in pulumi-helpdesk', () => {
    const compiled = JSON.parse(readFileSync(join(repoRoot, "dist", "native", "package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(compiled).toEqual({ private: true, version: pkg.version, type: "commonjs" });
    const native = createRequire(join(repoRoot, "package.json"))("pulumi-helpdesk/native") as Record<string, unknown>;
    expect(Object.keys(native).sort()).toEqual(["Provider", "Webhook", "WebhookEvent", "config", "types"]);
    expect(typeof native.Webhook).toBe("function");
    expect(JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"))).not.toHaveProperty("pulumi");
  });
});
