/**
 * The emulator's state: one SQLite database (the data file, or memory when none is given: one code path) whose
 * tables each have a module of their own under store/ (clients, accounts, codes, tokens, webhooks, the delivery log),
 * plus what is kept in memory only, per process (browser sessions, one-time sign-in links, pending consents:
 * store/sessions.ts). {@link Store} opens the database, hands the one handle (store/database.ts) to every table
 * module, and does what spans them: recovery at start, purging, the live state and durability.
 *
 * Why SQLite through `node:sqlite` (`DatabaseSync`): it is built into Node (>= 22.5; without a flag or warning in
 * Node 24), so there is no native addon to compile or download; its synchronous API fits a store whose methods are
 * synchronous and whose every change must be committed before the response that acknowledges it is sent; and SQLite
 * gives atomic commits, a write-ahead log, indexes and locking between processes, where the JSON file before it was
 * rewritten whole, 25 ms after a change, and lost what was acknowledged in between. Some statements use a numbered
 * parameter twice (`?1`), which `node:sqlite` binds by position only from Node.js 22.20 and 24.7: one reason for the
 * package's Node.js floor (kernel/node-support.ts).
 *
 * Every change is committed before it is acknowledged: the app waits for {@link Store.committed} before sending any
 * response, and changes of one event-loop turn, whatever tables they touch, share one commit (commits.ts). Every read
 * goes to the database, so two emulators on one data file see each other's changes at once; single-use steps (a code
 * exchanged, a refresh token rotated) are conditional updates, so only one of two racing processes wins.
 *
 * Secrets are never kept in clear: client secrets, codes and tokens are stored as SHA-256 hashes and passwords as
 * scrypt hashes (secrets.ts), so the data file holds nothing a caller could replay.
 */
import type { LiveState, Synchronous } from "../types.js";
import { Accounts } from "./accounts.js";
import { Clients } from "./clients.js";
import { Codes } from "./codes.js";
import { BUSY_TIMEOUT_MS, StoreDatabase } from "./database.js";
import { DELIVERY_LOG_LIMIT, DeliveryLog } from "./delivery-log.js";
import { BrowserState } from "./sessions.js";
import { Tokens } from "./tokens.js";
import { Webhooks } from "./webhooks.js";

/** How often a running emulator purges dead codes, tokens, sessions, sign-in links and pending consents: 60 s. */
export const PURGE_INTERVAL_MS = 60_000;

/** Options of a {@link Store}. Every field is optional. */
export interface StoreOptions {
  /**
   * The data file (an SQLite database; a version-1 JSON data file is imported, see data-file.ts). Default: none, the
   * database lives in memory.
   */
  dataFile?: string;
  /** When a commit is on disk; see {@link Synchronous}. Default `"full"` (survives a power loss). */
  synchronous?: Synchronous;
  /**
   * How many delivery log entries each account keeps (the newest), a positive integer (`emulator/options.ts`
   * `checkOptions` refuses others before the store opens). Default {@link DELIVERY_LOG_LIMIT}.
   */
  deliveryLogLimit?: number;
  /** How long a change waits for another process's write lock, ms. Default {@link BUSY_TIMEOUT_MS}. */
  busyTimeoutMs?: number;
  /** Told of an import and of failed commits, one line each. Default: a line on stderr. */
  notice?: (line: string) => void;
}

/**
 * The emulator's state: a table module per table over one connection (`clients`, `accounts`, `codes`, `tokens`,
 * `webhooks`, `deliveries`), the memory-only `browser` state, and what spans them. Every change is atomic and
 * committed (see the module comment) before the app responds. Times come from the injected clock (milliseconds since
 * the epoch).
 */
export class Store {
  /** OAuth clients (docs/helpdesk-api.md §5.2). */
  readonly clients: Clients;
  /** Accounts (users of the help desk). */
  readonly accounts: Accounts;
  /** Authorization codes (RFC 6749 §4.1.2). */
  readonly codes: Codes;
  /** Access and refresh tokens (RFC 6749 §1.4, §1.5). */
  readonly tokens: Tokens;
  /** Webhooks (docs/helpdesk-api.md §2.1, §4.3, §4.4). */
  readonly webhooks: Webhooks;
  /** The delivery log (docs/helpdesk-api.md §6). */
  readonly deliveries: DeliveryLog;
  /** Browser sessions, sign-in links and pending consents (memory only, this process). */
  readonly browser: BrowserState;
  /**
   * The one database handle (store/database.ts): the app marks and awaits commits through it (`mark`, `committed`),
   * and the emulator commits (`flush`) and closes it (`close`).
   */
  readonly database: StoreDatabase;

  /**
   * Opens (or creates) the database, closes deliveries left running by a process that is gone, trims the delivery
   * log to its limit and purges the dead.
   *
   * @param now clock in milliseconds since the epoch
   * @param options see {@link StoreOptions}
   * @throws DataFileError when the data file is refused (neither an SQLite database of the emulator nor a valid
   *   version-1 JSON data file, damaged, or of a newer emulator); it is not changed then
   * @throws StoreError `busy` when another process holds the write lock longer than the busy timeout
   * @throws Error for a data file that cannot be created
   */
  constructor(
    readonly now: () => number,
    options: StoreOptions = {},
  ) {
    const limit = options.deliveryLogLimit ?? DELIVERY_LOG_LIMIT;
    this.database = new StoreDatabase(now, {
      dataFile: options.dataFile,
      synchronous: options.synchronous ?? "full",
      busyTimeoutMs: options.busyTimeoutMs ?? BUSY_TIMEOUT_MS,
      notice: options.notice ?? ((line) => void process.stderr.write(`${line}\n`)),
    });
    this.clients = new Clients(this.database);
    this.accounts = new Accounts(this.database);
    this.codes = new Codes(this.database);
    this.tokens = new Tokens(this.database);
    this.webhooks = new Webhooks(this.database);
    this.deliveries = new DeliveryLog(this.database, limit);
    this.browser = new BrowserState(now, this.accounts);
    try {
      this.database.write(() => this.deliveries.recover());
      this.purge();
      this.database.flush();
    } catch (error) {
      this.database.abandon();
      throw error;
    }
  }

  /**
   * Purges every dead entry: codes `CODE_TTL_MS` past expiry, tokens `DEAD_TOKEN_RETENTION_MS` after they expired or
   * were revoked (one change), and expired sessions, sign-in links and pending consents. Live entries are untouched.
   * @returns how many entries were removed
   * @throws StoreError `busy` when another process holds the write lock longer than the busy timeout
   */
  purge(): number {
    const now = this.now();
    const persisted = this.database.write(() => this.codes.deleteDead(now) + this.tokens.deleteDead(now));
    return persisted + this.browser.purge(now);
  }

  /** The live state, without secrets (see {@link LiveState}). */
  liveState(): LiveState {
    const now = this.now();
    return {
      webhooks: this.webhooks.list(),
      tokens: this.tokens.live(now),
      codes: this.codes.live(now),
      ...this.browser.live(now),
      deliveries: this.deliveries.count(),
    };
  }
}
