/**
 * One OAuth grant refreshed by two OS processes at once, against one emulator that rotates refresh tokens and
 * revokes the whole grant when a spent one is presented (RFC 6819 §5.2.2.3): the grant's lock and the re-read
 * under it must leave no grant revoked. Afterwards `pulumi-helpdesk refresh` (the built CLI, a real stack of a
 * file:// backend) stores the newest refresh token in the stack config. Run `bash scripts/build.sh` first.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/index.js";
import { CONFIG_KEYS } from "../../kernel/config.js";
import { required } from "../../kernel/required.js";
import { runCommand } from "../../scripts/lib/processes.ts";
import { createTestProject, runCli, type TestProject } from "../support/cli.js";
import { pulumiAvailable } from "../support/pulumi.js";
import {
  accessTokenWorks,
  cacheEntries,
  emulatorFor,
  initStack,
  onlyEntry,
  requireBuild,
  resetStats,
  signedInConfig,
  signIn,
  stackConfig,
  tokenRequests,
} from "./support/helpers.js";

const refresher = fileURLToPath(new URL("./support/refresher.mjs", import.meta.url));
const REFRESHES_PER_PROCESS = 20;

interface Iteration {
  i: number;
  ok: boolean;
  refreshed?: boolean;
  code?: string;
  message?: string;
}

/** Runs the refresher script in its own `node` process; resolves with its per-iteration results. */
async function refreshInProcess(
  dir: string,
  config: Record<string, string>,
  mode: "always" | "when-rejected",
): Promise<Iteration[]> {
  const input = JSON.stringify({ dir, config, count: REFRESHES_PER_PROCESS, mode });
  const ran = await runCommand(process.execPath, [refresher], { cwd: process.cwd(), env: process.env, input });
  if (ran.code !== 0) throw new Error(`refresher exited ${ran.code}: ${ran.stderr}`);
  return ran.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Iteration);
}

describe.skipIf(!pulumiAvailable())("two processes refreshing one grant", () => {
  let emulator: RunningEmulator;
  let project: TestProject;
  let cacheDir: string;
  let cliEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    requireBuild();
    emulator = await emulatorFor({ rotateRefreshTokens: true });
    project = createTestProject();
    cacheDir = mkdtempSync(join(tmpdir(), "helpdesk-concurrency-cache-"));
    cliEnv = { HELPDESK_TOKEN_CACHE_DIR: cacheDir };
  });

  afterAll(async () => {
    await emulator?.close();
    project?.dispose();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it(`${REFRESHES_PER_PROCESS} refreshes each, concurrently: 0 revoked grants; then \`refresh\` stores the newest refresh token`, async () => {
    const config = signedInConfig(emulator, await signIn(emulator));
    initStack(project, "dev", config);
    await resetStats(emulator);

    const started = performance.now();
    const results = await Promise.all([
      refreshInProcess(cacheDir, config, "always"),
      refreshInProcess(cacheDir, config, "always"),
    ]);
    const seconds = (performance.now() - started) / 1000;
    const failures = results.flat().filter((r) => !r.ok);
    expect(failures).toEqual([]);
    expect(results.flat().filter((r) => r.refreshed)).toHaveLength(2 * REFRESHES_PER_PROCESS);
    expect(await tokenRequests(emulator)).toBe(2 * REFRESHES_PER_PROCESS); // each one a real rotation, none replayed
    const { entry } = onlyEntry(cacheDir);
    expect(entry.refreshTokenHashes).toHaveLength(1 + 2 * REFRESHES_PER_PROCESS);
    expect(await accessTokenWorks(emulator, entry.accessToken)).toBe(true); // a revoked grant revokes this one too
    console.log(
      `  2 processes x ${REFRESHES_PER_PROCESS} refreshes (always spend): ${seconds.toFixed(2)} s, ${await tokenRequests(emulator)} token requests`,
    );

    // The stack config still holds the root refresh token (spent 40 rotations ago); `refresh` stores the newest.
    await resetStats(emulator);
    const copied = await runCli(["refresh", "--stack", "dev"], project, cliEnv);
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stderr).toContain("from the local token cache");
    expect(await tokenRequests(emulator)).toBe(0); // the cached access token was still valid: nothing spent
    const stored = stackConfig(project, "dev");
    expect(stored[CONFIG_KEYS.refreshToken]).toBe(entry.refreshToken);
    expect(stored[CONFIG_KEYS.accessToken]).toBe(entry.accessToken);

    // And that refresh token works: the next `refresh` spends it and stores its successor.
    const renewed = await runCli(["refresh", "--stack", "dev"], project, cliEnv);
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(renewed.stderr).toContain("the server issued a new refresh token");
    expect(await tokenRequests(emulator)).toBe(1);
    const after = stackConfig(project, "dev");
    expect(after[CONFIG_KEYS.refreshToken]).not.toBe(entry.refreshToken);
    expect(after[CONFIG_KEYS.refreshToken]).toBe(
      required(cacheEntries(cacheDir)[0], "a cache entry").entry.refreshToken,
    );
    expect(await accessTokenWorks(emulator, required(after[CONFIG_KEYS.accessToken], "the stored access token"))).toBe(
      true,
    );
  });

  it(`${REFRESHES_PER_PROCESS} renewals each after a "401", concurrently: one renews, the other reuses; 0 revoked grants`, async () => {
    const config = signedInConfig(emulator, await signIn(emulator));
    await resetStats(emulator);
    const started = performance.now();
    const results = (
      await Promise.all([
        refreshInProcess(cacheDir, config, "when-rejected"),
        refreshInProcess(cacheDir, config, "when-rejected"),
      ])
    ).flat();
    const seconds = (performance.now() - started) / 1000;
    expect(results.filter((r) => !r.ok)).toEqual([]);
    const renewals = results.filter((r) => r.refreshed).length;
    expect(await tokenRequests(emulator)).toBe(renewals);
    expect(renewals).toBeGreaterThanOrEqual(REFRESHES_PER_PROCESS);
    expect(renewals).toBeLessThanOrEqual(2 * REFRESHES_PER_PROCESS);
    const newest = required(
      cacheEntries(cacheDir).find((e) => e.entry.refreshTokenHashes.length === 1 + renewals),
      `the entry after ${renewals} renewals`,
    );
    expect(await accessTokenWorks(emulator, newest.entry.accessToken)).toBe(true);
    console.log(
      `  2 processes x ${REFRESHES_PER_PROCESS} renewals (reuse when another renewed): ${seconds.toFixed(2)} s, ${renewals} token requests, ${2 * REFRESHES_PER_PROCESS - renewals} reused`,
    );
  });
});
