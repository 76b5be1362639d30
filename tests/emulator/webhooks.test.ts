/**
 * Contract tests of `/v1/webhooks` (docs/helpdesk-api.md §2.1, §3, §4.3, §4.4, §7) and the `/_emulator` inspection routes, over real
 * HTTP on 127.0.0.1.
 */

import { Readable } from "node:stream";
import { Agent, request } from "undici";
import { afterEach, describe, expect, test } from "vitest";
import type { RunningEmulator, WebhookIdShape } from "../../emulator/index.js";
import { EVENTS } from "../../kernel/events.js";
import { bearer, http, login, loginAs, start } from "./helpers.js";

const running: RunningEmulator[] = [];
async function emulator(options: Parameters<typeof start>[0] = {}): Promise<{ e: RunningEmulator; token: string }> {
  const e = await start(options);
  running.push(e);
  return { e, token: (await login(e.url)).access_token };
}
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
});

const create = (e: RunningEmulator, token: string, body: unknown) =>
  http(`${e.url}/v1/webhooks`, { method: "POST", headers: bearer(token), json: body });

describe("POST /v1/webhooks (docs/helpdesk-api.md §4.3)", () => {
  test("JSON body → 201 { webhook: { id, event, url, state: active, href } } and Location", async () => {
    const { e, token } = await emulator();
    const res = await create(e, token, { event: "ticket_started", url: "https://example.test/hook?x=1" });
    expect(res.status).toBe(201);
    const w = res.json.webhook;
    expect(w).toEqual({
      id: expect.stringMatching(/^wh_[a-z2-7]{16}$/),
      event: "ticket_started",
      url: "https://example.test/hook?x=1",
      state: "active",
      href: `${e.url}/v1/webhooks/${w.id}`,
    });
    expect(res.headers.location).toBe(w.href);
    expect(String(res.headers["content-type"])).toMatch(/application\/json/);
  });

  test("form body → 201", async () => {
    const { e, token } = await emulator();
    const res = await http(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: bearer(token),
      form: { event: "note_added", url: "http://127.0.0.1:1/x" },
    });
    expect(res.status).toBe(201);
    expect(res.json.webhook.event).toBe("note_added");
  });

  test("every event of docs/helpdesk-api.md §6 is accepted; ids are distinct", async () => {
    const { e, token } = await emulator();
    const ids = new Set<string>();
    for (const event of EVENTS) {
      const res = await create(e, token, { event, url: `https://example.test/${event}` });
      expect(res.status, event).toBe(201);
      ids.add(res.json.webhook.id);
    }
    expect(ids.size).toBe(14);
    const listed = await http(`${e.url}/_emulator/webhooks`);
    expect(listed.json.webhooks.map((w: { event: string }) => w.event)).toEqual([...EVENTS]);
  });

  const invalid: Array<[string, unknown, string[]]> = [
    ["unknown event", { event: "ticket_exploded", url: "https://x.test/" }, ["event"]],
    ["event in the wrong case", { event: "Ticket_Opened", url: "https://x.test/" }, ["event"]],
    ["event of the wrong type", { event: 5, url: "https://x.test/" }, ["event"]],
    ["missing event", { url: "https://x.test/" }, ["event"]],
    ["missing url", { event: "ticket_opened" }, ["url"]],
    ["empty url", { event: "ticket_opened", url: "" }, ["url"]],
    ["relative url", { event: "ticket_opened", url: "/hook" }, ["url"]],
    ["ftp url", { event: "ticket_opened", url: "ftp://x.test/" }, ["url"]],
    ["javascript: url", { event: "ticket_opened", url: "javascript:alert(1)" }, ["url"]],
    ["url without a host (https:///x)", { event: "ticket_opened", url: "https:///x" }, ["url"]],
    ["url with a backslash authority", { event: "ticket_opened", url: "https:\\\\x.test/" }, ["url"]],
    ["url with spaces", { event: "ticket_opened", url: "https://x.test/a b" }, ["url"]],
    ["url of the wrong type", { event: "ticket_opened", url: ["https://x.test/"] }, ["url"]],
    ["url longer than 2048", { event: "ticket_opened", url: `https://x.test/${"a".repeat(2040)}` }, ["url"]],
    ["both missing", {}, ["event", "url"]],
  ];
  for (const [name, body, fields] of invalid) {
    test(`${name} → 422 validation_failed naming ${fields.join(" and ")}`, async () => {
      const { e, token } = await emulator();
      const res = await create(e, token, body);
      expect(res.status).toBe(422);
      expect(res.json.error).toBe("validation_failed");
      expect(typeof res.json.message).toBe("string");
      expect(res.json.errors.map((x: { field: string }) => x.field)).toEqual(fields);
      const eventError = res.json.errors.find((x: { field: string }) => x.field === "event");
      if (eventError) expect(eventError.allowed).toEqual([...EVENTS]);
      expect((await http(`${e.url}/_emulator/webhooks`)).json.webhooks).toEqual([]);
    });
  }

  test("a url of exactly 2048 characters is accepted", async () => {
    const { e, token } = await emulator();
    const url = `https://x.test/${"a".repeat(2048 - 15)}`;
    expect(url.length).toBe(2048);
    expect((await create(e, token, { event: "ticket_opened", url })).status).toBe(201);
  });

  test("malformed JSON → 400; non-object JSON → 400; other content types → 415; all JSON errors", async () => {
    const { e, token } = await emulator();
    const send = (body: string, type?: string) =>
      http(`${e.url}/v1/webhooks`, {
        method: "POST",
        headers: { ...bearer(token), ...(type ? { "content-type": type } : {}) },
        body,
      });
    for (const [body, type, status] of [
      ['{"event":', "application/json", 400],
      ["", "application/json", 400],
      ["[1,2]", "application/json", 400],
      ['"text"', "application/json", 400],
      ["null", "application/json", 400],
      ["event=ticket_opened", "text/plain", 415],
      ["<xml/>", "application/xml", 415],
      ['{"event":"ticket_opened"}', undefined, 415],
    ] as const) {
      const res = await send(body, type);
      expect(res.status, `${type} ${body}`).toBe(status);
      expect(res.json.error).toBe(status === 415 ? "unsupported_media_type" : "invalid_request");
    }
    const ok = await send(
      JSON.stringify({ event: "ticket_opened", url: "https://x.test/" }),
      "application/json; charset=utf-8",
    );
    expect(ok.status).toBe(201);
  });

  test("a body above 1 MiB → 413 JSON, with or without Content-Length", async () => {
    const { e, token } = await emulator();
    const big = JSON.stringify({ event: "ticket_opened", url: "https://x.test/", pad: "x".repeat(1024 * 1024) });
    const res = await http(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(res.json.error).toBe("payload_too_large");
    async function* chunks() {
      for (let i = 0; i < 20; i++) yield Buffer.alloc(64 * 1024, 0x20);
    }
    const chunked = await request(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: Readable.from(chunks()),
    });
    expect(chunked.statusCode).toBe(413);
    expect(await chunked.body.json()).toMatchObject({ error: "payload_too_large" });
    expect((await http(`${e.url}/_emulator/webhooks`)).json.webhooks).toEqual([]);
  });

  test("unknown fields are ignored; state cannot be set by the caller", async () => {
    const { e, token } = await emulator();
    const res = await create(e, token, {
      event: "ticket_opened",
      url: "https://x.test/",
      state: "paused",
      id: "wh_mine",
    });
    expect(res.status).toBe(201);
    expect(res.json.webhook.state).toBe("active");
    expect(res.json.webhook.id).not.toBe("wh_mine");
  });

  const shapes: Array<[WebhookIdShape, string[], boolean]> = [
    ["id", ["id", "event", "url", "state", "href"], true],
    ["href", ["event", "url", "state", "href"], true],
    ["location", ["event", "url", "state"], true],
    ["none", ["event", "url", "state"], false],
  ];
  for (const [shape, keys, location] of shapes) {
    test(`webhookIdShape "${shape}" exposes ${keys.join(", ")}${location ? " and Location" : ", no Location"}`, async () => {
      const { e, token } = await emulator({ webhookIdShape: shape });
      const res = await create(e, token, { event: "ticket_opened", url: "https://x.test/" });
      expect(res.status).toBe(201);
      expect(Object.keys(res.json.webhook)).toEqual(keys);
      const id = (await http(`${e.url}/_emulator/webhooks`)).json.webhooks[0].id;
      if (location) expect(res.headers.location).toBe(`${e.url}/v1/webhooks/${id}`);
      else expect(res.headers.location).toBeUndefined();
      if (keys.includes("href")) expect(res.json.webhook.href).toBe(`${e.url}/v1/webhooks/${id}`);
      expect((await http(`${e.url}/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(token) })).status).toBe(204);
    });
  }
});

describe("DELETE /v1/webhooks/:id (docs/helpdesk-api.md §4.4)", () => {
  test("→ 204 without body; again → 404 not_found", async () => {
    const { e, token } = await emulator();
    const id = (await create(e, token, { event: "ticket_closed", url: "https://x.test/" })).json.webhook.id;
    const res = await http(`${e.url}/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(token) });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const again = await http(`${e.url}/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(token) });
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ error: "not_found", message: expect.any(String) });
  });

  test("unknown and odd ids → 404", async () => {
    const { e, token } = await emulator();
    for (const id of ["wh_aaaaaaaaaaaaaaaa", "1", "%2e%2e", "a%20b", "x".repeat(500), "%E0%A4%A"]) {
      const res = await http(`${e.url}/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(token) });
      expect(res.status, id).toBe(404);
    }
  });

  test("another account's webhook → 404 and it stays", async () => {
    const accounts = [
      { username: "demo", password: "demo" },
      { username: "eve", password: "eve" },
    ];
    const e = await start({ accounts, autoApprove: false });
    running.push(e);
    const demoToken = (await loginAs(e.url, "demo", "demo")).access_token;
    const eveToken = (await loginAs(e.url, "eve", "eve")).access_token;
    const id = (await create(e, demoToken, { event: "ticket_closed", url: "https://x.test/" })).json.webhook.id;
    const res = await http(`${e.url}/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(eveToken) });
    expect(res.status).toBe(404);
    expect(
      (await http(`${e.url}/_emulator/webhooks?account=demo`)).json.webhooks.map((w: { id: string }) => w.id),
    ).toEqual([id]);
    expect((await http(`${e.url}/v1/webhooks/${id}`, { method: "DELETE", headers: bearer(demoToken) })).status).toBe(
      204,
    );
  });
});

describe("other /v1 requests", () => {
  test("unsupported methods → 405 with Allow; unknown paths → 404 (after auth) or 401 (before)", async () => {
    const { e, token } = await emulator();
    const get = await http(`${e.url}/v1/webhooks`, { headers: bearer(token) });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe("POST");
    const put = await http(`${e.url}/v1/webhooks/wh_x`, { method: "PUT", headers: bearer(token), json: {} });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe("DELETE");
    expect((await http(`${e.url}/v1/tickets/1`, { headers: bearer(token) })).status).toBe(404);
    expect((await http(`${e.url}/v1/tickets/1`)).status).toBe(401);
    expect((await http(`${e.url}/nowhere`)).status).toBe(404);
  });

  test("a foreign Host header → 403 (DNS-rebinding guard)", async () => {
    const { e } = await emulator();
    const res = await http(`${e.url}/_emulator/webhooks`, { headers: { host: "evil.example" } });
    expect(res.status).toBe(403);
    expect((await http(`${e.url}/_emulator/webhooks`, { headers: { host: `localhost:${e.port}` } })).status).toBe(200);
    // Loopback is kernel/loopback.ts's: any 127.0.0.0/8 address and [::1]; the port must be this emulator's.
    for (const host of [`127.0.0.2:${e.port}`, `[::1]:${e.port}`, `LOCALHOST:${e.port}`]) {
      expect((await http(`${e.url}/_emulator/webhooks`, { headers: { host } })).status, host).toBe(200);
    }
    for (const host of [
      `evil.example:${e.port}`,
      `localhost:${e.port + 1}`,
      "localhost",
      `127.0.0.1.evil.example:${e.port}`,
    ]) {
      expect((await http(`${e.url}/_emulator/webhooks`, { headers: { host } })).status, host).toBe(403);
    }
  });
});

describe("/_emulator inspection routes", () => {
  test("webhooks lists id, event, url, state, account, createdAt (ISO 8601), filterable by account", async () => {
    const { e, token } = await emulator();
    await create(e, token, { event: "agent_invited", url: "https://x.test/a" });
    const res = await http(`${e.url}/_emulator/webhooks`);
    expect(res.json.webhooks).toEqual([
      {
        id: expect.stringMatching(/^wh_/),
        event: "agent_invited",
        url: "https://x.test/a",
        state: "active",
        account: "demo",
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    ]);
    expect((await http(`${e.url}/_emulator/webhooks?account=nobody`)).json.webhooks).toEqual([]);
  });

  test("stats count requests, connections and routes; reset-stats zeroes them", async () => {
    const { e, token } = await emulator();
    await http(`${e.url}/_emulator/reset-stats`, { method: "POST" });
    const agent = new Agent({ connections: 1 });
    for (let i = 0; i < 3; i++) {
      const r = await request(`${e.url}/v1/webhooks`, {
        method: "POST",
        headers: { ...bearer(token), "content-type": "application/json" },
        body: JSON.stringify({ event: "ticket_opened", url: "https://x.test/" }),
        dispatcher: agent,
      });
      await r.body.dump();
    }
    const r = await request(`${e.url}/_emulator/stats`, { dispatcher: agent });
    const stats = (await r.body.json()) as { requests: number; connections: number; byRoute: Record<string, number> };
    await agent.close();
    expect(stats.byRoute["POST /v1/webhooks"]).toBe(3);
    expect(stats.requests).toBeGreaterThanOrEqual(4);
    expect(stats.connections).toBeGreaterThanOrEqual(1);
    expect(stats.connections).toBeLessThanOrEqual(2);
  });

  test("login-link gives a single-use sign-in link valid 10 minutes", async () => {
    let now = Date.now();
    const { e } = await emulator({ now: () => now });
    const link = (await http(`${e.url}/_emulator/login-link?account=demo`)).json.url as string;
    expect(link.startsWith(`${e.url}/signin?token=`)).toBe(true);
    const first = await http(link);
    expect(first.status).toBe(303);
    expect(String(first.headers["set-cookie"])).toMatch(/helpdesk_session=.*HttpOnly.*SameSite=Lax/);
    expect((await http(link)).status).toBe(400);
    const late = (await http(`${e.url}/_emulator/login-link`)).json.url as string;
    now += 600_001;
    expect((await http(late)).status).toBe(400);
    expect((await http(`${e.url}/_emulator/login-link?account=ghost`)).status).toBe(404);
  });

  test("close() resolves promptly while keep-alive connections are open", async () => {
    const e = await start();
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const r = await request(`${e.url}/_emulator/stats`, { dispatcher: agent });
    await r.body.dump();
    const t0 = Date.now();
    await e.close();
    expect(Date.now() - t0).toBeLessThan(1000);
    await agent.close();
  });
});

describe("web page forms over HTTP (CSRF, sessions, escaping)", () => {
  test("sign in, add (escaped), CSRF refusal, sign out", async () => {
    const e = await start();
    running.push(e);
    const cookies = new Map<string, string>();
    const jar = (res: { headers: Record<string, unknown> }) => {
      for (const line of [res.headers["set-cookie"] ?? []].flat() as string[]) {
        const [pair = ""] = line.split(";");
        const [name = "", ...value] = pair.split("=");
        if (/Max-Age=0/i.test(line)) cookies.delete(name.trim());
        else cookies.set(name.trim(), value.join("="));
      }
    };
    // What a browser sends with a form of the emulator's own page: its cookies and the page's Origin.
    const cookie = () => ({ cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "), origin: e.url });
    const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

    const home = await http(`${e.url}/`);
    jar(home);
    expect(home.text).toContain('action="/signin"');
    const anonymousCsrf = csrfOf(home.text);
    const hookForm = { csrf: anonymousCsrf, event: "ticket_opened", url: 'https://x.test/"><script>alert(1)</script>' };
    expect((await http(`${e.url}/webhooks`, { method: "POST", headers: cookie(), form: hookForm })).status).toBe(401);

    const signin = await http(`${e.url}/signin`, {
      method: "POST",
      headers: cookie(),
      form: { csrf: anonymousCsrf, username: "demo", password: "demo" },
    });
    expect(signin.status).toBe(303);
    jar(signin);
    expect(String(signin.headers["set-cookie"])).toMatch(
      /helpdesk_session=[^;]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax/,
    );
    // Signing in issues a new session id, and with it a new CSRF token: the one of the signed-out page is dead.
    expect((await http(`${e.url}/webhooks`, { method: "POST", headers: cookie(), form: hookForm })).status).toBe(403);
    const csrf = csrfOf((await http(`${e.url}/`, { headers: cookie() })).text);
    expect(csrf).not.toBe(anonymousCsrf);

    expect(
      (
        await http(`${e.url}/webhooks`, {
          method: "POST",
          headers: cookie(),
          form: { ...hookForm, csrf: "forged-token-forged-token" },
        })
      ).status,
    ).toBe(403);
    const added = await http(`${e.url}/webhooks`, { method: "POST", headers: cookie(), form: { ...hookForm, csrf } });
    expect(added.status).toBe(303);
    const page = await http(`${e.url}/`, { headers: cookie() });
    expect(page.text).toContain("Signed in as");
    expect(page.text).not.toContain("<script>alert(1)</script>");
    expect(page.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(page.headers["content-security-policy"]).toMatch(/default-src 'none'/);

    const signout = await http(`${e.url}/signout`, { method: "POST", headers: cookie(), form: { csrf } });
    expect(signout.status).toBe(303);
    jar(signout);
    expect((await http(`${e.url}/`, { headers: cookie() })).text).toContain('action="/signin"');
  });
});
