/**
 * The local token cache: the one durable home of an OAuth grant's newest tokens. A grant is what one `login` obtained: the
 * refresh token `login` obtained (its root) and every refresh token rotated out of it since (RFC 6749 §6; a server
 * that rotates revokes the old one, and presenting a spent one revokes the whole grant: RFC 6819 §5.2.2.3, RFC 9700
 * §4.14.2). The provider cannot write stack config (it runs inside the engine, from state), so every refresh, by the
 * provider or by `pulumi-helpdesk refresh`, stores its result here first; stack config only ever points into a
 * grant.
 *
 * Keying (see `auth/grant.ts` for the protocol that uses it):
 * - One file per grant, `<grant>.json`, where `<grant>` is the first 32 hex digits of the root refresh token's
 *   hash. It holds the newest access and refresh token (the tokens themselves live only here, mode 0600), and
 *   `refreshTokenHashes`: the SHA-256 of every refresh token the grant ever had, oldest first, the newest last.
 * - A refresh token hash is `sha256("pulumi-helpdesk refresh token\n" + token)`, hex. The token alone names its
 *   grant (a refresh token is issued by one server to one client, and cannot be guessed), so a base URL or client
 *   id given by environment variables to one process and by stack config to another cannot split a grant.
 * - A stack config holding any refresh token of the grant (the root, or one `refresh` copied there) finds the file
 *   by that index: two stacks that share a grant both keep working after one of them rotated it, and neither ever
 *   presents a spent token. So entries are never removed by `refresh`, `login` or `logout`: some stack config may
 *   still point at an older token of the grant. Each rotation adds about 70 bytes to the index.
 * - Lookup scans `*.json` in the directory (people have a handful of grants). Hash sets of different grants are
 *   disjoint by construction, so a match is final; a damaged file is an error only when no intact file matches (the
 *   grant might be in it), never skipped.
 *
 * Durability and permissions: every write goes to a temp file (`.<grant>.<random>.tmp`, mode 0600), is fsynced,
 * renamed over the entry, and the directory is fsynced (`kernel/fsync.ts`, whose failure rule applies: a failed sync
 * is a `cache_inaccessible` error, the write is not taken as done), so a crash leaves the old or the new entry, never
 * a torn one. Directories it creates are fsynced into their parents the same way. The directory is mode 0700 and files
 * 0600, like the Pulumi CLI's `~/.pulumi/credentials.json`, enforced with chmod on every open even when they already
 * existed with wider modes. Not on Windows (see `./secure-directory.ts` `ENFORCE_MODES`). A directory that is a symbolic
 * link, belongs to another user, or is wider than 0700 and holds other files is refused, never chmodded (the folder
 * policy of `./secure-directory.ts`).
 *
 * One refresh at a time per grant, across processes: {@link withGrantLock} holds `<grant>.lock` (a directory,
 * `proper-lockfile`) around read-refresh-write; see {@link LOCK_OPTIONS} for its staleness and retry parameters.
 *
 * Location: `$HELPDESK_TOKEN_CACHE_DIR`, else `$XDG_CACHE_HOME/pulumi-helpdesk/tokens`, else
 * `~/.cache/pulumi-helpdesk/tokens`.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { lock } from "proper-lockfile";
import { STACK_PLACEHOLDER, signInAgain, stackCommand } from "../kernel/commands.js";
import { PulumiHelpdeskError } from "../kernel/errors.js";
import { syncDirectory } from "../kernel/fsync.js";
import { PACKAGE_NAME } from "../kernel/package-version.js";
import { TOKEN_CACHE_DIR_VARIABLE } from "./environment.js";
import { type DirectoryRefusal, ENFORCE_MODES, secureDirectory } from "./secure-directory.js";

/** Mode of every cache file: only its owner may read or write it (enforced where `ENFORCE_MODES` says). */
const FILE_MODE = 0o600;
/** The entry format this code reads and writes; a file with another `format` is reported, never rewritten. */
const ENTRY_FORMAT = 1;

