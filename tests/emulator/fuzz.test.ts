/**
 * Fuzz test: ≥ 10,000 random or malformed requests (bad JSON, oversized bodies, wrong types, unknown events, bad ids,
 * bad tokens, odd methods, odd content types, odd paths and headers) against an emulator with faults off. Every
 * answer must be 4xx: never 5xx, never a dropped connection. The registered webhooks must be unchanged at the end.
 *
 * The generator is seeded (FUZZ_SEED env, default random) and prints the seed so a failure can be replayed.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { Agent, request } from "undici";
import type { Dispatcher } from "undici";
import { EVENTS } from "../../sdk/events.js";
import type { RunningEmulator } from "../../emulator/index.js";
import { DEFAULT_CLIENT } from "../../emulator/index.js";
import { bearer, http, login, start } from "./helpers.js";

const TOTAL = Number(process.env["FUZZ_COUNT"] ?? 10_000);
const CONCURRENCY = 32;
const SEED = Number(process.env["FUZZ_SEED"] ?? Math.floor(Math.random() * 2 ** 31));

/** mulberry32: a small seeded PRNG in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(SEED);
const int = (n: number) => Math.floor(rand() * n);
const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
const chance = (p: number) => rand() < p;

function randomString(max = 40): string {
  const alphabets = [
    "abcdefghijklmnopqrstuvwxyz",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.",
    "!\"#$%&'()*+,/:;<=>?@[\\]^`{|}~ \t",
    "äöüß€漢字😀\u0000\u0007\u200b\ufeff",
  ];
  let out = "";
  const length = int(max + 1);
  for (let i = 0; i < length; i++) {
    const alphabet = pick(alphabets);
    out += [...alphabet][int([...alphabet].length)];
  }
  return out;
}

/** Printable ASCII only: what may appear in a header value on the wire. */
function printable(max: number): string {
  return Array.from({ length: int(max + 1) }, () => String.fromCharCode(33 + int(94))).join("");
}

function randomJsonValue(depth = 0): unknown {
  switch (int(depth > 2 ? 6 : 8)) {
    case 0:
      return null;
    case 1:
      return rand() * 1e6 - 5e5;
    case 2:
      return chance(0.5);
    case 3:
    case 4:
      return randomString();
    case 5:
      return pick(["", "ticket_opened ", "TICKET_OPENED", "ticket", "__proto__", "constructor", "http://", "https://"]);
    case 6:
      return Array.from({ length: int(4) }, () => randomJsonValue(depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: int(4) }, () => [randomString(10), randomJsonValue(depth + 1)]));
  }
}

const BAD_URLS = [
  "",
  "/relative",
  "ftp://x.test/",
  "javascript:alert(1)",
  "mailto:a@b.c",
  "http://",
  "https:///nohost",
  "http:// space.test/",
  "https://x.test/" + "a".repeat(2100),
  "data:text/plain,hi",
  "file:///etc/passwd",
  "x".repeat(50),
];
const BAD_EVENTS = ["", "ticket", "Ticket_Opened", "ticket_opened ", " ticket_opened", "ticket_exploded", "TICKET_STARTED", "agent", "*", "ticket_opened,ticket_closed"];

