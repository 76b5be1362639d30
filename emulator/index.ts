/**
 * The local help-desk API emulator (public entry point, `pulumi-helpdesk/emulator`).
 *
 * It implements the whole published interface of the help-desk API specification (cited as "docs/helpdesk-api.md §N" throughout) on
 * 127.0.0.1: OAuth 2.0 authorization-code access (docs/helpdesk-api.md §4.1, §4.2, §5), webhook create and delete (docs/helpdesk-api.md §4.3, §4.4),
 * event deliveries (docs/helpdesk-api.md §6), plus a web page for people, inspection routes under `/_emulator`, fault injection and
 * durability.
 *
 * This module only gathers the two sides: the server (start.ts and what it loads) and its clients
 * (inspection-client.ts for the `/_emulator` routes, sign-in.ts for headless sign-ins), which share the types of
 * types.ts and import nothing from each other.
 *
 * @example
 * ```ts
 * const emulator = await startEmulator({ autoApprove: true });
 * // ... point the provider at emulator.url ...
 * await emulator.close();
 * ```
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../sdk/node-guard.js";

export { DEFAULT_ACCOUNT, DEFAULT_BODY_LIMIT_BYTES, DEFAULT_CLIENT, startEmulator } from "./start.js";
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
export { DEFAULT_HTTP_TIMEOUTS } from "./server.js";
export { completeAuthorizationAutoApproved, signInAutoApproved } from "./sign-in.js";
export { EmulatorInspectionClient, EmulatorInspectionError } from "./inspection-client.js";
export type { EmulatorInspectionClientOptions, EmulatorInspectionErrorCode } from "./inspection-client.js";
export { StoreError } from "./commits.js";
export { DataFileError } from "./data-file.js";
export { EmulatorOptionError } from "./options.js";