/**
 * Parameters of the per-grant lock (`proper-lockfile`).
 *
 * - `update` 2000 ms: the holder touches the lock's mtime every 2 s, from its event loop, also while it waits for
 *   the token endpoint (up to 30 s, `auth/oauth.ts`).
 * - `stale` 10000 ms: a lock untouched for 10 s (five missed updates, far beyond a GC pause or a slow fsync) belongs
 *   to a process that died (SIGKILL, power loss, a killed `pulumi up`); a waiter removes it and goes on. This, not
 *   the request timeout, bounds how long a crash blocks the next refresh.
 * - `retries`: 100 waits from 20 ms growing by 1.5 up to 500 ms, randomized (x1 to x2) so waiters do not poll in
 *   step: 47 s to 95 s in all, enough for a holder's 30 s token request plus a stale lock's 10 s.
 */
export const LOCK_OPTIONS = {
  stale: 10_000,
  update: 2_000,
  retries: { retries: 100, factor: 1.5, minTimeout: 20, maxTimeout: 500, randomize: true },
} as const;

/**
 * Stable codes of {@link TokenCacheError}:
 * - `cache_damaged`: an entry file is not valid JSON, does not have the entry shape, or its index does not match its
 *   tokens (or was written by a newer pulumi-helpdesk);
 * - `cache_inaccessible`: the directory or a file cannot be created, secured (chmod), read or written;
 * - `lock_timeout`: another process held the grant's lock for longer than the retries wait;
 * - `refresh_interrupted`: a refresh of the grant sent its request and never stored the response (its process ended,
 *   or the response was lost); under rotation the refresh token it presented may be spent;
 * - `refresh_in_progress`: a refresh of the grant by another live process on this machine is under way although
 *   its lock was taken over as stale.
 */
export type TokenCacheErrorCode =
  | "cache_damaged"
  | "cache_inaccessible"
  | "lock_timeout"
  | "refresh_interrupted"
  | "refresh_in_progress";

/**
 * A token cache failure with a stable `code` and the `file` concerned. The message names the file and says what to
 * do; it never contains a token.
 */
export class TokenCacheError extends PulumiHelpdeskError<TokenCacheErrorCode> {
  /** Absolute path of the entry file, lock or directory concerned. */
  readonly file: string;

  /**
   * @param code failure kind
   * @param message complete, token-free message naming `options.file` and the remedy; `<stack>` stands for the stack
   *   name where the code that throws does not know it (see {@link TokenCacheError.forStack})
   * @param options `file`: the path concerned; `cause`: the error this one wraps
   */
  constructor(code: TokenCacheErrorCode, message: string, options: { file: string; cause?: unknown }) {
    super(code, message, options);
    this.file = options.file;
  }

  /**
   * The same error with the stack's name in its remedy (`pulumi-helpdesk login --stack dev`).
   *
   * @param stack the stack name, or undefined to keep the placeholder `<stack>` (the provider does not know it)
   */
  forStack(stack: string | undefined): TokenCacheError {
    return stack === undefined
      ? this
      : new TokenCacheError(this.code, this.message.replaceAll(STACK_PLACEHOLDER, stack), {
          file: this.file,
          cause: this.cause,
        });
  }
}

/** A refresh whose request may be at the token endpoint: written durably before the request is sent. */
export interface PendingRefresh {
  /** {@link refreshTokenHash} of the refresh token presented. */
  presented: string;
  /** Process id and host name of the process that sent it. */
  pid: number;
  hostname: string;
  /** When it started, ISO 8601. */
  startedAt: string;
}

/**
 * One grant's entry, as stored (JSON, mode 0600).
 *
 * - `lineage`: the grant's id, 32 hex digits, the file's name; the first 32 of `refreshTokenHashes[0]`. (The field
 *   keeps the name it has in format 1 files, written before the code called a grant a grant.)
 * - `baseUrl`, `clientId`: the client of the last refresh (informational: the refresh token names the grant).
 * - `accessToken`, `refreshToken`: the newest ones (RFC 6749 §5.1); after rotation the refresh token is the only
 *   valid one.
 * - `expiresAt`: access token expiry, ISO 8601 UTC, or null when unknown; `lifetimeSeconds`: its `expires_in`
 *   (seconds, RFC 6749 §5.1), or null.
 * - `refreshTokenHashes`: the index, see the module doc.
 * - `rotation`: `rotates` once a refresh returned a new refresh token, `keeps` once one returned the same, else
 *   `unknown`.
 * - `pending`: set durably before a refresh request is sent and cleared with the response; found set later, the
 *   refresh was interrupted.
 * - `updatedAt`: ISO 8601 time of the write.
 */