/** A webhook body that is never valid (at least one field is wrong). */
function invalidWebhookBody(): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const goodEvent = pick(EVENTS);
  const goodUrl = `https://fuzz.test/${int(1000)}`;
  switch (int(6)) {
    case 0:
      body["event"] = pick(BAD_EVENTS);
      body["url"] = goodUrl;
      break;
    case 1:
      body["event"] = goodEvent;
      body["url"] = pick(BAD_URLS);
      break;
    case 2:
      body["event"] = randomJsonValue();
      body["url"] = randomJsonValue();
      if (typeof body["url"] === "string") body["url"] = pick(BAD_URLS);
      break;
    case 3:
      if (chance(0.5)) body["event"] = goodEvent;
      else body["url"] = goodUrl;
      break;
    case 4:
      body["event"] = [goodEvent];
      body["url"] = goodUrl;
      break;
    default:
      body["event"] = goodEvent;
      body["url"] = { href: goodUrl };
  }
  if (chance(0.3)) body[randomString(8)] = randomJsonValue();
  return body;
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PROPFIND", "MKCOL", "LOCK", "PURGE", "TRACE"];
const PATHS = [
  "/v1/webhooks",
  "/v1/webhooks/",
  "/v1/webhooks/wh_x",
  "/v1",
  "/v1/",
  "/v1/tickets",
  "/v2/webhooks",
  "/oauth/token",
  "/oauth/authorize",
  "/oauth",
  "/_emulator/events",
  "/_emulator/faults",
  "/_emulator/nothing",
  "/webhooks",
  "/signin",
  "/events",
  "/%2e%2e/%2e%2e/etc/passwd",
  "/v1/webhooks/%00",
  "/v1/webhooks/%E0%A4%A",
  "//v1//webhooks",
];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=bogus",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "text/plain",
  "application/xml",
  "application/merge-patch+json",
  "application/octet-stream",
  "",
  "garbage/",
  ";;;",
];

function randomIdPath(): string {
  const kinds = [
    () => `wh_${Array.from({ length: 16 }, () => pick([..."abcdefghijklmnopqrstuvwxyz234567"])).join("")}`,
    () => encodeURIComponent(randomString(30)) || "x",
    () => String(int(1e9)),
    () => "x".repeat(1 + int(3000)),
    () => "%ZZ%",
    () => "..%2F..%2Fadmin",
  ];
  return pick(kinds)();
}

