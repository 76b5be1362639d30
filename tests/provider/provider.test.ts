/**
 * The provider implementation against a real emulator over HTTP (in this process; the end-to-end suite runs it in
 * Pulumi's provider process): ids, retries, token renewal, idempotent delete, and the messages people see.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { TokenSet } from "../../auth/oauth.js";
import { findEntry, refreshTokenHash } from "../../auth/token-cache.js";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { CONFIG_KEYS } from "../../kernel/config.js";
import type { WebhookInputs } from "../../kernel/provider-contract.js";
import { required } from "../../kernel/required.js";
import { HELPDESK_ERROR_CODES, HelpdeskError } from "../../provider/core/errors.js";
import { webhookProvider } from "../../provider/dynamic/index.js";
import { emulatorStats, heldWebhooks as held, setFaults } from "../support/emulator.js";

const client = {
  clientId: "provider-tests",
  clientSecret: "provider-tests-secret-0123456789",
  redirectUri: "http://127.0.0.1:1/cb",
};
const hook: WebhookInputs = { event: "ticket_opened", url: "https://hooks.example.test/opened" };
const cacheDir = mkdtempSync(join(tmpdir(), "helpdesk-token-cache-"));
const running: RunningEmulator[] = [];
/** Every credential any test saw: no message may contain one. */
const credentials: string[] = [client.clientSecret];

async function emulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const started = await startEmulator({ port: 0, autoApprove: true, clients: [client], ...options });
  running.push(started);
  return started;
}

async function login(emu: RunningEmulator): Promise<TokenSet> {
  const tokens = await signIn({ baseUrl: emu.url, ...client });
  credentials.push(tokens.accessToken, tokens.refreshToken ?? "");
  return tokens;
}

function configOf(values: Record<string, string | undefined>) {
  return { get: (key: string) => values[key] };
}

function fullConfig(emu: RunningEmulator, tokens: TokenSet, extra: Record<string, string> = {}) {
  return configOf({
    [CONFIG_KEYS.baseUrl]: emu.url,
    [CONFIG_KEYS.accessToken]: tokens.accessToken,
    [CONFIG_KEYS.refreshToken]: tokens.refreshToken,
    [CONFIG_KEYS.clientId]: client.clientId,
    [CONFIG_KEYS.clientSecret]: client.clientSecret,
    [CONFIG_KEYS.tokenExpiresAt]: tokens.expiresAt,
    ...extra,
  });
}

async function failureOf(promise: Promise<unknown>): Promise<HelpdeskError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HelpdeskError);
  const message = (error as HelpdeskError).message;
  console.log(`  message: ${message}`);
  for (const secret of credentials) if (secret) expect(message).not.toContain(secret);
  return error as HelpdeskError;
}

beforeAll(() => {
  process.env.HELPDESK_TOKEN_CACHE_DIR = cacheDir;
});

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await Promise.all(running.map((e) => e.close()));
  rmSync(cacheDir, { recursive: true, force: true });
});

describe("webhook ids (docs/helpdesk-api.md §2.1 does not show the id field)", () => {
  for (const shape of ["id", "href", "location"] as const) {
    it(`takes the id from the ${shape === "id" ? "webhook.id field" : shape === "href" ? "webhook.href" : "Location header"}`, async () => {
      const emu = await emulator({ webhookIdShape: shape });
      const config = fullConfig(emu, await login(emu));
      const created = await webhookProvider.create(config, hook);
      expect((await held(emu)).map((h) => h.id)).toEqual([created.id]);
      expect(created.outs).toEqual({ event: hook.event, url: hook.url, state: "active" });
    });
  }

  it("without any id, fails saying a webhook may exist and how to remove it", async () => {
    const emu = await emulator({ webhookIdShape: "none" });
    const error = await failureOf(webhookProvider.create(fullConfig(emu, await login(emu)), hook));
    expect(error.code).toBe(HELPDESK_ERROR_CODES.PROTOCOL);
    expect(error.message).toMatch(/ticket_opened.*may have been created.*delete it there/);
  });
});

