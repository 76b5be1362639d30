/**
 * Upgrading pulumi-helpdesk under an existing stack: Webhooks created by 0.1.0 store its serialized provider (the shim
 * of tests/e2e/shim-upgrade/provider-0.1.0.txt, byte for byte) in their state, and the stack must keep working with
 * today's package: an `up` with no change of inputs changes nothing, a changed url replaces that webhook only, and
 * `destroy` deletes every webhook on the help desk. The real Pulumi CLI (Automation API) runs the program of
 * tests/e2e/shim-upgrade against a real emulator on 127.0.0.1; results are checked on the emulator's side.
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { heldWebhooks } from "../support/emulator.js";
import {
  configAsLoginWrites,
  createTestStack,
  pulumiAvailable,
  readStateFile,
  type TestStack,
} from "../support/pulumi.js";

const programDir = fileURLToPath(new URL("./shim-upgrade", import.meta.url));
const provider010 = readFileSync(new URL("./shim-upgrade/provider-0.1.0.txt", import.meta.url), "utf8");
const client = {
  clientId: "upgrade-client",
  clientSecret: "upgrade-client-secret-value",
  redirectUri: "http://127.0.0.1:1/callback",
  name: "upgrade",
};

const declared = [
  { name: "opened", event: "ticket_opened", url: "https://hooks.example.test/upgrade/opened" },
  { name: "closed", event: "ticket_closed", url: "https://hooks.example.test/upgrade/closed" },
  { name: "replied", event: "customer_replied", url: "https://hooks.example.test/upgrade/replied" },
];

/** The `__provider` of every Webhook in the persisted state, inputs and outputs. */
function storedProviders(test: TestStack): { inputs: string[]; outputs: string[] } {
  const state = JSON.parse(readStateFile(test, "helpdesk-shim-upgrade")) as {
    checkpoint: {
      latest: { resources: Array<{ type: string; inputs: { __provider: string }; outputs: { __provider: string } }> };
    };
  };
  const hooks = state.checkpoint.latest.resources.filter(
    (resource) => resource.type === "pulumi-nodejs:dynamic/helpdesk:Webhook",
  );
  return { inputs: hooks.map((hook) => hook.inputs.__provider), outputs: hooks.map((hook) => hook.outputs.__provider) };
}

describe.skipIf(!pulumiAvailable())("a stack created with pulumi-helpdesk 0.1.0, run with today's package", () => {
  let emulator: RunningEmulator;
  let test: TestStack;
  let ids: Record<string, string> = {};

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
    const tokens = await signIn({ baseUrl: emulator.url, ...client });
    test = await createTestStack(programDir, {
      ...configAsLoginWrites(emulator.url, client, tokens),
      "upgrade:shim": { value: "0.1.0" },
      "upgrade:hooks": { value: JSON.stringify(declared) },
    });
  });

  afterAll(async () => {
    await test?.stack.destroy().catch(() => undefined);
    await test?.dispose();
    await emulator?.close();
  });

  it("0.1.0's serialized provider creates the webhooks (the stack as 0.1.0 left it)", async () => {
    const result = await test.stack.up();
    expect(result.summary.resourceChanges).toEqual({ create: declared.length + 1 });
    ids = result.outputs.ids?.value as Record<string, string>;
    expect((await heldWebhooks(emulator)).map((hook) => hook.id).sort()).toEqual(Object.values(ids).sort());
    const stored = storedProviders(test);
    expect(new Set([...stored.inputs, ...stored.outputs])).toEqual(new Set([provider010]));
  });

  it("with today's Webhook, preview shows no update and no replace, and up changes nothing", async () => {
    await test.stack.setConfig("upgrade:shim", { value: "current" });
    const preview = await test.stack.preview();
    expect(preview.changeSummary).toEqual({ same: declared.length + 1 });
    const result = await test.stack.up();
    expect(result.summary.resourceChanges).toEqual({ same: declared.length + 1 });
    expect(result.outputs.ids?.value).toEqual(ids);
    expect((await heldWebhooks(emulator)).map((hook) => hook.id).sort()).toEqual(Object.values(ids).sort());
    // The engine records today's shim as the new inputs and keeps the outputs, 0.1.0's shim included: destroy runs it.
    const stored = storedProviders(test);
    expect(stored.inputs.every((text) => text !== provider010 && text.includes('"pulumi-helpdesk/provider"'))).toBe(
      true,
    );
    expect(stored.outputs.every((text) => text === provider010)).toBe(true);
  });

  it("a changed url replaces that webhook only: created by today's provider, the old one deleted by 0.1.0's", async () => {
    const moved = declared.map((hook) =>
      hook.name === "closed" ? { ...hook, url: "https://hooks.example.test/upgrade/closed-v2" } : hook,
    );
    await test.stack.setConfig("upgrade:hooks", { value: JSON.stringify(moved) });
    const result = await test.stack.up();
    expect(result.summary.resourceChanges).toEqual({ same: declared.length, replace: 1 });
    const newIds = result.outputs.ids?.value as Record<string, string>;
    expect(newIds.closed).not.toBe(ids.closed);
    const held = await heldWebhooks(emulator);
    expect(held.map((hook) => hook.id).sort()).toEqual(Object.values(newIds).sort());
    expect(held.find((hook) => hook.id === newIds.closed)?.url).toBe("https://hooks.example.test/upgrade/closed-v2");
  });

  it("destroy deletes every webhook on the help desk", async () => {
    const result = await test.stack.destroy();
    expect(result.summary.result).toBe("succeeded");
    expect(result.summary.resourceChanges).toEqual({ delete: declared.length + 1 });
    expect(await heldWebhooks(emulator)).toEqual([]);
  });
});
