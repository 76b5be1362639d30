/**
 * The local token cache: where an access token and a rotated refresh token obtained *outside* `login` (by the
 * provider refreshing an expired token during `pulumi up` / `destroy`) are kept, so a rotated refresh token is never
 * lost. The provider cannot write stack config (it runs inside the engine, from state), so it writes here and
 * `pulumi-helpdesk refresh --stack <s>` copies the newest tokens back into the stack config (as secrets) and clears
 * the entry.
 *
 * One JSON file per token lineage, named by a SHA-256 of base URL, client id and the refresh token stored in the
 * stack config (so a new `login` starts a new lineage). Files are mode 0600 in a 0700 directory, like the Pulumi CLI's
 * own `~/.pulumi/credentials.json`; writes are atomic (temp file + rename).
 *
 * Location: `$HELPDESK_TOKEN_CACHE_DIR`, else `$XDG_CACHE_HOME/pulumi-helpdesk/tokens`, else
 * `~/.cache/pulumi-helpdesk/tokens`.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** What the cache holds for one lineage. */
export interface CachedTokens {
  /** Newest access token. */
  accessToken: string;
  /** Newest refresh token (after rotation, the only valid one). */
  refreshToken: string;
  /** Access token expiry, ISO 8601, when known. */
  expiresAt: string | undefined;
  /** When this entry was written, ISO 8601. */
  updatedAt: string;
}

/** Identifies a token lineage: the stack config values it started from. */
export interface LineageKey {
  baseUrl: string;
  clientId: string;
  /** The refresh token as stored in the stack config (not the newest one). */
  configRefreshToken: string;
}

/** The cache directory (see module doc). */
export function tokenCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HELPDESK_TOKEN_CACHE_DIR) return env.HELPDESK_TOKEN_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "pulumi-helpdesk", "tokens");
}

function entryPath(key: LineageKey, dir: string): string {
  const digest = createHash("sha256").update(`${key.baseUrl}\n${key.clientId}\n${key.configRefreshToken}`).digest("hex");
  return join(dir, `${digest.slice(0, 32)}.json`);
}

/**
 * Reads the newest tokens of a lineage.
 *
 * @returns the entry, or undefined when there is none or it is unreadable (a damaged entry is ignored, not fatal)
 */
export function readCachedTokens(key: LineageKey, dir = tokenCacheDir()): CachedTokens | undefined {
  try {
    const parsed = JSON.parse(readFileSync(entryPath(key, dir), "utf8")) as Partial<CachedTokens>;
    if (typeof parsed.accessToken !== "string" || typeof parsed.refreshToken !== "string") return undefined;
    return {
      accessToken: parsed.accessToken,
      refreshToken: parsed.refreshToken,
      expiresAt: typeof parsed.expiresAt === "string" ? parsed.expiresAt : undefined,
      updatedAt: typeof parsed.updatedAt === "string" ? parsed.updatedAt : "",
    };
  } catch {
    return undefined;
  }
}

/**
 * Stores the newest tokens of a lineage atomically (mode 0600).
 *
 * @throws Error from the file system when the directory cannot be created or written
 */
export function writeCachedTokens(key: LineageKey, tokens: Omit<CachedTokens, "updatedAt">, dir = tokenCacheDir()): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = entryPath(key, dir);
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temp, JSON.stringify({ ...tokens, updatedAt: new Date().toISOString() }), { mode: 0o600 });
  renameSync(temp, path);
}

/** Removes a lineage's entry (after its tokens were written back to stack config). Missing entries are fine. */
export function clearCachedTokens(key: LineageKey, dir = tokenCacheDir()): void {
  rmSync(entryPath(key, dir), { force: true });
}
