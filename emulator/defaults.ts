/**
 * The emulator's demo client and account: what it registers when its options name none, and what
 * `pulumi-helpdesk emulator`'s options show as their defaults. A module of its own that imports nothing of the
 * emulator's server (the store, `node:sqlite`, hono): the CLI builds its options and help from it without loading
 * the server (tests/cli/lazy-loading.test.ts).
 */
import { PACKAGE_NAME } from "../kernel/package-version.js";
import type { EmulatorAccount, EmulatorClient } from "./types.js";

/**
 * The demo OAuth client registered when `clients` is not given. Its secret is a fixed, public demo value (this is a
 * local emulator; never reuse it elsewhere).
 */
export const DEFAULT_CLIENT: EmulatorClient = Object.freeze({
  clientId: "helpdesk-demo",
  clientSecret: "demo-client-secret",
  redirectUri: "http://127.0.0.1:8976/callback",
  name: `${PACKAGE_NAME} demo`,
});

/** The demo account registered when `accounts` is not given: `demo` / `demo`. */
export const DEFAULT_ACCOUNT: EmulatorAccount = Object.freeze({ username: "demo", password: "demo" });
