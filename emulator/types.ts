/**
 * The emulator's public types, in a module that imports nothing of the emulator: the options and the handle of
 * `startEmulator`, and the shapes its routes send (webhooks, the delivery log, the live state, statistics, sign-in
 * links, triggered events). Both sides use them: the server (store, routes) and its clients (inspection-client.ts,
 * the CLI, tests), so neither imports the other for a type, and no import cycle can pass through here.
 * Re-exported by `emulator/index.ts`.
 */
import type { WebhookEvent } from "../kernel/events.js";

/**
 * When a commit of the data file is on disk (SQLite's `PRAGMA synchronous` in WAL mode):
 * - `"full"`: the write-ahead log is fsync'ed at every commit, so an acknowledged change survives a process crash,
 *   an operating-system crash and a power loss;
 * - `"normal"`: the log is written to the operating system at every commit and fsync'ed only at checkpoints, so an
 *   acknowledged change survives a crash of the emulator's process (SIGKILL, an uncaught error) but the last commits
 *   before a power loss or kernel crash may be lost (the database stays consistent).
 */
export type Synchronous = "full" | "normal";

/** A registered webhook (docs/helpdesk-api.md §2.1), as `GET /_emulator/webhooks` lists it. `createdAt` is ISO 8601 UTC. */
export interface StoredWebhook {
  id: string;
  event: WebhookEvent;
  url: string;
  state: "active";
  /** The account that owns it (the one whose access token created it). */
  account: string;
  createdAt: string;
}

/**
 * One entry of the delivery log (docs/helpdesk-api.md §6): one record POSTed to one webhook, with all its attempts.
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

/**
 * What is live in the emulator's store, without secrets, for tests and tools (`GET /_emulator/state`): webhooks, live
 * tokens and codes (`ref`: the first 12 characters of the stored SHA-256 hash, useless as a credential), how many live
 * sessions, sign-in links and pending consents exist (in this process), and how many entries the delivery log holds.
 * Dead entries are left out, so purging never changes it. `expiresAt` is in milliseconds since the epoch (`null`:
 * never, refresh tokens); a webhook's `createdAt` is ISO 8601 UTC.
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

/** Request and connection counters (`GET /_emulator/stats`): `{ requests, connections, byRoute: { "POST /v1/webhooks": 3, ... } }`. */
export interface StatsSnapshot {
  /** HTTP requests received (every request, faulted ones included). */
  requests: number;
  /** TCP connections accepted. */
  connections: number;
  /** Requests per `METHOD route-pattern`; requests no route matched count under `METHOD (unmatched)`. */
  byRoute: Record<string, number>;
}

/** What `POST /_emulator/events` returns (202): the deliveries started, by id. */
export interface TriggeredEvent {
  /** The event delivered (docs/helpdesk-api.md §6). */
  event: WebhookEvent;
  /** The account whose webhooks receive it. */
  account: string;
  /** Ids of the deliveries started, one per webhook registered for the event; see {@link DeliveryLogEntry}. */
  deliveries: string[];
}

/**
 * An OAuth client registered with the emulator (docs/helpdesk-api.md §5.2: identifier, secret and redirect URI are issued in
 * advance). `redirectUri` is compared by exact string equality (docs/helpdesk-api.md §5.3, RFC 6749 §3.1.2.3).
 */
export interface EmulatorClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Application name shown on the consent page; defaults to `clientId`. */
  name?: string;
}

/** A user account of the help desk: signs in on the consent page and the web page; owns webhooks. */
export interface EmulatorAccount {
  username: string;
  password: string;
}

/**
 * Fault injection for `/v1/*` and `/oauth/token` (never `/_emulator/*`). Every fault is decided before the request is
 * processed, so a faulted request has no effect and can be retried safely, even a POST. Rates are shares in 0..1,
 * drawn in this order from one random number: drop, 429, 500, 503 (their sum is capped at 1).
 */
