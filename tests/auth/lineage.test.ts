/**
 * Token lineages against a real emulator (rotation on: a spent refresh token presented again revokes the grant):
 * the one mapping from stack config, a sign-in shared by two stacks across rotations, reuse of another process's
 * renewal, the interrupted-refresh marker, failures that settle it, and a damaged cache that stops everything.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningEmulator } from "../../emulator/index.js";
import { OAuthError } from "../../auth/oauth.js";
import {
  accessTokenExpired,
  stackLineage,
  readLineage,
  refreshLineage,
  tokenConfigEntries,
  type Lineage,
} from "../../auth/lineage.js";
import { refreshTokenHash, TokenCacheError, type CacheEntry } from "../../auth/token-cache.js";
import { CONFIG_KEYS, ConfigNamespaceError } from "../../sdk/config.js";
import { accessTokenWorks, cacheEntries, client, emulatorFor, onlyEntry, resetStats, signedInConfig, signIn, tokenRequests } from "./support/helpers.js";

const emulators: RunningEmulator[] = [];
const dirs: string[] = [];

async function emulator(rotate = true): Promise<RunningEmulator> {
  const started = await emulatorFor({ rotateRefreshTokens: rotate });
  emulators.push(started);
  return started;
}

function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "helpdesk-lineage-test-"));
  dirs.push(dir);
  return dir;
}

/** The lineage of a stack whose config holds `values`. */
function lineageFrom(values: Record<string, string>, stack = "dev"): Lineage {
  const lineage = stackLineage(values, { env: {}, stack });
  if (!lineage) throw new Error("not a renewable sign-in");
  return lineage;
}

const always = () => true;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

afterAll(async () => {
  await Promise.all(emulators.map((e) => e.close()));
});

