/**
 * The OAuth grant (auth/grant.ts) against a real emulator (rotation on: a spent refresh token presented again revokes
 * the grant): the one mapping from stack config, a grant shared by two stacks across rotations, reuse of another
 * process's refresh, the interrupted-refresh marker, failures that settle it, and a damaged cache that stops
 * everything.
 */

import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { accessTokenExpired, Grant, loginConfigEntries, tokenConfigKeys } from "../../auth/grant.js";
import { OAUTH_ERROR_CODES, OAuthError } from "../../auth/oauth.js";
import { type CacheEntry, refreshTokenHash, TokenCacheError } from "../../auth/token-cache.js";
import type { RunningEmulator } from "../../emulator/index.js";
import { CONFIG_KEYS, ConfigNamespaceError } from "../../kernel/config.js";
import { required } from "../../kernel/required.js";
import { SETTINGS } from "../../kernel/settings.js";
import {
  accessTokenWorks,
  cacheEntries,
  client,
  emulatorFor,
  onlyEntry,
  resetStats,
  signedInConfig,
  signIn,
  tokenRequests,
} from "./support/helpers.js";

const emulators: RunningEmulator[] = [];
const dirs: string[] = [];

async function emulator(rotate = true): Promise<RunningEmulator> {
  const started = await emulatorFor({ rotateRefreshTokens: rotate });
  emulators.push(started);
  return started;
}

function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "helpdesk-grant-test-"));
  dirs.push(dir);
  return dir;
}

/** The grant of a stack whose config holds `values`, with its token cache in `dir` (a process of its own, as it were). */
function grantFrom(values: Record<string, string>, dir: string, stack = "dev"): Grant {
  const grant = Grant.fromStackConfig(values, { env: {}, stack, cacheDir: dir });
  if (!grant?.refreshable) throw new Error("not a refreshable grant");
  return grant;
}

/** The grant of a stack's config, no cache directory named (the mapping tests never touch the cache). */
const grantOf = (
  values: Record<string, string | undefined>,
  options: Parameters<typeof Grant.fromStackConfig>[1] = {},
) => Grant.fromStackConfig(values, options);

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