function generate(token: string): FuzzRequest {
  const badToken = pick(["", "Bearer", "Bearer ", "Bearer x", `Bearer ${token}x`, `Basic ${token}`, "Bearer " + "A".repeat(5000), `Bearer ${token} extra`, "Token abc", `bearer  `]);
  const auth = (): Record<string, string> => (chance(0.5) ? bearer(token) : badToken ? { authorization: badToken } : {});
  switch (int(12)) {
    case 0: {
      // Invalid webhook JSON with a good token.
      return { method: "POST", path: "/v1/webhooks", headers: { ...bearer(token), "content-type": "application/json" }, body: JSON.stringify(invalidWebhookBody()) };
    }
    case 1: {
      // Invalid webhook form.
      const b = invalidWebhookBody();
      const form = new URLSearchParams(Object.entries(b).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)]));
      if (form.has("event") && chance(0.3)) form.append("event", pick(EVENTS)); // the first (invalid) value wins
      return { method: "POST", path: "/v1/webhooks", headers: { ...bearer(token), "content-type": "application/x-www-form-urlencoded" }, body: chance(0.2) ? form.toString() + "&%zz=%" : form.toString() };
    }
    case 2: {
      // Malformed JSON or odd content types with a good token.
      const bodies = ['{"event":', "{", "[]", "null", "1", '"s"', "{\"event\":\"ticket_opened\",\"url\":}", "\u0000\u0001", "{'a':1}", "", "{}".repeat(100)];
      return { method: "POST", path: "/v1/webhooks", headers: { ...bearer(token), "content-type": pick(CONTENT_TYPES) }, body: pick(bodies) };
    }
    case 3: {
      // Valid body but a bad or missing token.
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (badToken) headers["authorization"] = badToken;
      return { method: "POST", path: "/v1/webhooks", headers, body: JSON.stringify({ event: pick(EVENTS), url: "https://fuzz.test/ok" }) };
    }
    case 4: {
      // Delete of ids that do not exist (good token) or anything with a bad token.
      const headers = chance(0.7) ? bearer(token) : badToken ? { authorization: badToken } : {};
      return { method: "DELETE", path: `/v1/webhooks/${randomIdPath()}`, headers };
    }
    case 5: {
      // Odd methods on known and unknown paths.
      const method = pick(METHODS.filter((m) => m !== "POST"));
      let path = pick(PATHS);
      if (method === "DELETE" && path.startsWith("/v1/webhooks/")) path = "/v1/webhooks/wh_nonexistent";
      if ((method === "GET" || method === "HEAD") && path === "/oauth/authorize") path = "/oauth/authorize?client_id=ghost";
      if ((method === "GET" || method === "HEAD") && path === "/_emulator/faults") path = "/_emulator/nothing";
      let body = ["GET", "HEAD", "DELETE", "OPTIONS", "TRACE"].includes(method) ? undefined : JSON.stringify(randomJsonValue());
      if (method === "PUT" && path === "/_emulator/faults") body = JSON.stringify({ rate429: 2, junk: randomJsonValue() });
      return { method, path, headers: { ...auth(), ...(body ? { "content-type": pick(CONTENT_TYPES) || "application/json" } : {}) }, ...(body !== undefined && { body }) };
    }
    case 6: {
      // Token endpoint with bad parameters (never a valid code).
      const form: Record<string, string> = {};
      const fields = ["grant_type", "client_id", "client_secret", "redirect_uri", "code", "refresh_token", "code_verifier"];
      for (const f of fields) if (chance(0.6)) form[f] = pick([randomString(20), "authorization_code", "refresh_token", DEFAULT_CLIENT.clientId, DEFAULT_CLIENT.clientSecret, DEFAULT_CLIENT.redirectUri]);
      if (form["code"] !== undefined) form["code"] = "fuzz-" + randomString(10);
      if (form["refresh_token"] !== undefined) form["refresh_token"] = "fuzz-" + randomString(10);
      const json = chance(0.3);
      const headers: Record<string, string> = { "content-type": json ? "application/json" : chance(0.9) ? "application/x-www-form-urlencoded" : pick(CONTENT_TYPES) };
      if (chance(0.2)) headers["authorization"] = `Basic ${Buffer.from(pick([randomString(10), "helpdesk-demo:wrong", ":", "%zz:%zz"])).toString("base64")}`;
      if (chance(0.1)) headers["authorization"] = `Basic ${printable(10)}`;
      return { method: "POST", path: "/oauth/token", headers, body: json ? JSON.stringify(chance(0.8) ? form : randomJsonValue()) : new URLSearchParams(form).toString() };
    }
    case 7: {
      // Authorize with a bad client or redirect URI (always a 400 page).
      const q = new URLSearchParams();
      q.set("client_id", chance(0.5) ? randomString(10) || "x" : DEFAULT_CLIENT.clientId);
      q.set("response_type", pick(["code", "token", "", randomString(5)]));
      q.set("redirect_uri", pick(["http://evil.test/cb", DEFAULT_CLIENT.redirectUri + "/", randomString(20), ""]));
      if (q.get("client_id") === DEFAULT_CLIENT.clientId && q.get("redirect_uri") === DEFAULT_CLIENT.redirectUri) q.set("redirect_uri", "http://evil.test/");
      if (chance(0.3)) q.set("state", randomString(20));
      if (chance(0.2)) q.set("code_challenge", randomString(50));
      return { method: "GET", path: `/oauth/authorize?${q}`, headers: {} };
    }
    case 8: {
      // Emulator control routes with invalid bodies.
      if (chance(0.5)) {
        const body = chance(0.5) ? { event: pick(BAD_EVENTS), account: randomString(5) } : randomJsonValue();
        const text = chance(0.9) ? JSON.stringify(body) : "{bad";
        return { method: "POST", path: "/_emulator/events", headers: { "content-type": pick(["application/json", "text/plain", "application/x-www-form-urlencoded"]) }, body: text };
      }
      const faults = pick([{ rate429: 1 + rand() }, { dropRate: -rand() }, { latencyMs: "10" }, { rate500: "1" }, { nope: 1 }, { latencyMs: 1e9 }, [1], null]);
      return { method: "PUT", path: "/_emulator/faults", headers: { "content-type": pick(["application/json", "text/plain"]) }, body: JSON.stringify(faults) };
    }
    case 9: {
      // Page forms without a CSRF token or session.
      const path = pick(["/webhooks", "/signin", "/events", "/signout", `/webhooks/${randomIdPath()}/delete`, "/oauth/authorize"]);
      const form = new URLSearchParams({ event: pick(EVENTS), url: "https://fuzz.test/", username: "demo", password: "demo", csrf: chance(0.5) ? randomString(30) : "", request: randomString(10), decision: "approve" });
      return { method: "POST", path, headers: { "content-type": "application/x-www-form-urlencoded", ...(chance(0.5) && { cookie: `helpdesk_csrf=${encodeURIComponent(randomString(30))}` }) }, body: form.toString() };
    }
    case 10: {
      // Random paths with odd characters.
      // "." and ".." segments would be normalized away by the URL parser (and could reach "/", a 200 page).
      const segments = Array.from({ length: 1 + int(4) }, () => (encodeURIComponent(randomString(15)) || "x").replace(/^\.+$/, "x$&"));
      const base = pick(["/v1", "/oauth", "/_emulator", "", "/v1/webhooks"]);
      const method = pick(["GET", "DELETE", "PATCH"]);
      return { method, path: `${base}/${segments.join("/")}${chance(0.3) ? "?" + encodeURIComponent(randomString(10)) : ""}`, headers: auth() };
    }
    default: {
      // Oversized or binary bodies.
      if (chance(0.04)) {
        return { method: "POST", path: pick(["/v1/webhooks", "/oauth/token", "/_emulator/events"]), headers: { ...bearer(token), "content-type": "application/json" }, body: Buffer.alloc(1024 * 1024 + 1 + int(4096), 0x61) };
      }
      const bytes = Buffer.from(Array.from({ length: int(2000) }, () => int(256)));
      return { method: "POST", path: pick(["/v1/webhooks", "/oauth/token"]), headers: { ...bearer(token), "content-type": pick(CONTENT_TYPES) || "application/json" }, body: bytes };
    }
  }
}

