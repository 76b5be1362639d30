/**
 * Test support: Debian's Chromium (`/usr/bin/chromium`, or `CHROMIUM_PATH`) driven by playwright-core, with a fresh
 * profile and the flags this offline machine needs. Without Chromium, browser suites skip locally and FAIL under
 * `CI=true` (a missing tool is never a silent skip in CI).
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { test } from "vitest";

/** Path of the Chromium binary. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Tells whether Chromium is installed; under `CI=true` a missing one registers a failing test in the calling file.
 */
export function chromiumAvailable(): boolean {
  const have = existsSync(CHROMIUM);
  if (!have && process.env.CI === "true") {
    test("Chromium is installed (required when CI=true)", () => {
      throw new Error(
        `Chromium not found at ${CHROMIUM}: install the Debian package "chromium" (scripts/setup.sh --test does)`,
      );
    });
  }
  return have;
}

/** A browser context on a throw-away profile; `close()` also removes the profile. */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), "helpdesk-chromium-"));
  // launchPersistentContext, because playwright's launch() refuses a --user-data-dir of our choosing.
  const launching = chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  // A browser that fails to start leaves no profile behind.
  const context = await launching.catch(async (error: unknown) => {
    await rm(profile, { recursive: true, force: true });
    throw error;
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
