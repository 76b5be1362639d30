/**
 * The emulator's SQLite schema and its forward migrations.
 *
 * The data file's format is numbered on from the JSON file it replaces: version 1 was the JSON file of earlier
 * emulators (imported by data-file.ts); version 2 is the first SQLite schema. The version lives in the database header
 * (`PRAGMA user_version`), and `PRAGMA application_id` marks the file as the emulator's, so that a database of another
 * program is refused rather than changed.
 *
 * Tables are `STRICT` (a value of the wrong type is an error, not silently stored) and every one has an
 * `INTEGER PRIMARY KEY seq`: insertion order, which the store uses where the order of the in-memory maps it replaces
 * mattered (accounts: the first is the default; tokens: the oldest of a grant is revoked first; codes, webhooks and
 * deliveries: oldest first). Secrets are stored only as hashes (see secrets.ts).
 */
import type { DatabaseSync } from "node:sqlite";
import { PulumiHelpdeskError } from "../../kernel/errors.js";
import { required } from "../../kernel/required.js";

/** `PRAGMA application_id` of an emulator data file: "HDEM" in ASCII. */
export const APPLICATION_ID = 0x4844454d;

/** One step of the schema: `sql` takes a database at version `version - 1` to `version`. */
export interface Migration {
  version: number;
  sql: string;
}

/**
 * Every migration, in order. A new version appends one (never edit a released one): a database at any older version
 * is taken forward one step at a time, in one transaction, when an emulator opens it.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 2,
    sql: `
      CREATE TABLE clients (
        seq INTEGER PRIMARY KEY,
        client_id TEXT NOT NULL UNIQUE,
        secret_hash TEXT NOT NULL,     -- SHA-256, base64url
        redirect_uri TEXT NOT NULL,
        name TEXT NOT NULL
      ) STRICT;
      CREATE TABLE accounts (
        seq INTEGER PRIMARY KEY,
        username TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL    -- scrypt$salt$hash
      ) STRICT;
      CREATE TABLE codes (
        seq INTEGER PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,     -- SHA-256 of the code, base64url
        client_id TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        account TEXT NOT NULL,
        code_challenge TEXT,
        expires_at INTEGER NOT NULL,   -- ms since the epoch
        used_at INTEGER,               -- ms since the epoch; NULL: not exchanged
        grant_id TEXT NOT NULL
      ) STRICT;
      CREATE INDEX codes_by_expiry ON codes (expires_at);
      CREATE TABLE tokens (
        seq INTEGER PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,     -- SHA-256 of the token, base64url
        kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
        client_id TEXT NOT NULL,
        account TEXT NOT NULL,
        grant_id TEXT NOT NULL,
        expires_at INTEGER,            -- ms since the epoch; NULL: never (refresh tokens)
        revoked_at INTEGER             -- ms since the epoch; NULL: not revoked
      ) STRICT;
      CREATE INDEX tokens_by_grant ON tokens (grant_id);
      CREATE INDEX tokens_by_expiry ON tokens (expires_at);
      CREATE INDEX tokens_by_revocation ON tokens (revoked_at);
      CREATE TABLE webhooks (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        account TEXT NOT NULL,
        event TEXT NOT NULL,
        url TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state = 'active'),
        created_at TEXT NOT NULL       -- ISO 8601 UTC
      ) STRICT;
      CREATE INDEX webhooks_by_account ON webhooks (account, event);
      CREATE TABLE deliveries (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        time TEXT NOT NULL,            -- ISO 8601 UTC, when it was queued
        webhook_id TEXT NOT NULL,
        event TEXT NOT NULL,
        url TEXT NOT NULL,
        account TEXT NOT NULL,
        status INTEGER,                -- last HTTP status; NULL: network error or not attempted yet
        attempts INTEGER NOT NULL,
        ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
        done INTEGER NOT NULL CHECK (done IN (0, 1)),
        error TEXT,
        owner TEXT                     -- "host:pid" of the process delivering it; NULL once done
      ) STRICT;
      CREATE INDEX deliveries_by_account ON deliveries (account, seq);
      CREATE INDEX deliveries_by_webhook ON deliveries (webhook_id, seq);
      CREATE INDEX deliveries_running ON deliveries (owner) WHERE owner IS NOT NULL;
    `,
  },
];

/** The schema version this emulator writes: the last migration's. */
export const SCHEMA_VERSION = required(MIGRATIONS.at(-1), "a migration").version;

/** Why a database cannot be used as it is: another program's, or a newer emulator's. */
export type SchemaErrorCode = "foreign_database" | "newer_schema";

/** Why a database cannot be used as it is; the caller names the file (data-file.ts makes it a `DataFileError`). */
export class SchemaError extends PulumiHelpdeskError<SchemaErrorCode> {
  /**
   * @param code see {@link SchemaErrorCode}
   * @param message what is wrong, worded to follow `emulator data file <file>: `
   * @param options `cause`
   */
  constructor(code: SchemaErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

interface SchemaFacts {
  applicationId: number;
  version: number;
  tables: number;
}

function schemaFacts(db: DatabaseSync): SchemaFacts {
  const pragma = (name: string) => Number(Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0]);
  return {
    applicationId: pragma("application_id"),
    version: pragma("user_version"),
    tables: Number((db.prepare("SELECT count(*) AS n FROM sqlite_schema").get() as { n: number }).n),
  };
}

/**
 * Checks, reading only, that a database is the emulator's (or new and empty) and not newer than this emulator.
 *
 * @returns the schema version found (0: a new database)
 * @throws SchemaError when the database belongs to another program (another `application_id`, or tables without
 *   one), or was written by a newer emulator (a version above {@link SCHEMA_VERSION})
 */
export function checkSchema(db: DatabaseSync): number {
  const found = schemaFacts(db);
  if (found.applicationId === 0 && found.tables === 0) return 0;
  if (found.applicationId !== APPLICATION_ID) {
    throw new SchemaError(
      "foreign_database",
      `it is an SQLite database of another program (application_id ${found.applicationId}, expected ${APPLICATION_ID})`,
    );
  }
  if (found.version > SCHEMA_VERSION) {
    throw new SchemaError(
      "newer_schema",
      `it was written by a newer emulator (schema version ${found.version}; this one knows versions up to ${SCHEMA_VERSION})`,
    );
  }
  return found.version;
}

/**
 * Takes a database to {@link SCHEMA_VERSION}: a new, empty database gets the whole schema; one of an older version
 * the missing migrations, in order, in one `BEGIN IMMEDIATE` transaction (so two emulators opening one file at once
 * migrate it once: the second sees the new version when it gets the lock).
 *
 * @param db an open database; nothing is written when it is already at {@link SCHEMA_VERSION}
 * @returns the version the database had before (0: it was new)
 * @throws SchemaError as {@link checkSchema}
 */
export function migrate(db: DatabaseSync): number {
  if (checkSchema(db) === SCHEMA_VERSION) return SCHEMA_VERSION;
  db.exec("BEGIN IMMEDIATE");
  try {
    const version = checkSchema(db); // another process may have migrated it meanwhile
    for (const migration of MIGRATIONS) {
      if (migration.version > version) db.exec(migration.sql);
    }
    db.exec(`PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = ${SCHEMA_VERSION};`);
    db.exec("COMMIT");
    return version;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}
