/**
 * What the store keeps in memory only, per process: browser sessions, one-time sign-in links and authorization
 * requests waiting on the consent page. None of it is a credential a client could keep (a restart signs browsers
 * out), and each emulator sharing a data file has its own. Routes without credentials fill these maps, so each is
 * bounded (see {@link MEMORY_MAP_SOFT_LIMIT}).
 */
import { randomToken, sha256 } from "../secrets.js";
import type { LiveState } from "../types.js";
import type { Accounts } from "./accounts.js";
import { MEMORY_MAP_HARD_LIMIT, MEMORY_MAP_SOFT_LIMIT } from "./database.js";

/** Lifetime of a one-time sign-in link: 10 minutes. */
export const LOGIN_LINK_TTL_MS = 600_000;
/** Lifetime of a browser session: 8 hours. */
export const SESSION_TTL_MS = 8 * 3600_000;
/** Lifetime of a pending consent request: 10 minutes. */
export const PENDING_TTL_MS = 600_000;

/** A signed-in browser session. `expiresAt` in milliseconds since the epoch. */
export interface Session {
  account: string;
  expiresAt: number;
}

/** An authorization request waiting on the consent page. `expiresAt` in milliseconds since the epoch. */
export interface PendingAuthorization {
  clientId: string;
  redirectUri: string;
  state?: string;
  codeChallenge?: string;
  expiresAt: number;
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

/** Browser sessions, sign-in links and pending consents of this process. */
export class BrowserState {
  private sessions = new Map<string, Session>();
  private loginLinks = new Map<string, { account: string; expiresAt: number }>();
  private pending = new Map<string, PendingAuthorization>();

  /**
   * @param now the store's clock, milliseconds since the epoch
   * @param accounts a session or link of an account that no longer exists is worthless
   */
  constructor(
    private readonly now: () => number,
    private readonly accounts: Accounts,
  ) {}

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

  /** Issues a single-use sign-in token for `account`, valid {@link LOGIN_LINK_TTL_MS}; only its hash is kept. */
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

  /** Stores an authorization request shown on the consent page, valid {@link PENDING_TTL_MS}; returns its unguessable id. */
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

  /** Consumes a pending request: it can be used once. */
  takePending(id: string): PendingAuthorization | undefined {
    const request = this.peekPending(id);
    this.pending.delete(id);
    return request;
  }

  /**
   * Keeps a map bounded before an insert: past {@link MEMORY_MAP_SOFT_LIMIT} entries the dead ones are dropped, and
   * past {@link MEMORY_MAP_HARD_LIMIT} the oldest.
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

  /** Deletes the sessions, sign-in links and pending consents expired at `now`; returns how many. */
  purge(now: number): number {
    const expired = (v: { expiresAt: number }) => v.expiresAt <= now;
    return sweep(this.sessions, expired) + sweep(this.loginLinks, expired) + sweep(this.pending, expired);
  }

  /** How many sessions, sign-in links and pending consents are live at `now`. */
  live(now: number): Pick<LiveState, "sessions" | "loginLinks" | "pendingAuthorizations"> {
    const count = (map: Map<string, { expiresAt: number }>) => {
      let n = 0;
      for (const value of map.values()) if (value.expiresAt > now) n++;
      return n;
    };
    return {
      sessions: count(this.sessions),
      loginLinks: count(this.loginLinks),
      pendingAuthorizations: count(this.pending),
    };
  }
}
