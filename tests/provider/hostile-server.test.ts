/**
 * The dynamic provider (through `webhookProvider`, the object the serialized shim loads, as Pulumi's Node.js dynamic
 * provider host runs it) and the OAuth client (login's code exchange and the refresh) against a hostile or broken
 * help desk (issue 28; M2, L1, L4, L5 of the d785ad2 audit), with a scripted server on 127.0.0.1 that counts what
 * reaches it; the emulator's inspection client against an endless or dripping answer; and all three with a resolver
 * that maps `localhost` elsewhere (audit N6, N10 of 256b0f9). The native plugin's side is
 * tests/native/hostile-server.test.ts.
 */

import dns from "node:dns";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  exchangeAuthorizationCode,
  OAUTH_ERROR_CODES,
  OAuthError,
  refreshAccessToken,
  startAuthorization,
} from "../../auth/oauth.js";
import { EmulatorInspectionClient, EmulatorInspectionError } from "../../emulator-client/index.js";
import { INSPECTION_DEADLINE_MS } from "../../emulator-client/inspection-client.js";
import { CONFIG_KEYS } from "../../kernel/config.js";
import { localhostLookup } from "../../kernel/loopback.js";
import { required } from "../../kernel/required.js";
import { SettingError } from "../../kernel/settings.js";
import { webhookIdProblem } from "../../kernel/webhook-rules.js";
import { HELPDESK_ERROR_CODES, HelpdeskError } from "../../provider/core/errors.js";
import { webhookProvider } from "../../provider/dynamic/index.js";
import { peakRssMiB, waitFor } from "../../scripts/lib/processes.ts";
import * as hostile from "../support/response-server.js";
import {
  ACCESS_TOKEN,
  HUGE_RESPONSES,
  hugeBody,
  json,
  OK_RESPONSE,
  ORPHAN_MESSAGE,
  RECORDED as OUTPUTS,
  PEAK_RSS_CEILING_MIB,
  SPEC,
} from "../support/response-server.js";

/** A stack config for the dynamic provider: `helpdesk:*` keys. */
function stackConfig(baseUrl: string) {
  const values: Record<string, string> = {
    [CONFIG_KEYS.baseUrl]: baseUrl,
    [CONFIG_KEYS.accessToken]: ACCESS_TOKEN,
    [CONFIG_KEYS.maxRetries]: "0",
    [CONFIG_KEYS.requestTimeout]: "60",
  };
  return { get: (key: string) => values[key] };
}

/** What `run` threw (fails the test when it threw nothing). */
async function thrown(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected an error");
}

let server: hostile.ResponseServer;
let config: ReturnType<typeof stackConfig>;

beforeAll(async () => {
  server = await hostile.startResponseServer();
  config = stackConfig(server.url);
  for (const key of Object.keys(process.env)) if (key.startsWith("HELPDESK_")) delete process.env[key];
});

afterAll(async () => {
  await server?.close();
});

