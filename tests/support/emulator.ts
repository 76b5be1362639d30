/**
 * Test support: read and steer a running emulator through its inspection routes (outside `/v1`, no auth).
 */
import { request } from "undici";
import type { FaultOptions, RunningEmulator } from "../../emulator/index.js";

/** A webhook as the emulator holds it. */
export interface HeldWebhook {
  id: string;
  event: string;
  url: string;
  state: string;
  account: string;
}

/** Every webhook the emulator holds (all accounts). */
export async function heldWebhooks(emulator: RunningEmulator): Promise<HeldWebhook[]> {
  const response = await request(`${emulator.url}/_emulator/webhooks`);
  return ((await response.body.json()) as { webhooks: HeldWebhook[] }).webhooks;
}

/** Replaces the emulator's fault settings (all off when `{}`). */
export async function setFaults(emulator: RunningEmulator, faults: FaultOptions): Promise<void> {
  const response = await request(`${emulator.url}/_emulator/faults`, {
    method: "PUT",
    body: JSON.stringify({ latencyMs: 0, rate429: 0, rate500: 0, rate503: 0, dropRate: 0, ...faults }),
    headers: { "content-type": "application/json" },
  });
  if (response.statusCode !== 200) throw new Error(`PUT /_emulator/faults answered ${response.statusCode}: ${await response.body.text()}`);
  await response.body.dump();
}

/** Request and connection counters of the emulator. */
export async function emulatorStats(emulator: RunningEmulator): Promise<{ requests: number; connections: number; byRoute: Record<string, number> }> {
  const response = await request(`${emulator.url}/_emulator/stats`);
  return (await response.body.json()) as { requests: number; connections: number; byRoute: Record<string, number> };
}
