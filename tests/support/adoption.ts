/**
 * Test support for `pulumi-helpdesk import --from` suites (tests/native/import.test.ts, tests/no-node/import.test.ts):
 * webhooks made directly in a help desk, as someone would in its admin page (`POST /v1/webhooks`), the file that lists
 * them, the emulator's count of creations, and the checks every suite makes on a stack's state file.
 */
import { expect } from "vitest";
import type { RunningEmulator } from "../../emulator/index.js";
import { emulatorStats } from "./emulator.js";

/** A webhook made outside Pulumi, as the file of `import --from` lists it. */
export interface ExistingWebhook {
  id: string;
  event: string;
  url: string;
}

/**
 * Registers webhooks directly through the API with a bearer token (docs/helpdesk-api.md §4.3).
 *
 * @param emulator the help desk; @param accessToken a token of its sign-in; @param specs event and url of each
 * @returns each webhook with the id the help desk gave it
 */
export async function createDirectly(
  emulator: RunningEmulator,
  accessToken: string,
  specs: ReadonlyArray<{ event: string; url: string }>,
): Promise<ExistingWebhook[]> {
  const made: ExistingWebhook[] = [];
  for (const spec of specs) {
    const response = await fetch(`${emulator.url}/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
      body: JSON.stringify(spec),
    });
    expect(response.status).toBe(201);
    const { webhook } = (await response.json()) as { webhook: { id: string } };
    made.push({ id: webhook.id, ...spec });
  }
  return made;
}

/** The CSV of `import --from` for webhooks: the header `id,event,url`, one line each. */
export function csvOf(webhooks: readonly ExistingWebhook[]): string {
  return `${["id,event,url", ...webhooks.map((hook) => `${hook.id},${hook.event},${hook.url}`)].join("\n")}\n`;
}

/** How many `POST /v1/webhooks` the emulator has answered. */
export async function creations(emulator: RunningEmulator): Promise<number> {
  return webhookRequests(emulator, "POST");
}

/** How many `DELETE /v1/webhooks/:id` the emulator has answered. */
export async function deletions(emulator: RunningEmulator): Promise<number> {
  return webhookRequests(emulator, "DELETE");
}

/** How many requests of a method to `/v1/webhooks` or one webhook the emulator has answered. */
async function webhookRequests(emulator: RunningEmulator, method: "POST" | "DELETE"): Promise<number> {
  const { byRoute } = await emulatorStats(emulator);
  return Object.entries(byRoute)
    .filter(([route]) => route.startsWith(`${method} /v1/webhooks`))
    .reduce((sum, [, count]) => sum + count, 0);
}

/**
 * Checks a state file after an adoption: it holds each webhook's id, as a native Webhook, and none of their urls in
 * plain text (they are secrets: ciphertext only).
 *
 * @param state the state file's text
 * @param webhooks the adopted webhooks
 */
export function expectAdoptedInState(state: string, webhooks: readonly ExistingWebhook[]): void {
  const resources = (
    JSON.parse(state) as { checkpoint: { latest: { resources: Array<{ type: string; id?: string }> } } }
  ).checkpoint.latest.resources;
  const ids = resources.filter((resource) => resource.type === "helpdesk:index:Webhook").map((resource) => resource.id);
  for (const hook of webhooks) {
    expect(ids).toContain(hook.id);
    expect(state).not.toContain(hook.url);
  }
}
