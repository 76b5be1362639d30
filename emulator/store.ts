/**
 * The emulator's state: OAuth clients, accounts, authorization codes, tokens, webhooks and the delivery log in an
 * SQLite database (the data file, or memory when none is given: one code path), plus browser sessions, one-time
 * sign-in links and pending consent requests (memory only, per process). Dead entries (expired or revoked tokens,
 * expired or used codes, expired sessions, links and consents) are purged, on access and by {@link Store.purge},
 * which the running emulator calls every {@link PURGE_INTERVAL_MS}; the delivery log keeps the newest
 * `deliveryLogLimit` entries of each account.
 *
 * Why SQLite through `node:sqlite` (`DatabaseSync`): it is built into Node (>= 22.5; without a flag or warning in
 * Node 24), so there is no native addon to compile or download; its synchronous API fits a store whose methods are
 * synchronous and whose every change must be committed before the answer that acknowledges it is sent; and SQLite
 * gives atomic commits, a write-ahead log, indexes and locking between processes, where the JSON file before it was
 * rewritten whole, 25 ms after a change, and lost what was acknowledged in between.
 *
 * Every change is committed before it is acknowledged: the app waits for {@link Store.committed} before sending any
 * answer, and changes of one event-loop turn share one commit (commits.ts). Every read goes to the database, so two
 * emulators on one data file see each other's changes at once; single-use steps (a code exchanged, a refresh token
 * rotated) are conditional updates, so only one of two racing processes wins.
 *
 * Secrets are never kept in clear: client secrets, codes and tokens are stored as SHA-256 hashes and passwords as
 * scrypt hashes (secrets.ts), so the data file holds nothing a caller could replay.
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { WebhookEvent } from "../sdk/events.js";
import type { EmulatorAccount, EmulatorClient } from "./types.js";
import { GroupCommit } from "./commits.js";
import { newOwnerTag, openDatabase, ownerGone, releaseOwnerTag, type Synchronous } from "./data-file.js";
import { hashPassword, randomId, randomToken, safeEqual, sha256, verifyPassword } from "./secrets.js";
import {
  CLIENT_COLUMNS,
  CODE_COLUMNS,
  DELIVERY_COLUMNS,
  TOKEN_COLUMNS,
  WEBHOOK_COLUMNS,
  clientOf,
  codeOf,
  deliveryOf,
  insertCode,
  insertDelivery,
  insertToken,
  insertWebhook,
  putAccount,
  putClient,
  row,
  rows,
  run,
  tokenOf,
  webhookOf,
  type DeliveryLogEntry,
  type StoredClient,
  type StoredCode,
  type StoredToken,
  type StoredWebhook,
  type Values,
} from "./tables.js";

export type { DeliveryLogEntry, StoredAccount, StoredClient, StoredCode, StoredToken, StoredWebhook } from "./tables.js";
export { StoreError } from "./commits.js";
export { DataFileError, type Synchronous } from "./data-file.js";

/** A signed-in browser session (memory only). */
export interface Session {
  account: string;
  expiresAt: number;
}

/** An authorization request waiting on the consent page (memory only). */
export interface PendingAuthorization {
  clientId: string;
  redirectUri: string;
  state?: string;
  codeChallenge?: string;
  expiresAt: number;
}

/** Lifetime of an authorization code: 600 s (RFC 6749 §4.1.2 recommends at most 10 minutes). */
export const CODE_TTL_MS = 600_000;
/** Lifetime of a one-time sign-in link: 10 minutes. */
export const LOGIN_LINK_TTL_MS = 600_000;
/** Lifetime of a browser session: 8 hours. */
export const SESSION_TTL_MS = 8 * 3600_000;
/** Lifetime of a pending consent request: 10 minutes. */
export const PENDING_TTL_MS = 600_000;
/** The delivery log keeps the newest this many entries of each account (default of `deliveryLogLimit`). */
export const DELIVERY_LOG_LIMIT = 1000;
/** How long a change waits for the write lock another process holds on the data file (SQLite busy timeout): 5 s. */
export const BUSY_TIMEOUT_MS = 5000;

/** Sessions, sign-in links, pending consents and codes: expired entries are swept past this many. */
export const MEMORY_MAP_SOFT_LIMIT = 1000;
/** Sessions, sign-in links, pending consents and codes: the oldest are dropped past this many. */
export const MEMORY_MAP_HARD_LIMIT = 10_000;