export interface FaultOptions {
  /** Added delay before each faultable request, in milliseconds. Default 0. */
  latencyMs?: number;
  /** Share of requests that get 429 `rate_limited` with `Retry-After` (RFC 6585 §4). Default 0. */
  rate429?: number;
  /** Value of `Retry-After` on 429 and 503 responses, in seconds (RFC 9110 §10.2.3). Default 1. */
  retryAfterSeconds?: number;
  /** Share of requests that get 500 `internal_error`. Default 0. */
  rate500?: number;
  /** Share of requests that get 503 `service_unavailable` with `Retry-After`. Default 0. */
  rate503?: number;
  /** Share of requests whose TCP connection is destroyed without any response. Default 0. */
  dropRate?: number;
}

/** Retry policy of event deliveries (docs/helpdesk-api.md §6 leaves retries open). */
export interface DeliveryRetryOptions {
  /** Total attempts per delivery, including the first. Default 4. */
  attempts?: number;
  /** Delay before retry n (n = 1, 2, ...) is `baseDelayMs * 2^(n-1)` milliseconds. Default 500. */
  baseDelayMs?: number;
  /**
   * Timeout of one attempt, in milliseconds: connecting, the response headers, and reading (and discarding) the
   * response body, each and all together. Default 10000.
   */
  timeoutMs?: number;
  /**
   * Total deadline of one delivery, in milliseconds from when it is queued, all attempts and backoff delays included.
   * When it passes, a running attempt is aborted and no further attempt starts; a retry whose backoff delay would end
   * after it is not waited for. The delivery is then logged `ok: false` with an error naming the deadline.
   * Default 60000 (the defaults' worst case is 4 attempts × 10 s + 3.5 s of backoff = 43.5 s, within it).
   */
  deadlineMs?: number;
}

/** What the `webhookIdShape` option exposes in the `POST /v1/webhooks` response; see {@link EmulatorOptions}. */
export type WebhookIdShape = "id" | "href" | "location" | "none";

/** Options of `startEmulator`. Every field is optional. */
export interface EmulatorOptions {
  /** TCP port on 127.0.0.1; default 0 (a free port chosen by the system). */
  port?: number;
  /** Registered OAuth clients; default `[DEFAULT_CLIENT]`. */
  clients?: EmulatorClient[];
  /** Accounts; default one account `demo` / `demo`. */
  accounts?: EmulatorAccount[];
  /**
   * `true`: `GET /oauth/authorize` approves at once as the first account, without a page; a string: as that account.
   * Default `false` (the consent page is shown).
   */
  autoApprove?: boolean | string;
  /** Access token lifetime in seconds, reported as `expires_in` (RFC 6749 §5.1). Default 7200 (docs/helpdesk-api.md §8). */
  accessTokenTtlSeconds?: number;
  /** When `true`, each refresh (RFC 6749 §6) issues a new refresh token and revokes the old one. Default `false`. */
  rotateRefreshTokens?: boolean;
  /** Fault injection; default none. Can be changed at runtime with `PUT /_emulator/faults`. */
  faults?: FaultOptions;
  /**
   * A data file keeping clients, accounts, codes and tokens (as SHA-256 hashes; passwords as scrypt hashes), webhooks
   * and the delivery log across restarts: an SQLite database (with its `-wal` and `-shm` files beside it while in
   * use). Every change is committed before the response that acknowledges it is sent. A version-1 JSON data file of
   * earlier emulators is imported once into a database at the same path, the JSON file kept unchanged as
   * `<dataFile>.v1.json` (told to `notice`); any other file is refused and left unchanged. Several emulators may use
   * one data file at once, on one machine. At start the `clients` and `accounts` options are added to the stored ones
   * (replacing same-named entries); stored ones are never removed. Default: none, the state lives in memory.
   */
  dataFile?: string;
  /**
   * When a commit of `dataFile` is on disk. `"full"` (default): the write-ahead log is fsync'ed at each commit, so
   * what was acknowledged survives a crash of the emulator, of the operating system and a power loss. `"normal"`:
   * fsync only at checkpoints; what was acknowledged survives a crash of the emulator (SIGKILL included), but the last
   * commits before a power loss may be lost. Changes made in one turn of the event loop share one commit.
   */
  synchronous?: Synchronous;
  /** How many delivery log entries each account keeps (the newest). Default 1000. */
  deliveryLogLimit?: number;
  /**
   * Sink of one-line notices about the data file: an import of a version-1 JSON file, a commit that failed (the
   * responses waiting for it fail with 500). Default: a line on stderr.
   */
  notice?: (line: string) => void;
  /**
   * What the create response of `POST /v1/webhooks` exposes, to test a client's id fallbacks:
   * `"id"` (default): body `webhook.id` and `webhook.href`, header `Location`;
   * `"href"`: no `webhook.id`; `"location"`: no `webhook.id` nor `webhook.href`, `Location` only;
   * `"none"`: none of the three.
   */
  webhookIdShape?: WebhookIdShape;
  /** Request log sink: one line per request, `METHOD /path STATUS 12ms` (never a query string, token or secret). */
  log?: (line: string) => void;
  /** Clock in milliseconds since the epoch; default `Date.now`. Drives code and token expiry and timestamps. */
  now?: () => number;
  /** Random source in [0, 1) for fault decisions; default `Math.random`. */
  random?: () => number;
  /** Retry policy of event deliveries. */
  deliveryRetry?: DeliveryRetryOptions;
  /**
   * Request body limit in bytes; larger bodies get 413, at once when `Content-Length` announces them. Default 1 MiB
   * (1048576).
   */
  bodyLimitBytes?: number;
  /** Timeouts of the HTTP server; see {@link HttpTimeoutOptions}. */
  httpTimeouts?: HttpTimeoutOptions;
}

