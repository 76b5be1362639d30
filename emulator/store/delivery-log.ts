/**
 * The `deliveries` table: the delivery log (docs/helpdesk-api.md §6), bounded to the newest `deliveryLogLimit` entries of each
 * account. An entry not yet done names the store running it (`owner`), so that the next store to open the file can
 * close the entries of a process that is gone.
 */

import { messageOf } from "../../kernel/errors.js";
import type { DeliveryLogEntry } from "../types.js";
import { ownerGone } from "./data-file.js";
import { conditions, type StoreDatabase } from "./database.js";
import { DELIVERY_COLUMNS, deliveryOf, insertDelivery } from "./tables.js";

/** The delivery log keeps the newest this many entries of each account (default of `deliveryLogLimit`). */
export const DELIVERY_LOG_LIMIT = 1000;

/** The error text of a delivery whose process stopped before it finished. */
const STOPPED = "emulator stopped before the delivery finished";

/** The delivery log. */
export class DeliveryLog {
  /**
   * @param database the store's shared handle
   * @param limit how many entries each account keeps (the newest), a positive integer
   */
  constructor(
    private readonly database: StoreDatabase,
    private readonly limit: number,
  ) {}

  /**
   * Appends entries, all or none, keeping the newest `limit` entries of each account. Entries not `done` are recorded
   * as run by this store until {@link update} records them done.
   * @throws StoreError `busy` when another process holds the write lock longer than the busy timeout
   */
  add(entries: readonly DeliveryLogEntry[]): void {
    this.database.write(() => {
      for (const entry of entries) insertDelivery(this.database.db, entry, this.database.owner);
      for (const account of new Set(entries.map((e) => e.account))) this.trim(account);
    });
  }

  /** Deletes the oldest entries of an account's log beyond `limit` (inside the caller's write). */
  private trim(account: string): void {
    this.database.change(
      `DELETE FROM deliveries WHERE account = ?1 AND seq <= (
         SELECT seq FROM deliveries WHERE account = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)`,
      account,
      this.limit,
    );
  }

  /**
   * Records the new status, attempts, outcome and error of an entry passed to {@link add} (a no-op when the log no
   * longer holds it, or the store is closed: an attempt that outlived `close()`). Never throws: the log is not
   * acknowledged to anyone, so a failure is only told to the notice sink.
   */
  update(entry: DeliveryLogEntry): void {
    if (this.database.closed) return;
    try {
      this.database.write(() =>
        this.database.change(
          "UPDATE deliveries SET status = ?, attempts = ?, ok = ?, done = ?, error = ?, owner = ? WHERE id = ?",
          entry.status,
          entry.attempts,
          entry.ok ? 1 : 0,
          entry.done ? 1 : 0,
          entry.error ?? null,
          entry.done ? null : this.database.owner,
          entry.id,
        ),
      );
    } catch (error) {
      this.database.options.notice(`delivery ${entry.id} could not be logged: ${messageOf(error)}`);
    }
  }

  /**
   * At start: ends the entries left not done by a store that is gone (a process that crashed, see data-file.ts
   * `ownerGone`) as `ok: false`, with their last error or "emulator stopped before the delivery finished", and trims
   * every account's log to `limit` (a smaller limit than the last run's). Runs inside the caller's write.
   */
  recover(): void {
    for (const [owner] of this.database.all("SELECT DISTINCT owner FROM deliveries WHERE owner IS NOT NULL")) {
      if (!ownerGone(owner as string)) continue;
      this.database.change(
        "UPDATE deliveries SET done = 1, ok = 0, error = coalesce(error, ?), owner = NULL WHERE owner = ?",
        STOPPED,
        owner as string,
      );
    }
    for (const [account] of this.database.all("SELECT DISTINCT account FROM deliveries")) this.trim(account as string);
  }

  /** Entries, oldest first, optionally of one account and/or one webhook, and only the newest `limit`. */
  list(filter: { account?: string; webhookId?: string; limit?: number } = {}): DeliveryLogEntry[] {
    const { where, values } = conditions({ account: filter.account, webhook_id: filter.webhookId });
    const newest = `SELECT seq, ${DELIVERY_COLUMNS} FROM deliveries${where} ORDER BY seq DESC LIMIT ?`;
    return this.database
      .all(`SELECT ${DELIVERY_COLUMNS} FROM (${newest}) ORDER BY seq`, ...values, filter.limit ?? -1)
      .map(deliveryOf);
  }

  /** How many entries the log holds (every account). */
  count(): number {
    return this.database.count("deliveries");
  }
}
