/**
 * The one database handle every table module of the store shares (store/*.ts), with its group commit (commits.ts):
 * each table module reads through it and makes every change through {@link StoreDatabase.write}, so the changes of all
 * tables in one event-loop turn share one commit, and the app's wait for {@link StoreDatabase.committed} covers them
 * all. One handle, not one per table: SQLite's write lock, the open transaction and the prepared statements belong to
 * a connection, and a change that spans tables (a code's grant revoked, a delivery logged and its log trimmed) must
 * be one atomic change.
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { required } from "../../kernel/required.js";
import type { Synchronous } from "../types.js";
import { GroupCommit } from "./commits.js";
import { newOwnerTag, openDatabase, releaseOwnerTag } from "./data-file.js";
import { row, rows, run, type Values } from "./tables.js";

/** How long a change waits for the write lock another process holds on the data file (SQLite busy timeout): 5 s. */
export const BUSY_TIMEOUT_MS = 5000;

/** Codes, sessions, sign-in links and pending consents: expired entries are swept past this many. */
export const MEMORY_MAP_SOFT_LIMIT = 1000;
/** Codes, sessions, sign-in links and pending consents: the oldest are dropped past this many. */
export const MEMORY_MAP_HARD_LIMIT = 10_000;

/** How to open a {@link StoreDatabase}. */
export interface StoreDatabaseOptions {
  /** The data file (see data-file.ts), or `undefined` for a database in memory. */
  dataFile: string | undefined;
  /** When a commit is on disk; see {@link Synchronous}. */
  synchronous: Synchronous;
  /** How long a change waits for another process's write lock, ms. */
  busyTimeoutMs: number;
  /** Told of an import and of failed commits, one line each. */
  notice: (line: string) => void;
}

/**
 * One open SQLite connection, its group commit, the clock and the tag naming this store as the owner of the
 * deliveries it runs. All methods are synchronous except {@link committed}.
 */
export class StoreDatabase {
  /** The connection, for the statements of tables.ts (`insertCode(db, ...)`, ...). */
  readonly db: DatabaseSync;
  /** Names this store as the one running its deliveries (see data-file.ts `newOwnerTag`). */
  readonly owner: string;
  private readonly commits: GroupCommit;
  private isClosed = false;

  /**
   * Opens (or creates) the database.
   *
   * @param now clock in milliseconds since the epoch
   * @param options see {@link StoreDatabaseOptions}
   * @throws DataFileError when the data file is refused; it is not changed then
   * @throws Error for a data file that cannot be created
   */
  constructor(
    readonly now: () => number,
    readonly options: StoreDatabaseOptions,
  ) {
    const file = options.dataFile;
    this.db = openDatabase(file, {
      synchronous: options.synchronous,
      busyTimeoutMs: options.busyTimeoutMs,
      now,
      notice: options.notice,
    });
    this.owner = newOwnerTag();
    const describe = file === undefined ? "the emulator's in-memory database" : `emulator data file ${file}`;
    this.commits = new GroupCommit(this.db, describe, (error) => options.notice(error.message));
  }

  /** Whether {@link close} (or {@link abandon}) was called: the connection is gone. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Every row of a query, as column values in `SELECT` order (tables.ts `rows`). */
  all(sql: string, ...params: SQLInputValue[]): Values[] {
    return rows(this.db, sql, ...params);
  }

  /** The first row of a query, or `undefined`. */
  one(sql: string, ...params: SQLInputValue[]): Values | undefined {
    return row(this.db, sql, ...params);
  }

  /**
   * How many rows a table holds (`SELECT count(*)`, whose one row always comes).
   *
   * @param table the table's name, written in this code (never a value from a request)
   */
  count(table: "codes" | "deliveries"): number {
    const [count] = required(this.one(`SELECT count(*) FROM ${table}`), `the row of SELECT count(*) FROM ${table}`);
    return Number(count);
  }

  /** Runs a statement that changes rows (inside {@link write}); returns how many it changed. */
  change(sql: string, ...params: SQLInputValue[]): number {
    return run(this.db, sql, ...params);
  }

  /**
   * Runs `change` as one atomic change of this turn's commit (commits.ts `GroupCommit.write`).
   * @throws StoreError `busy` when another process holds the write lock longer than the busy timeout
   */
  write<T>(change: () => T): T {
    return this.commits.write(change);
  }

  /**
   * `stored`, or `undefined` when `dead` says it is dead at this moment; a dead one is removed on the way by `remove`
   * (as a change of this turn's commit), so a lookup purges what it finds dead.
   */
  unlessDead<T>(stored: T | undefined, dead: (value: T, now: number) => boolean, remove: () => unknown): T | undefined {
    if (stored === undefined || !dead(stored, this.now())) return stored;
    this.write(remove);
    return undefined;
  }

  /** A mark to pass to {@link committed} when a request starts. */
  mark(): number {
    return this.commits.mark();
  }

  /**
   * Resolves when every change made since `mark` is committed; the app awaits it before sending any response.
   * @throws StoreError `commit` when such a commit failed (its changes did not take effect)
   */
  committed(mark: number): Promise<void> {
    return this.commits.committed(mark);
  }

  /**
   * Commits pending changes now.
   * @throws StoreError `commit` when that commit failed
   */
  flush(): void {
    this.commits.flush();
  }

  /**
   * Commits pending changes and closes the connection (the last connection to close checkpoints the write-ahead log
   * into the file). A second call does nothing.
   * @throws StoreError `commit` when the last commit failed (the connection is closed all the same)
   */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    try {
      this.commits.flush();
    } finally {
      this.db.close();
      releaseOwnerTag(this.owner);
    }
  }

  /** Closes the connection without committing: for a store that failed to open (what it began is not kept). */
  abandon(): void {
    this.isClosed = true;
    this.db.close();
    releaseOwnerTag(this.owner);
  }
}

/** A `WHERE` clause matching each given column (undefined ones are left out), and its values in order. */
export function conditions(columns: Record<string, string | undefined>): { where: string; values: string[] } {
  const given = Object.entries(columns).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return {
    where: given.length === 0 ? "" : ` WHERE ${given.map(([column]) => `${column} = ?`).join(" AND ")}`,
    values: given.map(([, value]) => value),
  };
}
