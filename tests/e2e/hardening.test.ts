/**
 * The provider, hardened, through the real Pulumi CLI: faults on the API, expired tokens at destroy (refresh grant,
 * rotation on and off), webhooks deleted behind Pulumi's back, provider upgrades, secret urls, and a scan for
 * credentials in everything a run leaves behind.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ConfigMap } from "@pulumi/pulumi/automation/index.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { findEntry, refreshTokenHash } from "../../auth/token-cache.js";
import { type EmulatorOptions, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { CONFIG_KEYS } from "../../kernel/config.js";
import { required } from "../../kernel/required.js";
import { heldWebhooks, setFaults } from "../support/emulator.js";
import { createTestStack, pulumiAvailable, readStateFile, type TestStack } from "../support/pulumi.js";

const programDir = fileURLToPath(new URL("./program", import.meta.url));
const client = {
  clientId: "hardening",
  clientSecret: "hardening-client-secret-7f3a9c",
  redirectUri: "http://127.0.0.1:1/cb",
  name: "hardening",
};
const cacheDir = mkdtempSync(join(tmpdir(), "helpdesk-e2e-cache-"));
process.env.HELPDESK_TOKEN_CACHE_DIR = cacheDir; // inherited by the pulumi CLI and its provider process

interface HookSpec {
  name: string;
  event: string;
  url: string;
  secretUrl?: boolean;
}

const cleanup: (() => Promise<void>)[] = [];
/** Everything a run printed, and every credential in play, for the final scan. */
const printed: string[] = [];
const credentials = new Set<string>([client.clientSecret]);

async function setUp(emulatorOptions: EmulatorOptions, hooks: HookSpec[], extraConfig: ConfigMap = {}) {
  const emulatorLog: string[] = [];
  const emulator = await startEmulator({
    port: 0,
    autoApprove: true,
    clients: [client],
    log: (line) => emulatorLog.push(line),
    ...emulatorOptions,
  });
  const signedIn = await signIn({ baseUrl: emulator.url, ...client });
  const tokens = {
    ...signedIn,
    refreshToken: required(signedIn.refreshToken, "the sign-in's refresh token"),
    expiresAt: required(signedIn.expiresAt, "the sign-in's expiry"),
  };
  credentials.add(tokens.accessToken);
  credentials.add(tokens.refreshToken);
  const test = await createTestStack(programDir, {
    [CONFIG_KEYS.baseUrl]: { value: emulator.url },
    [CONFIG_KEYS.clientId]: { value: client.clientId },
    [CONFIG_KEYS.clientSecret]: { value: client.clientSecret, secret: true },
    [CONFIG_KEYS.accessToken]: { value: tokens.accessToken, secret: true },
    [CONFIG_KEYS.refreshToken]: { value: tokens.refreshToken, secret: true },
    [CONFIG_KEYS.tokenExpiresAt]: { value: tokens.expiresAt },
    "e2e:hooks": { value: JSON.stringify(hooks) },
    ...extraConfig,
  });
  cleanup.push(async () => {
    printed.push(readStateFile(test, "helpdesk-e2e"), emulatorLog.join("\n"));
    await test.stack.destroy().catch(() => undefined);
    await test.dispose();
    await emulator.close();
  });
  return { emulator, tokens, test, emulatorLog };
}

/** Runs a stack operation, keeping what it printed; returns the result or the error. */
async function run<T extends { stdout: string; stderr: string }>(operation: Promise<T>): Promise<T> {
  try {
    const result = await operation;
    printed.push(result.stdout, result.stderr);
    return result;
  } catch (error) {
    printed.push(String(error));
    throw error;
  }
}

function hooks(count: number, prefix = "h"): HookSpec[] {
  const events = ["ticket_started", "ticket_opened", "ticket_closed", "customer_replied", "note_added"];
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix}${i}`,
    event: required(events[i % events.length], "an event"),
    url: `https://hooks.example.test/${prefix}/${i}`,
  }));
}

