/**
 * Opening the emulator's data file: an SQLite database (schema.ts), or a version-1 JSON data file of earlier emulators,
 * which is imported once into a database at the same path while the JSON file is kept, unchanged, as
 * `<file>.v1.json`. Anything else (another format, a damaged file, a database of another program or of a newer
 * emulator) is refused with an error naming the file and what is wrong, and is never written to.
 *
 * The database runs in WAL mode (the `-wal` and `-shm` files beside it belong to it) with a busy timeout, so several
 * processes may use one file at once (SQLite's locking; on one machine, not over a network file system).
 */

import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  copyFileSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import type { DatabaseSync as DatabaseSyncType } from "node:sqlite";
import { messageOf, PulumiHelpdeskError } from "../../kernel/errors.js";
import { syncDirectory, syncFile } from "../../kernel/fsync.js";
import { SUPPORTED_NODE_TEXT } from "../../kernel/node-support.js";
import { processExists } from "../../kernel/processes.js";

/**
 * `node:sqlite`'s DatabaseSync, loaded when first used rather than by a static import: a static import of a built-in
 * that an old Node.js lacks fails while modules are linked, before the emulator's entry point can run its Node.js
 * check (kernel/node-guard.ts) and say which version it needs in one line.
 */
function sqlite(): typeof import("node:sqlite") {
  const module = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite") | undefined;
  if (!module)
    throw new Error(
      `the emulator's data store needs node:sqlite, which this Node.js ${process.versions.node} lacks: use ${SUPPORTED_NODE_TEXT}`,
    );
  return module;
}
type DatabaseSync = DatabaseSyncType;

import { z } from "zod";
import { EVENTS } from "../../kernel/events.js";
import type { Synchronous } from "../types.js";
import { sqliteCode } from "./commits.js";
import { checkSchema, migrate, SchemaError } from "./schema.js";
import { insertCode, insertDelivery, insertToken, insertWebhook, putAccount, putClient } from "./tables.js";

/** How to open a data file. */
export interface OpenOptions {
  /** See {@link Synchronous}. */
  synchronous: Synchronous;
  /** How long a statement waits for a lock another process holds before failing (SQLite busy timeout), ms. */
  busyTimeoutMs: number;
  /** Clock in milliseconds since the epoch (the revocation time of imported revoked tokens that lack one). */
  now: () => number;
  /** Told what was done beside opening: an import, a journal mode that could not be set. One line each. */
  notice: (line: string) => void;
}

/**
 * A data file that is refused (code `data_file_refused`); `file` is its path and `reason` what is wrong with it. It
 * has not been changed. Made by {@link refused}, which words the message.
 */
export class DataFileError extends PulumiHelpdeskError<"data_file_refused"> {
  /** The data file's path. */
  readonly file: string;
  /** What is wrong with it, e.g. `it is a damaged SQLite database (...)`. */
  readonly reason: string;

  /**
   * @param code `data_file_refused`
   * @param message names the file and what is wrong, and says it was left unchanged
   * @param options `file`, `reason` (see above); `cause`: the error that revealed it
   */
  constructor(code: "data_file_refused", message: string, options: { file: string; reason: string; cause?: unknown }) {
    super(code, message, options);
    this.file = options.file;
    this.reason = options.reason;
  }
}

/**
 * The {@link DataFileError} for `file`: `emulator data file <file>: <reason>; the file was left unchanged`.
 * @param file the data file's path
 * @param reason what is wrong with it
 * @param cause the error that revealed it, if any
 */
export function refused(file: string, reason: string, cause?: unknown): DataFileError {
  return new DataFileError("data_file_refused", `emulator data file ${file}: ${reason}; the file was left unchanged`, {
    file,
    reason,
    cause,
  });
}

/** The first 16 bytes of every SQLite database file (https://www.sqlite.org/fileformat.html §1.3.1). */
const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");

/** How long an emulator waits for another one importing the same version-1 file, ms. */
const IMPORT_LOCK_WAIT_MS = 30_000;

const text = z.string();
const time = z.number().int(); // milliseconds since the epoch
const event = z.enum(EVENTS);