describe("delete", () => {
  it("removes the webhook with DELETE /v1/webhooks/:id", async () => {
    const emu = await emulator();
    const config = fullConfig(emu, await login(emu));
    const { id } = await webhookProvider.create(config, hook);
    await webhookProvider.delete(config, id, { ...hook, state: "active" });
    expect(await held(emu)).toEqual([]);
  });

  it("succeeds with a warning when the webhook is already gone (404)", async () => {
    const emu = await emulator();
    const config = fullConfig(emu, await login(emu));
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await webhookProvider.delete(config, "wh_gone", { ...hook, state: "active" });
    expect(stderr).toHaveBeenCalledWith(expect.stringMatching(/warning: webhook wh_gone .* already gone/));
  });
});

describe("retries", () => {
  it("rides out 429 and 503 with Retry-After on create and delete", async () => {
    const emu = await emulator();
    const config = fullConfig(emu, await login(emu), { [CONFIG_KEYS.maxRetries]: "50" });
    await setFaults(emu, { rate429: 0.5, rate503: 0.5, retryAfterSeconds: 0 });
    // Clear the faults after a short while; until then every request is responded with 429 or 503.
    setTimeout(() => void setFaults(emu, { rate429: 0, rate503: 0 }), 600);
    const { id } = await webhookProvider.create(config, hook);
    expect((await held(emu)).map((h) => h.id)).toEqual([id]);
    await setFaults(emu, { rate503: 1, retryAfterSeconds: 0 });
    setTimeout(() => void setFaults(emu, { rate503: 0 }), 600);
    await webhookProvider.delete(config, id, { ...hook, state: "active" });
    expect(await held(emu)).toEqual([]);
  });

  it("retries a DELETE after 500 but never a POST (it may have been processed)", async () => {
    const emu = await emulator();
    const config = fullConfig(emu, await login(emu), { [CONFIG_KEYS.maxRetries]: "3" });
    const { id } = await webhookProvider.create(config, hook);
    await setFaults(emu, { rate500: 1 });
    const stats0 = await emulatorStats(emu);
    const deleteError = await failureOf(webhookProvider.delete(config, id, { ...hook, state: "active" }));
    expect(deleteError.status).toBe(500);
    const stats1 = await emulatorStats(emu);
    expect(stats1.requests - stats0.requests).toBe(4 + 1); // 1 + 3 retried DELETE attempts, then this stats read
    const createError = await failureOf(webhookProvider.create(config, hook));
    expect(createError.status).toBe(500);
    expect(createError.message).toMatch(
      /create webhook failed: POST \/v1\/webhooks responded with 500.*try again later/,
    );
  });

  it("gives up after helpdesk:maxRetries with a message that says what to do", async () => {
    const emu = await emulator();
    const config = fullConfig(emu, await login(emu), { [CONFIG_KEYS.maxRetries]: "2" });
    await setFaults(emu, { rate429: 1, retryAfterSeconds: 0 });
    const error = await failureOf(webhookProvider.create(config, hook));
    expect(error.status).toBe(429);
    expect(error.message).toMatch(/responded with 429.*rate-limiting.*helpdesk:maxRetries/);
  });

  it("reports an unreachable API, and says a POST refused at connect created nothing", async () => {
    const emu = await emulator();
    const tokens = await login(emu);
    const config = fullConfig(emu, tokens, { [CONFIG_KEYS.maxRetries]: "1" });
    await emu.close();
    const error = await failureOf(webhookProvider.create(config, hook));
    expect(error.code).toBe(HELPDESK_ERROR_CODES.NETWORK);
    expect(error.message).toMatch(/POST \/v1\/webhooks got no response .* after 2 attempt\(s\) \(ECONNREFUSED/);
    expect(error.message).not.toMatch(/may have been created/);
  });

  it("never resends a POST whose connection dropped (it may have reached the API) and says a webhook may exist; resends a DELETE", async () => {
    const emu = await emulator();
    const config = fullConfig(emu, await login(emu), { [CONFIG_KEYS.maxRetries]: "2" });
    const { id } = await webhookProvider.create(config, hook);
    await setFaults(emu, { dropRate: 1 });
    const createError = await failureOf(webhookProvider.create(config, hook));
    expect(createError.code).toBe(HELPDESK_ERROR_CODES.NETWORK);
    expect(createError.message).toMatch(
      /POST \/v1\/webhooks got no response .* after 1 attempt\(s\).*may have been created/,
    );
    const deleteError = await failureOf(webhookProvider.delete(config, id, { ...hook, state: "active" }));
    expect(deleteError.code).toBe(HELPDESK_ERROR_CODES.NETWORK);
    expect(deleteError.message).toMatch(/DELETE \/v1\/webhooks\/.* got no response .* after 3 attempt\(s\)/);
    expect(deleteError.message).not.toMatch(/may have been created/);
  });
});

describe("access tokens", () => {
  it("renews an expired token with the refresh grant before the request (tokenExpiresAt)", async () => {
    const emu = await emulator({ accessTokenTtlSeconds: 1 });
    const tokens = await login(emu);
    await new Promise((r) => setTimeout(r, 1100));
    const { id } = await webhookProvider.create(fullConfig(emu, tokens), hook);
    expect((await held(emu)).map((h) => h.id)).toEqual([id]);
  });

  it("renews after a 401 once for many parallel operations, and keeps a rotated refresh token in the cache", async () => {
    // The emulator's clock jumps past the first token's 2-hour lifetime; renewed tokens then live 2 hours again, so
    // a loaded machine cannot expire them mid-test (which would mean a second, legitimate renewal).
    let skewMs = 0;
    const emu = await emulator({ rotateRefreshTokens: true, now: () => Date.now() + skewMs });
    const tokens = await login(emu);
    skewMs = 7300 * 1000;
    // No recorded expiry: the provider learns of it from the 401s.
    const config = fullConfig(emu, tokens, { [CONFIG_KEYS.tokenExpiresAt]: "" });
    await request(`${emu.url}/_emulator/reset-stats`, { method: "POST" }).then((r) => r.body.dump());
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) => webhookProvider.create(config, { ...hook, url: `${hook.url}/${i}` })),
    );
    expect((await held(emu)).length).toBe(8);
    const stats = await emulatorStats(emu);
    expect(stats.byRoute["POST /oauth/token"]).toBe(1);
    // The rotated refresh token went to the cache, never to a log; the old one is now revoked.
    // This test's sign-in only (the cache directory is shared by the tests of this file).
    const { entry } = required(
      findEntry(refreshTokenHash(required(tokens.refreshToken, "the sign-in's refresh token")), cacheDir),
      "this test's cache entry",
    );
    expect(entry.refreshToken).not.toBe(tokens.refreshToken);
    expect(credentials).not.toContain(entry.accessToken);
    credentials.push(entry.accessToken, entry.refreshToken);
    // A later operation (same process) goes on with the new tokens.
    await webhookProvider.delete(config, required(created[0], "a created webhook").id, { ...hook, state: "active" });
    expect((await held(emu)).length).toBe(7);
  });

  it("without refresh credentials, says to run pulumi-helpdesk login", async () => {
    const emu = await emulator({ accessTokenTtlSeconds: 1 });
    const tokens = await login(emu);
    await new Promise((r) => setTimeout(r, 1100));
    const config = configOf({ [CONFIG_KEYS.baseUrl]: emu.url, [CONFIG_KEYS.accessToken]: tokens.accessToken });
    const error = await failureOf(webhookProvider.create(config, hook));
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/responded with 401.*pulumi-helpdesk login/);
  });

  it("says to sign in again when the refresh token was revoked", async () => {
    const emu = await emulator({ accessTokenTtlSeconds: 1 });
    const tokens = await login(emu);
    await new Promise((r) => setTimeout(r, 1100));
    const error = await failureOf(
      webhookProvider.create(fullConfig(emu, tokens, { [CONFIG_KEYS.refreshToken]: "not-a-real-refresh-token" }), hook),
    );
    expect(error.code).toBe(HELPDESK_ERROR_CODES.CREDENTIALS);
    expect(error.message).toMatch(/refreshing it failed .*invalid_grant.*pulumi-helpdesk login/);
  });
});

describe("messages for API errors", () => {
  it("422 names the field the API rejected", async () => {
    const emu = await emulator();
    const error = await failureOf(
      webhookProvider.create(fullConfig(emu, await login(emu)), {
        event: "not_an_event" as WebhookInputs["event"],
        url: hook.url,
      }),
    );
    expect(error.status).toBe(422);
    expect(error.message).toMatch(/responded with 422: .*event.*fix event or url/);
  });

  it("missing credentials say what to set", async () => {
    const error = await failureOf(webhookProvider.create(configOf({}), hook));
    expect(error.code).toBe(HELPDESK_ERROR_CODES.CREDENTIALS);
    expect(error.message).toMatch(/HELPDESK_BASE_URL.*pulumi-helpdesk login/);
  });
});