describe("lineageOf: the one mapping from stack config to a sign-in", () => {
  const config = {
    [CONFIG_KEYS.baseUrl]: "http://127.0.0.1:9/",
    [CONFIG_KEYS.clientId]: "c",
    [CONFIG_KEYS.clientSecret]: "client-secret-value",
    [CONFIG_KEYS.accessToken]: "access-token-value",
    [CONFIG_KEYS.refreshToken]: "refresh-token-value",
    [CONFIG_KEYS.tokenExpiresAt]: "2030-01-01T00:00:00.000Z",
  };

  it("maps a signed-in config (base URL without trailing slash, the stack named for messages)", () => {
    const lineage = stackLineage(config, { env: {}, stack: "dev" });
    expect(lineage?.client.baseUrl.href).toBe("http://127.0.0.1:9/");
    expect(lineage).toEqual({
      client: { baseUrl: expect.any(URL), clientId: "c", clientSecret: "client-secret-value" },
      configTokens: { accessToken: "access-token-value", refreshToken: "refresh-token-value", expiresAt: "2030-01-01T00:00:00.000Z", lifetimeSeconds: undefined },
      stack: "dev",
      namespace: "helpdesk",
    });
  });

  it("reads another namespace's keys only (login --namespace eu), and writes tokens back there", () => {
    const eu = Object.fromEntries(Object.entries(config).map(([key, value]) => [key.replace(/^helpdesk:/, "eu:"), value.replace("value", "eu")]));
    expect(stackLineage(eu, { env: {} })).toBeUndefined(); // helpdesk:* is empty
    expect(stackLineage(config, { env: {}, namespace: "eu" })).toBeUndefined(); // eu:* is empty
    const lineage = stackLineage({ ...config, ...eu }, { env: {}, stack: "dev", namespace: "eu" });
    expect(lineage).toMatchObject({ client: { clientSecret: "client-secret-eu" }, configTokens: { accessToken: "access-token-eu", refreshToken: "refresh-token-eu" }, namespace: "eu" });
    expect(tokenConfigEntries({ accessToken: "a", refreshToken: "r", expiresAt: "2030-01-01T00:00:00.000Z" }, lineage!.namespace)).toEqual([
      { key: "eu:accessToken", value: "a", secret: true },
      { key: "eu:refreshToken", value: "r", secret: true },
      { key: "eu:tokenExpiresAt", value: "2030-01-01T00:00:00.000Z", secret: false },
    ]);
    expect(() => stackLineage(config, { namespace: "eu:x" })).toThrow(ConfigNamespaceError);
  });

  it("fills client settings the config leaves unset from the environment, as the provider does; config values win", () => {
    const withoutSecret = { ...config, [CONFIG_KEYS.clientSecret]: "" };
    expect(stackLineage(withoutSecret, { env: {} })).toBeUndefined();
    const lineage = stackLineage(withoutSecret, { env: { HELPDESK_CLIENT_SECRET: "from-env", HELPDESK_ACCESS_TOKEN: "ignored-here" } });
    expect(lineage?.client.clientSecret).toBe("from-env");
    expect(lineage?.configTokens.accessToken).toBe("access-token-value");
    const configured = stackLineage(config, { env: { HELPDESK_CLIENT_SECRET: "from-env", HELPDESK_BASE_URL: "http://elsewhere.test" } });
    expect(configured?.client.clientSecret).toBe("client-secret-value");
    expect(configured?.client.baseUrl.href).toBe("http://127.0.0.1:9/");
  });

  it("does not renew an access token that only the environment gave (HELPDESK_ACCESS_TOKEN: used as given)", () => {
    const withoutToken = { ...config, [CONFIG_KEYS.accessToken]: undefined };
    expect(stackLineage(withoutToken, { env: { HELPDESK_ACCESS_TOKEN: "from-env" } })).toBeUndefined();
  });

  for (const key of [CONFIG_KEYS.refreshToken, CONFIG_KEYS.accessToken, CONFIG_KEYS.clientId, CONFIG_KEYS.baseUrl]) {
    it(`is undefined without ${key} (nothing to renew with)`, () => {
      expect(stackLineage({ ...config, [key]: undefined }, { env: {} })).toBeUndefined();
    });
  }

  it("maps tokens back to config entries, secret as SECRET_CONFIG_KEYS says", () => {
    expect(tokenConfigEntries({ accessToken: "a", refreshToken: "r", expiresAt: "2030-01-01T00:00:00.000Z", lifetimeSeconds: 7200 })).toEqual([
      { key: CONFIG_KEYS.accessToken, value: "a", secret: true },
      { key: CONFIG_KEYS.refreshToken, value: "r", secret: true },
      { key: CONFIG_KEYS.tokenExpiresAt, value: "2030-01-01T00:00:00.000Z", secret: false },
    ]);
    expect(tokenConfigEntries({ accessToken: "a", refreshToken: "r", expiresAt: undefined, lifetimeSeconds: undefined })).toHaveLength(2);
  });

  it("counts a token expired 60 s early, or a quarter of its lifetime when that is shorter", () => {
    const now = Date.parse("2030-01-01T00:00:00.000Z");
    const at = (seconds: number) => new Date(now + seconds * 1000).toISOString();
    expect(accessTokenExpired({ expiresAt: at(61), lifetimeSeconds: undefined }, now)).toBe(false);
    expect(accessTokenExpired({ expiresAt: at(59), lifetimeSeconds: undefined }, now)).toBe(true);
    expect(accessTokenExpired({ expiresAt: at(3), lifetimeSeconds: 8 }, now)).toBe(false);
    expect(accessTokenExpired({ expiresAt: at(1), lifetimeSeconds: 8 }, now)).toBe(true);
    expect(accessTokenExpired({ expiresAt: undefined, lifetimeSeconds: undefined }, now)).toBe(false);
  });
});

