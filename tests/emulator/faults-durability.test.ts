/**
 * Fault injection (429, 500, 503, drops, latency; runtime changes) and durability across restarts.
 */

import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { RunningEmulator } from "../../emulator/index.js";
import { startEmulator } from "../../emulator/index.js";
import { required } from "../../kernel/required.js";
import { waitFor } from "../../scripts/lib/processes.ts";
import { testTempDir } from "../support/temp.js";
import { bearer, getCode, http, login, start, startReceiver } from "./helpers.js";

const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
});
async function emulator(options: Parameters<typeof start>[0] = {}) {
  const e = await start(options);
  running.push(e);
  return e;
}
const hook = { event: "ticket_opened", url: "https://x.test/h" };
const setFaults = (e: RunningEmulator, faults: unknown) =>
  http(`${e.url}/_emulator/faults`, { method: "PUT", json: faults });
const count = async (e: RunningEmulator) => (await http(`${e.url}/_emulator/webhooks`)).json.webhooks.length as number;

describe("fault injection", () => {
  test("429 with Retry-After, decided before processing: nothing is created", async () => {
    const e = await emulator();
    const token = (await login(e.url)).access_token;
    expect((await setFaults(e, { rate429: 1, retryAfterSeconds: 3 })).json).toMatchObject({
      rate429: 1,
      retryAfterSeconds: 3,
    });
    const res = await http(`${e.url}/v1/webhooks`, { method: "POST", headers: bearer(token), json: hook });
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("3");
    expect(res.json.error).toBe("rate_limited");
    expect(await count(e)).toBe(0);
  });

  test("500 and 503 (with Retry-After, default 1 s); /oauth/token is faulted too", async () => {
    const e = await emulator({ faults: { rate500: 1 } });
    const code = await getCode(e.url); // /oauth/authorize is never faulted
    const token = await http(`${e.url}/oauth/token`, {
      method: "POST",
      form: { grant_type: "authorization_code", code },
    });
    expect(token.status).toBe(500);
    // The token endpoint answers every failure in RFC 6749 §5.2's shape.
    expect(token.json).toEqual({ error: "server_error", error_description: expect.stringContaining("injected") });
    expect(token.headers["cache-control"]).toBe("no-store");
    await setFaults(e, { rate503: 1 });
    const res = await http(`${e.url}/v1/webhooks`, { method: "POST", json: hook });
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("1");
    expect(res.json.error).toBe("service_unavailable");
    const busy = await http(`${e.url}/oauth/token`, {
      method: "POST",
      form: { grant_type: "authorization_code", code },
    });
    expect(busy.status).toBe(503);
    expect(busy.headers["retry-after"]).toBe("1");
    expect(busy.json).toEqual({ error: "temporarily_unavailable", error_description: expect.any(String) });
  });

  test("dropped connections: the socket closes without a response and nothing happens", async () => {
    const e = await emulator();
    const token = (await login(e.url)).access_token;
    await setFaults(e, { dropRate: 1 });
    await expect(http(`${e.url}/v1/webhooks`, { method: "POST", headers: bearer(token), json: hook })).rejects.toThrow(
      /other side closed|socket|ECONNRESET/i,
    );
    expect(await count(e)).toBe(0);
    await setFaults(e, {});
    expect((await http(`${e.url}/v1/webhooks`, { method: "POST", headers: bearer(token), json: hook })).status).toBe(
      201,
    );
  });

  test("latency delays /v1 requests but not /_emulator", async () => {
    const e = await emulator({ faults: { latencyMs: 250 } });
    let t0 = Date.now();
    await http(`${e.url}/v1/webhooks`, { method: "POST", json: hook });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(240);
    t0 = Date.now();
    await http(`${e.url}/_emulator/stats`);
    expect(Date.now() - t0).toBeLessThan(200);
  });

  test("/_emulator routes are never faulted; GET /_emulator/faults reads the configuration", async () => {
    const e = await emulator({ faults: { dropRate: 0.5, rate429: 0.5 } });
    for (let i = 0; i < 20; i++) expect((await http(`${e.url}/_emulator/webhooks`)).status).toBe(200);
    expect((await http(`${e.url}/_emulator/faults`)).json).toEqual({
      latencyMs: 0,
      rate429: 0.5,
      retryAfterSeconds: 1,
      rate500: 0,
      rate503: 0,
      dropRate: 0.5,
    });
  });

  test("shares follow the injected random source", async () => {
    const draws = [0.05, 0.15, 0.25, 0.35, 0.9];
    let i = 0;
    const e = await emulator({
      faults: { dropRate: 0.1, rate429: 0.1, rate500: 0.1, rate503: 0.1 },
      random: () => required(draws[i++ % draws.length], "a draw"),
    });
    await expect(http(`${e.url}/v1/webhooks`, { method: "POST", json: hook })).rejects.toThrow();
    expect((await http(`${e.url}/v1/webhooks`, { method: "POST", json: hook })).status).toBe(429);
    expect((await http(`${e.url}/v1/webhooks`, { method: "POST", json: hook })).status).toBe(500);
    expect((await http(`${e.url}/v1/webhooks`, { method: "POST", json: hook })).status).toBe(503);
    expect((await http(`${e.url}/v1/webhooks`, { method: "POST", json: hook })).status).toBe(401);
  });

  test("PATCH changes only the given fields; PUT replaces the whole configuration", async () => {
    const e = await emulator({ faults: { latencyMs: 5, rate429: 0.25 } });
    const patched = await http(`${e.url}/_emulator/faults`, { method: "PATCH", json: { rate503: 0.5 } });
    expect(patched.json).toMatchObject({ latencyMs: 5, rate429: 0.25, rate503: 0.5 });
    const put = await setFaults(e, { rate500: 0.1 });
    expect(put.json).toEqual({ latencyMs: 0, rate429: 0, retryAfterSeconds: 1, rate500: 0.1, rate503: 0, dropRate: 0 });
  });

  test("invalid fault settings → 422 at runtime, an Error at start", async () => {
    const e = await emulator();
    const res = await setFaults(e, { rate429: 2 });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].field).toBe("rate429");
    expect((await setFaults(e, { unknown: 1 })).status).toBe(422);
    expect((await http(`${e.url}/_emulator/faults`, { method: "PUT", form: { rate429: "1" } })).status).toBe(415);
    await expect(startEmulator({ faults: { rate500: -1 } })).rejects.toThrow(/rate500/);
  });
});