describe("the dynamic provider against a hostile help desk", () => {
  it("responds to a huge create response with the orphan message, closes the connection early, serves on, and stays bounded in memory", async () => {
    const log: hostile.HugeBodyLog = { sentBytes: 0, cutOff: 0 };
    for (const huge of HUGE_RESPONSES) {
      server.respondWith(hugeBody(201, huge.bytes, huge.declare, log));
      const before = server.requests.length;
      const error = await thrown(() => webhookProvider.create(config, SPEC));
      expect(error, huge.what).toBeInstanceOf(HelpdeskError);
      expect(error).toMatchObject({ code: HELPDESK_ERROR_CODES.PROTOCOL, status: 201 });
      expect(error.message, huge.what).toMatch(
        /^create webhook: POST \/v1\/webhooks responded with 201 but its body was not read: the API sent a response of more than 1048576 bytes \(1 MiB\)/,
      );
      expect(error.message, huge.what).toMatch(ORPHAN_MESSAGE);
      expect(server.requests.length - before, `${huge.what}: one POST, not resent`).toBe(1);

      server.respondWith(OK_RESPONSE);
      expect((await webhookProvider.create(config, SPEC)).id, `${huge.what}: the next create`).toBe("wh_ok");
    }
    await waitFor("the streamed gigabyte cut off", () => log.cutOff >= 1, 10_000);
    expect(log.sentBytes).toBeLessThan(10 * 1024 * 1024 + 64 * 1024 * 1024);
    console.log(
      `test process peak RSS after a 10 MiB and a 1 GiB answer: ${peakRssMiB("self").toFixed(0)} MiB; bytes the server wrote: ${(log.sentBytes / 2 ** 20).toFixed(1)} MiB`,
    );
    expect(peakRssMiB("self")).toBeLessThan(PEAK_RSS_CEILING_MIB);
  });

  it("refuses a create response whose id breaks the id rule, with the orphan message, after exactly one request", async () => {
    for (const answer of hostile.BAD_ID_RESPONSES) {
      server.respondWith(json(201, answer.body, answer.headers));
      const before = server.requests.length;
      const error = await thrown(() => webhookProvider.create(config, SPEC));
      expect(error, answer.what).toMatchObject({ code: HELPDESK_ERROR_CODES.PROTOCOL });
      expect(error.message, answer.what).toMatch(ORPHAN_MESSAGE);
      expect(server.requests.length - before, answer.what).toBe(1);
    }
  });

  it("refuses to delete an id that breaks the id rule, before any request", async () => {
    const before = server.requests.length;
    for (const id of hostile.BAD_IDS) {
      const error = await thrown(() => webhookProvider.delete(config, id, OUTPUTS));
      expect(error, id.slice(0, 12)).toMatchObject({ code: HELPDESK_ERROR_CODES.OPERATION });
      expect(error.message).toContain(`the recorded ${required(webhookIdProblem(id), "the id's problem")}`);
    }
    expect(server.requests.length - before).toBe(0);
  });
});

describe("the OAuth client against a huge token endpoint answer", () => {
  const client = {
    baseUrl: new URL("http://127.0.0.1"),
    clientId: "helpdesk-demo",
    clientSecret: "cs-hostile-test",
    redirectUri: "http://127.0.0.1:8976/callback",
  };

  it("refresh and the authorization code exchange (login) fail with a clear OAuthError, the connection closed early", async () => {
    const log: hostile.HugeBodyLog = { sentBytes: 0, cutOff: 0 };
    const settings = { ...client, baseUrl: new URL(server.url) };
    for (const huge of HUGE_RESPONSES) {
      server.respondWith(hugeBody(200, huge.bytes, huge.declare, log));
      const refreshed = await thrown(() => refreshAccessToken(settings, "rt-hostile"));
      expect(refreshed, huge.what).toBeInstanceOf(OAuthError);
      expect(refreshed).toMatchObject({ code: OAUTH_ERROR_CODES.BAD_RESPONSE, status: 200 });
      expect(refreshed.message).toBe(
        "refresh failed: the token endpoint sent a response of more than 1048576 bytes (1 MiB), the most read of one response",
      );

      const authorization = await startAuthorization(settings);
      const callback = new URLSearchParams({ code: "code-hostile", state: authorization.state });
      const exchanged = await thrown(() => exchangeAuthorizationCode(settings, callback, authorization));
      expect(exchanged).toMatchObject({ code: OAUTH_ERROR_CODES.BAD_RESPONSE });
      expect(exchanged.message).toBe(
        "authorization code exchange failed: the token endpoint sent a response of more than 1048576 bytes (1 MiB), the most read of one response",
      );
    }
    await waitFor("every streamed gigabyte cut off", () => log.cutOff >= 2, 10_000);
    expect(log.sentBytes).toBeLessThan(2 * 10 * 1024 * 1024 + 64 * 1024 * 1024);
    expect(peakRssMiB("self")).toBeLessThan(PEAK_RSS_CEILING_MIB);
    // A token response of ordinary size still works.
    server.respondWith(json(200, { access_token: "at-fresh", token_type: "Bearer", expires_in: 3600 }));
    expect((await refreshAccessToken(settings, "rt-hostile")).accessToken).toBe("at-fresh");
  });
});

