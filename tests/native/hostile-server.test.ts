/**
 * The real plugin process against a hostile or broken help desk (issue 28; M2, L1, L4, L5 of the d785ad2 audit),
 * over gRPC as the engine drives it, with a scripted server on 127.0.0.1 that counts what reaches it:
 *
 * - huge answers (10 MiB with a Content-Length, 1 GiB streamed) to a create and to the token refresh: a clear error
 *   (for the create, with the "may have been created" message), the connection closed early, the plugin alive and
 *   serving the next request, its peak memory bounded;
 * - webhook ids that break the id rule, in the create response, an import's Read and a Delete: refused, the Read and
 *   Delete before any request;
 * - a plain-http base URL to a host that is not loopback: refused by CheckConfig and before any connection on
 *   Create (the name is made to resolve to the server, so zero connections means nothing was sent).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { required } from "../../kernel/required.js";
import { webhookIdProblem } from "../../kernel/webhook-rules.js";
import { providerPb } from "../../provider/native/proto.js";
import { waitFor } from "../../scripts/lib/processes.ts";
import { call, type RunningPlugin, startPlugin, struct, webhookCalls } from "../support/plugin.js";
import * as hostile from "../support/response-server.js";
import {
  ACCESS_TOKEN,
  HUGE_RESPONSES,
  hugeBody,
  json,
  OK_RESPONSE,
  ORPHAN_MESSAGE,
  PEAK_RSS_CEILING_MIB,
  RECORDED,
  SPEC,
} from "../support/response-server.js";

/** The gRPC error of a call that must fail. */
async function failure(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error("the call succeeded");
}

/** The plugin's environment: this sandbox's, without settings a person's shell may hold. */
function pluginEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("HELPDESK_")));
  return { ...env, ...extra };
}

