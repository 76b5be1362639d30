/**
 * Pulumi's wire sentinels are written out once (`kernel/pulumi-wire.ts`) instead of loading the Pulumi SDK for them;
 * this holds each equal to the SDK's, so an SDK that changed one would fail here, not in a user's preview or `pulumi up`.
 */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { SECRET_SIG, SIG_KEY, stateSecret, stateValue, UNKNOWN } from "../../kernel/pulumi-wire.js";
import { asSecret, isSecret } from "../../provider/native/properties.js";

describe("Pulumi's wire sentinels", () => {
  it("the unknown value is the Pulumi SDK's", () => {
    expect(UNKNOWN).toBe(pulumi.runtime.unknownValue);
  });

  it("the secret signature is the Pulumi SDK's, and the native plugin wraps and recognizes secrets by it", () => {
    expect(SIG_KEY).toBe(pulumi.runtime.specialSigKey);
    expect(SECRET_SIG).toBe(pulumi.runtime.specialSecretSig);
    expect(isSecret({ [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig, value: "x" })).toBe(true);
    expect(asSecret("x")).toEqual({ [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig, value: "x" });
  });

  it("the state file's secret carries the SDK's signature and the value as JSON", () => {
    expect(stateSecret("https://example.test/a")).toEqual({
      [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig,
      plaintext: '"https://example.test/a"',
    });
  });

  it("the state file's form reads back: a secret to its value, no plaintext to undefined, anything else as it is", () => {
    expect(stateValue(stateSecret("https://example.test/a"))).toBe("https://example.test/a");
    expect(stateValue({ [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig, ciphertext: "v1:x" })).toBe(
      undefined,
    );
    expect(stateValue("issue.created")).toBe("issue.created");
    expect(stateValue({ plaintext: '"x"' })).toEqual({ plaintext: '"x"' });
  });
});
