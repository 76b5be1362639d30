/**
 * Issue 11, items 9-12: the emulator refuses what a public service refuses. Real HTTP on 127.0.0.1 (undici), and raw
 * `node:net` sockets for what undici will not send (a `Content-Length` with no body, partial requests).
 *
 * - 9: browser forms are accepted only from the emulator's own origin and with the CSRF token of the browser's own
 *   session; here as the exact requests a page on another port of 127.0.0.1 sends (planted cookies, `Origin: null`),
 *   and in real Chromium in browser.test.ts.
 * - 10: a body announced over the limit is responded with 413 at once on every route; the HTTP server's timeouts.
 * - 11: JSON nesting and size are bounded; no input produces a 5xx.
 * - 12: `X-Content-Type-Options: nosniff` everywhere; every token-endpoint failure in RFC 6749 §5.2's shape;
 *   dead tokens, codes and sessions are purged; deliveries have a total deadline.
 */

import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { request } from "undici";
import { afterEach, describe, expect, test } from "vitest";
import { JSON_LIMITS, parseJsonBounded } from "../../emulator/body.js";
import type { EmulatorOptions, RunningEmulator } from "../../emulator/index.js";
import { DEFAULT_CLIENT, DEFAULT_HTTP_TIMEOUTS, startEmulator } from "../../emulator/index.js";
import { CODE_TTL_MS } from "../../emulator/store/codes.js";
import { PURGE_INTERVAL_MS, Store } from "../../emulator/store/index.js";
import { DEAD_TOKEN_RETENTION_MS, MAX_ACCESS_TOKENS_PER_GRANT } from "../../emulator/store/tokens.js";
import { required } from "../../kernel/required.js";
import { waitFor } from "../../scripts/lib/processes.ts";
import { testTempDir } from "../support/temp.js";
import type { HttpResponse } from "./helpers.js";
import { bearer, cookiesOf, exchange, getCode, http, login, loginAs, rawExchange, startReceiver } from "./helpers.js";

const running: RunningEmulator[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});
async function emulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const e = await startEmulator(options);
  running.push(e);
  return e;
}