/** The version-1 JSON data file of earlier emulators (their `store.ts` and `persist.ts`, replaced by the SQLite store in commit 6a1ad81), validated on import. */
const V1DataFile = z.object({
  version: z.literal(1),
  clients: z.array(z.object({ clientId: text, secretHash: text, redirectUri: text, name: text })).default([]),
  accounts: z.array(z.object({ username: text, passwordHash: text })).default([]),
  codes: z
    .array(
      z.object({
        hash: text,
        clientId: text,
        redirectUri: text,
        account: text,
        codeChallenge: text.optional(),
        expiresAt: time,
        usedAt: time.optional(),
        grantId: text,
      }),
    )
    .default([]),
  tokens: z
    .array(
      z.object({
        hash: text,
        kind: z.enum(["access", "refresh"]),
        clientId: text,
        account: text,
        grantId: text,
        expiresAt: time.optional(),
        revoked: z.boolean(),
        revokedAt: time.optional(),
      }),
    )
    .default([]),
  webhooks: z
    .array(z.object({ id: text, event, url: text, state: z.literal("active"), account: text, createdAt: text }))
    .default([]),
  deliveries: z
    .array(
      z.object({
        id: text,
        time: text,
        webhookId: text,
        event,
        url: text,
        account: text,
        status: z.number().int().nullable(),
        attempts: z.number().int().nonnegative(),
        ok: z.boolean(),
        done: z.boolean(),
        error: text.optional(),
      }),
    )
    .default([]),
});
type V1State = z.infer<typeof V1DataFile>;

/** What a path holds. */
type Found = { kind: "missing" } | { kind: "sqlite" } | { kind: "v1"; state: V1State };

/**
 * Reads enough of `file` to tell what it is. A missing file and an empty one (which SQLite takes as a new database)
 * are databases to create.
 * @throws DataFileError for anything but an SQLite database or a valid version-1 JSON data file
 */
function classify(file: string): Found {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    throw refused(file, `it cannot be read (${messageOf(error)})`, error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw refused(file, "it is not a regular file");
    const header = Buffer.alloc(SQLITE_HEADER.length);
    const read = readSync(fd, header, 0, header.length, 0);
    if (stat.size === 0 || (read === header.length && header.equals(SQLITE_HEADER))) return { kind: "sqlite" };
  } finally {
    closeSync(fd);
  }
  return { kind: "v1", state: parseV1(file, readFileSync(file, "utf8")) };
}

/**
 * Parses and validates a version-1 JSON data file.
 * @throws DataFileError naming what is wrong: not JSON, another version, or values of the wrong type (with their path)
 */
