/**
 * The emulator's server side, started by {@link startEmulator}: everything the running emulator loads is imported from
 * here, and none of it is a client of the emulator (inspection-client.ts, sign-in.ts): the package entry (index.ts)
 * puts both sides together.
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../kernel/node-guard.js";
import type { AddressInfo } from "node:net";
import { messageOf } from "../kernel/errors.js";
import { createApp } from "./app.js";
import type { EmulatorContext, ResolvedOptions } from "./context.js";
import { newCsrfKey } from "./cookies.js";
import { DEFAULT_ACCOUNT, DEFAULT_CLIENT } from "./defaults.js";
import { DeliveryEngine } from "./deliveries.js";
import { FaultController } from "./faults.js";
import { emulatorState, issueLoginLink } from "./inspect.js";
import { checkOptions, invalidOption } from "./options.js";
import { createHttpServer, DEFAULT_HTTP_TIMEOUTS } from "./server.js";
import { Stats } from "./stats.js";
import { PURGE_INTERVAL_MS, Store } from "./store/index.js";
import type { EmulatorOptions, RunningEmulator } from "./types.js";

/** Default request body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** How long `close()` lets busy connections finish before cutting them, in milliseconds. */
const CLOSE_GRACE_MS = 2000;

/**
 * Starts an emulator on 127.0.0.1.
 *
 * @param options see {@link EmulatorOptions}; every field is optional
 * @returns a {@link RunningEmulator}: `url` (`http://127.0.0.1:PORT`), `port`, `state()`, `close()`
 * @throws EmulatorOptionError (`option`) for an invalid option (bad port, TTL, id shape, client redirect URI, fault
 *   rates, timeouts, delivery log limit, an `autoApprove` username that is not an account)
 * @throws Error (Node's, `code` `EADDRINUSE`, ...) when the port cannot be bound
 * @throws DataFileError (`file`, `reason`) when the data file is refused: neither an SQLite database of the emulator
 *   nor a valid version-1 JSON data file, damaged, or written by a newer emulator; the file is left unchanged
 * @throws StoreError `busy` when another process holds the data file's write lock longer than the busy timeout
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  checkOptions(options);
  const now = options.now ?? Date.now;
  const faults = new FaultController(options.faults, options.random ?? Math.random);
  const notice = options.notice ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const store = new Store(now, {
    dataFile: options.dataFile,
    synchronous: options.synchronous,
    deliveryLogLimit: options.deliveryLogLimit,
    notice,
  });
  const clients = options.clients ?? [DEFAULT_CLIENT];
  const accounts = options.accounts ?? [DEFAULT_ACCOUNT];
  let autoApproveAccount: string | undefined;
  try {
    for (const client of clients) store.clients.upsert(client);
    for (const account of accounts) store.accounts.upsert(account);
    store.database.flush();
    if (options.autoApprove === true) autoApproveAccount = accounts[0]?.username ?? store.accounts.names()[0];
    else if (typeof options.autoApprove === "string") autoApproveAccount = options.autoApprove;
    if (options.autoApprove && (autoApproveAccount === undefined || !store.accounts.has(autoApproveAccount))) {
      throw invalidOption("autoApprove", `autoApprove names no existing account (${String(options.autoApprove)})`);
    }
  } catch (error) {
    store.database.close();
    throw error;
  }

  let baseUrl = "";
  let port = 0;
  const resolved: ResolvedOptions = {
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 7200,
    rotateRefreshTokens: options.rotateRefreshTokens ?? false,
    autoApproveAccount,
    webhookIdShape: options.webhookIdShape ?? "id",
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    log: options.log,
  };
  const stats = new Stats();
  const deliveries = new DeliveryEngine(store, () => baseUrl, options.deliveryRetry);
  const ctx: EmulatorContext = {
    store,
    options: resolved,
    faults,
    deliveries,
    stats,
    csrfKey: newCsrfKey(),
    baseUrl: () => baseUrl,
  };
  const app = createApp(ctx, () => port);

  const server = createHttpServer(app, { ...DEFAULT_HTTP_TIMEOUTS, ...options.httpTimeouts }, stats);

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await deliveries.close();
    store.database.close();
    throw error;
  }
  port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  // Dead codes, tokens, sessions, sign-in links and consents are purged on access and, for those nobody asks for, here.
  const purger = setInterval(() => {
    try {
      store.purge();
    } catch (error) {
      notice(`purge failed (tried again in ${PURGE_INTERVAL_MS / 1000} s): ${messageOf(error)}`);
    }
  }, PURGE_INTERVAL_MS);
  purger.unref();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(purger);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
      await deliveries.close();
      await closed;
      clearTimeout(force);
      try {
        store.purge();
      } catch {
        // Another process holds the lock: the next start (or that process) purges.
      }
      store.database.close();
    })();
    return closing;
  };

  return {
    url: baseUrl,
    port,
    state: () => emulatorState(ctx),
    loginLink: (account) => issueLoginLink(ctx, account),
    close,
  };
}