export interface CacheEntry {
  format: typeof ENTRY_FORMAT;
  lineage: string;
  baseUrl: string;
  clientId: string;
  accessToken: string;
  refreshToken: string;
  expiresAt: string | null;
  lifetimeSeconds: number | null;
  refreshTokenHashes: string[];
  rotation: "unknown" | "rotates" | "keeps";
  pending: PendingRefresh | null;
  updatedAt: string;
}

/*
 * The shape of an entry is checked by the field tests below rather than by a zod schema, unlike the rest of the
 * project: this module runs inside Pulumi's provider process, where loading zod costs about 13 MiB of peak memory
 * (measured with `npm run bench`: provider peak at N=10 was 158 MiB with zod on this path, 145 MiB without, beside a
 * floor of 139 MiB), and an entry is twelve flat fields.
 */
const isString = (value: unknown): value is string => typeof value === "string";
const isNonEmpty = (value: unknown): boolean => isString(value) && value.length > 0;
const isSha256Hex = (value: unknown): boolean => isString(value) && /^[0-9a-f]{64}$/.test(value);
const isTimestamp = (value: unknown): boolean => isString(value) && Number.isFinite(Date.parse(value));
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Each field's test, and what it requires (for the `cache_damaged` message). */
const PENDING_FIELDS: { [K in keyof PendingRefresh]: [(value: unknown) => boolean, string] } = {
  presented: [isSha256Hex, "64 hex digits"],
  pid: [Number.isInteger, "an integer"],
  hostname: [isString, "a string"],
  startedAt: [isTimestamp, "an ISO 8601 time"],
};
const ENTRY_FIELDS: { [K in keyof CacheEntry]: [(value: unknown) => boolean, string] } = {
  format: [(value) => value === ENTRY_FORMAT, `${ENTRY_FORMAT}`],
  lineage: [(value) => isString(value) && /^[0-9a-f]{32}$/.test(value), "32 hex digits"],
  baseUrl: [isString, "a string"],
  clientId: [isString, "a string"],
  accessToken: [isNonEmpty, "a non-empty string"],
  refreshToken: [isNonEmpty, "a non-empty string"],
  expiresAt: [(value) => value === null || isTimestamp(value), "null or an ISO 8601 time"],
  lifetimeSeconds: [
    (value) => value === null || (typeof value === "number" && Number.isFinite(value) && value >= 0),
    "null or a number >= 0",
  ],
  refreshTokenHashes: [
    (value) => Array.isArray(value) && value.length > 0 && value.every(isSha256Hex),
    "a non-empty list of 64-hex-digit hashes",
  ],
  rotation: [
    (value) => value === "unknown" || value === "rotates" || value === "keeps",
    `"unknown", "rotates" or "keeps"`,
  ],
  pending: [
    (value) => value === null || (isObject(value) && fieldProblems(value, PENDING_FIELDS, "pending.").length === 0),
    "null or a pending refresh",
  ],
  updatedAt: [isTimestamp, "an ISO 8601 time"],
};

/** `field: must be ...` for each field of `value` that fails its test (values are never quoted: they may be tokens). */
function fieldProblems(
  value: Record<string, unknown>,
  fields: Record<string, [(value: unknown) => boolean, string]>,
  prefix = "",
): string[] {
  return Object.entries(fields).flatMap(([name, [fits, required]]) =>
    fits(value[name]) ? [] : [`${prefix}${name} must be ${required}`],
  );
}

