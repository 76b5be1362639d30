/**
 * The emulator's state: OAuth clients, accounts, authorization codes, tokens, webhooks and the delivery log
 * (persisted when a data file is given), plus browser sessions, one-time sign-in links and pending consent requests
 * (memory only). Dead entries (expired or revoked tokens, expired or used codes, expired sessions, links and consents)
 * are purged, on access and by {@link Store.purge}, which the running emulator calls every
 * {@link PURGE_INTERVAL_MS}.
 *
 * Secrets are never kept in clear: client secrets, passwords, codes and tokens are stored as hashes, so the data file
 * holds nothing a caller could replay.
 */
import { readFile } from "node:fs/promises";
import type { WebhookEvent } from "../sdk/events.js";
import type { EmulatorAccount, EmulatorClient } from "./types.js";
import { writeFileAtomic } from "./persist.js";
import { hashPassword, randomId, randomToken, safeEqual, sha256, verifyPassword } from "./secrets.js";

/** A registered OAuth client; the secret is kept as a SHA-256 hash. */
export interface StoredClient {
  clientId: string;
  secretHash: string;
  redirectUri: string;
  name: string;
}

/** An account; the password is kept as a scrypt hash. */
export interface StoredAccount {
  username: string;
  passwordHash: string;
}

/** An authorization code (RFC 6749 §4.1.2), stored by hash. Times in milliseconds since the epoch. */
export interface StoredCode {
  hash: string;
  clientId: string;
  redirectUri: string;
  account: string;
  /** PKCE S256 challenge (RFC 7636 §4.2), when the authorization request carried one. */
  codeChallenge?: string;
  expiresAt: number;
  /** Set when the code has been exchanged; a second exchange revokes the grant (RFC 6749 §4.1.2). */
  usedAt?: number;
  /** Every token issued from this code (and refreshes of them) carries this grant id. */
  grantId: string;
}

/** An access or refresh token, stored by hash. `expiresAt` in milliseconds since the epoch (access tokens only). */
export interface StoredToken {
  hash: string;
  kind: "access" | "refresh";
  clientId: string;
  account: string;
  grantId: string;
  expiresAt?: number;
  revoked: boolean;
  /** When it was revoked (milliseconds since the epoch); purged {@link DEAD_TOKEN_RETENTION_MS} later. */
  revokedAt?: number;
}

/** A registered webhook (spec §2.1). `createdAt` is ISO 8601 UTC. */
export interface StoredWebhook {
  id: string;
  event: WebhookEvent;
  url: string;
  state: "active";
  account: string;
  createdAt: string;
}

/**
 * One entry of the delivery log: one record POSTed to one webhook, with all its attempts.
 * `time` is ISO 8601 UTC (when the delivery was queued); `status` is the last HTTP status or `null` (network error or
 * not attempted yet); `done` is false while attempts remain.
 */
export interface DeliveryLogEntry {
  id: string;
  time: string;
  webhookId: string;
  event: WebhookEvent;
  url: string;
  account: string;
  status: number | null;
  attempts: number;
  ok: boolean;
  done: boolean;
  error?: string;
}

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

interface PersistedState {
  version: 1;
  clients: StoredClient[];
  accounts: StoredAccount[];
  codes: StoredCode[];
  tokens: StoredToken[];
  webhooks: StoredWebhook[];
  deliveries: DeliveryLogEntry[];
}

/** Lifetime of an authorization code: 600 s (RFC 6749 §4.1.2 recommends at most 10 minutes). */
export const CODE_TTL_MS = 600_000;
/** Lifetime of a one-time sign-in link: 10 minutes. */
export const LOGIN_LINK_TTL_MS = 600_000;
/** Lifetime of a browser session: 8 hours. */
export const SESSION_TTL_MS = 8 * 3600_000;
/** Lifetime of a pending consent request: 10 minutes. */
export const PENDING_TTL_MS = 600_000;
/** The delivery log keeps the newest entries only. */
export const DELIVERY_LOG_LIMIT = 1000;