afterEach(() => {
  for (const dir of dirs.splice(0).reverse()) rmSync(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await Promise.all(emulators.map((e) => e.close()));
});

describe("Grant.fromStackConfig: the one mapping from stack config to a grant", () => {
  const config = {
    [CONFIG_KEYS.baseUrl]: "http://127.0.0.1:9/",
    [CONFIG_KEYS.clientId]: "c",
    [CONFIG_KEYS.clientSecret]: "client-secret-value",
    [CONFIG_KEYS.accessToken]: "access-token-value",
    [CONFIG_KEYS.refreshToken]: "refresh-token-value",
    [CONFIG_KEYS.tokenExpiresAt]: "2030-01-01T00:00:00.000Z",
  };

  it("maps a signed-in config (base URL parsed, the stack named for messages)", () => {
    const grant = grantOf(config, { env: {}, stack: "dev" });
    expect(grant?.refreshable).toBe(true);
    expect(grant?.client?.baseUrl.href).toBe("http://127.0.0.1:9/");
    expect(grant?.client).toMatchObject({ clientId: "c", clientSecret: "client-secret-value" });
    expect(grant?.configTokens).toEqual({
      accessToken: "access-token-value",
      refreshToken: "refresh-token-value",
      expiresAt: "2030-01-01T00:00:00.000Z",
      lifetimeSeconds: undefined,
    });
    expect([grant?.stack, grant?.namespace]).toEqual(["dev", "helpdesk"]);
  });

  it("reads another namespace's keys only (login --namespace eu), and writes tokens back there", () => {
    const eu = Object.fromEntries(
      Object.entries(config).map(([key, value]) => [key.replace(/^helpdesk:/, "eu:"), value.replace("value", "eu")]),
    );
    expect(grantOf(eu, { env: {} })).toBeUndefined(); // helpdesk:* is empty
    expect(grantOf(config, { env: {}, namespace: "eu" })).toBeUndefined(); // eu:* is empty
    const grant = grantOf({ ...config, ...eu }, { env: {}, stack: "dev", namespace: "eu" });
    expect(grant).toMatchObject({
      client: { clientSecret: "client-secret-eu" },
      configTokens: { accessToken: "access-token-eu", refreshToken: "refresh-token-eu" },
      namespace: "eu",
    });
    expect(
      required(grant, "the grant").configEntries({
        accessToken: "a",
        refreshToken: "r",
        expiresAt: "2030-01-01T00:00:00.000Z",
      }),
    ).toEqual([
      { key: "eu:accessToken", value: "a", secret: true },
      { key: "eu:refreshToken", value: "r", secret: true },
      { key: "eu:tokenExpiresAt", value: "2030-01-01T00:00:00.000Z", secret: false },
    ]);
    expect(() => grantOf(config, { namespace: "eu:x" })).toThrow(ConfigNamespaceError);
  });

  it("fills client settings the config leaves unset from the environment, as the provider does; config values win", () => {
    const withoutSecret = { ...config, [CONFIG_KEYS.clientSecret]: "" };
    expect(grantOf(withoutSecret, { env: {} })?.refreshable).toBe(false);
    const grant = grantOf(withoutSecret, {
      env: { HELPDESK_CLIENT_SECRET: "from-env", HELPDESK_ACCESS_TOKEN: "ignored-here" },
    });
    expect(grant?.client?.clientSecret).toBe("from-env");
    expect(grant?.configTokens.accessToken).toBe("access-token-value");
    const configured = grantOf(config, {
      env: { HELPDESK_CLIENT_SECRET: "from-env", HELPDESK_BASE_URL: "http://elsewhere.test" },
    });
    expect(configured?.client?.clientSecret).toBe("client-secret-value");
    expect(configured?.client?.baseUrl.href).toBe("http://127.0.0.1:9/");
  });

  it("does not refresh an access token that only the environment gave (HELPDESK_ACCESS_TOKEN: used as given)", () => {
    const withoutToken = { ...config, [CONFIG_KEYS.accessToken]: undefined };
    const grant = grantOf(withoutToken, { env: { HELPDESK_ACCESS_TOKEN: "from-env" } });
    expect(grant?.configTokens.accessToken).toBe("from-env");
    expect(grant?.refreshable).toBe(false);
  });

  for (const key of [CONFIG_KEYS.refreshToken, CONFIG_KEYS.clientId, CONFIG_KEYS.baseUrl]) {
    it(`is not refreshable without ${key} (nothing to refresh with)`, () => {
      expect(grantOf({ ...config, [key]: undefined }, { env: {} })?.refreshable).toBe(false);
    });
  }

  it("is no grant without an access token", () => {
    expect(grantOf({ ...config, [CONFIG_KEYS.accessToken]: undefined }, { env: {} })).toBeUndefined();
  });

  it("an expired token that cannot be refreshed is refused with invalid_token (RFC 6750 §3.1), naming login", async () => {
    const grant = grantOf(
      { ...config, [CONFIG_KEYS.refreshToken]: undefined, [CONFIG_KEYS.tokenExpiresAt]: "2001-01-01T00:00:00Z" },
      { env: {}, stack: "dev", namespace: "eu" },
    );
    expect(grant).toBeUndefined(); // eu:* is empty
    const fixed = required(
      grantOf(
        { ...config, [CONFIG_KEYS.refreshToken]: undefined, [CONFIG_KEYS.tokenExpiresAt]: "2001-01-01T00:00:00Z" },
        { env: {}, stack: "dev" },
      ),
      "the grant of the default namespace",
    );
    const error = await rejection(fixed.accessToken());
    expect(error).toMatchObject({ code: OAUTH_ERROR_CODES.INVALID_TOKEN, name: "OAuthError" });
    expect((error as Error).message).toContain("pulumi-helpdesk login --stack dev");
    expect(await fixed.rejected("access-token-value")).toBeUndefined();
  });

  it("never advises the access token's variable for a token the stack config holds (config wins over it), only for one it gave", async () => {
    const env = SETTINGS.accessToken.env;
    const expired = {
      ...config,
      [CONFIG_KEYS.refreshToken]: undefined,
      [CONFIG_KEYS.tokenExpiresAt]: "2001-01-01T00:00:00Z",
    };
    const fromConfig = (await rejection(
      required(grantOf(expired, { env: { [env]: "env-token" }, stack: "dev" }), "the grant").accessToken(),
    )) as Error;
    expect(fromConfig.message).toContain(`the access token (config ${CONFIG_KEYS.accessToken}) expired`);
    expect(fromConfig.message).toContain("run `pulumi-helpdesk login --stack dev` to sign in again");
    expect(fromConfig.message).not.toMatch(new RegExp(`set ${env}`));
    const fromEnv = (await rejection(
      required(
        grantOf({ ...expired, [CONFIG_KEYS.accessToken]: undefined }, { env: { [env]: "env-token" }, stack: "dev" }),
        "the grant",
      ).accessToken(),
    )) as Error;
    expect(fromEnv.message).toContain(`the access token (env ${env}) expired`);
    expect(fromEnv.message).toContain(`set ${env} to a valid token`);
  });

  it("names the token keys logout removes and refresh writes: the access and refresh token and the expiry", () => {
    expect(tokenConfigKeys("eu")).toEqual(["eu:accessToken", "eu:refreshToken", "eu:tokenExpiresAt"]);
    const grant = required(grantOf(config, { env: {} }), "the grant");
    expect(
      grant
        .configEntries({ accessToken: "a", refreshToken: "r", expiresAt: "2030-01-01T00:00:00.000Z" })
        .map((entry) => entry.key),
    ).toEqual(tokenConfigKeys());
  });

  it("maps tokens to the config entries login writes, in the settings table's order, secret as the table says", () => {
    const entries = loginConfigEntries(
      {
        baseUrl: new URL("http://127.0.0.1:9/"),
        clientId: "c",
        clientSecret: "s",
        redirectUri: "http://127.0.0.1:1/cb",
      },
      { accessToken: "a", refreshToken: "r", expiresAt: "2030-01-01T00:00:00.000Z" },
    );
    expect(entries).toEqual([
      { key: CONFIG_KEYS.baseUrl, value: "http://127.0.0.1:9", secret: false },
      { key: CONFIG_KEYS.clientId, value: "c", secret: false },
      { key: CONFIG_KEYS.clientSecret, value: "s", secret: true },
      { key: CONFIG_KEYS.redirectUri, value: "http://127.0.0.1:1/cb", secret: false },
      { key: CONFIG_KEYS.accessToken, value: "a", secret: true },
      { key: CONFIG_KEYS.refreshToken, value: "r", secret: true },
      { key: CONFIG_KEYS.tokenExpiresAt, value: "2030-01-01T00:00:00.000Z", secret: false },
    ]);
    expect(
      loginConfigEntries(
        { baseUrl: new URL("http://h.example"), clientId: "c", clientSecret: "s", redirectUri: "x" },
        { accessToken: "a", refreshToken: undefined, expiresAt: undefined },
      ),
    ).toHaveLength(5);
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

describe("a grant shared by two stacks, across rotation", () => {
  it("stack B, whose config still holds the spent root token, refreshes from the newest and never presents the spent one", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const signedIn = signedInConfig(emu, await signIn(emu));
    await resetStats(emu);
    const stackA = grantFrom(signedIn, dir, "a");
    const stackB = grantFrom(signedIn, dir, "b");

    const first = await stackA.refresh({ because: "requested" });
    expect(first.refreshed).toBe(true);
    expect(first.tokens.refreshToken).not.toBe(signedIn[CONFIG_KEYS.refreshToken]);
    // `refresh --stack a` copied the new tokens into A's config; B's config still holds the root (now spent).
    const stackA2 = grantFrom(
      { ...signedIn, ...Object.fromEntries(stackA.configEntries(first.tokens).map((e) => [e.key, e.value])) },
      dir,
      "a",
    );

    const seenByB = stackB.state();
    expect(seenByB.newerThanConfig).toBe(true);
    expect(seenByB.tokens.refreshToken).toBe(first.tokens.refreshToken);

    const second = await stackB.refresh({ because: "requested" }); // would revoke the grant if it presented the root
    const third = await stackA2.refresh({ because: "requested" });
    expect([second.refreshed, third.refreshed]).toEqual([true, true]);
    expect(new Set([first.tokens.refreshToken, second.tokens.refreshToken, third.tokens.refreshToken]).size).toBe(3);
    expect(await tokenRequests(emu)).toBe(3);
    expect(await accessTokenWorks(emu, third.tokens.accessToken)).toBe(true); // the grant was never revoked

    const only = onlyEntry(dir); // one grant
    expect(only.entry.refreshTokenHashes).toHaveLength(4); // root + three rotations
    expect(only.entry.rotation).toBe("rotates");
  });

  it("tokensForConfig (what `refresh` stores): the cache's newer valid tokens without spending, else a refresh", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const config = signedInConfig(emu, await signIn(emu));
    expect((await grantFrom(config, dir).tokensForConfig()).refreshed).toBe(true); // nothing newer cached: refreshes
    await resetStats(emu);
    const cached = onlyEntry(dir).entry;
    const stale = grantFrom(config, dir); // a stack whose config lags behind the cache
    expect(await stale.tokensForConfig()).toEqual({
      tokens: {
        accessToken: cached.accessToken,
        refreshToken: cached.refreshToken,
        expiresAt: cached.expiresAt ?? undefined,
        lifetimeSeconds: cached.lifetimeSeconds ?? undefined,
      },
      refreshed: false,
    });
    expect(await tokenRequests(emu)).toBe(0);
  });

  it("reuses what another process obtained instead of spending again", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const config = signedInConfig(emu, await signIn(emu));
    const grant = grantFrom(config, dir);
    const held = grant.state().tokens.accessToken;
    const renewed = await grant.refresh({ because: "rejected", token: held });
    await resetStats(emu);
    // A second process that also held the old access token now finds it replaced: nothing is spent.
    const again = await grantFrom(config, dir).refresh({ because: "rejected", token: held });
    expect(again).toEqual({ tokens: renewed.tokens, refreshed: false });
    expect(await tokenRequests(emu)).toBe(0);
  });
});

describe("the interrupted-refresh marker", () => {
  /** A pid that existed a moment ago and is gone now. */
  function deadPid(): number {
    const pid = required(spawnSync(process.execPath, ["-e", ""]).pid, "the pid of a process that ran");
    expect(pid).toBeGreaterThan(0);
    return pid;
  }

  /** Leaves the grant's entry as a process that died mid-request would. */
  function markPending(dir: string, pid: number, edit: Partial<CacheEntry> = {}): string {
    const { file, entry } = onlyEntry(dir);
    const pending = {
      presented: refreshTokenHash(entry.refreshToken),
      pid,
      hostname: hostname(),
      startedAt: new Date().toISOString(),
    };
    writeFileSync(file, JSON.stringify({ ...entry, ...edit, pending }));
    return file;
  }

  it("stops the next refresh (refresh_interrupted, the file named) without sending anything; the access token still works", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const grant = grantFrom(signedInConfig(emu, await signIn(emu)), dir);
    const { tokens } = await grant.refresh({ because: "requested" });
    const file = markPending(dir, deadPid());
    expect(grant.state().interruptedAt).toBeDefined();
    await resetStats(emu);
    const error = (await rejection(grant.refresh({ because: "requested" }))) as TokenCacheError;
    expect(error).toBeInstanceOf(TokenCacheError);
    expect(error.code).toBe("refresh_interrupted");
    expect(error.message).toContain(file);
    expect(error.message).toContain("pulumi-helpdesk login --stack dev");
    expect(error.message).not.toContain(tokens.refreshToken);
    console.log(`  ${error.message}`);
    expect(await tokenRequests(emu)).toBe(0);
    expect(await accessTokenWorks(emu, tokens.accessToken)).toBe(true);
  });

  it("also stops when no refresh of the grant ever completed (rotation unknown)", async () => {
    const emu = await emulator(false);
    const dir = cacheDir();
    const grant = grantFrom(signedInConfig(emu, await signIn(emu)), dir);
    await grant.refresh({ because: "requested" });
    markPending(dir, deadPid(), { rotation: "unknown" });
    expect(((await rejection(grant.refresh({ because: "requested" }))) as TokenCacheError).code).toBe(
      "refresh_interrupted",
    );
  });

  it("goes on when the server is known to keep refresh tokens (presenting it again is harmless)", async () => {
    const emu = await emulator(false);
    const dir = cacheDir();
    const grant = grantFrom(signedInConfig(emu, await signIn(emu)), dir);
    await grant.refresh({ because: "requested" });
    expect(onlyEntry(dir).entry.rotation).toBe("keeps");
    markPending(dir, deadPid());
    expect((await grant.refresh({ because: "requested" })).refreshed).toBe(true);
    expect(onlyEntry(dir).entry.pending).toBeNull();
  });

  it("says a live process on this machine is refreshing (refresh_in_progress), without sending", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const grant = grantFrom(signedInConfig(emu, await signIn(emu)), dir);
    await grant.refresh({ because: "requested" });
    markPending(dir, process.ppid);
    await resetStats(emu);
    expect(((await rejection(grant.refresh({ because: "requested" }))) as TokenCacheError).code).toBe(
      "refresh_in_progress",
    );
    expect(await tokenRequests(emu)).toBe(0);
  });

  it("is settled by a refusal the server answered: a first refresh leaves no entry behind", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const grant = grantFrom(
      { ...signedInConfig(emu, await signIn(emu)), [CONFIG_KEYS.refreshToken]: "refresh-token-never-issued" },
      dir,
    );
    const error = await rejection(grant.refresh({ because: "requested" }));
    expect(error).toBeInstanceOf(OAuthError);
    expect((error as OAuthError).code).toBe(OAUTH_ERROR_CODES.INVALID_GRANT);
    expect(cacheEntries(dir)).toEqual([]);
  });

  it("is settled by a connection that was never made (the server is down)", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const grant = grantFrom(signedInConfig(emu, await signIn(emu)), dir);
    const { tokens } = await grant.refresh({ because: "requested" });
    await emu.close();
    const error = await rejection(grant.refresh({ because: "requested" }));
    expect((error as OAuthError).code).toBe(OAUTH_ERROR_CODES.NETWORK);
    const { entry } = onlyEntry(dir);
    expect(entry.pending).toBeNull();
    expect(entry.refreshToken).toBe(tokens.refreshToken);
  });
});

