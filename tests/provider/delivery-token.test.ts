/**
 * The delivery token in the provider core, against a real emulator over HTTP: minted or given, registered in the url's
 * query, recorded as outputs, and never in a message; check's rules for the token inputs; which changes replace; the
 * adoption of a webhook that has a token. The Pulumi CLI runs of the same are in tests/e2e/receiving.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { CONFIG_KEYS } from "../../kernel/config.js";
import { DELIVERY_TOKEN_PARAM, splitRegisteredUrl } from "../../kernel/delivery-token.js";
import { UNKNOWN } from "../../kernel/pulumi-wire.js";
import { HelpdeskError } from "../../provider/core/errors.js";
import { adoptWebhook, checkWebhook, replacedFields } from "../../provider/core/webhooks.js";
import { webhookProvider } from "../../provider/dynamic/index.js";
import { heldWebhooks } from "../support/emulator.js";

const client = {
  clientId: "token-tests",
  clientSecret: "token-tests-secret-0123456789",
  redirectUri: "http://127.0.0.1:1/cb",
};
const url = "https://hooks.example.test/helpdesk?team=support";
const ownToken = "my-own-delivery-token-0123456789";
const cacheDir = mkdtempSync(join(tmpdir(), "helpdesk-token-cache-"));
const running: RunningEmulator[] = [];

async function configFor(options: Parameters<typeof startEmulator>[0] = {}) {
  const emu = await startEmulator({ port: 0, autoApprove: true, clients: [client], ...options });
  running.push(emu);
  const tokens = await signIn({ baseUrl: emu.url, ...client });
  const values: Record<string, string | undefined> = {
    [CONFIG_KEYS.baseUrl]: emu.url,
    [CONFIG_KEYS.accessToken]: tokens.accessToken,
    [CONFIG_KEYS.refreshToken]: tokens.refreshToken,
    [CONFIG_KEYS.clientId]: client.clientId,
    [CONFIG_KEYS.clientSecret]: client.clientSecret,
    [CONFIG_KEYS.tokenExpiresAt]: tokens.expiresAt,
  };
  return { emu, config: { get: (key: string) => values[key] } };
}

beforeAll(() => {
  process.env.HELPDESK_TOKEN_CACHE_DIR = cacheDir;
});

afterAll(async () => {
  await Promise.all(running.map((emu) => emu.close()));
  rmSync(cacheDir, { recursive: true, force: true });
});

describe("create with a delivery token", () => {
  it("mints a 256-bit token, registers the url with it, and records the declared url, the token and the registered url", async () => {
    const { emu, config } = await configFor();
    const first = await webhookProvider.create(config, { event: "ticket_opened", url, useDeliveryToken: true });
    const second = await webhookProvider.create(config, { event: "ticket_opened", url, useDeliveryToken: true });
    const outs = first.outs as Record<string, string>;
    expect(outs.url).toBe(url);
    expect(outs.deliveryToken).toMatch(/^hdt_[A-Za-z0-9_-]{43}$/);
    expect((second.outs as Record<string, string>).deliveryToken).not.toBe(outs.deliveryToken);
    expect(outs.registeredUrl).toBe(
      `${url}&helpdesk_event=ticket_opened&${DELIVERY_TOKEN_PARAM}=${outs.deliveryToken}`,
    );
    const held = (await heldWebhooks(emu)).find((hook) => hook.id === first.id);
    expect(held?.url).toBe(outs.registeredUrl);
    expect(splitRegisteredUrl(held?.url ?? "")).toEqual({ url, event: "ticket_opened", token: outs.deliveryToken });
  });

  it("uses a given token as it is", async () => {
    const { emu, config } = await configFor();
    const created = await webhookProvider.create(config, { event: "ticket_closed", url, deliveryToken: ownToken });
    const [held] = await heldWebhooks(emu);
    expect(splitRegisteredUrl(held?.url ?? "").token).toBe(ownToken);
    expect(created.outs).toMatchObject({ url, deliveryToken: ownToken });
  });

  it("without the token inputs registers the url as declared and records no token (upgrading changes nothing)", async () => {
    const { emu, config } = await configFor();
    const created = await webhookProvider.create(config, { event: "ticket_closed", url });
    expect(created.outs).toEqual({ event: "ticket_closed", url, state: "active" });
    expect((await heldWebhooks(emu)).map((hook) => hook.url)).toEqual([url]);
  });

  it("never shows the token or the registered url in an error", async () => {
    const { config } = await configFor({ webhookIdShape: "none" });
    const error = await webhookProvider.create(config, { event: "ticket_opened", url, deliveryToken: ownToken }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HelpdeskError);
    const message = (error as Error).message;
    expect(message).toMatch(/may have been created/);
    expect(message).not.toContain(ownToken);
    expect(message).not.toContain(DELIVERY_TOKEN_PARAM);
  });
});

describe("check of the token inputs", () => {
  const failures = (news: Record<string, unknown>) =>
    checkWebhook({ event: "ticket_opened", url, ...news }).failures.map((f) => `${f.property}: ${f.reason}`);

  it("accepts the three ways: minted, given, minted with a rotation; and unknowns in preview", () => {
    expect(failures({ useDeliveryToken: true })).toEqual([]);
    expect(failures({ deliveryToken: ownToken })).toEqual([]);
    expect(failures({ useDeliveryToken: true, deliveryTokenRotation: "2026-11" })).toEqual([]);
    expect(failures({ useDeliveryToken: UNKNOWN, deliveryToken: UNKNOWN })).toEqual([]);
  });

  it("refuses a bad token, saying what is allowed and never showing it", () => {
    const [short] = failures({ deliveryToken: "short-token" });
    expect(short).toMatch(/^deliveryToken: .*22 to 256 characters.*got 11 characters$/);
    const [character] = failures({ deliveryToken: "a token with spaces in it, 30+" });
    expect(character).toMatch(/another character \(not shown\)/);
    expect(character).not.toContain("spaces");
  });

  it("refuses contradictions and a url that cannot carry the token", () => {
    expect(failures({ useDeliveryToken: "yes" })).toEqual(["useDeliveryToken: useDeliveryToken must be true or false"]);
    expect(failures({ useDeliveryToken: false, deliveryToken: ownToken })[0]).toMatch(/useDeliveryToken is false/);
    expect(failures({ deliveryTokenRotation: "1" })[0]).toMatch(/needs useDeliveryToken: true/);
    expect(failures({ deliveryToken: ownToken, deliveryTokenRotation: "1" })[0]).toMatch(
      /rotate by changing deliveryToken/,
    );
    const own = checkWebhook({ event: "ticket_opened", url: `${url}&helpdesk_token=x`, useDeliveryToken: true });
    expect(own.failures.map((f) => f.reason)).toEqual([
      'url: the url already has a "helpdesk_token" query parameter, which the delivery token adds: remove it from the url',
    ]);
    const long = `https://hooks.example.test/${"a".repeat(2000)}`;
    expect(checkWebhook({ event: "ticket_opened", url: long }).failures).toEqual([]);
    expect(checkWebhook({ event: "ticket_opened", url: long, useDeliveryToken: true }).failures[0]?.reason).toMatch(
      /with the delivery token's query appended it would be \d+ characters long; at most 2048/,
    );
  });

  it("records the token inputs that are given and nothing else", () => {
    const { inputs } = checkWebhook({
      event: "ticket_opened",
      url,
      useDeliveryToken: true,
      __provider: "x",
      deliveryToken: null,
    });
    expect(inputs).toEqual({ event: "ticket_opened", url, useDeliveryToken: true });
  });
});

describe("which changes replace", () => {
  const recorded = { event: "ticket_opened", url, state: "active" };
  const withToken = { ...recorded, useDeliveryToken: true, deliveryToken: "hdt_minted", registeredUrl: "x" };

  it("turning the token on or off replaces; an unchanged minted token does not", () => {
    expect(replacedFields(recorded, { event: "ticket_opened", url })).toEqual([]);
    expect(replacedFields(recorded, { event: "ticket_opened", url, useDeliveryToken: true })).toEqual([
      "useDeliveryToken",
    ]);
    expect(replacedFields(withToken, { event: "ticket_opened", url, useDeliveryToken: true })).toEqual([]);
    expect(replacedFields(withToken, { event: "ticket_opened", url })).toEqual(["useDeliveryToken"]);
    expect(replacedFields(withToken, { event: "ticket_opened", url, useDeliveryToken: UNKNOWN })).toEqual([
      "useDeliveryToken",
    ]);
  });

  it("a new rotation or another given token replaces", () => {
    expect(
      replacedFields(withToken, { event: "ticket_opened", url, useDeliveryToken: true, deliveryTokenRotation: "2" }),
    ).toEqual(["deliveryTokenRotation"]);
    expect(replacedFields(withToken, { event: "ticket_opened", url, deliveryToken: ownToken })).toEqual([
      "deliveryToken",
    ]);
    expect(
      replacedFields(
        { ...recorded, deliveryToken: ownToken },
        { event: "ticket_opened", url, deliveryToken: ownToken },
      ),
    ).toEqual([]);
  });
});

describe("adoption of a webhook with a token", () => {
  it("needs the token it was registered with, and records the registered url from it", () => {
    expect(() => adoptWebhook("wh_1", { event: "ticket_opened", url, useDeliveryToken: true })).toThrow(
      /cannot adopt a webhook with useDeliveryToken and no deliveryToken.*helpdesk_token query parameter/,
    );
    const adopted = adoptWebhook("wh_1", { event: "ticket_opened", url, deliveryToken: ownToken });
    expect(adopted).toMatchObject({ id: "wh_1", state: "unknown", url, deliveryToken: ownToken });
    expect(splitRegisteredUrl(adopted.registeredUrl ?? "")).toEqual({ url, event: "ticket_opened", token: ownToken });
  });
});