function parseV1(file: string, content: string): V1State {
  const neither = "it is neither an SQLite database nor a version-1 JSON data file";
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (error) {
    if (/^\s*\{/.test(content)) {
      throw refused(
        file,
        `it looks like a version-1 JSON data file but is damaged: not valid JSON (${messageOf(error)})`,
      );
    }
    throw refused(file, `${neither} (it begins with ${JSON.stringify(content.slice(0, 24))})`);
  }
  if (typeof json !== "object" || json === null || !("version" in json)) {
    throw refused(file, `${neither} (JSON without a "version")`);
  }
  if (json.version !== 1) {
    throw refused(
      file,
      `it is a JSON data file of unsupported version ${JSON.stringify(json.version)} (this emulator reads version-1 JSON files and SQLite databases)`,
    );
  }
  const parsed = V1DataFile.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.map(String).join(".") || "(file)"}: ${issue.message}`);
    const more = parsed.error.issues.length > 3 ? `; and ${parsed.error.issues.length - 3} more` : "";
    throw refused(file, `it is a version-1 JSON data file with invalid content: ${issues.join("; ")}${more}`);
  }
  return parsed.data;
}

/** The owner tags of this process that are in use (see {@link newOwnerTag}). */
const liveTags = new Set<string>();

/**
 * A new owner tag `host:pid:nonce` for this process, in use until {@link releaseOwnerTag}: it names the holder of an
 * import lock, or the store that runs a delivery (two stores in one process have two tags).
 */
export function newOwnerTag(): string {
  const tag = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  liveTags.add(tag);
  return tag;
}

/** Marks an owner tag as no longer in use. */
export function releaseOwnerTag(tag: string): void {
  liveTags.delete(tag);
}

/**
 * Whether the owner named by a {@link newOwnerTag} tag is known to be gone: it ran on this host, and either no process
 * has its pid, or the pid is this process's and the tag is not in use here (an earlier run that had the same pid).
 * An owner on another host is never known to be gone.
 */
export function ownerGone(tag: string): boolean {
  const [host, pidText] = tag.split(":");
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return !liveTags.has(tag);
  return !processExists(pid);
}

/** Blocks this thread for `ms` milliseconds (only while waiting for another process's import, at start). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `work` holding `<file>.import-lock` (created exclusively, holding an owner tag, {@link newOwnerTag}), so two
 * emulators started at once on one version-1 file import it once. A lock left by a process that is gone is taken
 * over.
 * @throws DataFileError when another live process holds the lock longer than {@link IMPORT_LOCK_WAIT_MS}
 */
function withImportLock<T>(file: string, work: () => T): T {
  const lock = `${file}.import-lock`;
  const tag = newOwnerTag();
  const deadline = Date.now() + IMPORT_LOCK_WAIT_MS;
  try {
    for (;;) {
      try {
        const fd = openSync(lock, "wx", 0o600);
        writeSync(fd, tag);
        closeSync(fd);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      let owner = "";
      try {
        owner = readFileSync(lock, "utf8");
      } catch {
        continue; // released meanwhile
      }
      if (owner !== "" && ownerGone(owner)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw refused(
          file,
          `another process (${owner || "unknown"}) has been importing it for ${IMPORT_LOCK_WAIT_MS / 1000} s; if none is, remove ${lock}`,
        );
      }
      sleepSync(50);
    }
    try {
      return work();
    } finally {
      rmSync(lock, { force: true });
    }
  } finally {
    releaseOwnerTag(tag);
  }
}

/**
 * Gives the version-1 file the name `keep` too (a hard link: the same file, untouched; where links are not supported,
 * an exclusive copy). A `keep` that is already the same file, or holds the same bytes (an import interrupted after
 * this step), is accepted.
 * @throws DataFileError when `keep` exists with other content
 */
function keepOriginal(file: string, keep: string): void {
  try {
    linkSync(file, keep);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      copyFileSync(file, keep, constants.COPYFILE_EXCL);
      syncFile(keep);
      return;
    }
  }
  const [a, b] = [statSync(file), statSync(keep)];
  if ((a.dev === b.dev && a.ino === b.ino) || readFileSync(file).equals(readFileSync(keep))) return;
  throw refused(
    file,
    `it is a version-1 JSON data file to import, but ${keep}, where it would be kept, exists with other content; move that file away`,
  );
}

/**
 * Creates an empty file readable by its owner only (0600; SQLite gives its journals the same mode), and the folders
 * to it that are missing, private (0700, whatever the umask: one another user could write to would let them swap the
 * database or its journals between runs). An empty file is a new database to SQLite. One created meanwhile by
 * another process is left as it is; folders that existed are left as they are.
 */
function createPrivateFile(file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    closeSync(openSync(file, "wx", 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
    throw new Error(`emulator data file ${file} cannot be created: ${messageOf(error)}`, { cause: error });
  }
}

/** Removes an SQLite database file and its journals. */
function removeDatabase(path: string): void {
  for (const suffix of ["", "-journal", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
}

/** Writes a version-1 state into a new database `db` (at the current schema version), in one transaction. */
function writeV1(db: DatabaseSync, state: V1State, now: number): void {
  migrate(db);
  db.exec("BEGIN");
  for (const client of state.clients) putClient(db, client);
  for (const account of state.accounts) putAccount(db, account);
  for (const code of state.codes) insertCode(db, code);
  // A revoked token without a time (older files) counts as revoked now, as the JSON store did on load.
  for (const token of state.tokens)
    insertToken(db, token.revoked && token.revokedAt === undefined ? { ...token, revokedAt: now } : token);
  for (const webhook of state.webhooks) insertWebhook(db, webhook);
  for (const entry of state.deliveries) {
    const finished = entry.done
      ? entry
      : { ...entry, done: true, ok: false, error: entry.error ?? "emulator stopped before the delivery finished" };
    insertDelivery(db, finished, null);
  }
  db.exec("COMMIT");
}

/**
 * Imports a version-1 JSON data file into an SQLite database at the same path: the database is built beside it
 * (`<file>.import-<pid>.tmp`) and committed, the JSON file gets the name `<file>.v1.json` too, then the database is
 * renamed over `<file>` (atomic, POSIX rename(2)). Interrupted at any point, `<file>` is either still the JSON file
 * (imported again at the next start) or the complete database. The folder is fsynced (`kernel/fsync.ts`) after the
 * kept name is made and after the rename, so neither is undone by a crash once the import is reported.
 * @returns the name the JSON file is kept under
 * @throws DataFileError when the import failed (the file is unchanged); Error when the rename could not be made durable
 */
function importV1(file: string, state: V1State, now: number): string {
  const keep = `${file}.v1.json`;
  const tmp = `${file}.import-${process.pid}.tmp`;
  removeDatabase(tmp);
  try {
    createPrivateFile(tmp);
    const db = new (sqlite().DatabaseSync)(tmp);
    try {
      writeV1(db, state, now);
    } finally {
      db.close();
    }
    keepOriginal(file, keep);
    syncDirectory(dirname(file)); // the kept name is on disk before the database takes the file's name
    renameSync(tmp, file);
  } catch (error) {
    removeDatabase(tmp);
    if (error instanceof DataFileError) throw error;
    throw refused(file, `it is a version-1 JSON data file that could not be imported (${messageOf(error)})`, error);
  }
  try {
    syncDirectory(dirname(file));
  } catch (error) {
    throw new Error(
      `emulator data file ${file}: the version-1 JSON data file was imported into an SQLite database at this path, but the rename could not be made durable ` +
        `(fsync of its folder: ${messageOf(error)}), so the emulator does not start on it. Start it again: it finds the database, or the JSON file to import again.`,
      { cause: error },
    );
  }
  return keep;
}

/** `node:sqlite` errors that mean the file is not a usable database: NOTADB (26), CORRUPT (11), FORMAT (24). */
function isDamage(error: unknown): boolean {
  const code = sqliteCode(error);
  return code !== undefined && [11, 24, 26].includes(code);
}

/**
 * Opens an existing or new SQLite data file: checks, reading only, that it is the emulator's and intact
 * (`PRAGMA quick_check`), then sets WAL mode, the `synchronous` level and the busy timeout, and migrates it to the
 * current schema.
 * @throws DataFileError for a damaged database, one of another program, or one of a newer emulator
 */
function openSqlite(file: string, options: OpenOptions): DatabaseSync {
  let db: DatabaseSync;
  try {
    db = new (sqlite().DatabaseSync)(file, { timeout: options.busyTimeoutMs });
  } catch (error) {
    throw refused(file, `it cannot be opened as an SQLite database (${messageOf(error)})`, error);
  }
  try {
    if (checkSchema(db) > 0) {
      const problems = (db.prepare("PRAGMA quick_check(5)").all() as Array<{ quick_check: string }>).map(
        (row) => row.quick_check,
      );
      if (problems.join() !== "ok") throw refused(file, `it is a damaged SQLite database (${problems.join("; ")})`);
    }
    const mode = (db.prepare("PRAGMA journal_mode = WAL").get() as { journal_mode: string }).journal_mode;
    if (mode !== "wal")
      options.notice(
        `emulator data file ${file}: WAL journal mode is not available here (journal_mode ${mode}); commits are still durable`,
      );
    db.exec(`PRAGMA synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof DataFileError) throw error;
    if (error instanceof SchemaError) throw refused(file, error.message, error);
    if (isDamage(error)) throw refused(file, `it is a damaged SQLite database (${messageOf(error)})`, error);
    throw error;
  }
}

