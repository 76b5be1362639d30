/**
 * The policy pack's room (docs/design.md "Rooms", "Direction of dependencies"): what either shipping form loads
 * (policy/analyzer.ts, policy/pack.ts and all they reach, type-only imports included) is `kernel/`, Pulumi's unknown
 * sentinel and `policy/` itself: no provider, no CLI, no auth, so the pack cannot reach a credential or the network.
 * And the release executable's analyzer loads neither `@pulumi/policy` nor the Pulumi SDK: of `@pulumi/pulumi`, only
 * the generated protocol stubs (`proto/`).
 */
import { describe, expect, it } from "vitest";
import { reachedFrom, SHIPPED_SOURCE } from "../support/dependencies.js";

describe("the policy pack's room", () => {
  it("reaches only kernel/, the unknown sentinel and itself, in both shipping forms", async () => {
    for (const entry of ["policy/analyzer.ts", "policy/pack.ts"]) {
      const reached = await reachedFrom(entry);
      expect(reached).toContain("policy/policies.ts"); // the walk did follow the imports
      expect(reached).toContain("kernel/webhook-rules.ts");
      expect(reached.filter((module) => !module.startsWith("policy/") && !module.startsWith("kernel/") && module !== "provider/core/unknown.ts")).toEqual([]);
    }
  });

  it("the executable's analyzer loads no @pulumi/policy and, of @pulumi/pulumi, only the protocol stubs", async () => {
    const packages = (await reachedFrom("policy/analyzer.ts", `${SHIPPED_SOURCE}|^node_modules/`)).filter((module) => module.startsWith("node_modules/"));
    expect(packages.some((module) => module.startsWith("node_modules/@grpc/grpc-js/"))).toBe(true); // the walk did reach the packages
    expect(packages.filter((module) => module.startsWith("node_modules/@pulumi/") && !module.startsWith("node_modules/@pulumi/pulumi/proto/"))).toEqual([]);
    expect((await reachedFrom("policy/pack.ts", `${SHIPPED_SOURCE}|^node_modules/`)).some((module) => module.startsWith("node_modules/@pulumi/policy"))).toBe(true);
  });
});
