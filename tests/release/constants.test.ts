/**
 * The native plugin writes Pulumi's secret signature out (`provider/native/properties.ts`) instead of loading the
 * Pulumi SDK's index for it (that load took most of the plugin's start time); this holds them equal, so an SDK that
 * changed them would fail here, not in a user's `pulumi up`.
 */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { asSecret, isSecret, SECRET_SIG, SIG_KEY } from "../../provider/native/properties.js";

describe("the secret signature of the native plugin", () => {
  it("is the Pulumi SDK's", () => {
    expect(SIG_KEY).toBe(pulumi.runtime.specialSigKey);
    expect(SECRET_SIG).toBe(pulumi.runtime.specialSecretSig);
    expect(isSecret({ [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig, value: "x" })).toBe(true);
    expect(asSecret("x")).toEqual({ [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig, value: "x" });
  });
});