describe("the cache around a refresh", () => {
  it("a damaged file stops the refresh before anything is sent, naming the file and the stack", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const grant = grantFrom(signedInConfig(emu, await signIn(emu)), dir, "staging");
    await grant.refresh({ because: "requested" });
    const { file } = onlyEntry(dir);
    writeFileSync(file, readFileSync(file, "utf8").slice(0, 40));
    await resetStats(emu);
    const error = (await rejection(grant.refresh({ because: "requested" }))) as TokenCacheError;
    expect(error.code).toBe("cache_damaged");
    expect(error.message).toContain(file);
    expect(error.message).toContain("pulumi-helpdesk login --stack staging");
    expect(() => grant.state()).toThrowError(TokenCacheError);
    expect(await tokenRequests(emu)).toBe(0);
  });

  it("a 0755 cache directory is 0700 after a refresh, its file 0600", async () => {
    const emu = await emulator();
    const dir = join(cacheDir(), "tokens");
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    await grantFrom(signedInConfig(emu, await signIn(emu)), dir).refresh({ because: "requested" });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const { file } of cacheEntries(dir)) expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("keeps the client settings of the stack: client and tokens reach the token endpoint as configured", async () => {
    const emu = await emulator();
    const dir = cacheDir();
    const grant = grantFrom(signedInConfig(emu, await signIn(emu)), dir);
    expect(grant.client).toEqual({
      baseUrl: expect.any(URL),
      clientId: client.clientId,
      clientSecret: client.clientSecret,
    });
    expect(grant.client?.baseUrl.href).toBe(new URL(emu.url).href);
    const { tokens } = await grant.refresh({ because: "requested" });
    expect(await accessTokenWorks(emu, tokens.accessToken)).toBe(true);
  });
});