/** Sessions, sign-in links and pending consents: expired entries are swept past this many. */
export const MEMORY_MAP_SOFT_LIMIT = 1000;
/** Sessions, sign-in links and pending consents: the oldest are dropped past this many. */
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
 * sessions, sign-in links and pending consents exist, and how many entries the delivery log holds. Dead entries are
 * left out, so purging never changes it. `expiresAt` is in milliseconds since the epoch (`null`: never, refresh
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

/**
 * In-memory state with optional JSON durability. All methods are synchronous; mutations schedule a debounced,
 * atomic save when a data file is set. Times come from the injected clock (milliseconds since the epoch).
 */
export class Store {
  private clients = new Map<string, StoredClient>();
  private accounts = new Map<string, StoredAccount>();
  private codes = new Map<string, StoredCode>();
  private tokens = new Map<string, StoredToken>();
  private webhooks = new Map<string, StoredWebhook>();
  private deliveries: DeliveryLogEntry[] = [];
  private sessions = new Map<string, Session>();
  private loginLinks = new Map<string, { account: string; expiresAt: number }>();
  private pending = new Map<string, PendingAuthorization>();

  private saveTimer: NodeJS.Timeout | undefined;
  private saving: Promise<void> = Promise.resolve();
  private saveError: unknown;

  /**
   * @param now clock in milliseconds since the epoch
   * @param dataFile optional durability file (see {@link Store.load})
   */
  constructor(
    readonly now: () => number,
    private readonly dataFile?: string,
  ) {}

  /**
   * Reads `dataFile` into this store when it exists. A missing file is an empty state.
   * @throws Error when the file exists but is not a version-1 state file (it is never overwritten then)
   */
  async load(): Promise<void> {
    if (!this.dataFile) return;
    let text: string;
    try {
      text = await readFile(this.dataFile, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    const state = JSON.parse(text) as Partial<PersistedState>;
    if (state.version !== 1) {
      throw new Error(`emulator data file ${this.dataFile} has unsupported version ${String(state.version)}`);
    }
    for (const c of state.clients ?? []) this.clients.set(c.clientId, c);
    for (const a of state.accounts ?? []) this.accounts.set(a.username, a);
    for (const c of state.codes ?? []) this.codes.set(c.hash, c);
    for (const t of state.tokens ?? []) this.tokens.set(t.hash, t.revoked && t.revokedAt === undefined ? { ...t, revokedAt: this.now() } : t);
    for (const w of state.webhooks ?? []) this.webhooks.set(w.id, w);
    this.deliveries = (state.deliveries ?? []).map((d) =>
      d.done ? d : { ...d, done: true, ok: false, error: d.error ?? "emulator stopped before the delivery finished" },
    );
  }

  // ---- clients and accounts ----

  /** Registers or replaces an OAuth client (the secret is hashed). */
  upsertClient(client: EmulatorClient): void {
    this.clients.set(client.clientId, {
      clientId: client.clientId,
      secretHash: sha256(client.clientSecret),
      redirectUri: client.redirectUri,
      name: client.name ?? client.clientId,
    });
    this.changed();
  }

  /** The client with this id, or `undefined`. */
  client(clientId: string): StoredClient | undefined {
    return this.clients.get(clientId);
  }

  /** Checks a client secret in constant time. */
  clientSecretMatches(client: StoredClient, secret: string): boolean {
    return safeEqual(sha256(secret), client.secretHash);
  }

  /** Registers or replaces an account (the password is hashed). */
  upsertAccount(account: EmulatorAccount): void {
    const existing = this.accounts.get(account.username);
    if (existing && verifyPassword(account.password, existing.passwordHash)) return;
    this.accounts.set(account.username, { username: account.username, passwordHash: hashPassword(account.password) });
    this.changed();
  }

  /** Whether an account with this username exists. */
  hasAccount(username: string): boolean {
    return this.accounts.has(username);
  }

  /** Usernames of all accounts, in registration order. */
  accountNames(): string[] {
    return [...this.accounts.keys()];
  }

  /** Returns the username when the credentials are right, else `undefined`. */
  authenticate(username: string, password: string): string | undefined {
    const account = this.accounts.get(username);
    if (!account) {
      verifyPassword(password, hashPassword("timing")); // similar work for unknown users
      return undefined;
    }
    return verifyPassword(password, account.passwordHash) ? account.username : undefined;
  }

  // ---- authorization codes (RFC 6749 §4.1.2) ----

  /** Issues a single-use authorization code valid {@link CODE_TTL_MS}; returns the clear code. */
  issueCode(grant: { clientId: string; redirectUri: string; account: string; codeChallenge?: string }): string {
    this.bound(this.codes, (c, now) => this.codeDead(c, now));
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
    this.codes.set(stored.hash, stored);
    this.changed();
    return code;
  }

  /**
   * The stored code for a clear code (expired and used ones included while they are kept, {@link CODE_TTL_MS} past
   * expiry), or `undefined`. Does not mark it used; purges it when it is dead.
   */
  findCode(code: string): StoredCode | undefined {
    return this.lookupPurging(this.codes, sha256(code), (c, now) => this.codeDead(c, now));
  }

  /** The entry of a persisted map under `key`, or `undefined`; a dead one is purged on the way. */
  private lookupPurging<T>(map: Map<string, T>, key: string, dead: (value: T, now: number) => boolean): T | undefined {
    const stored = map.get(key);
    if (stored === undefined || !dead(stored, this.now())) return stored;
    map.delete(key);
    this.changed();
    return undefined;
  }

  /** A code is dead (purged) {@link CODE_TTL_MS} after its expiry, used or not. */
  private codeDead(code: StoredCode, now: number): boolean {
    return code.expiresAt + CODE_TTL_MS <= now;
  }

  /** A token is dead (purged) {@link DEAD_TOKEN_RETENTION_MS} after it expired or was revoked. */
  private tokenDead(token: StoredToken, now: number): boolean {
    const diedAt = token.revoked ? (token.revokedAt ?? now) : token.expiresAt;
    return diedAt !== undefined && diedAt + DEAD_TOKEN_RETENTION_MS <= now;
  }

  /** Marks a code as exchanged. */
  markCodeUsed(code: StoredCode): void {
    code.usedAt = this.now();
    this.changed();
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
    this.limitAccessTokens(grant.grantId, MAX_ACCESS_TOKENS_PER_GRANT - 1);
    const accessToken = randomToken(32);
    this.tokens.set(sha256(accessToken), {
      hash: sha256(accessToken),
      kind: "access",
      clientId: grant.clientId,
      account: grant.account,
      grantId: grant.grantId,
      expiresAt: this.now() + ttlSeconds * 1000,
      revoked: false,
    });
    let refresh = refreshToken;
    if (refresh === undefined) {
      refresh = randomToken(32);
      this.tokens.set(sha256(refresh), {
        hash: sha256(refresh),
        kind: "refresh",
        clientId: grant.clientId,
        account: grant.account,
        grantId: grant.grantId,
        revoked: false,
      });
    }
    this.changed();
    return { accessToken, refreshToken: refresh };
  }

  /** Revokes the oldest live access tokens of a grant until at most `keep` remain (Map order is issue order). */
  private limitAccessTokens(grantId: string, keep: number): void {
    const now = this.now();
    const live = [...this.tokens.values()].filter(
      (t) => t.grantId === grantId && t.kind === "access" && !t.revoked && (t.expiresAt ?? Infinity) > now,
    );
    for (const token of live.slice(0, Math.max(0, live.length - keep))) this.revokeToken(token);
  }

  /**
   * The stored token of this kind for a clear token (revoked and expired ones included while they are kept,
   * {@link DEAD_TOKEN_RETENTION_MS}), or `undefined`. A token past that is purged here.
   */
  findToken(token: string, kind: "access" | "refresh"): StoredToken | undefined {
    const stored = this.lookupPurging(this.tokens, sha256(token), (t, now) => this.tokenDead(t, now));
    return stored?.kind === kind ? stored : undefined;
  }

  /** Revokes one token (kept {@link DEAD_TOKEN_RETENTION_MS}, then purged). */
  revokeToken(token: StoredToken): void {
    if (!token.revoked) {
      token.revoked = true;
      token.revokedAt = this.now();
    }
    this.changed();
  }

  /** Revokes every token issued under a grant (RFC 6749 §4.1.2: a code used twice). */
  revokeGrant(grantId: string): void {
    for (const token of this.tokens.values()) if (token.grantId === grantId) this.revokeToken(token);
    this.changed();
  }

  // ---- webhooks (spec §2.1, §4.3, §4.4) ----

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
    this.webhooks.set(webhook.id, webhook);
    this.changed();
    return webhook;
  }

  /** Deletes the webhook when it exists and belongs to `account`; returns whether it did. */
  deleteWebhook(account: string, id: string): boolean {
    const webhook = this.webhooks.get(id);
    if (!webhook || webhook.account !== account) return false;
    this.webhooks.delete(id);
    this.changed();
    return true;
  }

  /** Webhooks in creation order, optionally of one account and/or one event. */
  listWebhooks(filter: { account?: string; event?: WebhookEvent } = {}): StoredWebhook[] {
    return [...this.webhooks.values()].filter(
      (w) =>
        (filter.account === undefined || w.account === filter.account) &&
        (filter.event === undefined || w.event === filter.event),
    );
  }

  // ---- delivery log ----

  /** Appends a delivery log entry (dropping the oldest past {@link DELIVERY_LOG_LIMIT}). */
  addDelivery(entry: DeliveryLogEntry): void {
    this.deliveries.push(entry);
    if (this.deliveries.length > DELIVERY_LOG_LIMIT) this.deliveries.splice(0, this.deliveries.length - DELIVERY_LOG_LIMIT);
    this.changed();
  }

  /** Records a change to an entry returned by {@link listDeliveries} or passed to {@link addDelivery}. */
  deliveryUpdated(): void {
    this.changed();
  }

  /** Delivery log entries, oldest first, optionally of one account and/or one webhook. */
  listDeliveries(filter: { account?: string; webhookId?: string } = {}): DeliveryLogEntry[] {
    return this.deliveries.filter(
      (d) =>
        (filter.account === undefined || d.account === filter.account) &&
        (filter.webhookId === undefined || d.webhookId === filter.webhookId),
    );
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
    if (session.expiresAt <= this.now() || !this.accounts.has(session.account)) {
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
    if (!link || link.expiresAt <= this.now() || !this.accounts.has(link.account)) return undefined;
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
   * Keeps a map that routes without credentials fill (sessions, sign-in links, pending consents, codes) bounded before
   * an insert: past {@link MEMORY_MAP_SOFT_LIMIT} entries the dead ones are dropped, and past
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
   */
  purge(): number {
    const now = this.now();
    const persisted = sweep(this.codes, (c) => this.codeDead(c, now)) + sweep(this.tokens, (t) => this.tokenDead(t, now));
    const expired = (v: { expiresAt: number }) => v.expiresAt <= now;
    const memoryOnly = sweep(this.sessions, expired) + sweep(this.loginLinks, expired) + sweep(this.pending, expired);
    if (persisted > 0) this.changed();
    return persisted + memoryOnly;
  }

  /** The live state, without secrets (see {@link LiveState}). */
  liveState(): LiveState {
    const now = this.now();
    const live = (map: Map<string, { expiresAt: number }>) => {
      let n = 0;
      for (const value of map.values()) if (value.expiresAt > now) n++;
      return n;
    };
    return {
      webhooks: this.listWebhooks().map((w) => ({ ...w })),
      tokens: [...this.tokens.values()]
        .filter((t) => !t.revoked && (t.expiresAt ?? Infinity) > now)
        .map(({ hash, kind, clientId, account, grantId, expiresAt }) => ({ ref: hash.slice(0, 12), kind, clientId, account, grantId, expiresAt: expiresAt ?? null })),
      codes: [...this.codes.values()]
        .filter((c) => c.usedAt === undefined && c.expiresAt > now)
        .map(({ hash, clientId, account, grantId, expiresAt }) => ({ ref: hash.slice(0, 12), clientId, account, grantId, expiresAt })),
      sessions: live(this.sessions),
      loginLinks: live(this.loginLinks),
      pendingAuthorizations: live(this.pending),
      deliveries: this.deliveries.length,
    };
  }

  // ---- durability ----

  private changed(): void {
    if (!this.dataFile || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.save();
    }, 25);
  }

  private save(): Promise<void> {
    const file = this.dataFile;
    if (!file) return Promise.resolve();
    this.purge();
    const state: PersistedState = {
      version: 1,
      clients: [...this.clients.values()],
      accounts: [...this.accounts.values()],
      codes: [...this.codes.values()],
      tokens: [...this.tokens.values()],
      webhooks: [...this.webhooks.values()],
      deliveries: this.deliveries,
    };
    const text = JSON.stringify(state, null, 1);
    this.saving = this.saving
      .then(() => writeFileAtomic(file, text))
      .catch((error: unknown) => {
        this.saveError = error;
      });
    return this.saving;
  }

  /**
   * Writes pending changes now (used by `close()`).
   * @throws the last write error, if a save failed
   */
  async flush(): Promise<void> {
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveTimer = undefined;
      await this.save();
    }
    await this.saving;
    if (this.saveError !== undefined) {
      const error = this.saveError;
      this.saveError = undefined;
      throw error;
    }
  }
}
