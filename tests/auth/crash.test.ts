/**
 * `pulumi-helpdesk refresh` killed with SIGKILL at each of its steps (`HELPDESK_TEST_CRASH_AT`, read only by the
 * CLI), against an emulator that rotates refresh tokens and revokes the grant when a spent one is presented: a later
 * `refresh` or provider run still has a usable token, and no grant is revoked. Also a damaged cache file through the
 * CLI and the provider: the clear error, the file named, nothing refreshed. Run `bash scripts/build.sh` first.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/index.js";
import { CONFIG_KEYS } from "../../kernel/config.js";
import { required } from "../../kernel/required.js";
import { HELPDESK_ERROR_CODES, HelpdeskError } from "../../provider/core/errors.js";
import { webhookProvider } from "../../provider/dynamic/index.js";
import { createTestProject, runCli, type TestProject } from "../support/cli.js";
import { heldWebhooks } from "../support/emulator.js";
import { pulumiAvailable } from "../support/pulumi.js";
import {
  accessTokenWorks,
  cacheEntries,
  emulatorFor,
  initStack,
  requireBuild,
  resetStats,
  signedInConfig,
  signIn,
  stackConfig,
  tokenRequests,
} from "./support/helpers.js";

/** The stack config as Pulumi's dynamic provider host hands it to `configure`: a reader by namespaced key. */
const stackConfigReader = (values: Readonly<Record<string, string | undefined>>) => ({
  get: (key: string) => values[key],
});

const hook = { event: "ticket_opened" as const, url: "https://hooks.example.test/after-crash" };

