/**
 * Contract tests of the emulator's OAuth endpoints (docs/helpdesk-api.md §4.1, §4.2, §5, §7; RFC 6749, RFC 6750, RFC 7636) over real
 * HTTP on 127.0.0.1.
 */

import { afterEach, describe, expect, test } from "vitest";
import type { EmulatorClient, RunningEmulator } from "../../emulator/index.js";
import { DEFAULT_CLIENT, startEmulator } from "../../emulator/index.js";
import { required } from "../../kernel/required.js";
import { authorizeUrl, bearer, exchange, getCode, http, login, pkce, start } from "./helpers.js";

const running: RunningEmulator[] = [];
async function emulator(options: Parameters<typeof start>[0] = {}): Promise<RunningEmulator> {
  const e = await start(options);
  running.push(e);
  return e;
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
});

const OTHER: EmulatorClient = {
  clientId: "other-app",
  clientSecret: "other-secret",
  redirectUri: "http://127.0.0.1:9999/cb",
  name: "Other",
};

/** A minimal cookie jar for the consent form tests. */
class Jar {
  private cookies = new Map<string, string>();
  take(setCookie: string | string[] | undefined): void {
    for (const line of [setCookie ?? []].flat()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
  header(): Record<string, string> {
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
  }
  /** The headers a browser sends with a form of the emulator's own page: the cookies and the page's `Origin`. */
  form(e: RunningEmulator): Record<string, string> {
    return { ...this.header(), origin: e.url };
  }
}
const hidden = (html: string, name: string): string =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";

describe("GET /oauth/authorize (docs/helpdesk-api.md §4.1, RFC 6749 §4.1.1)", () => {
  test("auto-approve redirects to the exact redirect_uri with code and state", async () => {
    const e = await emulator();
    const res = await http(authorizeUrl(e.url, DEFAULT_CLIENT, { state: "xyz 1/2" }));
    expect(res.status).toBe(302);
    const loc = new URL(String(res.headers.location));
    expect(`${loc.origin}${loc.pathname}`).toBe(DEFAULT_CLIENT.redirectUri);
    expect(loc.searchParams.get("state")).toBe("xyz 1/2");
    expect(loc.searchParams.get("code")?.length).toBeGreaterThanOrEqual(43);
  });

  test("no state → redirect without state", async () => {
    const e = await emulator();
    const q = new URLSearchParams({
      client_id: DEFAULT_CLIENT.clientId,
      response_type: "code",
      redirect_uri: DEFAULT_CLIENT.redirectUri,
    });
    const res = await http(`${e.url}/oauth/authorize?${q}`);
    expect(res.status).toBe(302);
    expect(new URL(String(res.headers.location)).searchParams.has("state")).toBe(false);
  });

  test("a redirect URI with a query keeps it (RFC 6749 §3.1.2)", async () => {
    const client = { ...OTHER, redirectUri: "http://127.0.0.1:9999/cb?tenant=a" };
    const e = await emulator({ clients: [client] });
    const loc = new URL(String((await http(authorizeUrl(e.url, client))).headers.location));
    expect(loc.searchParams.get("tenant")).toBe("a");
    expect(loc.searchParams.get("code")).toBeTruthy();
  });

  const pageErrors: Array<[string, (u: URLSearchParams) => void, RegExp]> = [
    ["unknown client_id", (q) => q.set("client_id", "nope"), /Unknown application/],
    ["missing client_id", (q) => q.delete("client_id"), /client_id/],
    [
      "redirect_uri differs (trailing slash)",
      (q) => q.set("redirect_uri", `${DEFAULT_CLIENT.redirectUri}/`),
      /Redirect URI mismatch/,
    ],
    [
      "redirect_uri differs (other host)",
      (q) => q.set("redirect_uri", "http://evil.example/callback"),
      /Redirect URI mismatch/,
    ],
    ["missing redirect_uri", (q) => q.delete("redirect_uri"), /redirect_uri/],
    ["response_type=token", (q) => q.set("response_type", "token"), /response_type/],
    ["missing response_type", (q) => q.delete("response_type"), /response_type/],
    ["repeated client_id", (q) => q.append("client_id", DEFAULT_CLIENT.clientId), /repeated/],
  ];
  for (const [name, mutate, text] of pageErrors) {
    test(`${name} → 400 HTML page, never a redirect (RFC 6749 §4.1.2.1)`, async () => {
      const e = await emulator();
      const q = new URLSearchParams({
        client_id: DEFAULT_CLIENT.clientId,
        response_type: "code",
        redirect_uri: DEFAULT_CLIENT.redirectUri,
        state: "s",
      });
      mutate(q);
      const res = await http(`${e.url}/oauth/authorize?${q}`);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(String(res.headers["content-type"])).toMatch(/text\/html/);
      expect(res.text).toMatch(text);
    });
  }

  test("PKCE with an unsupported method → redirect error=invalid_request with state (RFC 7636 §4.4.1)", async () => {
    const e = await emulator();
    const res = await http(
      authorizeUrl(e.url, DEFAULT_CLIENT, {
        state: "s1",
        code_challenge: pkce().challenge,
        code_challenge_method: "plain",
      }),
    );
    expect(res.status).toBe(302);
    const loc = new URL(String(res.headers.location));
    expect(loc.searchParams.get("error")).toBe("invalid_request");
    expect(loc.searchParams.get("state")).toBe("s1");
    expect(loc.searchParams.has("code")).toBe(false);
  });

  test("POST /oauth/token is the only method of the token endpoint (405 Allow: POST)", async () => {
    const e = await emulator();
    const res = await http(`${e.url}/oauth/token`);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
  });
});

describe("consent page (autoApprove off)", () => {
  async function openConsent(e: RunningEmulator, jar: Jar, state = "st-1") {
    const res = await http(authorizeUrl(e.url, DEFAULT_CLIENT, { state }), { headers: jar.header() });
    jar.take(res.headers["set-cookie"]);
    return res;
  }

  test("shows the application name, Approve/Deny and sign-in fields; no caching, no framing", async () => {
    const e = await emulator({ autoApprove: false });
    const jar = new Jar();
    const res = await openConsent(e, jar);
    expect(res.status).toBe(200);
    expect(res.text).toContain("pulumi-helpdesk demo");
    expect(res.text).toContain('value="approve"');
    expect(res.text).toContain('value="deny"');
    expect(res.text).toContain('name="password"');
    expect(hidden(res.text, "csrf").length).toBeGreaterThan(20);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(String(res.headers["content-security-policy"])).toContain("frame-ancestors 'none'");
    expect(String(res.headers["set-cookie"])).toMatch(/HttpOnly/);
  });

  test("Approve with credentials → 302 code + state; the code works; the session skips sign-in next time", async () => {
    const e = await emulator({ autoApprove: false });
    const jar = new Jar();
    const page = await openConsent(e, jar, "abc");
    const res = await http(`${e.url}/oauth/authorize`, {
      method: "POST",
      headers: jar.form(e),
      form: {
        request: hidden(page.text, "request"),
        csrf: hidden(page.text, "csrf"),
        decision: "approve",
        username: "demo",
        password: "demo",
      },
    });
    expect(res.status).toBe(302);
    const loc = new URL(String(res.headers.location));
    expect(loc.searchParams.get("state")).toBe("abc");
    expect((await exchange(e.url, required(loc.searchParams.get("code"), "the code"))).status).toBe(200);
    jar.take(res.headers["set-cookie"]);
    const again = await openConsent(e, jar);
    expect(again.text).toContain("Signed in as");
    expect(again.text).not.toContain('name="password"');
  });

  test("Deny → 302 error=access_denied + state (RFC 6749 §4.1.2.1)", async () => {
    const e = await emulator({ autoApprove: false });
    const jar = new Jar();
    const page = await openConsent(e, jar, "den");
    const res = await http(`${e.url}/oauth/authorize`, {
      method: "POST",
      headers: jar.form(e),
      form: { request: hidden(page.text, "request"), csrf: hidden(page.text, "csrf"), decision: "deny" },
    });
    expect(res.status).toBe(302);
    const loc = new URL(String(res.headers.location));
    expect(loc.searchParams.get("error")).toBe("access_denied");
    expect(loc.searchParams.get("state")).toBe("den");
    expect(loc.searchParams.has("code")).toBe(false);
  });

  test("wrong password → 401 page again; missing or wrong CSRF token → 403; an answered request cannot be reused", async () => {
    const e = await emulator({ autoApprove: false });
    const jar = new Jar();
    const page = await openConsent(e, jar);
    const form = {
      request: hidden(page.text, "request"),
      csrf: hidden(page.text, "csrf"),
      decision: "approve",
      username: "demo",
      password: "x",
    };
    const wrong = await http(`${e.url}/oauth/authorize`, { method: "POST", headers: jar.form(e), form });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("Wrong username or password");
    const noCsrf = await http(`${e.url}/oauth/authorize`, {
      method: "POST",
      headers: jar.form(e),
      form: { ...form, csrf: "" },
    });
    expect(noCsrf.status).toBe(403);
    const noCookie = await http(`${e.url}/oauth/authorize`, {
      method: "POST",
      headers: { origin: e.url },
      form: { ...form, password: "demo" },
    });
    expect(noCookie.status).toBe(403);
    const foreign = await http(`${e.url}/oauth/authorize`, {
      method: "POST",
      headers: { ...jar.form(e), origin: "http://evil.example" },
      form: { ...form, password: "demo" },
    });
    expect(foreign.status).toBe(403);
    const ok = await http(`${e.url}/oauth/authorize`, {
      method: "POST",
      headers: jar.form(e),
      form: { ...form, password: "demo" },
    });
    expect(ok.status).toBe(302);
    const reused = await http(`${e.url}/oauth/authorize`, {
      method: "POST",
      headers: jar.form(e),
      form: { ...form, password: "demo" },
    });
    expect(reused.status).toBe(400);
  });

  test("autoApprove as a named account issues tokens of that account", async () => {
    const e = await emulator({
      accounts: [
        { username: "demo", password: "demo" },
        { username: "ops", password: "pw" },
      ],
      autoApprove: "ops",
    });
    const t = await login(e.url);
    await http(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: bearer(t.access_token),
      json: { event: "ticket_opened", url: "https://x.test/h" },
    });
    const list = await http(`${e.url}/_emulator/webhooks`);
    expect(list.json.webhooks[0].account).toBe("ops");
  });

  test("autoApprove naming no account is a start-up error", async () => {
    await expect(startEmulator({ autoApprove: "ghost" })).rejects.toThrow(/autoApprove/);
  });
});

describe("POST /oauth/token (docs/helpdesk-api.md §4.2, RFC 6749 §4.1.3, §5)", () => {
  test("answers access_token, token_type bearer, expires_in (seconds), refresh_token; no-store", async () => {
    const e = await emulator();
    const res = await exchange(e.url, await getCode(e.url));
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["access_token", "expires_in", "refresh_token", "token_type"]);
    expect(res.json.token_type).toBe("bearer");
    expect(res.json.expires_in).toBe(7200);
    expect(res.json.access_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(res.json.refresh_token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(res.headers["cache-control"]).toBe("no-store");
  });

  test("accessTokenTtlSeconds sets expires_in", async () => {
    const e = await emulator({ accessTokenTtlSeconds: 60 });
    expect((await login(e.url)).expires_in).toBe(60);
  });

  test("accepts a JSON body", async () => {
    const e = await emulator();
    const code = await getCode(e.url);
    const res = await http(`${e.url}/oauth/token`, {
      method: "POST",
      json: {
        grant_type: "authorization_code",
        client_id: DEFAULT_CLIENT.clientId,
        client_secret: DEFAULT_CLIENT.clientSecret,
        redirect_uri: DEFAULT_CLIENT.redirectUri,
        code,
      },
    });
    expect(res.status).toBe(200);
  });

  test("accepts HTTP Basic client authentication (RFC 6749 §2.3.1)", async () => {
    const e = await emulator();
    const code = await getCode(e.url);
    const basic = Buffer.from(
      `${encodeURIComponent(DEFAULT_CLIENT.clientId)}:${encodeURIComponent(DEFAULT_CLIENT.clientSecret)}`,
    ).toString("base64");
    const res = await http(`${e.url}/oauth/token`, {
      method: "POST",
      headers: { authorization: `Basic ${basic}` },
      form: { grant_type: "authorization_code", redirect_uri: DEFAULT_CLIENT.redirectUri, code },
    });
    expect(res.status).toBe(200);
    const both = await http(`${e.url}/oauth/token`, {
      method: "POST",
      headers: { authorization: `Basic ${basic}` },
      form: {
        grant_type: "authorization_code",
        redirect_uri: DEFAULT_CLIENT.redirectUri,
        code: await getCode(e.url),
        client_secret: DEFAULT_CLIENT.clientSecret,
      },
    });
    expect(both.status).toBe(400);
    expect(both.json.error).toBe("invalid_request");
    const wrong = await http(`${e.url}/oauth/token`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from("helpdesk-demo:nope").toString("base64")}` },
      form: { grant_type: "authorization_code", redirect_uri: DEFAULT_CLIENT.redirectUri, code: await getCode(e.url) },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error).toBe("invalid_client");
  });

  type Case = [string, (code: string) => Record<string, string>, number, string];
  const base = (code: string): Record<string, string> => ({
    grant_type: "authorization_code",
    client_id: DEFAULT_CLIENT.clientId,
    client_secret: DEFAULT_CLIENT.clientSecret,
    redirect_uri: DEFAULT_CLIENT.redirectUri,
    code,
  });
  const without = (key: string) => (code: string) => {
    const f = base(code);
    delete f[key];
    return f;
  };
  const cases: Case[] = [
    ["missing grant_type", without("grant_type"), 400, "invalid_request"],
    ["grant_type=password", (c) => ({ ...base(c), grant_type: "password" }), 400, "unsupported_grant_type"],
    [
      "grant_type=client_credentials",
      (c) => ({ ...base(c), grant_type: "client_credentials" }),
      400,
      "unsupported_grant_type",
    ],
    ["missing client_id", without("client_id"), 401, "invalid_client"],
    ["missing client_secret", without("client_secret"), 401, "invalid_client"],
    ["wrong client_secret", (c) => ({ ...base(c), client_secret: "nope" }), 401, "invalid_client"],
    ["unknown client_id", (c) => ({ ...base(c), client_id: "ghost" }), 401, "invalid_client"],
    ["missing code", without("code"), 400, "invalid_request"],
    ["missing redirect_uri", without("redirect_uri"), 400, "invalid_request"],
    ["unknown code", (c) => ({ ...base(c), code: "not-a-code" }), 400, "invalid_grant"],
    [
      "redirect_uri differs from the registered one (docs/helpdesk-api.md §5.3)",
      (c) => ({ ...base(c), redirect_uri: `${DEFAULT_CLIENT.redirectUri}x` }),
      400,
      "invalid_grant",
    ],
  ];
  for (const [name, form, status, error] of cases) {
    test(`${name} → ${status} ${error}`, async () => {
      const e = await emulator();
      const res = await http(`${e.url}/oauth/token`, { method: "POST", form: form(await getCode(e.url)) });
      expect(res.status).toBe(status);
      expect(res.json).toEqual({ error, error_description: expect.any(String) });
      if (status === 401) expect(res.headers["www-authenticate"]).toBe('Basic realm="helpdesk"');
      else expect(res.headers["www-authenticate"]).toBeUndefined();
    });
  }

  test("a repeated parameter → invalid_request (RFC 6749 §3.2)", async () => {
    const e = await emulator();
    const body = new URLSearchParams(base(await getCode(e.url)));
    body.append("code", "again");
    const res = await http(`${e.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: body.toString(),
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("invalid_request");
  });

  test("unsupported content type and malformed JSON → invalid_request (RFC 6749 §5.2 shape)", async () => {
    const e = await emulator();
    const plain = await http(`${e.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "grant_type=authorization_code",
    });
    expect(plain.status).toBe(400);
    expect(plain.json.error).toBe("invalid_request");
    const bad = await http(`${e.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe("invalid_request");
    const typed = await http(`${e.url}/oauth/token`, { method: "POST", json: { ...base("x"), code: 42 } });
    expect(typed.status).toBe(400);
    expect(typed.json.error).toBe("invalid_request");
  });

  test("a code issued to another client → invalid_grant", async () => {
    const e = await emulator({ clients: [DEFAULT_CLIENT, OTHER] });
    const code = await getCode(e.url, DEFAULT_CLIENT);
    const res = await exchange(e.url, code, OTHER);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("invalid_grant");
    expect((await exchange(e.url, code)).status).toBe(200);
  });

  test("a code used twice → invalid_grant and the tokens it issued are revoked (RFC 6749 §4.1.2)", async () => {
    const e = await emulator();
    const code = await getCode(e.url);
    const first = await exchange(e.url, code);
    expect(first.status).toBe(200);
    const hook = await http(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: bearer(first.json.access_token),
      json: { event: "ticket_opened", url: "https://x.test/h" },
    });
    expect(hook.status).toBe(201);
    const second = await exchange(e.url, code);
    expect(second.status).toBe(400);
    expect(second.json.error).toBe("invalid_grant");
    const after = await http(`${e.url}/v1/webhooks/${hook.json.webhook.id}`, {
      method: "DELETE",
      headers: bearer(first.json.access_token),
    });
    expect(after.status).toBe(401);
    expect(after.json.error).toBe("invalid_token");
    const refresh = await http(`${e.url}/oauth/token`, {
      method: "POST",
      form: {
        grant_type: "refresh_token",
        refresh_token: first.json.refresh_token,
        client_id: DEFAULT_CLIENT.clientId,
        client_secret: DEFAULT_CLIENT.clientSecret,
      },
    });
    expect(refresh.json.error).toBe("invalid_grant");
  });

  test("codes expire after 600 s (injected clock)", async () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const e = await emulator({ now: () => now });
    const fresh = await getCode(e.url);
    now += 599_000;
    expect((await exchange(e.url, fresh)).status).toBe(200);
    const stale = await getCode(e.url);
    now += 600_000;
    const res = await exchange(e.url, stale);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("invalid_grant");
    expect(res.json.error_description).toMatch(/expired/);
  });

  test("PKCE S256: right verifier passes; wrong, missing or unexpected verifier → invalid_grant (RFC 7636 §4.6)", async () => {
    const e = await emulator();
    const p = pkce();
    const withChallenge = { code_challenge: p.challenge, code_challenge_method: "S256" };
    expect(
      (
        await exchange(e.url, await getCode(e.url, DEFAULT_CLIENT, withChallenge), DEFAULT_CLIENT, {
          code_verifier: p.verifier,
        })
      ).status,
    ).toBe(200);
    const wrong = await exchange(e.url, await getCode(e.url, DEFAULT_CLIENT, withChallenge), DEFAULT_CLIENT, {
      code_verifier: pkce().verifier,
    });
    expect(wrong.json.error).toBe("invalid_grant");
    const missing = await exchange(e.url, await getCode(e.url, DEFAULT_CLIENT, withChallenge));
    expect(missing.json.error).toBe("invalid_grant");
    const unexpected = await exchange(e.url, await getCode(e.url), DEFAULT_CLIENT, { code_verifier: p.verifier });
    expect(unexpected.json.error).toBe("invalid_grant");
  });
});

describe("refresh tokens (RFC 6749 §6)", () => {
  const refreshForm = (refresh_token: string, client: EmulatorClient = DEFAULT_CLIENT) => ({
    grant_type: "refresh_token",
    refresh_token,
    client_id: client.clientId,
    client_secret: client.clientSecret,
  });

  test("without rotation: a new access token, the same refresh token, which stays valid", async () => {
    const e = await emulator();
    const t = await login(e.url);
    const r1 = await http(`${e.url}/oauth/token`, { method: "POST", form: refreshForm(t.refresh_token) });
    expect(r1.status).toBe(200);
    expect(r1.json.refresh_token).toBe(t.refresh_token);
    expect(r1.json.access_token).not.toBe(t.access_token);
    expect(r1.headers["cache-control"]).toBe("no-store");
    const r2 = await http(`${e.url}/oauth/token`, { method: "POST", form: refreshForm(t.refresh_token) });
    expect(r2.status).toBe(200);
    const use = await http(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: bearer(r2.json.access_token),
      json: { event: "agent_invited", url: "https://x.test/" },
    });
    expect(use.status).toBe(201);
  });

  test("with rotation: a new refresh token each time; the old one → invalid_grant, and its replay revokes the grant", async () => {
    const e = await emulator({ rotateRefreshTokens: true });
    const t = await login(e.url);
    const r1 = await http(`${e.url}/oauth/token`, { method: "POST", form: refreshForm(t.refresh_token) });
    expect(r1.status).toBe(200);
    expect(r1.json.refresh_token).not.toBe(t.refresh_token);
    const old = await http(`${e.url}/oauth/token`, { method: "POST", form: refreshForm(t.refresh_token) });
    expect(old.status).toBe(400);
    expect(old.json.error).toBe("invalid_grant");
    const newer = await http(`${e.url}/oauth/token`, { method: "POST", form: refreshForm(r1.json.refresh_token) });
    expect(newer.json.error).toBe("invalid_grant");
  });

  test("errors: missing refresh_token → invalid_request; unknown or another client's → invalid_grant; an access token is not a refresh token", async () => {
    const e = await emulator({ clients: [DEFAULT_CLIENT, OTHER] });
    const t = await login(e.url);
    const missing = await http(`${e.url}/oauth/token`, {
      method: "POST",
      form: {
        grant_type: "refresh_token",
        client_id: DEFAULT_CLIENT.clientId,
        client_secret: DEFAULT_CLIENT.clientSecret,
      },
    });
    expect(missing.json.error).toBe("invalid_request");
    expect((await http(`${e.url}/oauth/token`, { method: "POST", form: refreshForm("bogus") })).json.error).toBe(
      "invalid_grant",
    );
    expect(
      (await http(`${e.url}/oauth/token`, { method: "POST", form: refreshForm(t.refresh_token, OTHER) })).json.error,
    ).toBe("invalid_grant");
    expect((await http(`${e.url}/oauth/token`, { method: "POST", form: refreshForm(t.access_token) })).json.error).toBe(
      "invalid_grant",
    );
  });
});

describe("bearer authentication of /v1 (docs/helpdesk-api.md §5.4, RFC 6750)", () => {
  const hook = { event: "ticket_opened", url: "https://x.test/h" };

  test("no Authorization header → 401 with a bare Bearer challenge (RFC 6750 §3.1)", async () => {
    const e = await emulator();
    const res = await http(`${e.url}/v1/webhooks`, { method: "POST", json: hook });
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toBe('Bearer realm="helpdesk"');
    expect(res.json.error).toBe("unauthorized");
  });

  test("another scheme, or the token in the query (RFC 6750 §2.3, not supported) → 401 bare challenge", async () => {
    const e = await emulator();
    const t = await login(e.url);
    const basic = await http(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: { authorization: "Basic Zm9vOmJhcg==" },
      json: hook,
    });
    expect(basic.status).toBe(401);
    expect(basic.headers["www-authenticate"]).toBe('Bearer realm="helpdesk"');
    const query = await http(`${e.url}/v1/webhooks?access_token=${t.access_token}`, { method: "POST", json: hook });
    expect(query.status).toBe(401);
  });

  test("a malformed Bearer header → 400 invalid_request", async () => {
    const e = await emulator();
    for (const value of ["Bearer", "Bearer ", "Bearer a b", "Bearer ä"]) {
      const res = await http(`${e.url}/v1/webhooks`, { method: "POST", headers: { authorization: value }, json: hook });
      expect(res.status, value).toBe(400);
      expect(res.json.error).toBe("invalid_request");
      expect(String(res.headers["www-authenticate"])).toContain('error="invalid_request"');
    }
  });

  test("an unknown token → 401 invalid_token with error_description in header and body", async () => {
    const e = await emulator();
    const res = await http(`${e.url}/v1/webhooks`, { method: "POST", headers: bearer("no-such-token"), json: hook });
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toMatch(
      /^Bearer realm="helpdesk", error="invalid_token", error_description="[^"]+"$/,
    );
    expect(res.json).toEqual({ error: "invalid_token", error_description: expect.any(String) });
  });

  test("the scheme name is case-insensitive", async () => {
    const e = await emulator();
    const t = await login(e.url);
    const res = await http(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `bearer ${t.access_token}` },
      json: hook,
    });
    expect(res.status).toBe(201);
  });

  test("an expired token (TTL 1 s, injected clock) → 401 invalid_token; a refresh gives a working one", async () => {
    let now = Date.now();
    const e = await emulator({ accessTokenTtlSeconds: 1, now: () => now });
    const t = await login(e.url);
    expect(t.expires_in).toBe(1);
    expect(
      (await http(`${e.url}/v1/webhooks`, { method: "POST", headers: bearer(t.access_token), json: hook })).status,
    ).toBe(201);
    now += 1000;
    const expired = await http(`${e.url}/v1/webhooks`, { method: "POST", headers: bearer(t.access_token), json: hook });
    expect(expired.status).toBe(401);
    expect(expired.json.error).toBe("invalid_token");
    expect(expired.json.error_description).toMatch(/expired/);
    const r = await http(`${e.url}/oauth/token`, {
      method: "POST",
      form: {
        grant_type: "refresh_token",
        refresh_token: t.refresh_token,
        client_id: DEFAULT_CLIENT.clientId,
        client_secret: DEFAULT_CLIENT.clientSecret,
      },
    });
    expect(
      (await http(`${e.url}/v1/webhooks`, { method: "POST", headers: bearer(r.json.access_token), json: hook })).status,
    ).toBe(201);
  });

  test("an expired token with the real clock (TTL 1 s)", async () => {
    const e = await emulator({ accessTokenTtlSeconds: 1 });
    const t = await login(e.url);
    await new Promise((r) => setTimeout(r, 1100));
    const res = await http(`${e.url}/v1/webhooks`, { method: "POST", headers: bearer(t.access_token), json: hook });
    expect(res.status).toBe(401);
    expect(res.json.error).toBe("invalid_token");
  });
});
