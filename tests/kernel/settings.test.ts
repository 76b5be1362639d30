/**
 * The settings model (kernel/settings.ts, kernel/base-url.ts): one precedence for every front end (explicit, stack config,
 * environment, default), one base URL rule that `login` and both providers apply alike, the ranges and defaults of
 * the table.
 */

import { describe, expect, it } from "vitest";
import { CliError } from "../../cli/shared/output.js";
import { pickClientSettings } from "../../cli/shared/settings.js";
import { baseUrlText, endpointUrl, parseBaseUrl } from "../../kernel/base-url.js";
import { stackConfigSettings } from "../../kernel/config.js";
import { isLoopbackHost } from "../../kernel/loopback.js";
import { required } from "../../kernel/required.js";
import {
  DEFAULT_LIMITS,
  pickSetting,
  resolveSettings,
  SETTINGS,
  SettingError,
  settingProblem,
  settingReaderOf,
} from "../../kernel/settings.js";
import { checkProviderConfig, providerTarget } from "../../provider/native/config.js";

const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

describe("precedence: explicit, then stack config, then environment, then default", () => {
  const env = {
    HELPDESK_BASE_URL: "https://env.example",
    HELPDESK_ACCESS_TOKEN: "env-token",
    HELPDESK_CLIENT_ID: "env-client",
  };

  it("stack config wins over the environment (the dynamic Webhook)", () => {
    const settings = resolveSettings({
      config: stackConfigSettings(
        config({ "helpdesk:baseUrl": "https://config.example/", "helpdesk:accessToken": "config-token" }),
      ),
      env,
    });
    expect(settings.baseUrl?.href).toBe("https://config.example/");
    expect(settings.accessToken).toBe("config-token");
    expect(settings.clientId).toBe("env-client"); // unset in config: the environment fills it
    expect(settings.origins).toMatchObject({ baseUrl: "config", accessToken: "config", clientId: "environment" });
  });

  it("an explicit value wins over both (a native provider's argument, a login flag)", () => {
    const settings = resolveSettings({
      explicit: settingReaderOf({ baseUrl: "https://explicit.example", accessToken: "explicit-token" }),
      config: stackConfigSettings(config({ "helpdesk:baseUrl": "https://config.example" })),
      env,
    });
    expect(settings.baseUrl?.href).toBe("https://explicit.example/");
    expect(settings.accessToken).toBe("explicit-token");
    expect(settings.origins.baseUrl).toBe("explicit");
  });

  it("the environment fills what nothing sets, and the defaults fill the limits", () => {
    const settings = resolveSettings({ env });
    expect(settings.baseUrl?.href).toBe("https://env.example/");
    expect(settings.origins.accessToken).toBe("environment");
    expect(settings.limits).toEqual(DEFAULT_LIMITS);
    expect(DEFAULT_LIMITS).toEqual({
      maxRetries: SETTINGS.maxRetries.default,
      requestTimeoutSeconds: SETTINGS.requestTimeout.default,
    });
  });

  it("empty and blank values count as unset at every level", () => {
    expect(
      pickSetting("baseUrl", {
        explicit: settingReaderOf({ baseUrl: " " }),
        config: settingReaderOf({ baseUrl: "" }),
        env,
      }),
    ).toEqual({
      value: "https://env.example",
      origin: "environment",
    });
    expect(pickSetting("baseUrl", {})).toBeUndefined();
  });

  it("a native provider resolves its arguments over the environment (two providers, one environment)", () => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      const eu = providerTarget({ baseUrl: "https://eu.example", accessToken: "eu-token" });
      const us = providerTarget({ baseUrl: "https://us.example", accessToken: "us-token", maxRetries: 3 });
      expect([eu.settings.baseUrl?.href, eu.settings.accessToken]).toEqual(["https://eu.example/", "eu-token"]);
      expect([us.settings.baseUrl?.href, us.settings.accessToken, us.settings.limits.maxRetries]).toEqual([
        "https://us.example/",
        "us-token",
        3,
      ]);
      expect(providerTarget({}).settings.baseUrl?.href).toBe("https://env.example/"); // nothing set: the environment fills
    } finally {
      for (const key of Object.keys(env)) if (!(key in saved)) delete process.env[key];
    }
  });

  it("login: a flag, then the namespace's stack config, then the environment", () => {
    const stack = { "eu:baseUrl": "https://config.example", "eu:clientId": "config-client" };
    const { found, missing } = pickClientSettings({ clientId: "flag-client" }, stack, env, "eu");
    expect(found).toEqual({ baseUrl: "https://config.example", clientId: "flag-client" });
    expect(missing).toEqual(["clientSecret", "redirectUri"]);
  });
});

