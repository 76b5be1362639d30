/**
 * `pulumi refresh` with the dynamic `Webhook` says what it cannot see (provider/core/refresh.ts): the real Pulumi CLI
 * (Automation API) runs tests/e2e/program against a real emulator; a webhook is then deleted in the help desk, as
 * someone would in its admin page, and `pulumi refresh` (and `pulumi up --refresh`) must end with exit 0, exactly one
 * warning of the dynamic provider saying that the help desk cannot be asked and how many webhooks were kept as
 * recorded, no url anywhere in the output, and the state as it was.
 */

import { fileURLToPath } from "node:url";
import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenSet } from "../../auth/oauth.js";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { required } from "../../kernel/required.js";
import { heldWebhooks } from "../support/emulator.js";
import { configAsLoginWrites, createTestStack, pulumiAvailable, type TestStack } from "../support/pulumi.js";

const programDir = fileURLToPath(new URL("./program", import.meta.url));
const client = {
  clientId: "refresh-client",
  clientSecret: "refresh-client-secret-value",
  redirectUri: "http://127.0.0.1:1/callback",
  name: "refresh",
};
const declared = [
  { name: "started", event: "ticket_started", url: "https://hooks.example.test/refresh/started-secret-1" },
  { name: "closed", event: "ticket_closed", url: "https://hooks.example.test/refresh/closed-secret-2" },
  { name: "replied", event: "customer_replied", url: "https://hooks.example.test/refresh/replied-secret-3" },
];

/** The refresh warnings among a run's engine events (a diagnostic, whatever its severity: the text says warning). */
const refreshWarnings = (events: EngineEvent[]): string[] =>
  events.flatMap((event) =>
    event.diagnosticEvent?.message.includes("refresh cannot ask the help desk") ? [event.diagnosticEvent.message] : [],
  );

/** The stack's resources with secrets decrypted: what refresh must leave as it was (ciphertexts are re-encrypted by the engine on every write). */
async function resources(test: TestStack): Promise<unknown> {
  const deployment = (await test.stack.exportStack()).deployment as { resources: Array<Record<string, unknown>> };
  return deployment.resources.map(({ urn, id, type, inputs, outputs, provider, protect }) => ({
    urn,
    id,
    type,
    inputs,
    outputs,
    provider,
    protect,
  }));
}

describe.skipIf(!pulumiAvailable())("pulumi refresh of dynamic Webhooks: one warning saying what it cannot see", () => {
  let emulator: RunningEmulator;
  let tokens: TokenSet;
  let test: TestStack;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
    tokens = await signIn({ baseUrl: emulator.url, ...client });
    test = await createTestStack(programDir, {
      ...configAsLoginWrites(emulator.url, client, tokens),
      "e2e:hooks": { value: JSON.stringify(declared) },
    });
    const up = await test.stack.up();
    expect(up.summary.result).toBe("succeeded");
    const gone = required(
      (required(up.outputs.ids, "the output ids").value as Record<string, string>).closed,
      "the id of the closed webhook",
    );
    const deleted = await fetch(`${emulator.url}/v1/webhooks/${gone}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    expect(deleted.status).toBe(204);
    expect(await heldWebhooks(emulator)).toHaveLength(2);
  });

  afterAll(async () => {
    await test?.stack.destroy().catch(() => undefined);
    await test?.dispose();
    await emulator?.close();
  });

  it("refresh: exit 0, one warning counting the 3 webhooks kept, no url, the state unchanged", async () => {
    const before = await resources(test);
    const events: EngineEvent[] = [];
    const result = await test.stack.refresh({ onEvent: (event) => events.push(event) });
    expect(result.summary.result).toBe("succeeded");
    expect(refreshWarnings(events)).toEqual([
      expect.stringMatching(
        /the dynamic Webhook provider kept 3 webhooks as recorded\. A webhook deleted or changed in the help desk is noticed only when Pulumi deletes or replaces it/,
      ),
    ]);
    expect(result.stdout).toContain("refresh cannot ask the help desk");
    // The output, and the warning itself (the events also carry the program's config, where this test keeps the urls plain).
    for (const { url } of declared)
      expect(`${result.stdout}${result.stderr}${refreshWarnings(events).join("")}`).not.toContain(url);
    expect(await resources(test)).toEqual(before);
  });

  it("up --refresh: the same one warning, and nothing to change", async () => {
    const events: EngineEvent[] = [];
    const result = await test.stack.up({ refresh: true, onEvent: (event) => events.push(event) });
    expect(result.summary.result).toBe("succeeded");
    expect(result.summary.resourceChanges).toEqual({ same: declared.length + 1 });
    expect(refreshWarnings(events)).toHaveLength(1);
  });
});