/**
 * Timeouts of the emulator's HTTP server (Node's `http.Server` settings of the same names), in milliseconds. A client
 * that is too slow gets 408 `request_timeout` and a closed connection. They are checked every second.
 */
export interface HttpTimeoutOptions {
  /**
   * Time to receive a request's complete header section, from the connection or the previous request. Default 10000:
   * a local client sends its headers at once; Node's default of 60 s would let silent connections hold sockets.
   */
  headersMs?: number;
  /**
   * Time to receive a whole request, body included. Default 30000: at most a 1 MiB body on loopback, with room for
   * a slow machine; Node's default of 300 s would let a client that trickles a body hold a request for 5 minutes.
   * It does not count the time the emulator takes to respond (for example injected latency).
   */
  requestMs?: number;
  /**
   * How long an idle keep-alive connection stays open after a response (advertised as `Keep-Alive: timeout=10`).
   * Default 10000: longer than the idle time of clients that reuse connections (undici keeps a connection for the
   * advertised time minus 2 s), so the client, not the server, closes it, and a request never races a closing socket.
   */
  keepAliveMs?: number;
}

/**
 * A view of a running emulator's live state for tests and tools (`GET /_emulator/state`, `RunningEmulator.state()`):
 * webhooks, live tokens and codes without secrets, counts of live sessions, sign-in links and pending consents, and
 * the fault configuration. Purging dead entries never changes it; every accepted change does.
 */
export type EmulatorState = LiveState & { faults: Required<FaultOptions> };

/** A one-time sign-in link to the emulator's web page (`GET /_emulator/login-link`, `RunningEmulator.loginLink()`). */
export interface LoginLink {
  /** `{base_url}/signin?token=...`: opens a session for `account`, once. */
  url: string;
  /** The account it signs in as. */
  account: string;
  /** How long the link stays valid, in seconds (600). */
  expiresInSeconds: number;
}

/** A started emulator. */
export interface RunningEmulator {
  /** Base URL, `http://127.0.0.1:PORT`, no trailing slash. This is the spec's `{base_url}`. */
  url: string;
  /** The TCP port it listens on. */
  port: number;
  /** The live state at this moment (the same as `GET /_emulator/state`); see {@link EmulatorState}. */
  state(): EmulatorState;
  /**
   * A one-time sign-in link to the web page for `account` (default: the first account), as
   * `GET /_emulator/login-link` gives it.
   * @throws ApiError 404 when `account` is not an account of this emulator
   */
  loginLink(account?: string): LoginLink;
  /**
   * Stops accepting connections, cancels pending delivery retries, closes idle keep-alive connections (and, after a
   * short grace period, busy ones), commits what is left and closes the data file. Resolves when all of that is done.
   * @throws StoreError `commit` when that last commit failed
   */
  close(): Promise<void>;
}
