/**
 * The local help-desk API emulator (public entry point, `pulumi-helpdesk/emulator`).
 *
 * It implements the whole published interface of the help-desk API specification (cited as "docs/helpdesk-api.md §N" throughout) on
 * 127.0.0.1: OAuth 2.0 authorization-code access (docs/helpdesk-api.md §4.1, §4.2, §5), webhook create and delete (docs/helpdesk-api.md §4.3, §4.4),
 * event deliveries (docs/helpdesk-api.md §6), plus a web page for people, inspection routes under `/_emulator`, fault injection and
 * durability.
 *
 * This module is the server side only (start.ts and what it loads, the shapes of types.ts). Its clients (the
 * inspection client of the `/_emulator` routes, the headless sign-in) are the room `emulator-client/`, the entry
 * `pulumi-helpdesk/emulator/client`: nothing the running emulator loads is a client of it.
 *
 * @example
 * ```ts
 * const emulator = await startEmulator({ autoApprove: true });
 * // ... point the provider at emulator.url ...
 * await emulator.close();
 * ```
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../kernel/node-guard.js";

export { DEFAULT_ACCOUNT, DEFAULT_CLIENT } from "./defaults.js";
export { EmulatorOptionError } from "./options.js";
export { DEFAULT_HTTP_TIMEOUTS } from "./server.js";
export { DEFAULT_BODY_LIMIT_BYTES, startEmulator } from "./start.js";
export { StoreError } from "./store/commits.js";
export { DataFileError } from "./store/data-file.js";
export type {
  DeliveryLogEntry,
  DeliveryRetryOptions,
  EmulatorAccount,
  EmulatorClient,
  EmulatorOptions,
  EmulatorState,
  FaultOptions,
  HttpTimeoutOptions,
  LoginLink,
  RunningEmulator,
  StatsSnapshot,
  StoredWebhook,
  Synchronous,
  TriggeredEvent,
  WebhookIdShape,
} from "./types.js";
