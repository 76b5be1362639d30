/**
 * Test support: read and steer a running emulator through its inspection routes (outside `/v1`, no auth), with the
 * package's one client of those routes.
 */
import type { FaultOptions, RunningEmulator, StatsSnapshot, StoredWebhook } from "../../emulator/index.js";
import { EmulatorInspectionClient } from "../../emulator-client/index.js";

/** A webhook as the emulator holds it. */
export type HeldWebhook = StoredWebhook;

/**
 * The inspection client of a test's emulator, a connection of its own per call: suites block the event loop (with
 * `execFileSync`), and a pooled connection could be closed as idle by the in-process emulator in the instant it is
 * reused (ECONNRESET).
 */
const inspect = (emulator: RunningEmulator): EmulatorInspectionClient =>
  new EmulatorInspectionClient(emulator.url, { connectionPerCall: true });

/** Every webhook the emulator holds (all accounts). */
export async function heldWebhooks(emulator: RunningEmulator): Promise<HeldWebhook[]> {
  return inspect(emulator).webhooks();
}

/** Replaces the emulator's fault settings (all off when `{}`). */
export async function setFaults(emulator: RunningEmulator, faults: FaultOptions): Promise<void> {
  await inspect(emulator).setFaults({ latencyMs: 0, rate429: 0, rate500: 0, rate503: 0, dropRate: 0, ...faults });
}

/** Request and connection counters of the emulator. */
export async function emulatorStats(emulator: RunningEmulator): Promise<StatsSnapshot> {
  return inspect(emulator).stats();
}
