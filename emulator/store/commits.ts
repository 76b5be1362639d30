/**
 * Group commit for the emulator's SQLite store: every change is committed before the response that acknowledges it is
 * sent, and the changes made in one turn of the event loop share one commit (one fsync of the write-ahead log under
 * `synchronous=FULL`), so a durable commit costs the emulator little more under load than it does for one request.
 *
 * How: the first change of a turn opens a transaction (`BEGIN IMMEDIATE`, which takes the database's write lock at
 * once, so the changes never fail halfway for a lock another process holds); each change runs in a savepoint of it,
 * atomic on its own; a `setImmediate` callback commits the transaction after the turn's I/O callbacks have run. A
 * request records {@link GroupCommit.mark} when it starts and, before its response is sent, waits for
 * {@link GroupCommit.committed}: the commit of every change made since. Reads in between see the open transaction's
 * changes (same connection); other processes see them once committed (WAL).
 */

import type { DatabaseSync } from "node:sqlite";
import { messageOf, PulumiHelpdeskError } from "../../kernel/errors.js";

/** The kinds of {@link StoreError}: the write lock was not obtained in time, or a commit failed. */
export type StoreErrorCode = "busy" | "commit";

/**
 * A change that did not reach the data file. `busy`: another process held the database's write lock longer than the
 * busy timeout (nothing was changed; retrying is safe). `commit`: the commit failed (disk full, I/O error, ...) and
 * every change of its turn was rolled back.
 */
export class StoreError extends PulumiHelpdeskError<StoreErrorCode> {
  /**
   * @param code `busy` or `commit`
   * @param message what failed and whether retrying is safe
   * @param options `cause`: `node:sqlite`'s error
   */
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/**
 * SQLite's primary result code of an error thrown by `node:sqlite` (`errcode` may carry an extended code: its low 8
 * bits are the primary one, https://www.sqlite.org/rescode.html).
 * @returns e.g. 5 (`SQLITE_BUSY`), or undefined for an error that is not SQLite's
 */
export function sqliteCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === "number" ? code & 0xff : undefined;
}

/** `SQLITE_BUSY` (5) and `SQLITE_LOCKED` (6): a lock another connection holds. */
function isLockError(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === 5 || code === 6;
}

interface Batch {
  id: number;
  done: Promise<void>;
  settle: () => void;
  timer: NodeJS.Immediate;
}

/** One transaction per event-loop turn over one `DatabaseSync` connection; see the module comment. */
export class GroupCommit {
  private open: Batch | undefined;
  private nextId = 1;
  private lastFailure: { id: number; error: StoreError } | undefined;

  /**
   * @param db the connection; nothing else may begin or end transactions on it
   * @param describe names the database in error messages, e.g. `the data file /x/helpdesk.db`
   * @param onCommitError told of every failed commit (the responses waiting for it fail too)
   */
  constructor(
    private readonly db: DatabaseSync,
    private readonly describe: string,
    private readonly onCommitError: (error: StoreError) => void,
  ) {}

  /**
   * Runs `change` atomically inside this turn's transaction (opened here when none is): when it throws, what it
   * changed is rolled back and the error passes on. Calls may nest.
   *
   * @returns what `change` returns
   * @throws StoreError `busy` when the write lock is not obtained within the busy timeout; whatever `change` throws
   */
  write<T>(change: () => T): T {
    if (this.open === undefined) this.begin();
    this.db.exec("SAVEPOINT change");
    try {
      const result = change();
      this.db.exec("RELEASE change");
      return result;
    } catch (error) {
      // Some failures (a full disk, an I/O error) end the whole transaction: the turn's changes are lost then.
      if (this.db.isTransaction) this.db.exec("ROLLBACK TO change; RELEASE change");
      else if (this.open !== undefined) this.fail(this.open, error);
      throw error;
    }
  }

  private begin(): void {
    try {
      this.db.exec("BEGIN IMMEDIATE");
    } catch (error) {
      if (isLockError(error)) {
        throw new StoreError("busy", `${this.describe} is locked by another process; try again`, { cause: error });
      }
      throw error;
    }
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    const batch: Batch = { id: this.nextId++, done, settle, timer: setImmediate(() => this.commit(batch)) };
    this.open = batch;
  }

  private commit(batch: Batch): void {
    if (this.open !== batch) return;
    this.open = undefined;
    clearImmediate(batch.timer);
    try {
      this.db.exec("COMMIT");
    } catch (cause) {
      this.fail(batch, cause);
      return;
    }
    batch.settle();
  }

  /** Ends a batch whose changes are lost: rolls back what is left of it and fails every response waiting for it. */
  private fail(batch: Batch, cause: unknown): void {
    if (this.open === batch) this.open = undefined;
    clearImmediate(batch.timer);
    try {
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
    } catch {
      // The connection is unusable; the next change reports it.
    }
    const error = new StoreError(
      "commit",
      `${this.describe}: the changes could not be committed (${messageOf(cause)}); they did not take effect`,
      { cause },
    );
    this.lastFailure = { id: batch.id, error };
    this.onCommitError(error);
    batch.settle();
  }

  /** A mark for {@link committed}: changes made from now on have an id at or above it. */
  mark(): number {
    return this.open?.id ?? this.nextId;
  }

  /**
   * Resolves when every change made since `mark` is committed.
   * @throws StoreError `commit` when a commit since `mark` failed (its changes did not take effect)
   */
  async committed(mark: number): Promise<void> {
    if (this.open !== undefined) await this.open.done;
    if (this.lastFailure !== undefined && this.lastFailure.id >= mark) throw this.lastFailure.error;
  }

  /**
   * Commits the open transaction now, if any (used at start and by `close()`).
   * @throws StoreError `commit` when that commit failed
   */
  flush(): void {
    const batch = this.open;
    if (batch === undefined) return;
    this.commit(batch);
    if (this.lastFailure?.id === batch.id) throw this.lastFailure.error;
  }
}