/**
 * Opens the store's database: `:memory:` when `file` is undefined, else the data file (see the module comment); a
 * version-1 JSON file is imported first, once, and `options.notice` is told so.
 *
 * @param file the data file's path, or `undefined` for a database in memory
 * @returns an open connection at the current schema version
 * @throws DataFileError when the file is refused (see {@link DataFileError}); the file is not changed then
 * @throws Error when a missing file cannot be created (its directory is created when missing), or when the import of a
 *   version-1 file could not be made durable (the message says so; the next start finds the database or imports again)
 */
export function openDatabase(file: string | undefined, options: OpenOptions): DatabaseSync {
  if (file === undefined) {
    const db = new (sqlite().DatabaseSync)(":memory:");
    migrate(db);
    return db;
  }
  const found = classify(file);
  if (found.kind === "missing") createPrivateFile(file);
  if (found.kind === "v1") {
    withImportLock(file, () => {
      const found = classify(file); // another process may have imported it meanwhile
      if (found.kind !== "v1") return;
      const { state } = found;
      const keep = importV1(file, state, options.now());
      const counts = `${state.clients.length} clients, ${state.accounts.length} accounts, ${state.webhooks.length} webhooks, ${state.tokens.length} tokens, ${state.codes.length} codes, ${state.deliveries.length} deliveries`;
      options.notice(
        `emulator data file ${file}: imported the version-1 JSON data file (${counts}) into an SQLite database at this path; the JSON file is kept unchanged as ${keep}`,
      );
    });
  }
  return openSqlite(file, options);
}