const hidden = (html: string, name: string): string =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";
describe("9: browser forms only from the emulator's own origin, with the session's CSRF token", () => {
  /** A browser signed in as demo (one-time link), with the CSRF token of its session from the home page. */
  async function signedIn(e: RunningEmulator): Promise<{ cookie: string; csrf: string }> {
    const link = (await http(`${e.url}/_emulator/login-link`)).json.url as string;
    const cookie = cookiesOf(await http(link));
    return { cookie, csrf: hidden((await http(`${e.url}/`, { headers: { cookie } })).text, "csrf") };
  }

  /** One state-changing form: how to set a browser up for it, the fields it posts, and the status when accepted. */
  interface FormCase {
    name: string;
    prepare(e: RunningEmulator): Promise<{ cookie: string; path: string; form: Record<string, string> }>;
    accepted: number;
  }
  const forms: FormCase[] = [
    {
      name: "sign in",
      accepted: 303,
      async prepare(e) {
        const home = await http(`${e.url}/`);
        return {
          cookie: cookiesOf(home),
          path: "/signin",
          form: { csrf: hidden(home.text, "csrf"), username: "demo", password: "demo" },
        };
      },
    },
    {
      name: "sign out",
      accepted: 303,
      async prepare(e) {
        const { cookie, csrf } = await signedIn(e);
        return { cookie, path: "/signout", form: { csrf } };
      },
    },
    {
      name: "add a webhook",
      accepted: 303,
      async prepare(e) {
        const { cookie, csrf } = await signedIn(e);
        return { cookie, path: "/webhooks", form: { csrf, event: "ticket_opened", url: "https://x.test/hook" } };
      },
    },
    {
      name: "delete a webhook",
      accepted: 303,
      async prepare(e) {
        const token = (await loginAs(e.url, "demo", "demo")).access_token;
        const id = (
          await http(`${e.url}/v1/webhooks`, {
            method: "POST",
            headers: bearer(token),
            json: { event: "ticket_opened", url: "https://x.test/keep" },
          })
        ).json.webhook.id as string;
        const { cookie, csrf } = await signedIn(e);
        return { cookie, path: `/webhooks/${id}/delete`, form: { csrf } };
      },
    },
    {
      name: "send a test event",
      accepted: 303,
      async prepare(e) {
        const token = (await loginAs(e.url, "demo", "demo")).access_token;
        await http(`${e.url}/v1/webhooks`, {
          method: "POST",
          headers: bearer(token),
          json: { event: "ticket_opened", url: "http://127.0.0.1:1/hook" },
        });
        const { cookie, csrf } = await signedIn(e);
        return { cookie, path: "/events", form: { csrf, event: "ticket_opened" } };
      },
    },
    ...(["approve", "deny"] as const).map(
      (decision): FormCase => ({
        name: `consent ${decision}`,
        accepted: 302,
        async prepare(e) {
          const { cookie } = await signedIn(e);
          const page = await http(
            `${e.url}/oauth/authorize?${new URLSearchParams({ client_id: DEFAULT_CLIENT.clientId, response_type: "code", redirect_uri: DEFAULT_CLIENT.redirectUri, state: "s" })}`,
            { headers: { cookie } },
          );
          return {
            cookie,
            path: "/oauth/authorize",
            form: { csrf: hidden(page.text, "csrf"), request: hidden(page.text, "request"), decision },
          };
        },
      }),
    ),
  ];

  /** What pages elsewhere send: `Origin: null` (sandboxed frames, `Referrer-Policy: no-referrer`), another port, nothing. */
  const foreign: Array<[string, (e: RunningEmulator) => Record<string, string>]> = [
    ["Origin: null", () => ({ origin: "null" })],
    ["neither Origin nor Referer", () => ({})],
    ["Origin of another port of 127.0.0.1", () => ({ origin: "http://127.0.0.1:1" })],
    ["Origin of localhost on another port", (e) => ({ origin: `http://localhost:${Number(new URL(e.url).port) + 1}` })],
    ["a foreign Referer and no Origin", () => ({ referer: "http://127.0.0.1:1/attack.html" })],
    ["Origin: null with the emulator's own Referer", (e) => ({ origin: "null", referer: `${e.url}/` })],
  ];

  for (const form of forms) {
    test(`${form.name}: refused (403, nothing changes) from any other origin; accepted from its own`, async () => {
      const e = await emulator();
      const { cookie, path, form: fields } = await form.prepare(e);
      const before = e.state();
      for (const [what, headers] of foreign) {
        const res = await http(`${e.url}${path}`, { method: "POST", headers: { cookie, ...headers(e) }, form: fields });
        expect(res.status, what).toBe(403);
        expect(res.headers["set-cookie"], what).toBeUndefined();
        expect(e.state(), what).toEqual(before);
      }
      const ok = await http(`${e.url}${path}`, { method: "POST", headers: { cookie, origin: e.url }, form: fields });
      expect(ok.status).toBe(form.accepted);
    });
  }

  test("without Origin, a Referer of the emulator's own origin stands in for it", async () => {
    const e = await emulator();
    const { cookie, csrf } = await signedIn(e);
    const res = await http(`${e.url}/webhooks`, {
      method: "POST",
      headers: { cookie, referer: `${e.url}/?notice=added` },
      form: { csrf, event: "ticket_opened", url: "https://x.test/h" },
    });
    expect(res.status).toBe(303);
    expect(e.state().webhooks).toHaveLength(1);
  });

  test("planted cookies are worthless: the token is bound to the session id by a server secret", async () => {
    const e = await emulator();
    const victim = await signedIn(e);
    const other = await signedIn(e);
    const before = e.state();
    const hook = { event: "ticket_opened", url: "https://attacker.test/hook" };
    const attempts: Array<[string, string, string]> = [
      // The old double-submit cookie, planted by a page on another port (cookies are not isolated by port).
      [
        "planted helpdesk_csrf",
        `${victim.cookie}; helpdesk_csrf=planted-planted-planted-planted`,
        "planted-planted-planted-planted",
      ],
      // A session id of the attacker's choosing, with a token guessed for it.
      ["planted session id", `helpdesk_session=${"A".repeat(43)}`, "A".repeat(43)],
      // A real token, of another session (an attacker's own, say).
      ["another session's token", victim.cookie, other.csrf],
      ["no token", victim.cookie, ""],
    ];
    for (const [what, cookie, csrf] of attempts) {
      // The emulator's own Origin, even: the token check holds on its own.
      const res = await http(`${e.url}/webhooks`, {
        method: "POST",
        headers: { cookie, origin: e.url },
        form: { csrf, ...hook },
      });
      expect(res.status, what).toBe(403);
    }
    expect(e.state()).toEqual(before);
    expect(
      (
        await http(`${e.url}/webhooks`, {
          method: "POST",
          headers: { cookie: victim.cookie, origin: e.url },
          form: { csrf: victim.csrf, ...hook },
        })
      ).status,
    ).toBe(303);
  });

  test("the pages tell browsers to send their Origin to the emulator itself (Referrer-Policy: same-origin)", async () => {
    const e = await emulator();
    const page = await http(`${e.url}/`);
    expect(page.headers["referrer-policy"]).toBe("same-origin");
    expect(page.text).toContain('<meta name="referrer" content="same-origin">');
  });
});

