/**
 * The provider's layout (docs/design.md "Rooms"): one protocol-neutral core and two thin front ends that never import
 * each other. Everything the native plugin loads (provider/native/main.ts and all it reaches, type-only imports
 * included) leaves out the dynamic front end (provider/dynamic/index.ts); the dynamic front end leaves out provider/native/;
 * and the core (provider/core/webhooks.ts) reaches neither, nor the Pulumi SDK's dynamic-provider types.
 */
import { describe, expect, it } from "vitest";
import { reachedFrom, SHIPPED_SOURCE } from "../support/dependencies.js";

/** As `reachedFrom`, counting the Pulumi SDK's modules too. */
const reachedWithSdk = (entry: string): Promise<string[]> => reachedFrom(entry, `${SHIPPED_SOURCE}|node_modules/@pulumi/`);

describe("the provider's two front ends over one core", () => {
  it("the native plugin never loads the dynamic front end", async () => {
    const native = await reachedWithSdk("provider/native/main.ts");
    expect(native).toContain("provider/core/webhooks.ts"); // the walk did follow the imports to the core
    expect(native).toContain("provider/native/server.ts");
    expect(native.filter((module) => module === "provider/dynamic/index.ts")).toEqual([]);
  });

  it("the dynamic front end never loads the native one", async () => {
    const dynamic = await reachedWithSdk("provider/dynamic/index.ts");
    expect(dynamic).toContain("provider/core/webhooks.ts");
    expect(dynamic.filter((module) => module.startsWith("provider/native/"))).toEqual([]);
  });

  it("the core reaches neither front end, nor the Pulumi SDK", async () => {
    for (const core of ["provider/core/webhooks.ts", "provider/core/connect.ts"]) {
      const reached = await reachedWithSdk(core);
      expect(reached.filter((module) => module === "provider/dynamic/index.ts" || module.startsWith("provider/native/") || module.includes("@pulumi/"))).toEqual([]);
    }
  });
});
