/**
 * Test support for the OAuth grant suites: real emulators on 127.0.0.1, real stacks of a file:// backend (through
 * the real `pulumi` CLI), real cache files.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, request } from "undici";
import { loginConfigEntries } from "../../../auth/grant.js";
import type { TokenSet } from "../../../auth/oauth.js";
import type { CacheEntry } from "../../../auth/token-cache.js";
import { type EmulatorOptions, type RunningEmulator, startEmulator } from "../../../emulator/index.js";
import { signInAutoApproved } from "../../../emulator-client/index.js";
import { isSecretSetting } from "../../../kernel/settings.js";
import type { TestProject } from "../../support/cli.js";
import { emulatorStats } from "../../support/emulator.js";

/** The OAuth client every suite registers. */
export const client = {
  clientId: "lineage-tests",
  clientSecret: "lineage-tests-secret-5c8e21",
  redirectUri: "http://127.0.0.1:1/cb",
};

/**
 * Fails at once, with what to do, when the built code the child processes run is missing.
 *
 * @throws Error naming `bash scripts/build.sh`
 */
export function requireBuild(): void {
  const built = fileURLToPath(new URL("../../../dist/auth/grant.js", import.meta.url));
  if (!existsSync(built)) throw new Error(`${built} is missing: run \`bash scripts/build.sh\` before these tests`);
}

/** Starts an auto-approving emulator with {@link client}; the caller closes it. */
export function emulatorFor(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ port: 0, autoApprove: true, clients: [client], ...options });
}

/** Signs in headlessly: a new grant. */
export function signIn(emulator: RunningEmulator): Promise<TokenSet> {
  return signInAutoApproved({ baseUrl: emulator.url, ...client });
}

/** Stack config values of a signed-in stack: what `login` writes (`auth/grant.ts` `loginConfigEntries`). */
export function signedInConfig(emulator: RunningEmulator, tokens: TokenSet): Record<string, string> {
  return Object.fromEntries(
    loginConfigEntries({ baseUrl: new URL(emulator.url), ...client }, tokens).map((entry) => [entry.key, entry.value]),
  );
}

/** The keys `login` stores as secrets, in any namespace: the secret settings of the settings table. */
const isSecretKey = (key: string): boolean => isSecretSetting(key.slice(key.indexOf(":") + 1));

/**
 * Creates a stack of the project's file:// backend holding a sign-in, with the real `pulumi` CLI.
 *
 * @param project from `createTestProject`
 * @param stack the stack name
 * @param config the values (secret keys stored as Pulumi secrets)
 */
export function initStack(project: TestProject, stack: string, config: Record<string, string>): void {
  const pulumi = (args: string[]) =>
    execFileSync("pulumi", args, { cwd: project.dir, env: project.env, stdio: "pipe" });
  pulumi(["stack", "init", stack]);
  const pairs = Object.entries(config).flatMap(([key, value]) => [
    isSecretKey(key) ? "--secret" : "--plaintext",
    `${key}=${value}`,
  ]);
  pulumi(["config", "set-all", "--stack", stack, ...pairs]);
}

/** Every config value of a stack (secrets decrypted), read with the real `pulumi config`. */
export function stackConfig(project: TestProject, stack: string): Record<string, string> {
  const out = execFileSync("pulumi", ["config", "--show-secrets", "--json", "--stack", stack], {
    cwd: project.dir,
    env: project.env,
    encoding: "utf8",
    stdio: "pipe",
  });
  const parsed = JSON.parse(out) as Record<string, { value?: string }>;
  return Object.fromEntries(Object.entries(parsed).map(([key, entry]) => [key, entry.value ?? ""]));
}

/** How many token requests (`POST /oauth/token`) the emulator has answered since its stats were reset. */
export async function tokenRequests(emulator: RunningEmulator): Promise<number> {
  return (await emulatorStats(emulator)).byRoute["POST /oauth/token"] ?? 0;
}

/** Resets the emulator's request counters. */
export async function resetStats(emulator: RunningEmulator): Promise<void> {
  await request(`${emulator.url}/_emulator/reset-stats`, { method: "POST" }).then((r) => r.body.dump());
}

/**
 * Whether the API accepts an access token: `DELETE /v1/webhooks/wh_probe` responds with 404 (no such webhook) to a valid
 * token and 401 to an expired or revoked one (a revoked grant revokes its access tokens too).
 */
export async function accessTokenWorks(emulator: RunningEmulator, accessToken: string): Promise<boolean> {
  // A connection of its own: suites that block the event loop (execFileSync of `pulumi config get`) would otherwise
  // send this on a pooled connection that the in-process emulator closes as idle in the same instant (ECONNRESET).
  const dispatcher = new Client(emulator.url);
  const response = await request(`${emulator.url}/v1/webhooks/wh_probe`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${accessToken}` },
    dispatcher,
  });
  await response.body.dump();
  await dispatcher.close();
  if (response.statusCode !== 404 && response.statusCode !== 401)
    throw new Error(`probe responded with ${response.statusCode}`);
  return response.statusCode === 404;
}

/** The cache entries in a directory, parsed (for assertions; the code under test validates them itself). */
export function cacheEntries(dir: string): { file: string; entry: CacheEntry }[] {
  return readdirSync(dir)
    .filter((name) => /^[0-9a-f]{32}\.json$/.test(name))
    .map((name) => ({ file: join(dir, name), entry: JSON.parse(readFileSync(join(dir, name), "utf8")) as CacheEntry }));
}

/**
 * The one cache entry of a directory that holds a single lineage.
 *
 * @throws Error when the directory holds no entry or several
 */
export function onlyEntry(dir: string): { file: string; entry: CacheEntry } {
  const [entry, ...others] = cacheEntries(dir);
  if (entry === undefined || others.length > 0)
    throw new Error(`expected one cache entry in ${dir}, found ${others.length + (entry === undefined ? 0 : 1)}`);
  return entry;
}