/**
 * Checks a parsed entry file against {@link CacheEntry}; unknown fields are dropped.
 *
 * @returns the entry, or the list of problems (field names and requirements, never values)
 */
function toCacheEntry(json: unknown): CacheEntry | string[] {
  if (!isObject(json)) return ["the file must hold a JSON object"];
  const problems = fieldProblems(json, ENTRY_FIELDS);
  if (problems.length > 0) return problems;
  const pending = json.pending as Record<string, unknown> | null;
  const entry = Object.fromEntries(
    Object.keys(ENTRY_FIELDS).map((name) => [name, json[name]]),
  ) as unknown as CacheEntry;
  return {
    ...entry,
    pending:
      pending === null
        ? null
        : (Object.fromEntries(
            Object.keys(PENDING_FIELDS).map((name) => [name, pending[name]]),
          ) as unknown as PendingRefresh),
  };
}

/** What the cache holds for one grant: the entry and the absolute path of its file. */
export interface StoredEntry {
  /** Absolute path of `<grant>.json`. */
  file: string;
  /** The validated entry. */
  entry: CacheEntry;
}

/**
 * The cache directory (see the module doc).
 *
 * @param env the environment (default `process.env`)
 * @returns an absolute or relative path; it may not exist yet
 */
export function tokenCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const named = env[TOKEN_CACHE_DIR_VARIABLE.name];
  if (named) return named;
  const base = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, PACKAGE_NAME, "tokens");
}

/**
 * The index key of a refresh token (see the module doc); the token itself is never a key or a file name.
 *
 * @param refreshToken a refresh token (RFC 6749 §1.5)
 * @returns 64 lower-case hex digits
 */
export function refreshTokenHash(refreshToken: string): string {
  return createHash("sha256").update(`${PACKAGE_NAME} refresh token\n${refreshToken}`).digest("hex");
}

/**
 * The grant id of a grant whose root refresh token has this hash.
 *
 * @param rootHash {@link refreshTokenHash} of the grant's first refresh token
 * @returns 32 hex digits, the entry's file name without `.json`
 */
export function grantIdOf(rootHash: string): string {
  return rootHash.slice(0, 32);
}

/**
 * The path of a grant's entry file (which may not exist).
 *
 * @param dir the cache directory
 * @param grant a grant id ({@link grantIdOf})
 */
export function entryFile(dir: string, grant: string): string {
  return join(dir, `${grant}.json`);
}

/**
 * Finds the grant whose index holds a refresh token hash, by scanning the entries. The directory's and each read
 * file's modes are enforced (0700, 0600).
 *
 * @param hash {@link refreshTokenHash} of a refresh token a stack config holds
 * @param dir the cache directory
 * @returns the entry, or undefined when no entry has the hash (none was written for this grant yet)
 * @throws TokenCacheError `cache_damaged` when no intact entry has the hash and some entry is damaged (the file is
 *   named); `cache_inaccessible` when the directory or a file cannot be secured or read
 */
export function findEntry(hash: string, dir: string): StoredEntry | undefined {
  if (!secureCacheDirectory(dir, false)) return undefined;
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((name) => /^[0-9a-f]{32}\.json$/.test(name))
      .sort();
  } catch (error) {
    throw inaccessibleError(dir, "cannot be listed", error);
  }
  let damaged: TokenCacheError | undefined;
  for (const name of names) {
    try {
      const stored = readEntry(dir, name.slice(0, -".json".length));
      if (stored?.entry.refreshTokenHashes.includes(hash)) return stored;
    } catch (error) {
      if (!(error instanceof TokenCacheError) || error.code !== "cache_damaged") throw error;
      damaged ??= error;
    }
  }
  if (damaged) throw damaged;
  return undefined;
}

/**
 * Reads and validates one grant's entry, enforcing the file's mode (0600).
 *
 * @param dir the cache directory
 * @param grant a grant id
 * @returns the entry, or undefined when the file does not exist
 * @throws TokenCacheError `cache_damaged` (not JSON, wrong shape, index not matching the tokens, another format);
 *   `cache_inaccessible` (cannot be read or secured)
 */
