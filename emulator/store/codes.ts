/**
 * The `codes` table: authorization codes (RFC 6749 §4.1.2), single use, stored by SHA-256 hash. A code is kept
 * {@link CODE_TTL_MS} past its expiry, so that a reuse is still recognised (and revokes its grant), then purged.
 */
import { randomId, randomToken, sha256 } from "../secrets.js";
import type { LiveState } from "../types.js";
import { MEMORY_MAP_HARD_LIMIT, MEMORY_MAP_SOFT_LIMIT, type StoreDatabase } from "./database.js";
import { CODE_COLUMNS, codeOf, insertCode, type StoredCode } from "./tables.js";

/** Lifetime of an authorization code: 600 s (RFC 6749 §4.1.2 recommends at most 10 minutes). */
export const CODE_TTL_MS = 600_000;

/** The authorization codes. Times in milliseconds since the epoch, from the store's clock. */
export class Codes {
  /** @param database the store's shared handle */
  constructor(private readonly database: StoreDatabase) {}

  /**
   * Issues a single-use authorization code valid {@link CODE_TTL_MS}, with a new grant id that every token issued
   * from it carries.
   * @returns the clear code (only its hash is stored)
   * @throws StoreError `busy` when another process holds the write lock longer than the busy timeout
   */
  issue(grant: { clientId: string; redirectUri: string; account: string; codeChallenge?: string }): string {
    const code = randomToken(32);
    const stored: StoredCode = {
      hash: sha256(code),
      clientId: grant.clientId,
      redirectUri: grant.redirectUri,
      account: grant.account,
      expiresAt: this.database.now() + CODE_TTL_MS,
      grantId: randomId("grant_"),
    };
    if (grant.codeChallenge !== undefined) stored.codeChallenge = grant.codeChallenge;
    this.database.write(() => {
      this.bound();
      insertCode(this.database.db, stored);
    });
    return code;
  }

  /**
   * Keeps the table bounded before an insert (authorize requests fill it without credentials): past
   * {@link MEMORY_MAP_SOFT_LIMIT} codes the dead ones are dropped, and past {@link MEMORY_MAP_HARD_LIMIT} the oldest.
   */
  private bound(): void {
    const count = () => this.database.count("codes");
    if (count() < MEMORY_MAP_SOFT_LIMIT) return;
    this.deleteDead(this.database.now());
    const excess = count() - MEMORY_MAP_HARD_LIMIT + 1;
    if (excess > 0)
      this.database.change("DELETE FROM codes WHERE seq IN (SELECT seq FROM codes ORDER BY seq LIMIT ?)", excess);
  }

  /**
   * The stored code for a clear code (expired and used ones included while they are kept, {@link CODE_TTL_MS} past
   * expiry), or `undefined`. Does not mark it used; purges it when it is dead.
   */
  find(code: string): StoredCode | undefined {
    const hash = sha256(code);
    const values = this.database.one(`SELECT ${CODE_COLUMNS} FROM codes WHERE hash = ?`, hash);
    return this.database.unlessDead(
      values && codeOf(values),
      (c, now) => c.expiresAt + CODE_TTL_MS <= now,
      () => this.database.change("DELETE FROM codes WHERE hash = ?", hash),
    );
  }

  /**
   * Marks a code as exchanged, unless it already is (by another request or another process sharing the data file).
   * @returns whether this call marked it: `false` means the code was used before (a reuse, RFC 6749 §4.1.2)
   */
  markUsed(code: StoredCode): boolean {
    const now = this.database.now();
    const marked =
      this.database.write(() =>
        this.database.change("UPDATE codes SET used_at = ? WHERE hash = ? AND used_at IS NULL", now, code.hash),
      ) > 0;
    if (marked) code.usedAt = now;
    return marked;
  }

  /**
   * Deletes the codes that are dead at `now`: {@link CODE_TTL_MS} past their expiry, used or not. Runs inside the
   * caller's {@link StoreDatabase.write}.
   * @returns how many it deleted
   */
  deleteDead(now: number): number {
    return this.database.change("DELETE FROM codes WHERE expires_at <= ?", now - CODE_TTL_MS);
  }

  /** The codes neither used nor expired at `now`, oldest first, named by 12 characters of their hash (no secret). */
  live(now: number): LiveState["codes"] {
    return this.database
      .all(
        "SELECT substr(hash, 1, 12), client_id, account, grant_id, expires_at FROM codes WHERE used_at IS NULL AND expires_at > ? ORDER BY seq",
        now,
      )
      .map(([ref, clientId, account, grantId, expiresAt]) => ({
        ref: ref as string,
        clientId: clientId as string,
        account: account as string,
        grantId: grantId as string,
        expiresAt: expiresAt as number,
      }));
  }
}