describe("10: a body announced over the limit is responded with 413 at once; HTTP server timeouts", () => {
  const routes: Array<[string, string]> = [
    ["POST", "/v1/webhooks"],
    ["POST", "/oauth/token"],
    ["POST", "/_emulator/events"],
    ["PUT", "/_emulator/faults"],
    ["POST", "/signin"],
    ["POST", "/oauth/authorize"],
    ["GET", "/"],
    ["GET", "/_emulator/webhooks"],
    ["DELETE", "/v1/webhooks/wh_x"],
    ["POST", "/no/such/path"],
  ];

  // Before: no response within 5 s. The bounds leave room for a loaded machine; a response takes milliseconds.
  test.each(routes)("%s %s with Content-Length: 2000000000 and no body → 413 at once", async (method, path) => {
    const e = await emulator({ autoApprove: true });
    const before = e.state();
    const started = performance.now();
    const answer = await rawExchange(
      e.port,
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${e.port}\r\nContent-Type: application/json\r\nContent-Length: 2000000000\r\n\r\n`,
      { waitMs: 5000 },
    );
    const ms = performance.now() - started;
    expect(answer.status, answer.text).toBe(413);
    expect(ms).toBeLessThan(2000);
    expect(answer.closedAfterMs, "the connection is closed: the body was never read").toBeLessThan(4000);
    const [head, body] = answer.text.split("\r\n\r\n") as [string, string];
    expect(head).toMatch(/^connection: close$/im);
    expect(head).toMatch(/^x-content-type-options: nosniff$/im);
    if (path === "/oauth/token") {
      expect(JSON.parse(body)).toEqual({
        error: "invalid_request",
        error_description: "Request body exceeds 1048576 bytes",
      });
      expect(head).toMatch(/^cache-control: no-store$/im);
    } else {
      expect(JSON.parse(body)).toEqual({ error: "payload_too_large", message: "Request body exceeds 1048576 bytes" });
    }
    expect(e.state()).toEqual(before);
  });

  test("the default timeouts are deliberate: headers 10 s, request 30 s, keep-alive 10 s (advertised)", async () => {
    expect(DEFAULT_HTTP_TIMEOUTS).toEqual({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 10_000 });
    const e = await emulator();
    const res = await request(`${e.url}/_emulator/stats`);
    await res.body.dump();
    expect(res.headers["keep-alive"]).toBe("timeout=10");
    await expect(startEmulator({ httpTimeouts: { headersMs: -1 } })).rejects.toThrow(/headersMs/);
  });

  test("a client that never finishes its headers or its body gets 408 and a closed connection", async () => {
    const e = await emulator({ httpTimeouts: { headersMs: 300, requestMs: 600 } });
    const host = `Host: 127.0.0.1:${e.port}\r\n`;
    const headers = await rawExchange(e.port, `GET / HTTP/1.1\r\n${host}`, { waitMs: 4000 });
    const body = await rawExchange(
      e.port,
      `POST /_emulator/events HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 50\r\n\r\n{"event":`,
      { waitMs: 4000 },
    );
    for (const answer of [headers, body]) {
      expect(answer.status, answer.text).toBe(408);
      expect(answer.text).toMatch(/x-content-type-options: nosniff/i);
      expect(answer.text).toContain('"error":"request_timeout"');
      // The timeouts are checked every second (the bound leaves room for a loaded machine).
      expect(answer.closedAfterMs).toBeLessThan(4000);
    }
    expect((await http(`${e.url}/_emulator/stats`)).status).toBe(200);
  });
});

describe("11: JSON nesting and size are bounded; no input produces a 5xx", () => {
  const deep = (depth: number, leaf = "1") => "[".repeat(depth) + leaf + "]".repeat(depth);

  test("the trigger data nested 30,000 deep → 400 naming the limit (was a 500)", async () => {
    const e = await emulator();
    for (const data of [`{"custom":${deep(30_000)}}`, `{"custom":{"a":${deep(30_000)}}}`]) {
      const res = await http(`${e.url}/_emulator/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"event":"customer_added","data":${data}}`,
      });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        error: "invalid_request",
        message: "Request body refused: JSON nests deeper than 32 levels",
      });
    }
  });

  test("every JSON route refuses deep nesting and too many values with 400 (the token endpoint in RFC 6749 §5.2 shape)", async () => {
    const e = await emulator({ autoApprove: true });
    const token = (await login(e.url)).access_token;
    const bodies = [
      `{"event":${deep(30_000, '"ticket_opened"')}}`,
      `{"url":${deep(33)}}`,
      `{"event":[${"0,".repeat(10_000)}0]}`,
    ];
    for (const body of bodies) {
      for (const [method, path, headers] of [
        ["POST", "/v1/webhooks", bearer(token)],
        ["POST", "/_emulator/events", {}],
        ["PUT", "/_emulator/faults", {}],
        ["PATCH", "/_emulator/faults", {}],
        ["POST", "/oauth/token", {}],
      ] as const) {
        const res = await http(`${e.url}${path}`, {
          method,
          headers: { ...headers, "content-type": "application/json" },
          body,
        });
        expect(res.status, `${method} ${path}`).toBe(400);
        const message = path === "/oauth/token" ? res.json.error_description : res.json.message;
        expect(message, `${method} ${path}`).toMatch(/deeper than 32 levels|more than 10000 values/);
      }
    }
    expect(e.state().webhooks).toEqual([]);
  });

  test("within the bounds nothing changes: data nested to the limit is delivered", async () => {
    const e = await emulator({ autoApprove: true });
    const receiver = await startReceiver();
    const token = (await login(e.url)).access_token;
    await http(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: bearer(token),
      json: { event: "customer_added", url: receiver.url },
    });
    // Body depth: the body object 1, data 2, custom 3..32.
    const res = await http(`${e.url}/_emulator/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"event":"customer_added","data":{"custom":{"x":${deep(29)}}}}`,
    });
    expect(res.status).toBe(202);
    await waitFor("the delivery", () => receiver.received.length === 1, 5000);
    expect(JSON.parse(required(receiver.received[0], "the delivery").body).custom.x).toEqual(JSON.parse(deep(29)));
    await receiver.close();
  });

  test("parseJsonBounded: the limits are exact, brackets inside strings do not count", () => {
    expect(JSON_LIMITS).toEqual({ maxDepth: 32, maxValues: 10_000 });
    expect(parseJsonBounded(deep(32))).toBeDefined();
    expect(() => parseJsonBounded(deep(33))).toThrow("JSON nests deeper than 32 levels");
    expect(() => parseJsonBounded(deep(1_000_000))).toThrow(RangeError);
    expect(parseJsonBounded(`{"a":"${"[".repeat(100)}\\"${"{".repeat(100)}"}`)).toEqual({
      a: `${"[".repeat(100)}"${"{".repeat(100)}`,
    });
    expect(parseJsonBounded(`[${Array(9_999).fill(0).join(",")}]`)).toHaveLength(9_999);
    expect(() => parseJsonBounded(`[${Array(10_000).fill(0).join(",")}]`)).toThrow("JSON holds more than 10000 values");
    expect(() => parseJsonBounded("{nope")).toThrow(SyntaxError);
  });
});