describe("the plugin against a hostile help desk", () => {
  let server: hostile.ResponseServer;
  let plugin: RunningPlugin;
  let calls: ReturnType<typeof webhookCalls>;

  beforeAll(async () => {
    server = await hostile.startResponseServer();
    plugin = await startPlugin(pluginEnv());
    calls = webhookCalls(plugin.client);
    await calls.configure({ baseUrl: server.url, accessToken: ACCESS_TOKEN, maxRetries: 0, requestTimeout: 60 });
  });

  afterAll(async () => {
    await plugin?.close();
    await server?.close();
  });

  it("responds to a huge create response with the orphan message, closes the connection early, serves on, and stays bounded in memory", async () => {
    const log: hostile.HugeBodyLog = { sentBytes: 0, cutOff: 0 };
    for (const huge of HUGE_RESPONSES) {
      server.respondWith(hugeBody(201, huge.bytes, huge.declare, log));
      const before = server.requests.length;
      const error = await failure(calls.create(SPEC));
      expect(error.details, huge.what).toMatch(
        /^create webhook: POST \/v1\/webhooks responded with 201 but its body was not read: the API sent a response of more than 1048576 bytes \(1 MiB\)/,
      );
      expect(error.details, huge.what).toMatch(ORPHAN_MESSAGE);
      expect(server.requests.length - before, `${huge.what}: one POST, not resent`).toBe(1);
      expect(plugin.alive(), huge.what).toBe(true);

      server.respondWith(OK_RESPONSE);
      const created = await calls.create(SPEC);
      expect(created.getId(), `${huge.what}: the next create`).toBe("wh_ok");
    }
    await waitFor("the streamed gigabyte cut off", () => log.cutOff >= 1, 10_000);
    // What the server wrote before the plugin hung up: the part of 1 GiB that fit in socket buffers, not the gigabyte.
    expect(log.sentBytes).toBeLessThan(10 * 1024 * 1024 + 64 * 1024 * 1024);
    const peak = plugin.peakRssMiB();
    console.log(
      `plugin peak RSS after a 10 MiB and a 1 GiB answer: ${peak.toFixed(0)} MiB; bytes the server wrote: ${(log.sentBytes / 2 ** 20).toFixed(1)} MiB`,
    );
    expect(peak).toBeLessThan(PEAK_RSS_CEILING_MIB);
  });

  it("responds to a huge answer to a delete with a clear error and serves on", async () => {
    const log: hostile.HugeBodyLog = { sentBytes: 0, cutOff: 0 };
    server.respondWith(hugeBody(200, HUGE_RESPONSES[1].bytes, false, log));
    const error = await failure(calls.delete("wh_1", RECORDED));
    expect(error.details).toMatch(
      /^delete webhook failed: DELETE \/v1\/webhooks\/wh_1 responded with 200 but its body was not read: the API sent a response of more than 1048576 bytes/,
    );
    expect(error.details).toMatch(/run the command again/);
    server.respondWith((_request, response) => response.writeHead(204).end());
    await calls.delete("wh_1", RECORDED);
    expect(plugin.alive()).toBe(true);
    await waitFor("the streamed gigabyte cut off", () => log.cutOff >= 1, 10_000);
  });

  it("responds to a huge token endpoint answer to the refresh with a clear error and serves on", async () => {
    // A plugin process of its own: the engine configures a plugin once (provider/native/server.ts refuses a second
    // Configure with other settings), and this one holds an expired access token, so each create first refreshes it
    // (auth/grant.ts) at {baseUrl}/oauth/token.
    const own = await startPlugin(pluginEnv());
    try {
      const ownCalls = webhookCalls(own.client);
      await ownCalls.configure({
        baseUrl: server.url,
        accessToken: ACCESS_TOKEN,
        refreshToken: "rt-hostile-refresh",
        clientId: "helpdesk-demo",
        clientSecret: "cs-hostile-test",
        tokenExpiresAt: "2000-01-01T00:00:00Z",
        maxRetries: 0,
      });
      const log: hostile.HugeBodyLog = { sentBytes: 0, cutOff: 0 };
      for (const huge of HUGE_RESPONSES) {
        server.respondWith(hugeBody(200, huge.bytes, huge.declare, log));
        const before = server.requests.length;
        const error = await failure(ownCalls.create(SPEC));
        expect(error.details, huge.what).toMatch(
          /refresh failed: the token endpoint sent a response of more than 1048576 bytes \(1 MiB\)/,
        );
        expect(
          server.requests.slice(before).map((request) => `${request.method} ${request.path}`),
          huge.what,
        ).toEqual(["POST /oauth/token"]);
        expect(own.alive(), huge.what).toBe(true);
      }
      await waitFor("the streamed gigabyte cut off", () => log.cutOff >= 1, 10_000);
      expect(log.sentBytes).toBeLessThan(10 * 1024 * 1024 + 64 * 1024 * 1024);
      // Serves on: a sound token response, then the create.
      server.respondWith((request, response) => {
        if (request.url === "/oauth/token") {
          response.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              access_token: "at-renewed",
              token_type: "bearer",
              expires_in: 3600,
              refresh_token: "rt-renewed",
            }),
          );
        } else OK_RESPONSE(request, response);
      });
      expect((await ownCalls.create(SPEC)).getId()).toBe("wh_ok");
      expect(own.peakRssMiB()).toBeLessThan(PEAK_RSS_CEILING_MIB);
    } finally {
      await own.close();
    }
  });

  it("refuses a create response whose id breaks the id rule, with the orphan message, after exactly one request", async () => {
    for (const answer of hostile.BAD_ID_RESPONSES) {
      server.respondWith(json(201, answer.body, answer.headers));
      const before = server.requests.length;
      const error = await failure(calls.create(SPEC));
      expect(error.details, answer.what).toMatch(/^create webhook: POST \/v1\/webhooks responded with 201 but /);
      expect(error.details, answer.what).toMatch(ORPHAN_MESSAGE);
      expect(server.requests.length - before, answer.what).toBe(1);
    }
  });

  it("refuses an import (Read) and a Delete of an id that breaks the id rule, before any request", async () => {
    const before = server.requests.length;
    for (const id of hostile.BAD_IDS) {
      const problem = required(webhookIdProblem(id), `the problem of id ${id.slice(0, 12)}`);
      const imported = await failure(calls.importRead(id));
      expect(imported.details, `import ${id.slice(0, 12)}`).toBe(
        `cannot import the webhook: its ${problem}. Give the id the help desk shows for the webhook.`,
      );
      const deleted = await failure(calls.delete(id, RECORDED));
      expect(deleted.details, `delete ${id.slice(0, 12)}`).toMatch(
        /^delete webhook: refused to send a request: the recorded id /,
      );
      expect(deleted.details).toContain(problem);
      expect(deleted.details).toMatch(/pulumi state delete <urn>/);
    }
    expect(server.requests.length - before, "no request for any of them").toBe(0);
    // A good id still imports, without a request, and deletes with one.
    expect((await calls.importRead("wh_good")).getId()).toBe("wh_good");
    server.respondWith((_request, response) => response.writeHead(204).end());
    await calls.delete("wh_good", RECORDED);
    expect(server.requests.slice(before).map((request) => `${request.method} ${request.path}`)).toEqual([
      "DELETE /v1/webhooks/wh_good",
    ]);
  });
});

