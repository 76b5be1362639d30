import { describe, expect, it } from "vitest";
import { excerpt, redact } from "../../auth/redact.js";

describe("redact", () => {
  it("removes known secret values wherever they appear", () => {
    expect(redact("token abcdef123456 in text abcdef123456", ["abcdef123456"])).toBe("token [redacted] in text [redacted]");
  });

  it("removes bearer tokens and credential fields it was not told about", () => {
    expect(redact("Authorization: Bearer zzz.yyy-xxx")).toBe("Authorization: Bearer [redacted]");
    expect(redact('{"access_token":"a1","refresh_token":"r1","client_secret":"s1"}')).toBe(
      '{"access_token":"[redacted]","refresh_token":"[redacted]","client_secret":"[redacted]"}',
    );
    expect(redact("grant_type=authorization_code&code=c0de&client_secret=s3cr3t")).toBe(
      "grant_type=authorization_code&code=[redacted]&client_secret=[redacted]",
    );
  });

  it("excerpt collapses whitespace and bounds the length", () => {
    expect(excerpt("a\n\n  b", [], 10)).toBe("a b");
    expect(excerpt("x".repeat(50), [], 10)).toBe(`${"x".repeat(10)}…`);
  });
});
