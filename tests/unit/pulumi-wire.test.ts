/**
 * The provider core writes Pulumi's unknown-value sentinel out (`kernel/pulumi-wire.ts`) instead of loading the Pulumi
 * SDK for it; this holds the two equal, so an SDK that changed it would fail here, not in a preview.
 */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { UNKNOWN } from "../../kernel/pulumi-wire.js";

describe("the unknown sentinel", () => {
  it("is the Pulumi SDK's", () => {
    expect(UNKNOWN).toBe(pulumi.runtime.unknownValue);
  });
});
