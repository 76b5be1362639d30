import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  displayUrl,
  excerpt,
  forPerson,
  REDACTED,
  redact,
  registerSecret,
  serverText,
  stripControl,
} from "../../auth/redact.js";

describe("redact (the one redaction registry)", () => {
  it("removes known secret values wherever they appear", () => {
    expect(redact("token abcdef123456 in text abcdef123456", ["abcdef123456"])).toBe(
      "token [redacted] in text [redacted]",
    );
  });

  it("removes a known secret in its URL-, form-, JSON-escaped and base64 forms", () => {
    const secret = 'p@ss w/"ord+1';
    const forms = [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ v: secret }).toString().slice(2),
      JSON.stringify(secret).slice(1, -1),
      Buffer.from(secret).toString("base64"),
      Buffer.from(secret).toString("base64url"),
    ];
    for (const form of forms) expect(redact(`echo: ${form} end`, [secret]), form).toBe("echo: [redacted] end");
  });

  it("removes registered secrets without being told again (process-wide registry)", () => {
    registerSecret("registered-refresh-token-42");
    expect(redact("server said registered-refresh-token-42")).toBe("server said [redacted]");
    registerSecret("abc"); // too short to register: ordinary words must survive
    expect(redact("abc")).toBe("abc");
  });

  it("removes bearer and basic credentials and URL userinfo", () => {
    expect(redact("Authorization: Bearer zzz.yyy-xxx")).toBe("Authorization: Bearer [redacted]");
    expect(redact("Authorization: Basic aGVsbG86d29ybGQ=")).toBe("Authorization: Basic [redacted]");
    expect(redact("POST https://app:s3cr3t@hooks.example.test/x")).toBe("POST https://[redacted]@hooks.example.test/x");
  });

  it("removes token-bearing fields by exact name in JSON, forms, queries and text", () => {
    expect(redact('{"access_token":"a1","refresh_token":"r1","client_secret":"s1"}')).toBe(
      '{"access_token":"[redacted]","refresh_token":"[redacted]","client_secret":"[redacted]"}',
    );
    expect(redact("grant_type=authorization_code&code=c0de&client_secret=s3cr3t")).toBe(
      "grant_type=authorization_code&code=[redacted]&client_secret=[redacted]",
    );
    expect(redact("GET /hook?token=t0k3n&access_token=at&page=2")).toBe(
      "GET /hook?token=[redacted]&access_token=[redacted]&page=2",
    );
    expect(redact('{"message":"{\\"refresh_token\\":\\"r2\\"}"}')).toBe(
      '{"message":"{\\"refresh_token\\":\\"[redacted]\\"}"}',
    );
    expect(redact("refresh_token: r3 and password: hunter2")).toBe(
      "refresh_token: [redacted] and password: [redacted]",
    );
  });

  it("redacts a credential that is not well-formed UTF-16 (a lone surrogate), and every later text still", () => {
    const secret = "lone-\ud800-surrogate-refresh-token";
    registerSecret(secret); // process-wide, as a provider's input would be: every redaction after this one sees it
    expect(redact("a later error that holds no credential")).toBe("a later error that holds no credential");
    expect(redact(`echo ${secret} end`)).toBe("echo [redacted] end");
    // As UTF-8 carries it (U+FFFD for the lone surrogate), raw and URL-encoded.
    expect(redact(`echo ${secret.toWellFormed()} end`)).toBe("echo [redacted] end");
    expect(redact(`echo ${encodeURIComponent(secret.toWellFormed())} end`)).toBe("echo [redacted] end");
    expect(serverText(`echo ${JSON.stringify(secret)}`)).toBe('echo "[redacted]"');
  });

  it("keeps values of fields that only contain a secret name (status_code, exit code)", () => {
    expect(redact("status_code: 500, status_code=500, exit code: 1, postcode=12345")).toBe(
      "status_code: 500, status_code=500, exit code: 1, postcode=12345",
    );
    expect(redact('{"status_code":"500","error_code":"x"}')).toBe('{"status_code":"500","error_code":"x"}');
  });
});

