/**
 * Clients of a running emulator (public entry point, `pulumi-helpdesk/emulator/client`): the typed client of its
 * inspection routes (`/_emulator/*`), for `pulumi-helpdesk trigger`, the demo, the benchmark and the tests, and the
 * headless sign-in against an auto-approving emulator (the real OAuth client of `auth/oauth.ts`, with an HTTP
 * request standing in for the browser).
 *
 * It is apart from the emulator's server (`pulumi-helpdesk/emulator`) because it is the other side of the wire:
 * it shares only the route shapes of `emulator/types.ts` with the server, and nothing the running emulator loads
 * imports it.
 *
 * @example
 * ```ts
 * import { startEmulator } from "pulumi-helpdesk/emulator";
 * import { EmulatorInspectionClient } from "pulumi-helpdesk/emulator/client";
 * const emulator = await startEmulator({ autoApprove: true });
 * const inspection = new EmulatorInspectionClient({ baseUrl: emulator.url });
 * ```
 */
// First: stop with one line on an unsupported Node.js, before any dependency is evaluated.
import "../kernel/node-guard.js";

export type { EmulatorInspectionClientOptions, EmulatorInspectionErrorCode } from "./inspection-client.js";
export { EmulatorInspectionClient, EmulatorInspectionError } from "./inspection-client.js";
export { completeAuthorizationAutoApproved, signInAutoApproved } from "./sign-in.js";