describe("durability (dataFile)", () => {
  test("clients, accounts, tokens, webhooks and the delivery log survive a restart; no clear token on disk", async () => {
    const dir = testTempDir("helpdesk-emu-");
    const dataFile = join(dir, "state.json");
    const receiver = await startReceiver();
    try {
      const a = await startEmulator({
        autoApprove: true,
        dataFile,
        clients: [{ clientId: "c1", clientSecret: "s1", redirectUri: "http://127.0.0.1:1/cb" }],
      });
      const t = await login(a.url, { clientId: "c1", clientSecret: "s1", redirectUri: "http://127.0.0.1:1/cb" });
      const created = await http(`${a.url}/v1/webhooks`, {
        method: "POST",
        headers: bearer(t.access_token),
        json: { event: "ticket_closed", url: receiver.url },
      });
      await http(`${a.url}/_emulator/events`, { method: "POST", json: { event: "ticket_closed" } });
      await waitFor("the delivery", () => receiver.received.length === 1, 5000);
      await waitFor(
        "the delivery to be logged as done",
        async () => (await http(`${a.url}/_emulator/deliveries`)).json.deliveries[0]?.done,
        5000,
      );
      await a.close();

      const text = await readFile(dataFile, "utf8");
      expect(text).not.toContain(t.access_token);
      expect(text).not.toContain(t.refresh_token);
      expect(text).not.toContain('"s1"');
      expect((await readdir(dir)).filter((f) => f.endsWith(".tmp"))).toEqual([]);

      // Restart with no client option: the stored client c1 (and the default one) are known.
      const b = await startEmulator({ dataFile });
      running.push(b);
      const listed = (await http(`${b.url}/_emulator/webhooks`)).json.webhooks;
      expect(listed.map((w: { id: string }) => w.id)).toEqual([created.json.webhook.id]);
      const log = (await http(`${b.url}/_emulator/deliveries`)).json.deliveries;
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ ok: true, status: 200 });
      const refreshed = await http(`${b.url}/oauth/token`, {
        method: "POST",
        form: { grant_type: "refresh_token", refresh_token: t.refresh_token, client_id: "c1", client_secret: "s1" },
      });
      expect(refreshed.status).toBe(200);
      const del = await http(`${b.url}/v1/webhooks/${created.json.webhook.id}`, {
        method: "DELETE",
        headers: bearer(t.access_token),
      });
      expect(del.status).toBe(204);
    } finally {
      await receiver.close();
    }
  });

  test("a used code stays used across a restart (reuse still revokes)", async () => {
    const dataFile = join(testTempDir("helpdesk-emu-"), "state.json");
    const a = await startEmulator({ autoApprove: true, dataFile });
    const code = await getCode(a.url);
    const form = {
      grant_type: "authorization_code",
      client_id: "helpdesk-demo",
      client_secret: "demo-client-secret",
      redirect_uri: "http://127.0.0.1:8976/callback",
      code,
    };
    const first = await http(`${a.url}/oauth/token`, { method: "POST", form });
    await a.close();
    const b = await startEmulator({ dataFile });
    running.push(b);
    expect((await http(`${b.url}/oauth/token`, { method: "POST", form })).json.error).toBe("invalid_grant");
    expect(
      (await http(`${b.url}/v1/webhooks`, { method: "POST", headers: bearer(first.json.access_token), json: hook }))
        .status,
    ).toBe(401);
  });

  test("a data file of an unknown version is refused, not overwritten", async () => {
    const dataFile = join(testTempDir("helpdesk-emu-"), "state.json");
    await writeFile(dataFile, JSON.stringify({ version: 99 }));
    await expect(startEmulator({ dataFile })).rejects.toThrow(/version/);
    expect(JSON.parse(await readFile(dataFile, "utf8"))).toEqual({ version: 99 });
  });
});
