/**
 * The provider's layout (docs/design.md "Rooms"): one protocol-neutral core and two thin front ends that never import
 * each other. Everything the native plugin loads (provider/native/main.ts and all it reaches, type-only imports
 * included) leaves out the dynamic front end (provider/index.ts); the dynamic front end leaves out provider/native/;
 * and the core (provider/webhooks.ts) reaches neither, nor the Pulumi SDK's dynamic-provider types.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cruise, type ICruiseResult } from "dependency-cruiser";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The modules `entry` imports, directly or not, type-only imports included: this repository's, and packages by name. */
async function reachedFrom(entry: string): Promise<string[]> {
  const result = await cruise(
    [entry],
    { baseDir: ROOT, tsPreCompilationDeps: true, doNotFollow: { path: "node_modules" }, includeOnly: "^(sdk|provider|auth|cli|emulator)/.*\\.ts$|node_modules/@pulumi/" },
    { extensions: [".ts", ".js"], extensionAlias: { ".js": [".ts", ".js"] } },
  );
  return (result.output as ICruiseResult).modules.map((module) => module.source).sort();
}

describe("the provider's two front ends over one core", () => {
  it("the native plugin never loads the dynamic front end", async () => {
    const native = await reachedFrom("provider/native/main.ts");
    expect(native).toContain("provider/webhooks.ts"); // the walk did follow the imports to the core
    expect(native).toContain("provider/native/server.ts");
    expect(native.filter((module) => module === "provider/index.ts")).toEqual([]);
  });

  it("the dynamic front end never loads the native one", async () => {
    const dynamic = await reachedFrom("provider/index.ts");
    expect(dynamic).toContain("provider/webhooks.ts");
    expect(dynamic.filter((module) => module.startsWith("provider/native/"))).toEqual([]);
  });

  it("the core reaches neither front end, nor the Pulumi SDK", async () => {
    for (const core of ["provider/webhooks.ts", "provider/connect.ts"]) {
      const reached = await reachedFrom(core);
      expect(reached.filter((module) => module === "provider/index.ts" || module.startsWith("provider/native/") || module.includes("@pulumi/"))).toEqual([]);
    }
  });
});