export function readEntry(dir: string, grant: string): StoredEntry | undefined {
  const file = entryFile(dir, grant);
  const text = readSecured(file);
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's own message quotes the text, which may hold a token: say only what is wrong.
    throw damagedError(file, "it is not valid JSON");
  }
  const entry = toCacheEntry(json);
  if (Array.isArray(entry)) {
    const format = (json as { format?: unknown } | null)?.format;
    if (typeof format === "number" && format > ENTRY_FORMAT)
      throw damagedError(file, `it has format ${format}, written by a newer ${PACKAGE_NAME}`);
    throw damagedError(file, entry.join("; "));
  }
  const hashes = entry.refreshTokenHashes;
  const root = hashes[0];
  if (root === undefined || hashes[hashes.length - 1] !== refreshTokenHash(entry.refreshToken))
    throw damagedError(file, "its newest refresh token hash does not match its refresh token");
  if (entry.lineage !== grant || grantIdOf(root) !== grant)
    throw damagedError(file, "its grant id does not match its name or its root hash");
  return { file, entry };
}

/**
 * Stores a grant's entry durably: temp file (0600) written and fsynced, renamed over `<grant>.json`, directory
 * fsynced. The directory is created (0700) when missing and its mode enforced.
 *
 * @param dir the cache directory
 * @param entry the entry (its `grant` names the file)
 * @returns the absolute path written
 * @throws TokenCacheError `cache_inaccessible` when the directory cannot be created or secured, or the write fails
 */