/**
 * How long a dead token (an access token past its expiry, or any revoked token) is kept before it is purged: 1 hour,
 * so that answers can still say "expired" or "revoked" rather than "unknown", and a rotated-out refresh token that is
 * presented again within that hour revokes its grant (RFC 9700 §4.14.2). After it, the token is unknown (still
 * refused). A code is kept {@link CODE_TTL_MS} past its expiry, to detect its reuse (RFC 6749 §4.1.2).
 */
export const DEAD_TOKEN_RETENTION_MS = 3600_000;
/** How often a running emulator purges dead codes, tokens, sessions, sign-in links and pending consents: 60 s. */
export const PURGE_INTERVAL_MS = 60_000;
/** Live access tokens one grant may hold; issuing one more revokes its oldest (a client refreshing in a loop). */
export const MAX_ACCESS_TOKENS_PER_GRANT = 100;

/**
 * What is live in a store, without secrets, for tests and tools (`GET /_emulator/state`): webhooks, live tokens and
 * codes (`ref`: the first 12 characters of the stored SHA-256 hash, useless as a credential), how many live
 * sessions, sign-in links and pending consents exist (in this process), and how many entries the delivery log holds.
 * Dead entries are left out, so purging never changes it. `expiresAt` is in milliseconds since the epoch (`null`: never, refresh
 * tokens); a webhook's `createdAt` is ISO 8601 UTC.
 */
export interface LiveState {
  webhooks: StoredWebhook[];
  tokens: Array<{
    ref: string;
    kind: "access" | "refresh";
    clientId: string;
    account: string;
    grantId: string;
    expiresAt: number | null;
  }>;
  codes: Array<{ ref: string; clientId: string; account: string; grantId: string; expiresAt: number }>;
  sessions: number;
  loginLinks: number;
  pendingAuthorizations: number;
  deliveries: number;
}

/** Deletes the entries of `map` that `dead` says are dead; returns how many it deleted. */
function sweep<T>(map: Map<string, T>, dead: (value: T) => boolean): number {
  let removed = 0;
  for (const [key, value] of map) {
    if (dead(value)) {
      map.delete(key);
      removed++;
    }
  }
  return removed;
}

/** Tokens issued by a grant: the clear values, returned once to the client and never stored. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
}

/** Options of a {@link Store}. Every field is optional. */
export interface StoreOptions {
  /**
   * The data file (an SQLite database; a version-1 JSON data file is imported, see data-file.ts). Default: none, the
   * database lives in memory.
   */
  dataFile?: string;
  /** When a commit is on disk; see {@link Synchronous}. Default `"full"` (survives a power loss). */
  synchronous?: Synchronous;
  /** How many delivery log entries each account keeps (the newest). Default {@link DELIVERY_LOG_LIMIT}. */
  deliveryLogLimit?: number;
  /** How long a change waits for another process's write lock, ms. Default {@link BUSY_TIMEOUT_MS}. */
  busyTimeoutMs?: number;
  /** Told of an import and of failed commits, one line each. Default: a line on stderr. */
  notice?: (line: string) => void;
}

/** The error text of a delivery whose process stopped before it finished. */
const STOPPED = "emulator stopped before the delivery finished";

/**
 * The emulator's state over one SQLite connection. All methods are synchronous; each change is atomic, and committed
 * (see the module comment) before the app answers. Times come from the injected clock (milliseconds since the epoch).
 */
export class Store {
  private readonly db: DatabaseSync;
  private readonly commits: GroupCommit;
  /** Names this store as the one running its deliveries (see data-file.ts `newOwnerTag`). */
  private readonly owner: string;
  private readonly deliveryLogLimit: number;
  private readonly notice: (line: string) => void;
  private sessions = new Map<string, Session>();
  private loginLinks = new Map<string, { account: string; expiresAt: number }>();
  private pending = new Map<string, PendingAuthorization>();
  private closed = false;