describe("integer settings: the table's ranges", () => {
  it.each([
    ["maxRetries", "0", undefined],
    ["maxRetries", "50", undefined],
    ["maxRetries", "51", /maxRetries must be a whole number from 0 to 50, got "51"/],
    ["maxRetries", "-1", /from 0 to 50/],
    ["maxRetries", "2.5", /whole number/],
    ["maxRetries", "many", /got "many"/],
    ["requestTimeout", "1", undefined],
    ["requestTimeout", "600", undefined],
    ["requestTimeout", "0", /requestTimeout must be a whole number of seconds from 1 to 600/],
  ] as const)("%s = %j", (name, text, problem) => {
    const found = settingProblem(name, text);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });

  it("names where a refused value came from, and never shows a secret's value", () => {
    expect(() => resolveSettings({ env: { HELPDESK_BASE_URL: "ftp://x.example" } })).toThrowError(
      /^env HELPDESK_BASE_URL: /,
    );
    expect(() =>
      resolveSettings({ config: stackConfigSettings(config({ "helpdesk:requestTimeout": "0" })) }),
    ).toThrowError(SettingError);
    expect(settingProblem("accessToken", "anything")).toBeUndefined();
  });
});

/**
 * One table of base URLs, judged by every place that takes one: `login` (its settings step, as `pulumi-helpdesk login
 * --base-url` runs it), the native provider's CheckConfig, and the settings resolution both providers run before a
 * request. All must accept and refuse the same values.
 */
const BASE_URLS: Array<{ raw: string; ok: boolean; href?: string; why?: RegExp }> = [
  { raw: "https://helpdesk.example.com", ok: true, href: "https://helpdesk.example.com/" },
  { raw: "https://helpdesk.example.com/", ok: true, href: "https://helpdesk.example.com/" },
  { raw: "https://h.example/api//", ok: true, href: "https://h.example/api" },
  { raw: "  http://127.0.0.1:8080  ", ok: true, href: "http://127.0.0.1:8080/" },
  { raw: "http://[::1]:9/x", ok: true, href: "http://[::1]:9/x" },
  { raw: "HTTPS://H.EXAMPLE", ok: true, href: "https://h.example/" },
  { raw: "https://h.example/?q=1", ok: false, why: /must not carry a query/ },
  { raw: "https://h.example/?", ok: false, why: /must not carry a query/ },
  { raw: "https://h.example/#top", ok: false, why: /fragment/ },
  { raw: "https://user:pass@h.example", ok: false, why: /must not carry user info/ },
  { raw: "ftp://h.example", ok: false, why: /must use http or https, not ftp/ },
  { raw: "helpdesk.example.com", ok: false, why: /not an absolute URL/ },
  { raw: "/v1", ok: false, why: /not an absolute URL/ },
  { raw: "https://", ok: false, why: /not an absolute URL/ },
  { raw: "mailto:a@h.example", ok: false, why: /must use http or https/ },
  // Plain http only to a loopback host: every request to the base URL carries a token (L1 of the d785ad2 audit).
  {
    raw: "http://helpdesk.example.test",
    ok: false,
    why: /plain http to a host that is not this machine.*use https.*localhost, 127\.0\.0\.1 \(any 127\.x\.y\.z\) or \[::1\]/,
  },
  { raw: "http://10.0.0.7:8080/api", ok: false, why: /plain http/ },
  { raw: "HTTP://LOCALHOST:8080/api/", ok: true, href: "http://localhost:8080/api" },
  { raw: "http://127.8.9.10", ok: true, href: "http://127.8.9.10/" },
];

describe("one base URL rule: login and the providers accept and refuse the same values", () => {
  for (const row of BASE_URLS) {
    it(`${row.ok ? "accepts" : "refuses"} ${JSON.stringify(row.raw)}`, () => {
      const parsed = parseBaseUrl(row.raw);
      expect("url" in parsed).toBe(row.ok);
      if ("url" in parsed) expect(parsed.url.href).toBe(row.href);
      else expect(parsed.problem).toMatch(required(row.why, "the reason of a refused row"));

      // login (pulumi-helpdesk login --base-url <raw>)
      const login = (() => {
        try {
          pickClientSettings({ baseUrl: row.raw }, {}, {});
          return undefined;
        } catch (error) {
          return error;
        }
      })();
      expect(login === undefined).toBe(row.ok);
      if (!row.ok) {
        expect(login).toBeInstanceOf(CliError);
        expect((login as CliError).message).toMatch(/^--base-url: /);
        expect((login as CliError).exitCode).toBe(2);
      }

      // the native provider's CheckConfig (preview) and both providers' settings resolution (create, delete)
      const failures = checkProviderConfig({ baseUrl: row.raw }).failures;
      expect(failures.length === 0).toBe(row.ok);
      const resolved = (() => {
        try {
          return resolveSettings({ config: stackConfigSettings(config({ "helpdesk:baseUrl": row.raw })) });
        } catch (error) {
          return error;
        }
      })();
      expect(resolved instanceof SettingError).toBe(!row.ok);
      if (!row.ok) expect(failures[0]?.reason).toContain((parsed as { problem: string }).problem);
    });
  }

  it("joins API paths under the base URL's own path", () => {
    const parsed = parseBaseUrl("https://h.example/api/");
    if (!("url" in parsed)) throw new Error(parsed.problem);
    expect(baseUrlText(parsed.url)).toBe("https://h.example/api");
    expect(endpointUrl(parsed.url, "/v1/webhooks").href).toBe("https://h.example/api/v1/webhooks");
  });
});

describe("one loopback rule", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["[::1]", true],
    ["127.0.0.256", false],
    ["127.example.com", false],
    ["10.0.0.1", false],
    ["example.com", false],
  ])("%s → %s", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});