export function writeEntry(dir: string, entry: CacheEntry): string {
  secureCacheDirectory(dir, true);
  const file = entryFile(dir, entry.lineage);
  const temp = join(dir, `.${entry.lineage}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const fd = openSync(temp, "wx", FILE_MODE);
    try {
      if (ENFORCE_MODES) fchmodSync(fd, FILE_MODE);
      writeFileSync(fd, `${JSON.stringify(entry, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
    syncDirectory(dir);
  } catch (error) {
    // The cleanup may fail for the same reason as the write (EACCES): the write's error is the one to report.
    try {
      rmSync(temp, { force: true });
    } catch {
      // nothing more to do: a temp file left behind is never read (only `<grant>.json` is)
    }
    throw inaccessibleError(file, "cannot be written", error);
  }
  return file;
}

/**
 * Removes a grant's entry durably (directory fsynced). Only for an entry that holds nothing a stack config lacks
 * (one created for a first refresh that the server refused): entries that may hold a rotated token are never removed.
 *
 * @param dir the cache directory
 * @param grant a grant id
 * @throws TokenCacheError `cache_inaccessible` when the file cannot be removed
 */
export function removeEntry(dir: string, grant: string): void {
  const file = entryFile(dir, grant);
  try {
    rmSync(file, { force: true });
    syncDirectory(dir);
  } catch (error) {
    throw inaccessibleError(file, "cannot be removed", error);
  }
}

/**
 * Runs `work` while holding the grant's lock `<dir>/<grant>.lock` (see {@link LOCK_OPTIONS}), so one process at
 * a time refreshes a grant. The lock is released when `work` settles.
 *
 * A lock taken over as stale from a live holder (only after that holder's event loop stalled for 10 s) is not
 * detected here; the `pending` marker of the entry is what then stops a second refresh (see `auth/grant.ts`).
 *
 * @param dir the cache directory (created 0700 when missing)
 * @param grant a grant id
 * @param work what to do under the lock
 * @returns what `work` returns
 * @throws TokenCacheError `lock_timeout` when the lock stays held by a live process for the whole retry budget;
 *   `cache_inaccessible` when the directory cannot be secured or the lock cannot be created; whatever `work` throws
 */
export async function withGrantLock<T>(dir: string, grant: string, work: () => Promise<T>): Promise<T> {
  secureCacheDirectory(dir, true);
  const lockPath = join(dir, `${grant}.lock`);
  let release: () => Promise<void>;
  try {
    release = await lock(entryFile(dir, grant), {
      ...LOCK_OPTIONS,
      retries: { ...LOCK_OPTIONS.retries },
      realpath: false,
      lockfilePath: lockPath,
      // The default throws from a timer and kills the process (a `pulumi up` mid-way); the pending marker is the guard.
      onCompromised: () => undefined,
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === "ELOCKED") {
      throw new TokenCacheError(
        "lock_timeout",
        `another process has been refreshing this grant's tokens for over ${Math.round(lockBudgetMs() / 1000)} s (lock ${lockPath}). ` +
          `Wait for it (a \`pulumi up\` or ${stackCommand("refresh")}), or, if none is running, delete ${lockPath} and try again.`,
        { file: lockPath, cause: error },
      );
    }
    throw inaccessibleError(lockPath, "cannot be created", error);
  }
  try {
    return await work();
  } finally {
    await release().catch(() => undefined); // already released when compromised; nothing left to undo
  }
}

/**
 * The shortest total wait of {@link LOCK_OPTIONS}' retries, in milliseconds (every randomized factor at 1).
 */
function lockBudgetMs(): number {
  const { retries, factor, minTimeout, maxTimeout } = LOCK_OPTIONS.retries;
  let total = 0;
  for (let attempt = 0; attempt < retries; attempt++) total += Math.min(minTimeout * factor ** attempt, maxTimeout);
  return total;
}

/** Names the cache itself puts in its directory: entries, their temp files, and the lock directories. */
const CACHE_NAME = /^(?:[0-9a-f]{32}\.json|\.[0-9a-f]{32}\.[0-9a-f]{12}\.tmp|[0-9a-f]{32}\.lock)$/;

/**
 * Creates (when asked) the cache's directory and checks that the cache may trust it (`./secure-directory.ts`).
 *
 * @returns false when it does not exist and `create` is false
 * @throws TokenCacheError `cache_inaccessible` (the message says what is wrong and what to do)
 */
function secureCacheDirectory(dir: string, create: boolean): boolean {
  let secured: boolean | DirectoryRefusal;
  try {
    secured = secureDirectory(dir, { create, ownFile: (name) => CACHE_NAME.test(name) });
  } catch (error) {
    throw inaccessibleError(dir, "cannot be created or made private (mode 0700)", error);
  }
  if (typeof secured === "object") throw refused(dir, secured.what, secured.remedy);
  return secured;
}

/** A cache directory refused before any file in it is touched: what is wrong, and what to do. */
function refused(dir: string, what: string, remedy: string): TokenCacheError {
  return new TokenCacheError(
    "cache_inaccessible",
    `the token cache ${dir} ${what}: ${remedy}, or set ${TOKEN_CACHE_DIR_VARIABLE.name} to a private directory (a new path is created with mode 0700).`,
    { file: dir },
  );
}

/** Reads a file after enforcing its mode 0600; undefined when it does not exist. */
function readSecured(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw inaccessibleError(file, "cannot be read", error);
  }
  try {
    if (ENFORCE_MODES && (fstatSync(fd).mode & 0o777) !== FILE_MODE) fchmodSync(fd, FILE_MODE);
    return readFileSync(fd, "utf8");
  } catch (error) {
    throw inaccessibleError(file, "cannot be read or made private (mode 0600)", error);
  } finally {
    closeSync(fd);
  }
}

function damagedError(file: string, why: string): TokenCacheError {
  return new TokenCacheError(
    "cache_damaged",
    `the token cache file ${file} is damaged (${why}). It may hold the only valid refresh token of this grant, and ` +
      "presenting an older one could get the grant revoked (RFC 9700 §4.14.2), so nothing was refreshed. " +
      `To go on, ${signInAgain()} (a new grant), then delete ${file}.`,
    { file },
  );
}

function inaccessibleError(file: string, what: string, cause: unknown): TokenCacheError {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return new TokenCacheError(
    "cache_inaccessible",
    `the token cache path ${file} ${what}${typeof code === "string" ? ` (${code})` : ""}: check that it belongs to you and ` +
      `that the disk is writable, or set ${TOKEN_CACHE_DIR_VARIABLE.name} to a private directory.`,
    { file, cause },
  );
}