describe("a sign-in shared by two stacks, across rotation", () => {
  it("stack B, whose config still holds the spent root token, renews from the newest and never presents the spent one", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const signedIn = signedInConfig(emu, await signIn(emu));
    await resetStats(emu);
    const stackA = lineageFrom(signedIn, "a");
    const stackB = lineageFrom(signedIn, "b");

    const first = await refreshLineage(stackA, { stillNeeded: always, dir });
    expect(first.renewed).toBe(true);
    expect(first.tokens.refreshToken).not.toBe(signedIn[CONFIG_KEYS.refreshToken]);
    // `refresh --stack a` copied the new tokens into A's config; B's config still holds the root (now spent).
    const stackA2 = lineageFrom({ ...signedIn, ...Object.fromEntries(tokenConfigEntries(first.tokens).map((e) => [e.key, e.value])) }, "a");

    const seenByB = readLineage(stackB, dir);
    expect(seenByB.newerThanConfig).toBe(true);
    expect(seenByB.tokens.refreshToken).toBe(first.tokens.refreshToken);

    const second = await refreshLineage(stackB, { stillNeeded: always, dir }); // would revoke the grant if it presented the root
    const third = await refreshLineage(stackA2, { stillNeeded: always, dir });
    expect([second.renewed, third.renewed]).toEqual([true, true]);
    expect(new Set([first.tokens.refreshToken, second.tokens.refreshToken, third.tokens.refreshToken]).size).toBe(3);
    expect(await tokenRequests(emu)).toBe(3);
    expect(await accessTokenWorks(emu, third.tokens.accessToken)).toBe(true); // the grant was never revoked

    const only = onlyEntry(dir); // one lineage
    expect(only.entry.refreshTokenHashes).toHaveLength(4); // root + three rotations
    expect(only.entry.rotation).toBe("rotates");
  });

  it("reuses what another process obtained instead of spending again", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const lineage = lineageFrom(signedInConfig(emu, await signIn(emu)));
    const held = readLineage(lineage, dir).tokens.accessToken;
    const renewed = await refreshLineage(lineage, { stillNeeded: (newest) => newest.accessToken === held, dir });
    await resetStats(emu);
    // A second process that also held the old access token now finds it replaced: nothing is spent.
    const again = await refreshLineage(lineage, { stillNeeded: (newest) => newest.accessToken === held, dir });
    expect(again).toEqual({ tokens: renewed.tokens, renewed: false });
    expect(await tokenRequests(emu)).toBe(0);
  });
});

