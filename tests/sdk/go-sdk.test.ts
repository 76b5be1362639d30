/**
 * The Go SDK kept in the repository (sdk/go, module `github.com/<owner>/<name>/sdk/go`, package `helpdesk`): it is
 * exactly what scripts/sdk/generate.sh writes from the build's dist/schema.json (never edited by hand, never stale),
 * it compiles and passes `go vet` against the Pulumi Go SDK its go.mod pins, and it carries the plugin's name and
 * version so the engine knows which plugin a Go program needs.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { goModulePath } from "../../kernel/names.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { go } from "../support/go.js";
import { onPath, toolAvailable } from "../support/tools.js";
import { expectSdkFresh } from "../support/tree.js";

const sdk = join(repoRoot, "sdk", "go");
const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
const codegen = join(
  process.env.HELPDESK_CACHE ?? join(process.env.HOME ?? "", ".cache", "pulumi-helpdesk"),
  "bin",
  "helpdesk-codegen",
);

/** How long `go` may take here: the first build compiles Pulumi's Go SDK and its dependencies (minutes on 2 cores). */
const GO_BUILD_TIMEOUT = 15 * 60_000;

describe.skipIf(
  !(
    toolAvailable("go (Go >= 1.25)", onPath("go")) &&
    toolAvailable("the SDK generator helpdesk-codegen (scripts/setup.sh)", existsSync(codegen)) &&
    toolAvailable("the build's dist/schema.json (scripts/build.sh)", existsSync(join(repoRoot, "dist", "schema.json")))
  ),
)("the Go SDK sdk/go", () => {
  it(
    "is what scripts/sdk/generate.sh writes from the schema, file for file",
    async () => {
      await expectSdkFresh("generate.sh", "go");
    },
    GO_BUILD_TIMEOUT,
  );

  it("is the module of the repository's Go path, for the plugin helpdesk at the package's version", () => {
    expect(readFileSync(join(sdk, "go.mod"), "utf8")).toMatch(
      new RegExp(`^module ${goModulePath().replaceAll(".", "\\.")}\\n`),
    );
    expect(JSON.parse(readFileSync(join(sdk, "helpdesk", "pulumi-plugin.json"), "utf8"))).toMatchObject({
      resource: true,
      name: "helpdesk",
      version: pkg.version,
    });
    // The version the generated resources ask the engine for (default resource option `pulumi.Version`).
    expect(readFileSync(join(sdk, "helpdesk", "internal", "pulumiUtilities.go"), "utf8")).toContain(
      `semver.MustParse("${pkg.version}")`,
    );
  });

  it(
    "compiles and passes go vet",
    async () => {
      await go(["build", "./..."], sdk);
      await go(["vet", "./..."], sdk);
    },
    GO_BUILD_TIMEOUT,
  );
});