  /**
   * Opens (or creates) the database, closes deliveries left running by a process that is gone, trims the delivery
   * log to its limit and purges the dead.
   *
   * @param now clock in milliseconds since the epoch
   * @param options see {@link StoreOptions}
   * @throws DataFileError when the data file is refused (neither an SQLite database of the emulator nor a valid
   *   version-1 JSON data file, damaged, or of a newer emulator); it is not changed then
   * @throws StoreError `busy` when another process holds the write lock longer than the busy timeout
   * @throws Error for a `deliveryLogLimit` that is not a positive integer, or a data file that cannot be created
   */
  constructor(
    readonly now: () => number,
    options: StoreOptions = {},
  ) {
    const limit = options.deliveryLogLimit ?? DELIVERY_LOG_LIMIT;
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`deliveryLogLimit must be a positive integer, got ${String(limit)}`);
    this.deliveryLogLimit = limit;
    this.notice = options.notice ?? ((line) => void process.stderr.write(`${line}\n`));
    const file = options.dataFile;
    this.db = openDatabase(file, {
      synchronous: options.synchronous ?? "full",
      busyTimeoutMs: options.busyTimeoutMs ?? BUSY_TIMEOUT_MS,
      now,
      notice: this.notice,
    });
    this.owner = newOwnerTag();
    const describe = file === undefined ? "the emulator's in-memory database" : `emulator data file ${file}`;
    this.commits = new GroupCommit(this.db, describe, (error) => this.notice(error.message));
    try {
      this.write(() => {
        this.closeOrphanDeliveries();
        for (const [account] of this.all("SELECT DISTINCT account FROM deliveries")) this.trimDeliveryLog(account as string);
      });
      this.purge();
      this.commits.flush();
    } catch (error) {
      this.db.close();
      releaseOwnerTag(this.owner);
      throw error;
    }
  }

  /** Every row of a query, as column values in `SELECT` order (tables.ts `rows`). */
  private all(sql: string, ...params: SQLInputValue[]): Values[] {
    return rows(this.db, sql, ...params);
  }

  /** The first row of a query, or `undefined`. */
  private one(sql: string, ...params: SQLInputValue[]): Values | undefined {
    return row(this.db, sql, ...params);
  }

  /** Runs a statement that changes rows (inside {@link write}); returns how many it changed. */
  private change(sql: string, ...params: SQLInputValue[]): number {
    return run(this.db, sql, ...params);
  }

  /** Runs `change` as one atomic change of this turn's commit (see commits.ts). */
  private write<T>(change: () => T): T {
    return this.commits.write(change);
  }

  // ---- clients and accounts ----

  /** Registers or replaces an OAuth client (the secret is hashed). */
  upsertClient(client: EmulatorClient): void {
    const stored = { clientId: client.clientId, secretHash: sha256(client.clientSecret), redirectUri: client.redirectUri, name: client.name ?? client.clientId };
    this.write(() => putClient(this.db, stored));
  }

  /** The client with this id, or `undefined`. */
  client(clientId: string): StoredClient | undefined {
    const values = this.one(`SELECT ${CLIENT_COLUMNS} FROM clients WHERE client_id = ?`, clientId);
    return values && clientOf(values);
  }

  /** Checks a client secret in constant time. */
  clientSecretMatches(client: StoredClient, secret: string): boolean {
    return safeEqual(sha256(secret), client.secretHash);
  }

  /** The stored password hash of an account, or `undefined`. */
  private passwordHash(username: string): string | undefined {
    return this.one("SELECT password_hash FROM accounts WHERE username = ?", username)?.[0] as string | undefined;
  }

  /** Registers or replaces an account (the password is hashed). */
  upsertAccount(account: EmulatorAccount): void {
    const existing = this.passwordHash(account.username);
    if (existing !== undefined && verifyPassword(account.password, existing)) return;
    const stored = { username: account.username, passwordHash: hashPassword(account.password) };
    this.write(() => putAccount(this.db, stored));
  }

  /** Whether an account with this username exists. */
  hasAccount(username: string): boolean {
    return this.one("SELECT 1 FROM accounts WHERE username = ?", username) !== undefined;
  }

  /** Usernames of all accounts, in registration order. */
  accountNames(): string[] {
    return this.all("SELECT username FROM accounts ORDER BY seq").map(([username]) => username as string);
  }

  /** Returns the username when the credentials are right, else `undefined`. */
  authenticate(username: string, password: string): string | undefined {
    const hash = this.passwordHash(username);
    if (hash === undefined) {
      verifyPassword(password, hashPassword("timing")); // similar work for unknown users
      return undefined;
    }
    return verifyPassword(password, hash) ? username : undefined;
  }

  // ---- authorization codes (RFC 6749 §4.1.2) ----

  /** Issues a single-use authorization code valid {@link CODE_TTL_MS}; returns the clear code. */
  issueCode(grant: { clientId: string; redirectUri: string; account: string; codeChallenge?: string }): string {
    const code = randomToken(32);
    const stored: StoredCode = {
      hash: sha256(code),
      clientId: grant.clientId,
      redirectUri: grant.redirectUri,
      account: grant.account,
      expiresAt: this.now() + CODE_TTL_MS,
      grantId: randomId("grant_"),
    };
    if (grant.codeChallenge !== undefined) stored.codeChallenge = grant.codeChallenge;
    this.write(() => {
      this.boundCodes();
      insertCode(this.db, stored);
    });
    return code;
  }

  /**
   * Keeps the codes table bounded before an insert (authorize requests fill it without credentials): past
   * {@link MEMORY_MAP_SOFT_LIMIT} codes the dead ones are dropped, and past {@link MEMORY_MAP_HARD_LIMIT} the oldest.
   */
  private boundCodes(): void {
    const count = () => this.one("SELECT count(*) FROM codes")![0] as number;
    if (count() < MEMORY_MAP_SOFT_LIMIT) return;
    this.deleteDeadCodes(this.now());
    const excess = count() - MEMORY_MAP_HARD_LIMIT + 1;
    if (excess > 0) this.change("DELETE FROM codes WHERE seq IN (SELECT seq FROM codes ORDER BY seq LIMIT ?)", excess);
  }

  /**
   * The stored code for a clear code (expired and used ones included while they are kept, {@link CODE_TTL_MS} past
   * expiry), or `undefined`. Does not mark it used; purges it when it is dead.
   */
  findCode(code: string): StoredCode | undefined {
    const hash = sha256(code);
    const values = this.one(`SELECT ${CODE_COLUMNS} FROM codes WHERE hash = ?`, hash);
    return this.unlessDead(values && codeOf(values), (c, now) => c.expiresAt + CODE_TTL_MS <= now, () => this.change("DELETE FROM codes WHERE hash = ?", hash));
  }

  /** `stored`, or `undefined` when it is dead (then `purge` removes it on the way). */
  private unlessDead<T>(stored: T | undefined, dead: (value: T, now: number) => boolean, purge: () => unknown): T | undefined {
    if (stored === undefined || !dead(stored, this.now())) return stored;
    this.write(purge);
    return undefined;
  }

  /** Deletes the codes that are dead: {@link CODE_TTL_MS} past their expiry, used or not. Returns how many. */
  private deleteDeadCodes(now: number): number {
    return this.change("DELETE FROM codes WHERE expires_at <= ?", now - CODE_TTL_MS);
  }

  /**
   * Marks a code as exchanged, unless it already is (by another request or another process sharing the data file).
   * @returns whether this call marked it: `false` means the code was used before (a reuse, RFC 6749 §4.1.2)
   */
  markCodeUsed(code: StoredCode): boolean {
    const now = this.now();
    const marked = this.write(() => this.change("UPDATE codes SET used_at = ? WHERE hash = ? AND used_at IS NULL", now, code.hash)) > 0;
    if (marked) code.usedAt = now;
    return marked;
  }

  // ---- tokens (RFC 6749 §1.4, §1.5) ----

  /**
   * Issues an access token (lifetime `ttlSeconds`) and, unless `refreshToken` is given (a refresh without rotation
   * keeps the old one), a new refresh token, both bound to `grantId`. A grant holds at most
   * {@link MAX_ACCESS_TOKENS_PER_GRANT} live access tokens: the oldest beyond are revoked.
   */
  issueTokens(
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
    this.write(() => {
      this.limitAccessTokens(grant.grantId, MAX_ACCESS_TOKENS_PER_GRANT - 1);
      insertToken(this.db, { ...token(sha256(accessToken), "access"), expiresAt: this.now() + ttlSeconds * 1000 });
      if (refreshToken === undefined) insertToken(this.db, token(sha256(refresh), "refresh"));
    });
    return { accessToken, refreshToken: refresh };
  }

  /** Revokes the oldest live access tokens of a grant until at most `keep` remain (`seq` is issue order). */
  private limitAccessTokens(grantId: string, keep: number): void {
    const now = this.now();
    this.change(
      `UPDATE tokens SET revoked_at = ?1 WHERE seq IN (
         SELECT seq FROM tokens WHERE grant_id = ?2 AND kind = 'access' AND revoked_at IS NULL AND expires_at > ?1
         ORDER BY seq DESC LIMIT -1 OFFSET ?3)`,
      now, grantId, keep,
    );
  }

  /**
   * The stored token of this kind for a clear token (revoked and expired ones included while they are kept,
   * {@link DEAD_TOKEN_RETENTION_MS}), or `undefined`. A token past that is purged here.
   */
  findToken(token: string, kind: "access" | "refresh"): StoredToken | undefined {
    const hash = sha256(token);
    const values = this.one(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE hash = ?`, hash);
    const stored = this.unlessDead(values && tokenOf(values), (t, now) => {
      const diedAt = t.revoked ? t.revokedAt : t.expiresAt;
      return diedAt !== undefined && diedAt + DEAD_TOKEN_RETENTION_MS <= now;
    }, () => this.change("DELETE FROM tokens WHERE hash = ?", hash));
    return stored?.kind === kind ? stored : undefined;
  }

  /**
   * Revokes one token (kept {@link DEAD_TOKEN_RETENTION_MS}, then purged), unless it already is revoked (by another
   * request or another process sharing the data file).
   * @returns whether this call revoked it: `false` means it was revoked before (for a refresh token being rotated:
   *   a replay, RFC 9700 §4.14.2)
   */
  revokeToken(token: StoredToken): boolean {
    const now = this.now();
    const revoked = this.write(() => this.change("UPDATE tokens SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL", now, token.hash)) > 0;
    if (revoked) {
      token.revoked = true;
      token.revokedAt = now;
    }
    return revoked;
  }

  /** Revokes every token issued under a grant (RFC 6749 §4.1.2: a code used twice). */
  revokeGrant(grantId: string): void {
    const now = this.now();
    this.write(() => this.change("UPDATE tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL", now, grantId));
  }

  // ---- webhooks (docs/helpdesk-api.md §2.1, §4.3, §4.4) ----

  /** Creates an `active` webhook owned by `account`. */
  createWebhook(account: string, event: WebhookEvent, url: string): StoredWebhook {
    const webhook: StoredWebhook = {
      id: randomId("wh_"),
      event,
      url,
      state: "active",
      account,
      createdAt: new Date(this.now()).toISOString(),
    };
    this.write(() => insertWebhook(this.db, webhook));
    return webhook;
  }

  /** Deletes the webhook when it exists and belongs to `account`; returns whether it did. */
  deleteWebhook(account: string, id: string): boolean {
    return this.write(() => this.change("DELETE FROM webhooks WHERE id = ? AND account = ?", id, account)) > 0;
  }

  /** Webhooks in creation order, optionally of one account and/or one event. */
  listWebhooks(filter: { account?: string; event?: WebhookEvent } = {}): StoredWebhook[] {
    const { where, values } = conditions({ account: filter.account, event: filter.event });
    return this.all(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks${where} ORDER BY seq`, ...values).map(webhookOf);
  }

  // ---- delivery log ----

  /**
   * Appends delivery log entries, all or none, keeping the newest `deliveryLogLimit` entries of each account. Entries
   * not `done` are recorded as run by this store until {@link updateDelivery} records them done.
   */
  addDeliveries(entries: readonly DeliveryLogEntry[]): void {
    this.write(() => {
      for (const entry of entries) insertDelivery(this.db, entry, this.owner);
      for (const account of new Set(entries.map((e) => e.account))) this.trimDeliveryLog(account);
    });
  }

  /** Deletes the oldest entries of an account's delivery log beyond `deliveryLogLimit`. */
  private trimDeliveryLog(account: string): void {
    this.change(
      `DELETE FROM deliveries WHERE account = ?1 AND seq <= (
         SELECT seq FROM deliveries WHERE account = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)`,
      account, this.deliveryLogLimit,
    );
  }

  /**
   * Records the new status, attempts, outcome and error of an entry passed to {@link addDeliveries} (a no-op when the
   * log no longer holds it, or the store is closed: an attempt that outlived `close()`). Never throws: the log is not
   * acknowledged to anyone, so a failure is only told to the notice sink.
   */
  updateDelivery(entry: DeliveryLogEntry): void {
    if (this.closed) return;
    try {
      this.write(() =>
        this.change(
          "UPDATE deliveries SET status = ?, attempts = ?, ok = ?, done = ?, error = ?, owner = ? WHERE id = ?",
          entry.status, entry.attempts, entry.ok ? 1 : 0, entry.done ? 1 : 0, entry.error ?? null, entry.done ? null : this.owner, entry.id,
        ),
      );
    } catch (error) {
      this.notice(`delivery ${entry.id} could not be logged: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Ends the entries left not done by a store that is gone (a process that crashed, see data-file.ts `ownerGone`):
   * `ok: false`, with their last error or "emulator stopped before the delivery finished".
   */
  private closeOrphanDeliveries(): void {
    for (const [owner] of this.all("SELECT DISTINCT owner FROM deliveries WHERE owner IS NOT NULL")) {
      if (!ownerGone(owner as string)) continue;
      this.change("UPDATE deliveries SET done = 1, ok = 0, error = coalesce(error, ?), owner = NULL WHERE owner = ?", STOPPED, owner as string);
    }
  }

  /**
   * Delivery log entries, oldest first, optionally of one account and/or one webhook, and only the newest `limit`.
   */
  listDeliveries(filter: { account?: string; webhookId?: string; limit?: number } = {}): DeliveryLogEntry[] {
    const { where, values } = conditions({ account: filter.account, webhook_id: filter.webhookId });
    const newest = `SELECT seq, ${DELIVERY_COLUMNS} FROM deliveries${where} ORDER BY seq DESC LIMIT ?`;
    return this.all(`SELECT ${DELIVERY_COLUMNS} FROM (${newest}) ORDER BY seq`, ...values, filter.limit ?? -1).map(deliveryOf);
  }

  // ---- browser sessions, sign-in links, pending consents (memory only) ----

  /** Starts a session for `account`; returns the session id (the cookie value) and the session. */
  createSession(account: string): { id: string; session: Session } {
    const id = randomToken(32);
    const session: Session = { account, expiresAt: this.now() + SESSION_TTL_MS };
    this.bound(this.sessions, (v, now) => v.expiresAt <= now);
    this.sessions.set(id, session);
    return { id, session };
  }

  /** The live session for a session id, or `undefined` (expired sessions are removed). */
  session(id: string | undefined): Session | undefined {
    if (id === undefined) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (session.expiresAt <= this.now() || !this.hasAccount(session.account)) {
      this.sessions.delete(id);
      return undefined;
    }
    return session;
  }

  /** Ends a session. */
  endSession(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(id);
  }

  /** Issues a single-use sign-in token for `account`, valid {@link LOGIN_LINK_TTL_MS}. */
  issueLoginLink(account: string): string {
    const token = randomToken(32);
    this.bound(this.loginLinks, (v, now) => v.expiresAt <= now);
    this.loginLinks.set(sha256(token), { account, expiresAt: this.now() + LOGIN_LINK_TTL_MS });
    return token;
  }

  /** Consumes a sign-in token; returns its account, or `undefined` when unknown, used or expired. */
  consumeLoginLink(token: string): string | undefined {
    const key = sha256(token);
    const link = this.loginLinks.get(key);
    this.loginLinks.delete(key);
    if (!link || link.expiresAt <= this.now() || !this.hasAccount(link.account)) return undefined;
    return link.account;
  }

  /** Stores an authorization request shown on the consent page; returns its unguessable id. */
  addPending(request: Omit<PendingAuthorization, "expiresAt">): string {
    const id = randomToken(24);
    this.bound(this.pending, (v, now) => v.expiresAt <= now);
    this.pending.set(id, { ...request, expiresAt: this.now() + PENDING_TTL_MS });
    return id;
  }

  /** Reads (without consuming) a live pending request; an expired one is purged. */
  peekPending(id: string): PendingAuthorization | undefined {
    const request = this.pending.get(id);
    if (!request) return undefined;
    if (request.expiresAt <= this.now()) {
      this.pending.delete(id);
      return undefined;
    }
    return request;
  }

  /** Consumes a pending request: it can be answered once. */
  takePending(id: string): PendingAuthorization | undefined {
    const request = this.peekPending(id);
    this.pending.delete(id);
    return request;
  }

  /**
   * Keeps a map that routes without credentials fill (sessions, sign-in links, pending consents) bounded before an
   * insert: past {@link MEMORY_MAP_SOFT_LIMIT} entries the dead ones are dropped, and past
   * {@link MEMORY_MAP_HARD_LIMIT} the oldest.
   */
  private bound<T>(map: Map<string, T>, dead: (value: T, now: number) => boolean): void {
    if (map.size < MEMORY_MAP_SOFT_LIMIT) return;
    const now = this.now();
    sweep(map, (value) => dead(value, now));
    for (const key of map.keys()) {
      if (map.size < MEMORY_MAP_HARD_LIMIT) break;
      map.delete(key);
    }
  }

  /**
   * Purges every dead entry: codes {@link CODE_TTL_MS} past expiry, tokens {@link DEAD_TOKEN_RETENTION_MS} after they
   * expired or were revoked, and expired sessions, sign-in links and pending consents. Live entries are untouched.
   * @returns how many entries were removed
   * @throws StoreError `busy` when another process holds the write lock longer than the busy timeout
   */
  purge(): number {
    const now = this.now();
    const cutoff = now - DEAD_TOKEN_RETENTION_MS;
    const persisted = this.write(
      () =>
        this.deleteDeadCodes(now) +
        this.change("DELETE FROM tokens WHERE revoked_at <= ?1 OR (revoked_at IS NULL AND expires_at <= ?1)", cutoff),
    );
    const expired = (v: { expiresAt: number }) => v.expiresAt <= now;
    return persisted + sweep(this.sessions, expired) + sweep(this.loginLinks, expired) + sweep(this.pending, expired);
  }

  /** The live state, without secrets (see {@link LiveState}). */
  liveState(): LiveState {
    const now = this.now();
    const live = (map: Map<string, { expiresAt: number }>) => {
      let n = 0;
      for (const value of map.values()) if (value.expiresAt > now) n++;
      return n;
    };
    // Without secrets: a token or code is named by the first 12 characters of its stored hash.
    const tokens = this.all(
      "SELECT substr(hash, 1, 12), kind, client_id, account, grant_id, expires_at FROM tokens WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY seq",
      now,
    );
    const codes = this.all("SELECT substr(hash, 1, 12), client_id, account, grant_id, expires_at FROM codes WHERE used_at IS NULL AND expires_at > ? ORDER BY seq", now);
    return {
      webhooks: this.listWebhooks(),
      tokens: tokens.map(([ref, kind, clientId, account, grantId, expiresAt]) => ({
        ref: ref as string,
        kind: kind as "access" | "refresh",
        clientId: clientId as string,
        account: account as string,
        grantId: grantId as string,
        expiresAt: expiresAt as number | null,
      })),
      codes: codes.map(([ref, clientId, account, grantId, expiresAt]) => ({ ref: ref as string, clientId: clientId as string, account: account as string, grantId: grantId as string, expiresAt: expiresAt as number })),
      sessions: live(this.sessions),
      loginLinks: live(this.loginLinks),
      pendingAuthorizations: live(this.pending),
      deliveries: this.one("SELECT count(*) FROM deliveries")![0] as number,
    };
  }

  // ---- durability ----

  /** A mark to pass to {@link committed} when a request starts. */
  commitMark(): number {
    return this.commits.mark();
  }

  /**
   * Resolves when every change made since `mark` is committed; the app awaits it before sending any answer.
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
   * Commits pending changes and closes the database (the last connection to close checkpoints the write-ahead log
   * into the file). The store is unusable afterwards.
   * @throws StoreError `commit` when the last commit failed (the database is closed all the same)
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.commits.flush();
    } finally {
      this.db.close();
      releaseOwnerTag(this.owner);
    }
  }
}

/** A `WHERE` clause matching each given column (undefined ones are left out), and its values in order. */
function conditions(columns: Record<string, string | undefined>): { where: string; values: string[] } {
  const given = Object.entries(columns).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return {
    where: given.length === 0 ? "" : ` WHERE ${given.map(([column]) => `${column} = ?`).join(" AND ")}`,
    values: given.map(([, value]) => value),
  };
}
