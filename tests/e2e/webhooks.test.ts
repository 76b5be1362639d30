/**
 * The main job end to end: the real Pulumi CLI (Automation API) runs tests/e2e/program, whose Webhooks are created
 * and deleted by the provider in Pulumi's dynamic provider process against a real emulator on 127.0.0.1.
 * Everything is checked on the emulator's side, never in Pulumi's view alone.
 */

import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenSet } from "../../auth/oauth.js";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { heldWebhooks as emulatorWebhooks } from "../support/emulator.js";
import {
  configAsLoginWrites,
  createTestStack,
  pulumiAvailable,
  readStateFile,
  type TestStack,
} from "../support/pulumi.js";

const programDir = fileURLToPath(new URL("./program", import.meta.url));
const client = {
  clientId: "e2e-client",
  clientSecret: "e2e-client-secret-value",
  redirectUri: "http://127.0.0.1:1/callback",
  name: "e2e",
};

interface HookSpec {
  name: string;
  event: string;
  url: string;
}

const declared: HookSpec[] = [
  { name: "started", event: "ticket_started", url: "https://hooks.example.test/started" },
  { name: "closed", event: "ticket_closed", url: "https://hooks.example.test/closed" },
  { name: "replied", event: "customer_replied", url: "https://hooks.example.test/replied" },
];

describe.skipIf(!pulumiAvailable())("pulumi up / destroy of Webhooks against the emulator", () => {
  let emulator: RunningEmulator;
  let tokens: TokenSet;
  let test: TestStack;
  let ids: Record<string, string> = {};

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
    tokens = await signIn({ baseUrl: emulator.url, ...client });
    test = await createTestStack(programDir, {
      ...configAsLoginWrites(emulator.url, client, tokens),
      "e2e:hooks": { value: JSON.stringify(declared) },
    });
  });

  afterAll(async () => {
    await test?.stack.destroy().catch(() => undefined);
    await test?.dispose();
    await emulator?.close();
  });

  it("up registers exactly the declared webhooks", async () => {
    const result = await test.stack.up();
    expect(result.summary.result).toBe("succeeded");
    ids = Object.fromEntries(Object.entries(result.outputs.ids?.value as Record<string, string>));
    const held = await emulatorWebhooks(emulator);
    expect(
      held.map(({ event, url, state }) => ({ event, url, state })).sort((a, b) => a.event.localeCompare(b.event)),
    ).toEqual(
      declared
        .map(({ event, url }) => ({ event, url, state: "active" }))
        .sort((a, b) => a.event.localeCompare(b.event)),
    );
    expect(new Set(held.map((hook) => hook.id))).toEqual(new Set(Object.values(ids)));
  });

  it("a second up with no change touches nothing", async () => {
    const result = await test.stack.up();
    expect(result.summary.resourceChanges).toEqual({ same: declared.length + 1 });
    expect((await emulatorWebhooks(emulator)).length).toBe(declared.length);
  });

  it("changing one url replaces that webhook: new id, the old one deleted", async () => {
    const changed = declared.map((hook) =>
      hook.name === "closed" ? { ...hook, url: "https://hooks.example.test/closed-v2" } : hook,
    );
    await test.stack.setConfig("e2e:hooks", { value: JSON.stringify(changed) });
    const result = await test.stack.up();
    expect(result.summary.resourceChanges?.replace).toBe(1);
    const newIds = result.outputs.ids?.value as Record<string, string>;
    expect(newIds.closed).not.toBe(ids.closed);
    expect(newIds.started).toBe(ids.started);
    const held = await emulatorWebhooks(emulator);
    expect(held.map((hook) => hook.id)).not.toContain(ids.closed);
    expect(held.find((hook) => hook.id === newIds.closed)?.url).toBe("https://hooks.example.test/closed-v2");
    expect(held).toHaveLength(declared.length);
    ids = newIds;
  });

  it("the exported state holds no plaintext access token, refresh token or client secret", async () => {
    // The state as persisted by the backend (the Automation API's exportStack shows secrets decrypted).
    const exported = readStateFile(test, "helpdesk-e2e");
    expect(exported).not.toContain(tokens.accessToken);
    expect(tokens.refreshToken).toBeTruthy();
    expect(exported).not.toContain(tokens.refreshToken);
    expect(exported).not.toContain(client.clientSecret);
    // The provider config is in state, but only as ciphertext.
    expect(exported).toContain("helpdesk:accessToken");
  });

  it("destroy leaves zero webhooks", async () => {
    const result = await test.stack.destroy();
    expect(result.summary.result).toBe("succeeded");
    expect(await emulatorWebhooks(emulator)).toEqual([]);
  });
});