describe("a plain-http base URL to a host that is not loopback", () => {
  let folder: string;
  const lookup = dns.lookup;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), "helpdesk-resolve-"));
    // From here on, this process resolves helpdesk.example.test to 127.0.0.1, where the server listens.
    createRequire(import.meta.url)(hostile.resolveToLoopback(folder));
  });

  afterAll(() => {
    dns.lookup = lookup;
    rmSync(folder, { recursive: true, force: true });
  });

  it("is refused before any connection, by the provider and by the OAuth client; loopback http works", async () => {
    const remote = `http://${hostile.REMOTE_NAME}:${server.port}`;
    // The name does reach the server: a plain request to it is counted.
    server.respondWith(json(200, {}));
    const connectionsBefore = server.connections();
    await new Promise<void>((resolve, reject) =>
      httpRequest(`${remote}/probe`, (response) => response.resume().on("end", resolve))
        .on("error", reject)
        .end(),
    );
    expect(server.connections()).toBe(connectionsBefore + 1);
    const requestsBefore = server.requests.length;

    const remoteConfig = stackConfig(remote);
    for (const run of [
      () => webhookProvider.create(remoteConfig, SPEC),
      () => webhookProvider.delete(remoteConfig, "wh_1", OUTPUTS),
    ]) {
      const error = await thrown(run);
      expect(error).toBeInstanceOf(SettingError);
      expect(error).toMatchObject({ code: "config", setting: "baseUrl" });
      expect(error.message).toMatch(
        /^config helpdesk:baseUrl: base URL "http:\/\/helpdesk\.example\.test:\d+" uses plain http to a host that is not this machine, so the access token would cross the network unencrypted: use https \(e\.g\. https:\/\/helpdesk\.example\.com\); plain http is allowed only to a loopback host \(localhost, 127\.0\.0\.1 \(any 127\.x\.y\.z\) or \[::1\]\)$/,
      );
    }
    // The OAuth client, given the URL without the parser, applies the same rule (kernel/base-url.ts allowsPlainHttp).
    const refreshed = await thrown(() =>
      refreshAccessToken(
        { baseUrl: new URL(remote), clientId: "helpdesk-demo", clientSecret: "cs-hostile-test" },
        "rt-hostile",
      ),
    );
    expect(refreshed).toBeInstanceOf(OAuthError);
    expect(refreshed.message).toMatch(/^refresh failed: .*https/i);
    expect(server.connections(), "no connection").toBe(connectionsBefore + 1);
    expect(server.requests.length).toBe(requestsBefore);

    server.respondWith(OK_RESPONSE);
    expect((await webhookProvider.create(stackConfig(`http://localhost:${server.port}`), SPEC)).id).toBe("wh_ok");
    expect(server.requests.slice(requestsBefore).map((request) => request.authorization)).toEqual([
      `Bearer ${ACCESS_TOKEN}`,
    ]);
  });
});

describe("the emulator's inspection client against a huge or endless answer", () => {
  it("stops at 64 MiB with a clear error, the connection closed early", async () => {
    const log: hostile.HugeBodyLog = { sentBytes: 0, cutOff: 0 };
    server.respondWith(hugeBody(200, 1024 * 1024 * 1024, false, log));
    const error = await thrown(() => new EmulatorInspectionClient(server.url).stats());
    expect(error).toBeInstanceOf(EmulatorInspectionError);
    expect(error.message).toBe(
      `GET /_emulator/stats: the emulator at ${server.url} sent a response of more than 67108864 bytes (64 MiB), the most read of one response`,
    );
    await waitFor("the server to see the client hang up", () => log.cutOff === 1, 10_000);
    expect(log.sentBytes).toBeLessThan(2 * 64 * 1024 * 1024);
    expect(peakRssMiB("self")).toBeLessThan(PEAK_RSS_CEILING_MIB);
  });
});

describe("the emulator's inspection client against a response that drips", () => {
  it("gives up at its deadline with a clear error, the connection closed (a short deadline here; 30 s by default)", async () => {
    let dripping = 0;
    let closed = 0;
    server.respondWith((_request, response) => {
      // Headers at once, then one byte of body every 50 ms, never the end: no idle timeout of undici ever fires.
      response.writeHead(200, { "content-type": "application/json" });
      dripping++;
      const drip = setInterval(() => response.write(" "), 50);
      response.on("close", () => {
        clearInterval(drip);
        closed++;
      });
    });
    expect(INSPECTION_DEADLINE_MS).toBe(30_000);
    for (const connectionPerCall of [false, true]) {
      const error = await thrown(() =>
        new EmulatorInspectionClient(server.url, { deadlineMs: 500, connectionPerCall }).stats(),
      );
      expect(error).toBeInstanceOf(EmulatorInspectionError);
      expect(error).toMatchObject({ code: "unreachable" });
      expect(error.message).toBe(
        `cannot reach the emulator at ${server.url} (GET /_emulator/stats: no whole response within 0.5 s); start it with \`pulumi-helpdesk emulator\``,
      );
    }
    expect(dripping).toBe(2);
    await waitFor("the server to see both connections end", () => closed === 2, 10_000);
  });
});

