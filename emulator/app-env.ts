/**
 * The Hono environment type of the emulator app, in a file of its own so that route modules and middleware
 * (faults.ts, api.ts, app.ts) import it without importing each other's modules: no import circle.
 */
/** Hono environment of the emulator app: node-server bindings plus per-request variables. */
export interface AppEnv {
  Bindings: import("@hono/node-server").HttpBindings;
  Variables: {
    /** Account of the bearer token, set by the `/v1` auth middleware. */
    account: string;
  };
}
