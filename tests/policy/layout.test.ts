/**
 * The policy pack's room (docs/design.md "Rooms", "Direction of dependencies"): what either shipping form loads
 * (policy/analyzer.ts, policy/pack.ts and all they reach, type-only imports included) is `kernel/`, Pulumi's unknown
 * sentinel and `policy/` itself: no provider, no CLI, no auth, so the pack cannot reach a credential or the network.
 */
import { describe, expect, it } from "vitest";
import { reachedFrom } from "../support/dependencies.js";

describe("the policy pack's room", () => {
  it("reaches only kernel/, the unknown sentinel and itself, in both shipping forms", async () => {
    for (const entry of ["policy/analyzer.ts", "policy/pack.ts"]) {
      const reached = await reachedFrom(entry);
      expect(reached).toContain("policy/policies.ts"); // the walk did follow the imports
      expect(reached).toContain("kernel/webhook-rules.ts");
      expect(reached.filter((module) => !module.startsWith("policy/") && !module.startsWith("kernel/") && module !== "kernel/pulumi-wire.ts")).toEqual([]);
    }
  });
});