describe("the plugin and a plain-http base URL", () => {
  let server: hostile.ResponseServer;
  let plugin: RunningPlugin;
  let folder: string;

  beforeAll(async () => {
    server = await hostile.startResponseServer();
    folder = mkdtempSync(join(tmpdir(), "helpdesk-resolve-"));
    // The plugin resolves helpdesk.example.test to 127.0.0.1, where the server listens: a request would reach it.
    plugin = await startPlugin(pluginEnv({ NODE_OPTIONS: `--require ${hostile.resolveToLoopback(folder)}` }));
  });

  afterAll(async () => {
    await plugin?.close();
    await server?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it("refuses http to a host that is not loopback in CheckConfig and before any connection on Create; loopback http works", async () => {
    const remote = `http://${hostile.REMOTE_NAME}:${server.port}`;
    const checked = await call(
      plugin.client.checkConfig.bind(plugin.client),
      new providerPb.CheckRequest()
        .setUrn("urn:pulumi:dev::p::pulumi:providers:helpdesk::default")
        .setNews(struct({ baseUrl: remote })),
      providerPb.CheckResponse,
    );
    const failures = checked.getFailuresList().map((failure) => [failure.getProperty(), failure.getReason()]);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.[0]).toBe("baseUrl");
    expect(failures[0]?.[1]).toMatch(
      /uses plain http to a host that is not this machine, so the access token would cross the network unencrypted: use https/,
    );

    const calls = webhookCalls(plugin.client);
    await calls.configure({ baseUrl: remote, accessToken: ACCESS_TOKEN, maxRetries: 0 });
    const error = await failure(calls.create(SPEC));
    expect(error.details).toMatch(
      /baseUrl: base URL "http:\/\/helpdesk\.example\.test:\d+" uses plain http .* allowed only to a loopback host \(localhost, 127\.0\.0\.1/,
    );
    const refusedDelete = await failure(calls.delete("wh_1", RECORDED));
    expect(refusedDelete.details).toMatch(/uses plain http/);
    expect(server.connections(), "no connection to the server").toBe(0);

    // Loopback http works: another plugin process, as the engine starts one per provider configuration.
    const loopback = await startPlugin(pluginEnv({ NODE_OPTIONS: `--require ${hostile.resolveToLoopback(folder)}` }));
    try {
      const loopbackCalls = webhookCalls(loopback.client);
      await loopbackCalls.configure({
        baseUrl: `http://localhost:${server.port}`,
        accessToken: ACCESS_TOKEN,
        maxRetries: 0,
      });
      server.respondWith(OK_RESPONSE);
      expect((await loopbackCalls.create(SPEC)).getId()).toBe("wh_ok");
      expect(server.requests.map((request) => [request.method, request.authorization])).toEqual([
        ["POST", `Bearer ${ACCESS_TOKEN}`],
      ]);
    } finally {
      await loopback.close();
    }
  });
});
