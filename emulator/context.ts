/**
 * What every route module of the emulator shares: the store, resolved options, the fault controller, the delivery
 * engine and request statistics.
 */

import type { DeliveryEngine } from "./deliveries.js";
import type { FaultController } from "./faults.js";
import type { Stats } from "./stats.js";
import type { Store } from "./store/index.js";
import type { WebhookIdShape } from "./types.js";

/** Options after defaults are applied. Durations in seconds unless the name says otherwise. */
export interface ResolvedOptions {
  accessTokenTtlSeconds: number;
  rotateRefreshTokens: boolean;
  /** Username to approve as without a consent page, or `undefined` to show the page. */
  autoApproveAccount: string | undefined;
  webhookIdShape: WebhookIdShape;
  bodyLimitBytes: number;
  log: ((line: string) => void) | undefined;
}

/** Shared state of one running emulator. `baseUrl()` is `http://127.0.0.1:PORT` once listening. */
export interface EmulatorContext {
  store: Store;
  options: ResolvedOptions;
  faults: FaultController;
  deliveries: DeliveryEngine;
  stats: Stats;
  /** Secret key of the pages' CSRF tokens (HMAC-SHA256, see cookies.ts); memory only, new at every start. */
  csrfKey: Buffer;
  baseUrl(): string;
}