describe("server text and escapes", () => {
  it("stripControl removes CSI, OSC 8 links, clear-screen, C1 controls and bidi overrides, and keeps newlines", () => {
    const hostile =
      "a\u001b[2J\u001b[31mred\u001b[0m \u001b]8;;https://evil.example/\u0007link\u001b]8;;\u0007 \u009b1;1H\u202eb\u200bc\nnext\tcol\u0007";
    expect(stripControl(hostile)).toBe("ared link bc\nnext\tcol");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what stripControl leaves must hold no control character
    expect(stripControl(hostile)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it("serverText flattens, strips, redacts and shortens", () => {
    expect(serverText("a\n\n  b")).toBe("a b");
    expect(serverText("x".repeat(50), [], 10)).toBe(`${"x".repeat(10)}…`);
    expect(serverText("bad refresh_token=rt-123456 \u001b[2J", ["rt-123456"])).toBe("bad refresh_token=[redacted]");
    expect(excerpt('{"error":"invalid_grant"}')).toBe('{"error":"invalid_grant"}');
  });

  it("serverText removes the path, query and fragment of a url a server echoes, with its scheme or without", () => {
    expect(serverText("invalid url: hooks.slack.com/services/T0A1B2C3/B4D5E6F7/SeCrEt5678aBcD")).toBe(
      "invalid url: hooks.slack.com/[redacted]",
    );
    expect(serverText('{"url":"hooks.slack.com\\/services\\/T0\\/B0\\/SeCrEt"}')).toBe(
      '{"url":"hooks.slack.com\\/[redacted]"}',
    );
    expect(serverText("see https://hooks.example.test/services/s3cr3t?token=t, then retry")).toBe(
      "see https://hooks.example.test/[redacted] then retry",
    );
    expect(serverText("<a href='https://hooks.example.test?token=t0k3n'>")).toBe(
      "<a href='https://hooks.example.test?[redacted]'>",
    );
    expect(serverText("delivering to 10.0.0.5:8443/hook/s3cr3t")).toBe("delivering to 10.0.0.5:8443/[redacted]");
    // No url: a path alone, a file, a version, a bare host, an address, a host and port.
    const plain =
      "POST /v1/webhooks failed: see docs/helpdesk-api.md, v1.2/x, example.com? support@help.example.com 127.0.0.1:8976";
    expect(serverText(plain)).toBe(plain);
  });

  it("forPerson keeps our own line breaks and removes credentials and escapes", () => {
    expect(forPerson("line one\nBearer abc.def\u001b[2J", [])).toBe("line one\nBearer [redacted]");
  });
});

describe("displayUrl", () => {
  it.each([
    ["https://hooks.slack.test/services/T0/B0/s3cr3t", "https://hooks.slack.test/…"],
    ["https://user:pass@hooks.example.test/", "https://hooks.example.test/…"],
    ["https://hooks.example.test/?token=abc", "https://hooks.example.test/…"],
    ["https://hooks.example.test", "https://hooks.example.test/"],
    ["http://127.0.0.1:8080/x", "http://127.0.0.1:8080/…"],
    ["not a url s3cr3t", "(an unparsable url)"],
  ])("%s → %s", (url, shown) => {
    expect(displayUrl(url)).toBe(shown);
  });
});

describe("redaction of any text and any credential (property)", () => {
  /** Any UTF-16 code unit, lone surrogates and control characters included. */
  const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
  /** Mostly what urls, forms and JSON are made of, so that the rules of redaction have something to match. */
  const unit = fc.oneof(codeUnit, fc.constantFrom("a", "Z", "0", "/", "%", "=", "&", ":", ".", " ", '"', "\\"));
  const text = fc.string({ unit, maxLength: 40 });
  // A credential of the length registerSecret takes. One that holds a bracket, or that is a piece of the marker
  // itself (`redacted`), could be spelled again by `[redacted]` and its neighbours: no real credential is that.
  const credential = fc
    .string({ unit, minLength: 6, maxLength: 24 })
    .filter((value) => !/[[\]]/.test(value) && !REDACTED.includes(value));

  it("never throws, and never leaves the credential in what it returns", () => {
    fc.assert(
      fc.property(text, credential, text, (before, secret, after) => {
        const echoed = `${before}${secret}${after}`;
        expect(redact(echoed, [secret])).not.toContain(secret);
        expect(typeof serverText(echoed, [secret])).toBe("string");
        expect(typeof forPerson(echoed, [secret])).toBe("string");
      }),
      { numRuns: 1000 },
    );
  });
});