describe("the name localhost, on a machine whose resolver maps it elsewhere (RFC 6761 §6.3)", () => {
  const lookup = dns.lookup;
  // A server of its own: a connection to the shared one's port may still be open in a keep-alive pool.
  let local: hostile.ResponseServer;
  let decoy: Server;
  let decoyConnections = 0;

  beforeAll(async () => {
    local = await hostile.startResponseServer();
    // Another server on the same port of 127.0.0.2, where this process's resolver now sends `localhost`: a request
    // that looked the name up would reach it (and carry the bearer token there) instead of the server on 127.0.0.1.
    decoy = createServer((_request, response) => response.writeHead(500).end());
    decoy.on("connection", () => decoyConnections++);
    await new Promise<void>((resolve, reject) => decoy.once("error", reject).listen(local.port, "127.0.0.2", resolve));
    dns.lookup = ((hostname: string, options: unknown, callback?: unknown) => {
      if (hostname !== "localhost" && hostname !== "elsewhere.example.test")
        return (lookup as (...args: unknown[]) => void)(hostname, options, callback);
      const done = (typeof options === "function" ? options : callback) as (...args: unknown[]) => void;
      const all = typeof options === "object" && options !== null && (options as { all?: boolean }).all;
      process.nextTick(() => (all ? done(null, [{ address: "127.0.0.2", family: 4 }]) : done(null, "127.0.0.2", 4)));
    }) as typeof dns.lookup;
  });

  afterAll(async () => {
    dns.lookup = lookup;
    await local?.close();
    await new Promise<void>((resolve) => decoy?.close(() => resolve()));
  });

  it("is responded with the loopback addresses without asking the resolver; other names still are resolved", async () => {
    const resolved = (hostname: string, options: dns.LookupOptions) =>
      new Promise<unknown>((resolve, reject) =>
        localhostLookup(hostname, options, (error, address, family) =>
          error ? reject(error) : resolve(options.all ? address : [address, family]),
        ),
      );
    expect(await resolved("localhost", { all: true })).toEqual([
      { address: "127.0.0.1", family: 4 },
      { address: "::1", family: 6 },
    ]);
    expect(await resolved("LocalHost.", {})).toEqual(["127.0.0.1", 4]);
    expect(await resolved("localhost", { family: 6 })).toEqual(["::1", 6]);
    expect(await resolved("localhost", { family: "IPv4", all: true })).toEqual([{ address: "127.0.0.1", family: 4 }]);
    // Every other name goes to this process's resolver (here the test's patched dns.lookup).
    expect(await resolved("elsewhere.example.test", {})).toEqual(["127.0.0.2", 4]);
  });

  it("the provider, the OAuth client and the inspection client connect to 127.0.0.1, never where the resolver points", async () => {
    const named = `http://localhost:${local.port}`;
    // The resolver does point elsewhere: a plain request to the name reaches the decoy.
    await new Promise<void>((resolve, reject) =>
      httpRequest(`${named}/probe`, (response) => response.resume().on("end", resolve))
        .on("error", reject)
        .end(),
    );
    expect(decoyConnections).toBe(1);

    local.respondWith(OK_RESPONSE);
    expect((await webhookProvider.create(stackConfig(named), SPEC)).id).toBe("wh_ok");
    local.respondWith(json(200, { access_token: "at-local", token_type: "Bearer", expires_in: 3600 }));
    const client = { baseUrl: new URL(named), clientId: "helpdesk-demo", clientSecret: "cs-hostile-test" };
    expect((await refreshAccessToken(client, "rt-local")).accessToken).toBe("at-local");
    local.respondWith(json(200, { requests: 0 }));
    for (const connectionPerCall of [false, true])
      await new EmulatorInspectionClient(named, { connectionPerCall }).stats();

    expect(local.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "POST /v1/webhooks",
      "POST /oauth/token",
      "GET /_emulator/stats",
      "GET /_emulator/stats",
    ]);
    expect(decoyConnections, "no connection to where the resolver points").toBe(1);
  });
});