function stateWebhookIds(test: TestStack): string[] {
  const state = JSON.parse(readStateFile(test, "helpdesk-e2e")) as {
    checkpoint: { latest?: { resources?: { type: string; id?: string }[] } };
  };
  return (state.checkpoint.latest?.resources ?? [])
    .filter((r) => r.type === "pulumi-nodejs:dynamic/helpdesk:Webhook")
    .map((r) => required(r.id, `the id of ${r.type}`));
}

afterEach(async () => {
  for (const clean of cleanup.splice(0).reverse()) await clean();
});

afterAll(() => {
  rmSync(cacheDir, { recursive: true, force: true });
});

describe.skipIf(!pulumiAvailable())("the hardened provider through the real Pulumi CLI", () => {
  it("brings up and destroys 50 webhooks through 30% 429, 10% 503 and 200 ms latency, losing none", async () => {
    const declared = hooks(50);
    const { emulator, test } = await setUp({}, declared, { [CONFIG_KEYS.maxRetries]: { value: "25" } });
    await setFaults(emulator, { rate429: 0.3, rate503: 0.1, retryAfterSeconds: 1, latencyMs: 200 });
    const upStarted = performance.now();
    const up = await run(test.stack.up());
    const upSeconds = (performance.now() - upStarted) / 1000;
    expect(up.summary.result).toBe("succeeded");
    const held = await heldWebhooks(emulator);
    expect(held).toHaveLength(50);
    expect(new Set(stateWebhookIds(test))).toEqual(new Set(held.map((h) => h.id)));
    const destroyStarted = performance.now();
    const destroyed = await run(test.stack.destroy());
    const destroySeconds = (performance.now() - destroyStarted) / 1000;
    expect(destroyed.summary.result).toBe("succeeded");
    expect(await heldWebhooks(emulator)).toEqual([]);
    expect(stateWebhookIds(test)).toEqual([]);
    console.log(`fault run, 50 webhooks: up ${upSeconds.toFixed(1)} s, destroy ${destroySeconds.toFixed(1)} s`);
  });

  for (const rotate of [false, true]) {
    it(`destroys after the stored access token expired, through the refresh grant (rotation ${rotate ? "on" : "off"})`, async () => {
      const { emulator, tokens, test } = await setUp(
        { accessTokenTtlSeconds: 2, rotateRefreshTokens: rotate },
        hooks(3, rotate ? "r" : "n"),
      );
      await run(test.stack.up());
      expect(await heldWebhooks(emulator)).toHaveLength(3);
      await new Promise((resolve) => setTimeout(resolve, 2500)); // the token in config (and in state) is now expired
      const destroyed = await run(test.stack.destroy());
      expect(destroyed.summary.result).toBe("succeeded");
      expect(await heldWebhooks(emulator)).toEqual([]);
      // The renewed tokens are in the local cache; with rotation, a new refresh token the stack config lacks.
      // This test's sign-in only (the cache directory is shared by the tests of this file): found through the hash of
      // the refresh token the stack config holds.
      const stored = required(findEntry(refreshTokenHash(tokens.refreshToken), cacheDir), "this test's cache entry");
      credentials.add(stored.entry.accessToken);
      credentials.add(stored.entry.refreshToken);
      expect(stored.entry.accessToken).not.toBe(tokens.accessToken);
      expect(stored.entry.refreshToken !== tokens.refreshToken).toBe(rotate);
    });
  }

  it("destroys cleanly a webhook deleted on the help desk's side, with a warning", async () => {
    const { emulator, tokens, test } = await setUp({}, hooks(2, "d"));
    await run(test.stack.up());
    const [gone] = await heldWebhooks(emulator);
    const goneId = required(gone, "a held webhook").id;
    const response = await fetch(`${emulator.url}/v1/webhooks/${goneId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    expect(response.status).toBe(204);
    const destroyed = await run(test.stack.destroy());
    expect(destroyed.summary.result).toBe("succeeded");
    expect(destroyed.stdout).toContain(`webhook ${goneId}`);
    expect(destroyed.stdout).toContain("already gone");
    expect(await heldWebhooks(emulator)).toEqual([]);
  });

  it("an upgrade of the provider's code (a new __provider) causes no diff and no update", async () => {
    const { test } = await setUp({}, hooks(2, "u"));
    await run(test.stack.up());
    const deployment = await test.stack.exportStack();
    const text = JSON.stringify(deployment).replaceAll(
      "exports.handler = __f0;",
      "exports.handler = __f0; // an older pulumi-helpdesk",
    );
    expect(text).not.toBe(JSON.stringify(deployment));
    await test.stack.importStack(JSON.parse(text));
    const preview = await run(test.stack.preview());
    expect(preview.changeSummary).toEqual({ same: 3 });
  });

  it("a change of url is previewed as a replace of that webhook only (and plain http to a remote host warns)", async () => {
    const declared = hooks(2, "p");
    const { test } = await setUp({}, declared);
    await run(test.stack.up());
    await test.stack.setConfig("e2e:hooks", {
      value: JSON.stringify([
        declared[0],
        { ...required(declared[1], "the second hook"), url: "http://hooks.example.test/moved" },
      ]),
    });
    const preview = await run(test.stack.preview({ diff: true }));
    expect(preview.changeSummary).toEqual({ same: 2, replace: 1 });
    expect(preview.stdout).toMatch(
      /url\s*:\s*"https:\/\/hooks\.example\.test\/p\/1" => "http:\/\/hooks\.example\.test\/moved"/,
    );
    expect(`${preview.stdout}\n${preview.stderr}`).toMatch(
      /warning: url uses plain http to a host other than this machine/,
    );
  });

  it("preview reports every invalid input at once, each naming its property", async () => {
    const { test } = await setUp({}, [{ name: "bad", event: "ticket_open", url: "ftp://hooks.example.test" }]);
    const error = await run(test.stack.preview()).then(
      () => undefined,
      (e: unknown) => String(e),
    );
    expect(error).toBeDefined();
    expect(error).toMatch(/event "ticket_open" is not a help-desk event\. Did you mean "ticket_opened"\?/);
    expect(error).toMatch(/url must use http or https, got "ftp"/);
  });

  it("a url given as pulumi.secret stays secret in the state's outputs", async () => {
    const secretUrl = "https://hooks.example.test/secret-path-5b1e";
    const { test } = await setUp(
      {},
      [{ name: "s", event: "agent_invited", url: "(from e2e:secretUrl)", secretUrl: true }],
      {
        "e2e:secretUrl": { value: secretUrl, secret: true },
      },
    );
    await run(test.stack.up());
    const state = readStateFile(test, "helpdesk-e2e");
    expect(state).toContain("agent_invited"); // the webhook is in state...
    expect(state).not.toContain("secret-path-5b1e"); // ...its url only as ciphertext
  });

  it("API failures reach the user as actionable messages", async () => {
    const { emulator, test } = await setUp({}, hooks(1, "f"), { [CONFIG_KEYS.maxRetries]: { value: "1" } });
    await setFaults(emulator, { rate500: 1 });
    const error = await run(test.stack.up()).then(
      () => undefined,
      (e: unknown) => String(e),
    );
    expect(error).toMatch(/create webhook failed: POST \/v1\/webhooks responded with 500/);
    expect(await heldWebhooks(emulator)).toHaveLength(0);
  });

  it("no credential appears in state, the serialized provider, logs or error messages of all the runs above", () => {
    // Runs after the others (vitest keeps file order); `printed` holds their outputs, errors, states and emulator logs.
    expect(printed.length).toBeGreaterThan(10);
    const everything = printed.join("\n");
    expect(everything).toContain("__provider"); // the states (with their serialized providers) are in the scan
    for (const secret of credentials) {
      expect(secret.length).toBeGreaterThan(10);
      expect(everything.includes(secret), `a credential (${secret.slice(0, 4)}…) leaked`).toBe(false);
    }
  });
});
