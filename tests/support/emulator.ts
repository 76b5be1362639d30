/**
 * Test support: read and steer a running emulator through its inspection routes (outside `/v1`, no auth), with the
 * package's one client of those routes.
 */
import { EmulatorInspectionClient, type FaultOptions, type RunningEmulator, type StatsSnapshot, type StoredWebhook } from "../../emulator/index.js";

/** A webhook as the emulator holds it. */
export type HeldWebhook = StoredWebhook;

/** Every webhook the emulator holds (all accounts). */
export async function heldWebhooks(emulator: RunningEmulator): Promise<HeldWebhook[]> {
  return new EmulatorInspectionClient(emulator.url).webhooks();
}

/** Replaces the emulator's fault settings (all off when `{}`). */
export async function setFaults(emulator: RunningEmulator, faults: FaultOptions): Promise<void> {
  await new EmulatorInspectionClient(emulator.url).setFaults({ latencyMs: 0, rate429: 0, rate500: 0, rate503: 0, dropRate: 0, ...faults });
}

/** Request and connection counters of the emulator. */
export async function emulatorStats(emulator: RunningEmulator): Promise<StatsSnapshot> {
  return new EmulatorInspectionClient(emulator.url).stats();
}