describe("the interrupted-refresh marker", () => {
  /** A pid that existed a moment ago and is gone now. */
  function deadPid(): number {
    const pid = spawnSync(process.execPath, ["-e", ""]).pid;
    expect(pid).toBeGreaterThan(0);
    return pid!;
  }

  /** Leaves the lineage's entry as a process that died mid-request would. */
  function markPending(dir: string, pid: number, edit: Partial<CacheEntry> = {}): string {
    const { file, entry } = onlyEntry(dir);
    const pending = { presented: refreshTokenHash(entry.refreshToken), pid, hostname: hostname(), startedAt: new Date().toISOString() };
    writeFileSync(file, JSON.stringify({ ...entry, ...edit, pending }));
    return file;
  }

  it("stops the next refresh (refresh_interrupted, the file named) without sending anything; the access token still works", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const lineage = lineageFrom(signedInConfig(emu, await signIn(emu)));
    const { tokens } = await refreshLineage(lineage, { stillNeeded: always, dir });
    const file = markPending(dir, deadPid());
    expect(readLineage(lineage, dir).interruptedAt).toBeDefined();
    await resetStats(emu);
    const error = (await rejection(refreshLineage(lineage, { stillNeeded: always, dir }))) as TokenCacheError;
    expect(error).toBeInstanceOf(TokenCacheError);
    expect(error.code).toBe("refresh_interrupted");
    expect(error.message).toContain(file);
    expect(error.message).toContain("pulumi-helpdesk login --stack dev");
    expect(error.message).not.toContain(tokens.refreshToken);
    console.log(`  ${error.message}`);
    expect(await tokenRequests(emu)).toBe(0);
    expect(await accessTokenWorks(emu, tokens.accessToken)).toBe(true);
  });

  it("also stops when no refresh of the lineage ever completed (rotation unknown)", async () => {
    const emu = await emulator(false);
    const dir = cacheDir();
    const lineage = lineageFrom(signedInConfig(emu, await signIn(emu)));
    await refreshLineage(lineage, { stillNeeded: always, dir });
    markPending(dir, deadPid(), { rotation: "unknown" });
    expect(((await rejection(refreshLineage(lineage, { stillNeeded: always, dir }))) as TokenCacheError).code).toBe("refresh_interrupted");
  });

  it("goes on when the server is known to keep refresh tokens (presenting it again is harmless)", async () => {
    const emu = await emulator(false);
    const dir = cacheDir();
    const lineage = lineageFrom(signedInConfig(emu, await signIn(emu)));
    await refreshLineage(lineage, { stillNeeded: always, dir });
    expect(onlyEntry(dir).entry.rotation).toBe("keeps");
    markPending(dir, deadPid());
    expect((await refreshLineage(lineage, { stillNeeded: always, dir })).renewed).toBe(true);
    expect(onlyEntry(dir).entry.pending).toBeNull();
  });

  it("says a live process on this machine is refreshing (refresh_in_progress), without sending", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const lineage = lineageFrom(signedInConfig(emu, await signIn(emu)));
    await refreshLineage(lineage, { stillNeeded: always, dir });
    markPending(dir, process.ppid);
    await resetStats(emu);
    expect(((await rejection(refreshLineage(lineage, { stillNeeded: always, dir }))) as TokenCacheError).code).toBe("refresh_in_progress");
    expect(await tokenRequests(emu)).toBe(0);
  });

  it("is settled by a refusal the server answered: a first refresh leaves no entry behind", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const lineage = lineageFrom({ ...signedInConfig(emu, await signIn(emu)), [CONFIG_KEYS.refreshToken]: "refresh-token-never-issued" });
    const error = await rejection(refreshLineage(lineage, { stillNeeded: always, dir }));
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).code).toBe("invalid_grant");
    expect(cacheEntries(dir)).toEqual([]);
  });

  it("is settled by a connection that was never made (the server is down)", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const lineage = lineageFrom(signedInConfig(emu, await signIn(emu)));
    const { tokens } = await refreshLineage(lineage, { stillNeeded: always, dir });
    await emu.close();
    const error = await rejection(refreshLineage(lineage, { stillNeeded: always, dir }));
    expect((error as OAuthError).code).toBe("network");
    const { entry } = onlyEntry(dir);
    expect(entry.pending).toBeNull();
    expect(entry.refreshToken).toBe(tokens.refreshToken);
  });
});

describe("the cache around a refresh", () => {
  it("a damaged file stops the refresh before anything is sent, naming the file and the stack", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const lineage = lineageFrom(signedInConfig(emu, await signIn(emu)), "staging");
    await refreshLineage(lineage, { stillNeeded: always, dir });
    const { file } = onlyEntry(dir);
    writeFileSync(file, readFileSync(file, "utf8").slice(0, 40));
    await resetStats(emu);
    const error = (await rejection(refreshLineage(lineage, { stillNeeded: always, dir }))) as TokenCacheError;
    expect(error.code).toBe("cache_damaged");
    expect(error.message).toContain(file);
    expect(error.message).toContain("pulumi-helpdesk login --stack staging");
    expect(() => readLineage(lineage, dir)).toThrowError(TokenCacheError);
    expect(await tokenRequests(emu)).toBe(0);
  });

  it("a 0755 cache directory is 0700 after a refresh, its file 0600", async () => {
    const emu = await emulator();
    const dir = join(cacheDir(), "tokens");
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    await refreshLineage(lineageFrom(signedInConfig(emu, await signIn(emu))), { stillNeeded: always, dir });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const { file } of cacheEntries(dir)) expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("keeps the client settings of the stack: client and tokens reach the token endpoint as configured", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const lineage = lineageFrom(signedInConfig(emu, await signIn(emu)));
    expect(lineage.client).toEqual({ baseUrl: expect.any(URL), clientId: client.clientId, clientSecret: client.clientSecret });
    expect(lineage.client.baseUrl.href).toBe(new URL(emu.url).href);
    const { tokens } = await refreshLineage(lineage, { stillNeeded: always, dir });
    expect(await accessTokenWorks(emu, tokens.accessToken)).toBe(true);
  });
});