let emulator: RunningEmulator;
let token: string;
let before: unknown;

beforeAll(async () => {
  emulator = await start();
  token = (await login(emulator.url)).access_token;
  for (const event of EVENTS.slice(0, 5)) {
    await http(`${emulator.url}/v1/webhooks`, { method: "POST", headers: bearer(token), json: { event, url: `https://keep.test/${event}` } });
  }
  before = (await http(`${emulator.url}/_emulator/webhooks`)).json;
});

afterAll(async () => {
  await emulator?.close();
});

test(`fuzz: ${TOTAL} random or malformed requests are all answered 4xx`, { timeout: 120_000 }, async () => {
  const agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  let sent = 0;
  const started = Date.now();
  async function worker(): Promise<void> {
    while (sent < TOTAL) {
      sent++;
      const req = generate(token);
      try {
        const res = await request(`${emulator.url}${req.path}`, {
          method: req.method as Dispatcher.HttpMethod,
          headers: req.headers,
          ...(req.body !== undefined && { body: req.body }),
          dispatcher: agent,
          headersTimeout: 10_000,
          bodyTimeout: 10_000,
        });
        await res.body.dump({ limit: 1024 * 1024 });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode < 400 || res.statusCode >= 500) failures.push(`${res.statusCode} ${req.method} ${req.path.slice(0, 120)} ${String(req.body ?? "").slice(0, 120)}`);
      } catch (error) {
        failures.push(`no answer (${(error as Error).message}) ${req.method} ${req.path.slice(0, 120)} ${String(req.body ?? "").slice(0, 120)}`);
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await agent.close();
  const ms = Date.now() - started;
  console.log(`fuzz: seed ${SEED}, ${sent} requests in ${ms} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
  expect(failures.slice(0, 20), `seed ${SEED}`).toEqual([]);
  expect(sent).toBeGreaterThanOrEqual(TOTAL);
  const after = (await http(`${emulator.url}/_emulator/webhooks`)).json;
  expect(after).toEqual(before);
  expect((await http(`${emulator.url}/_emulator/faults`)).json).toMatchObject({ dropRate: 0, rate429: 0, rate500: 0, rate503: 0 });
});