describe("12: nosniff everywhere, RFC 6749 §5.2 at the token endpoint, purging, delivery deadlines", () => {
  test("every response carries X-Content-Type-Options: nosniff, the app's and the HTTP server's own", async () => {
    const e = await emulator({ autoApprove: true });
    const token = (await login(e.url)).access_token;
    const id = (
      await http(`${e.url}/v1/webhooks`, {
        method: "POST",
        headers: bearer(token),
        json: { event: "ticket_opened", url: "https://x.test/" },
      })
    ).json.webhook.id;
    const answers: Array<[string, HttpResponse]> = [
      ["html page", await http(`${e.url}/`)],
      ["json", await http(`${e.url}/_emulator/stats`)],
      ["404", await http(`${e.url}/nope`)],
      ["405", await http(`${e.url}/v1/webhooks`, { headers: bearer(token) })],
      ["401", await http(`${e.url}/v1/webhooks`, { method: "POST", json: {} })],
      ["403 Host", await http(`${e.url}/_emulator/stats`, { headers: { host: "evil.test" } })],
      [
        "302",
        await http(
          `${e.url}/oauth/authorize?${new URLSearchParams({ client_id: DEFAULT_CLIENT.clientId, response_type: "code", redirect_uri: DEFAULT_CLIENT.redirectUri })}`,
        ),
      ],
      ["204", await http(`${e.url}/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(token) })],
      ["200 token", await exchange(e.url, await getCode(e.url))],
    ];
    for (const [what, res] of answers) expect(res.headers["x-content-type-options"], what).toBe("nosniff");
    for (const message of ["GARBAGE\r\n\r\n", `CONNECT x:1 HTTP/1.1\r\nHost: 127.0.0.1:${e.port}\r\n\r\n`]) {
      const raw = await rawExchange(e.port, message);
      expect(raw.status).toBeGreaterThanOrEqual(400);
      expect(raw.text).toMatch(/^x-content-type-options: nosniff$/im);
    }
  });

  test("every token-endpoint failure: { error, error_description }, Cache-Control: no-store", async () => {
    const e = await emulator({ autoApprove: true });
    const setFaults = (faults: object) => http(`${e.url}/_emulator/faults`, { method: "PUT", json: faults });
    const token = (body: string, type = "application/x-www-form-urlencoded", method = "POST") =>
      http(`${e.url}/oauth/token`, { method, headers: { "content-type": type }, body });
    const failures: Array<[string, () => Promise<HttpResponse>, number, string]> = [
      ["GET", () => http(`${e.url}/oauth/token`), 405, "invalid_request"],
      ["PUT", () => token("grant_type=x", undefined, "PUT"), 405, "invalid_request"],
      ["a body over 1 MiB", () => token("a=".padEnd(1024 * 1024 + 10, "b")), 413, "invalid_request"],
      ["text/plain", () => token("grant_type=authorization_code", "text/plain"), 400, "invalid_request"],
      [
        "deep JSON",
        () => token(`{"code":${"[".repeat(40)}${"]".repeat(40)}}`, "application/json"),
        400,
        "invalid_request",
      ],
      ["unknown grant", () => token("grant_type=password"), 400, "unsupported_grant_type"],
      ["no client", () => token("grant_type=authorization_code&code=x"), 401, "invalid_client"],
    ];
    for (const [faults, status, code] of [
      [{ rate429: 1 }, 429, "temporarily_unavailable"],
      [{ rate500: 1 }, 500, "server_error"],
      [{ rate503: 1 }, 503, "temporarily_unavailable"],
    ] as const) {
      failures.push([
        `injected ${status}`,
        async () => {
          await setFaults(faults);
          try {
            return await token("grant_type=authorization_code");
          } finally {
            await setFaults({});
          }
        },
        status,
        code,
      ]);
    }
    for (const [what, send, status, code] of failures) {
      const res = await send();
      expect(res.status, what).toBe(status);
      expect(res.json, what).toEqual({ error: code, error_description: expect.any(String) });
      expect(res.headers["cache-control"], what).toBe("no-store");
      expect(res.headers.pragma, what).toBe("no-cache");
      if (status === 405) expect(res.headers.allow).toBe("POST");
      if (status === 429 || status === 503) expect(res.headers["retry-after"]).toBe("1");
    }
  });

  test("Store.purge removes dead codes, tokens, sessions, sign-in links and consents, and nothing live", () => {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const store = new Store(() => now);
    const grant = { clientId: "c", redirectUri: "http://127.0.0.1/cb", account: "demo" };
    const deadCode = store.codes.issue(grant);
    const revoked = store.tokens.issue({ ...grant, grantId: "g1" }, 60);
    store.tokens.revoke(required(store.tokens.find(revoked.refreshToken, "refresh"), "the refresh token issued"));
    store.browser.createSession("demo");
    store.browser.issueLoginLink("demo");
    store.browser.addPending({ clientId: "c", redirectUri: "http://127.0.0.1/cb" });
    now += 8 * 3600_000 + DEAD_TOKEN_RETENTION_MS + CODE_TTL_MS; // past every lifetime and retention
    const liveCode = store.codes.issue(grant);
    const live = store.tokens.issue({ ...grant, grantId: "g2" }, 3600);
    // Dead: 1 code, 2 tokens of g1 (the access token expired, the refresh token revoked), 1 session, 1 link, 1 consent.
    expect(store.purge()).toBe(6);
    expect(store.purge()).toBe(0);
    expect(store.codes.find(deadCode)).toBeUndefined();
    expect(store.tokens.find(revoked.accessToken, "access")).toBeUndefined();
    expect(store.codes.find(liveCode)).toBeDefined();
    expect(store.tokens.find(live.accessToken, "access")).toBeDefined();
    expect(store.tokens.find(live.refreshToken, "refresh")).toBeDefined();
    expect(PURGE_INTERVAL_MS).toBe(60_000);
  });

  test("dead tokens and codes are kept an hour (responses say expired or revoked), then purged on access", async () => {
    let now = Date.now();
    const e = await emulator({ autoApprove: true, now: () => now, rotateRefreshTokens: true });
    const first = await login(e.url);
    const refresh = (refresh_token: string) =>
      http(`${e.url}/oauth/token`, {
        method: "POST",
        form: {
          grant_type: "refresh_token",
          refresh_token,
          client_id: DEFAULT_CLIENT.clientId,
          client_secret: DEFAULT_CLIENT.clientSecret,
        },
      });
    const second = (await refresh(first.refresh_token)).json;
    now += 7200_000; // the first access token expires
    const use = (t: string) =>
      http(`${e.url}/v1/webhooks`, {
        method: "POST",
        headers: bearer(t),
        json: { event: "ticket_opened", url: "https://x.test/" },
      });
    expect((await use(first.access_token)).json.error_description).toBe("The access token has expired");
    now += DEAD_TOKEN_RETENTION_MS;
    expect((await use(first.access_token)).json.error_description).toBe("The access token is unknown");
    // A rotated-out refresh token: "revoked" for an hour (a replay then also revokes the grant), then unknown.
    const third = (await refresh(second.refresh_token)).json;
    expect((await refresh(second.refresh_token)).json.error_description).toBe("The refresh token has been revoked");
    now += DEAD_TOKEN_RETENTION_MS;
    expect((await refresh(second.refresh_token)).json.error_description).toMatch(/invalid/);
    expect((await refresh(third.refresh_token)).json.error_description).toMatch(/invalid/); // its grant was revoked and purged too
    expect(e.state().tokens).toEqual([]);
  });

  test("the data file does not keep dead tokens and codes forever", async () => {
    const dataFile = join(testTempDir("helpdesk-purge-"), "state.json");
    let now = Date.now();
    const e = await emulator({ autoApprove: true, now: () => now, dataFile, accessTokenTtlSeconds: 60 });
    for (let i = 0; i < 5; i++) await login(e.url);
    await getCode(e.url); // never exchanged
    now += 60_000 + DEAD_TOKEN_RETENTION_MS + 2 * CODE_TTL_MS;
    const kept = await login(e.url);
    await e.close(); // purges, as the running emulator does every 60 s
    const db = new DatabaseSync(dataFile, { readOnly: true });
    const kinds = db
      .prepare("SELECT kind FROM tokens")
      .all()
      .map((row) => row.kind);
    const codes = required(db.prepare("SELECT count(*) AS n FROM codes").get(), "the row of count(*)").n;
    db.close();
    // The five refresh tokens never expire; of the access tokens only the new one is left; only the new (used) code.
    expect(kinds.filter((kind) => kind === "access")).toHaveLength(1);
    expect(kinds.filter((kind) => kind === "refresh")).toHaveLength(6);
    expect(codes).toBe(1);
    expect(kept.access_token).toBeTruthy();
  });

  test(`a grant holds at most ${MAX_ACCESS_TOKENS_PER_GRANT} live access tokens; the oldest is revoked`, async () => {
    const e = await emulator({ autoApprove: true });
    const first = await login(e.url);
    for (let i = 0; i < MAX_ACCESS_TOKENS_PER_GRANT; i++) {
      const res = await http(`${e.url}/oauth/token`, {
        method: "POST",
        form: {
          grant_type: "refresh_token",
          refresh_token: first.refresh_token,
          client_id: DEFAULT_CLIENT.clientId,
          client_secret: DEFAULT_CLIENT.clientSecret,
        },
      });
      expect(res.status).toBe(200);
    }
    expect(e.state().tokens.filter((t) => t.kind === "access")).toHaveLength(MAX_ACCESS_TOKENS_PER_GRANT);
    const res = await http(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: bearer(first.access_token),
      json: { event: "ticket_opened", url: "https://x.test/" },
    });
    expect(res.json.error_description).toBe("The access token has been revoked");
  });

  /** A receiver that takes the connection and answers according to `answer` (or never). */
  async function receiverServer(answer: (res: import("node:http").ServerResponse) => void): Promise<string> {
    const server = createServer((req, res) => {
      req.resume();
      answer(res);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  }
  async function deliverTo(url: string, deliveryRetry: EmulatorOptions["deliveryRetry"]) {
    const e = await emulator({ autoApprove: true, deliveryRetry });
    const token = (await login(e.url)).access_token;
    await http(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: bearer(token),
      json: { event: "ticket_opened", url },
    });
    const started = performance.now();
    await http(`${e.url}/_emulator/events`, { method: "POST", json: { event: "ticket_opened" } });
    const done = await waitFor(
      "the delivery to end",
      async () => (await http(`${e.url}/_emulator/deliveries`)).json.deliveries.find((d: { done: boolean }) => d.done),
      5000,
    );
    return { delivery: done, ms: performance.now() - started };
  }

  test("a receiver that never answers: the delivery ends at its total deadline, not after attempts × timeout", async () => {
    const url = await receiverServer(() => undefined);
    const { delivery, ms } = await deliverTo(url, { attempts: 5, baseDelayMs: 10, timeoutMs: 10_000, deadlineMs: 400 });
    expect(delivery).toMatchObject({
      ok: false,
      attempts: 1,
      status: null,
      error: expect.stringContaining("the delivery deadline of 400 ms passed"),
    });
    expect(ms).toBeLessThan(3000); // without a deadline: 5 attempts × 10 s
  });

  test("a retry whose backoff would end after the deadline is not waited for", async () => {
    const url = await receiverServer((res) => res.writeHead(500).end());
    const { delivery, ms } = await deliverTo(url, { attempts: 10, baseDelayMs: 200, deadlineMs: 500 });
    // Attempt 1 at 0 ms, retry 1 after 200 ms, retry 2 would start after 200 + 400 ms > 500 ms.
    expect(delivery).toMatchObject({
      ok: false,
      attempts: 2,
      status: 500,
      error: expect.stringContaining("not retried: the delivery deadline of 500 ms would pass first"),
    });
    expect(ms).toBeLessThan(3000);
  });

  test("the per-attempt timeout covers a response body that trickles", async () => {
    const url = await receiverServer((res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const drip = setInterval(() => res.write("."), 50);
      res.on("close", () => clearInterval(drip));
    });
    const { delivery, ms } = await deliverTo(url, { attempts: 1, timeoutMs: 300 });
    expect(delivery).toMatchObject({ ok: true, status: 200, attempts: 1 });
    expect(ms).toBeLessThan(4000); // without the timeout covering the body: until 64 KiB have trickled in
  });
});
