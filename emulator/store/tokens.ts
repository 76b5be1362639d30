/**
 * The `tokens` table: access and refresh tokens (RFC 6749 §1.4, §1.5), stored by SHA-256 hash and bound to the grant
 * of the code they came from. A dead token (an access token past its expiry, or any revoked token) is kept
 * {@link DEAD_TOKEN_RETENTION_MS}, then purged.
 */
import { randomToken, sha256 } from "../secrets.js";
import type { LiveState } from "../types.js";
import type { StoreDatabase } from "./database.js";
import { insertToken, type StoredToken, TOKEN_COLUMNS, tokenOf } from "./tables.js";

/**
 * How long a dead token (an access token past its expiry, or any revoked token) is kept before it is purged: 1 hour,
 * so that responses can still say "expired" or "revoked" rather than "unknown", and a rotated-out refresh token that is
 * presented again within that hour revokes its grant (RFC 9700 §4.14.2). After it, the token is unknown (still
 * refused).
 */
export const DEAD_TOKEN_RETENTION_MS = 3600_000;
/** Live access tokens one grant may hold; issuing one more revokes its oldest (a client refreshing in a loop). */
export const MAX_ACCESS_TOKENS_PER_GRANT = 100;

/** Tokens issued by a grant: the clear values, returned once to the client and never stored. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
}

/** The access and refresh tokens. Times in milliseconds since the epoch, from the store's clock. */
export class Tokens {
  /** @param database the store's shared handle */
  constructor(private readonly database: StoreDatabase) {}

  /**
   * Issues an access token (lifetime `ttlSeconds`) and, unless `refreshToken` is given (a refresh without rotation
   * keeps the old one), a new refresh token, both bound to `grantId`. A grant holds at most
   * {@link MAX_ACCESS_TOKENS_PER_GRANT} live access tokens: the oldest beyond are revoked.
   * @throws StoreError `busy` when another process holds the write lock longer than the busy timeout
   */
  issue(
    grant: { clientId: string; account: string; grantId: string },
    ttlSeconds: number,
    refreshToken?: string,
  ): IssuedTokens {
    const accessToken = randomToken(32);
    const refresh = refreshToken ?? randomToken(32);
    const token = (hash: string, kind: "access" | "refresh"): StoredToken => ({
      hash,
      kind,
      clientId: grant.clientId,
      account: grant.account,
      grantId: grant.grantId,
      revoked: false,
    });
    this.database.write(() => {
      this.limitAccessTokens(grant.grantId, MAX_ACCESS_TOKENS_PER_GRANT - 1);
      insertToken(this.database.db, {
        ...token(sha256(accessToken), "access"),
        expiresAt: this.database.now() + ttlSeconds * 1000,
      });
      if (refreshToken === undefined) insertToken(this.database.db, token(sha256(refresh), "refresh"));
    });
    return { accessToken, refreshToken: refresh };
  }

  /** Revokes the oldest live access tokens of a grant until at most `keep` remain (`seq` is issue order). */
  private limitAccessTokens(grantId: string, keep: number): void {
    this.database.change(
      `UPDATE tokens SET revoked_at = ?1 WHERE seq IN (
         SELECT seq FROM tokens WHERE grant_id = ?2 AND kind = 'access' AND revoked_at IS NULL AND expires_at > ?1
         ORDER BY seq DESC LIMIT -1 OFFSET ?3)`,
      this.database.now(),
      grantId,
      keep,
    );
  }

  /**
   * The stored token of this kind for a clear token (revoked and expired ones included while they are kept,
   * {@link DEAD_TOKEN_RETENTION_MS}), or `undefined`. A token past that is purged here.
   */
  find(token: string, kind: "access" | "refresh"): StoredToken | undefined {
    const hash = sha256(token);
    const values = this.database.one(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE hash = ?`, hash);
    const stored = this.database.unlessDead(
      values && tokenOf(values),
      (t, now) => {
        const diedAt = t.revoked ? t.revokedAt : t.expiresAt;
        return diedAt !== undefined && diedAt + DEAD_TOKEN_RETENTION_MS <= now;
      },
      () => this.database.change("DELETE FROM tokens WHERE hash = ?", hash),
    );
    return stored?.kind === kind ? stored : undefined;
  }

  /**
   * Revokes one token (kept {@link DEAD_TOKEN_RETENTION_MS}, then purged), unless it already is revoked (by another
   * request or another process sharing the data file).
   * @returns whether this call revoked it: `false` means it was revoked before (for a refresh token being rotated:
   *   a replay, RFC 9700 §4.14.2)
   */
  revoke(token: StoredToken): boolean {
    const now = this.database.now();
    const revoked =
      this.database.write(() =>
        this.database.change("UPDATE tokens SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL", now, token.hash),
      ) > 0;
    if (revoked) {
      token.revoked = true;
      token.revokedAt = now;
    }
    return revoked;
  }

  /** Revokes every token issued under a grant (RFC 6749 §4.1.2: a code used twice; RFC 9700 §4.14.2: a replay). */
  revokeGrant(grantId: string): void {
    const now = this.database.now();
    this.database.write(() =>
      this.database.change("UPDATE tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL", now, grantId),
    );
  }

  /**
   * Deletes the tokens dead for {@link DEAD_TOKEN_RETENTION_MS} at `now`. Runs inside the caller's
   * {@link StoreDatabase.write}.
   * @returns how many it deleted
   */
  deleteDead(now: number): number {
    return this.database.change(
      "DELETE FROM tokens WHERE revoked_at <= ?1 OR (revoked_at IS NULL AND expires_at <= ?1)",
      now - DEAD_TOKEN_RETENTION_MS,
    );
  }

  /** The tokens neither revoked nor expired at `now`, oldest first, named by 12 characters of their hash (no secret). */
  live(now: number): LiveState["tokens"] {
    return this.database
      .all(
        "SELECT substr(hash, 1, 12), kind, client_id, account, grant_id, expires_at FROM tokens WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY seq",
        now,
      )
      .map(([ref, kind, clientId, account, grantId, expiresAt]) => ({
        ref: ref as string,
        kind: kind as "access" | "refresh",
        clientId: clientId as string,
        account: account as string,
        grantId: grantId as string,
        expiresAt: expiresAt as number | null,
      }));
  }
}