describe.skipIf(!pulumiAvailable())("refresh killed at each step", () => {
  let rotating: RunningEmulator;
  let keeping: RunningEmulator;
  let project: TestProject;
  let cacheDir: string;
  const env = () => ({ HELPDESK_TOKEN_CACHE_DIR: cacheDir });

  beforeAll(async () => {
    requireBuild();
    rotating = await emulatorFor({ rotateRefreshTokens: true });
    keeping = await emulatorFor({ rotateRefreshTokens: false });
    project = createTestProject();
    cacheDir = mkdtempSync(join(tmpdir(), "helpdesk-crash-cache-"));
    process.env.HELPDESK_TOKEN_CACHE_DIR = cacheDir; // for the provider runs in this process
  });

  afterAll(async () => {
    await Promise.all([rotating?.close(), keeping?.close()]);
    project?.dispose();
    rmSync(cacheDir, { recursive: true, force: true });
    delete process.env.HELPDESK_TOKEN_CACHE_DIR;
  });

  /** A new stack with a fresh sign-in (its own lineage); stats reset. */
  async function signedInStack(stack: string, emulator = rotating): Promise<Record<string, string>> {
    const config = signedInConfig(emulator, await signIn(emulator));
    initStack(project, stack, config);
    await resetStats(emulator);
    return config;
  }

  /** Runs `refresh --stack` with a crash point; expects the process killed by the signal (no exit code). */
  async function crashedRefresh(stack: string, step: string): Promise<void> {
    const run = await runCli(["refresh", "--stack", stack], project, { ...env(), HELPDESK_TEST_CRASH_AT: step });
    expect(run.code, `refresh should have been killed at ${step}: ${run.stderr}`).toBeNull();
  }

  /** Runs `refresh --stack` to its end, timing it. */
  async function laterRefresh(stack: string): Promise<{ code: number | null; stderr: string; seconds: number }> {
    const started = performance.now();
    const run = await runCli(["refresh", "--stack", stack], project, env());
    const seconds = (performance.now() - started) / 1000;
    console.log(`  later refresh of ${stack}: exit ${run.code} in ${seconds.toFixed(1)} s`);
    return { ...run, seconds };
  }

  /** A provider run (in this process) with the stack's config: creates a webhook, so a token works. */
  async function providerRun(stack: string, emulator = rotating): Promise<void> {
    const before = (await heldWebhooks(emulator)).length;
    await webhookProvider.create(stackConfigReader(stackConfig(project, stack)), {
      ...hook,
      url: `${hook.url}/${stack}`,
    });
    expect(await heldWebhooks(emulator)).toHaveLength(before + 1);
  }

  it("lock-acquired (nothing sent): the next refresh takes over the stale lock and renews", async () => {
    const config = await signedInStack("crash-lock");
    await crashedRefresh("crash-lock", "lock-acquired");
    expect(await tokenRequests(rotating)).toBe(0);
    const later = await laterRefresh("crash-lock");
    expect(later.code, later.stderr).toBe(0);
    expect(later.seconds).toBeGreaterThan(5); // it waited for the lock to go stale (10 s after its last touch)
    const stored = stackConfig(project, "crash-lock");
    expect(stored[CONFIG_KEYS.refreshToken]).not.toBe(config[CONFIG_KEYS.refreshToken]);
    expect(await tokenRequests(rotating)).toBe(1);
    await providerRun("crash-lock");
  });

  it("token-response (the server rotated, the response was lost): refresh stops with the interrupted error, nothing is presented again, the provider still works", async () => {
    const config = await signedInStack("crash-answer");
    await crashedRefresh("crash-answer", "token-response");
    expect(await tokenRequests(rotating)).toBe(1); // the request was answered: the root refresh token is spent
    const later = await laterRefresh("crash-answer");
    expect(later.code).toBe(1);
    expect(later.stderr).toMatch(/sent its request and never stored the response/);
    expect(later.stderr).toContain("pulumi-helpdesk login --stack crash-answer");
    expect(later.stderr).toContain(cacheDir);
    expect(later.stderr).not.toContain(required(config[CONFIG_KEYS.refreshToken], "the configured refresh token"));
    expect(await tokenRequests(rotating)).toBe(1); // the spent token was never presented: the grant stands
    expect(
      await accessTokenWorks(rotating, required(config[CONFIG_KEYS.accessToken], "the configured access token")),
    ).toBe(true);
    expect(stackConfig(project, "crash-answer")[CONFIG_KEYS.refreshToken]).toBe(config[CONFIG_KEYS.refreshToken]);
    await providerRun("crash-answer");
    const status = await runCli(["status", "--stack", "crash-answer", "--json"], project, env());
    expect(
      (JSON.parse(status.stdout) as { tokenCache: { interruptedAt: string | null } }).tokenCache.interruptedAt,
    ).toBeTruthy();
  });

  it("token-response with a server that keeps refresh tokens: the next refresh simply renews", async () => {
    await signedInStack("crash-keeps", keeping);
    expect((await laterRefresh("crash-keeps")).code).toBe(0); // learns that this server keeps refresh tokens
    await crashedRefresh("crash-keeps", "token-response");
    const later = await laterRefresh("crash-keeps");
    expect(later.code, later.stderr).toBe(0);
    expect(await tokenRequests(keeping)).toBe(3);
    await providerRun("crash-keeps", keeping);
  });

  it("cache-written (config not yet written): the next refresh stores the cached tokens without spending", async () => {
    const config = await signedInStack("crash-cache");
    await crashedRefresh("crash-cache", "cache-written");
    expect(stackConfig(project, "crash-cache")[CONFIG_KEYS.refreshToken]).toBe(config[CONFIG_KEYS.refreshToken]);
    await providerRun("crash-cache"); // reads the newest tokens from the cache meanwhile
    const later = await laterRefresh("crash-cache");
    expect(later.code, later.stderr).toBe(0);
    expect(later.stderr).toContain("from the local token cache");
    expect(await tokenRequests(rotating)).toBe(1);
    const stored = stackConfig(project, "crash-cache");
    const entry = cacheEntries(cacheDir).find((e) => e.entry.refreshToken === stored[CONFIG_KEYS.refreshToken]);
    expect(entry).toBeDefined();
    expect(stored[CONFIG_KEYS.refreshToken]).not.toBe(config[CONFIG_KEYS.refreshToken]);
    expect((await laterRefresh("crash-cache")).code).toBe(0); // and the stored refresh token is the live one
  });

  it("config-written (the last step): the config holds the cache's tokens and the next refresh renews from them", async () => {
    const config = await signedInStack("crash-config");
    await crashedRefresh("crash-config", "config-written");
    const stored = stackConfig(project, "crash-config");
    expect(stored[CONFIG_KEYS.refreshToken]).not.toBe(config[CONFIG_KEYS.refreshToken]);
    expect(cacheEntries(cacheDir).some((e) => e.entry.refreshToken === stored[CONFIG_KEYS.refreshToken])).toBe(true);
    const later = await laterRefresh("crash-config");
    expect(later.code, later.stderr).toBe(0);
    expect(await tokenRequests(rotating)).toBe(2);
    await providerRun("crash-config");
  });

  it("an unknown crash point is a usage error, so a typo cannot pass a test", async () => {
    const run = await runCli(["refresh", "--stack", "crash-config"], project, {
      ...env(),
      HELPDESK_TEST_CRASH_AT: "after-everything",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("HELPDESK_TEST_CRASH_AT must be one of");
  });

  it("a damaged cache file: refresh, status and the provider name it and refresh nothing", async () => {
    const config = await signedInStack("damaged");
    expect((await laterRefresh("damaged")).code).toBe(0);
    const stored = stackConfig(project, "damaged");
    const { file } = required(
      cacheEntries(cacheDir).find((e) => e.entry.refreshToken === stored[CONFIG_KEYS.refreshToken]),
      "the entry of the stored refresh token",
    );
    writeFileSync(file, "{ this is not an entry");
    await resetStats(rotating);

    const later = await laterRefresh("damaged");
    expect(later.code).toBe(1);
    expect(later.stderr).toContain(`the token cache file ${file} is damaged`);
    expect(later.stderr).toContain("pulumi-helpdesk login --stack damaged");
    for (const token of [
      required(config[CONFIG_KEYS.refreshToken], "the configured refresh token"),
      required(stored[CONFIG_KEYS.refreshToken], "the stored refresh token"),
      required(stored[CONFIG_KEYS.accessToken], "the stored access token"),
    ])
      expect(later.stderr).not.toContain(token);

    const status = await runCli(["status", "--stack", "damaged", "--json"], project, env());
    expect(status.code).toBe(0);
    expect((JSON.parse(status.stdout) as { tokenCache: { problem: string } }).tokenCache.problem).toContain(file);

    // The provider with an expired access token must renew: it stops at the damaged file instead.
    const expired = { ...stored, [CONFIG_KEYS.tokenExpiresAt]: new Date(Date.now() - 1000).toISOString() };
    const error = await webhookProvider.create(stackConfigReader(expired), hook).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HelpdeskError);
    expect((error as HelpdeskError).code).toBe(HELPDESK_ERROR_CODES.CREDENTIALS);
    expect((error as HelpdeskError).message).toContain(file);
    expect(await tokenRequests(rotating)).toBe(0);
  });
});
