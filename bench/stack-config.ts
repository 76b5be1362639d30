/**
 * What every benchmark driver (bench.ts, native-profile.ts) gives its stacks: the OAuth client it signs in with, the
 * environment of a throw-away file:// backend, and the stack config `pulumi-helpdesk login` would write (made by the
 * function login writes it with).
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { ConfigMap } from "@pulumi/pulumi/automation/index.js";
import { signInAutoApproved } from "pulumi-helpdesk/emulator/client";
// The built package (bench/run.sh builds it): Node runs this file with type stripping, which resolves no `.js` import
// of a `.ts` source, and the grant is no entry of the package.
import { loginConfigEntries } from "../dist/auth/grant.js";
import { parseBaseUrl } from "../dist/kernel/base-url.js";

/** The emulator's OAuth client the benchmark signs in as. */
export const BENCH_CLIENT = {
  clientId: "bench-client",
  clientSecret: "bench-client-secret-value",
  redirectUri: "http://127.0.0.1:1/callback",
  name: "bench",
};

/**
 * The environment of Pulumi operations on a file:// backend in `stateDir`, offline, with a random passphrase, and a
 * Pulumi home of their own in it (`stateDir/pulumi-home`): the CLI's workspaces, logs and plugin cache go there and
 * leave with the backend, never into the account's ~/.pulumi. It starts empty, as the tests' sandboxes do
 * (tests/support/sandbox.ts): the programs name the plugin by path, the language hosts are on PATH.
 *
 * @param stateDir the backend's directory (absolute), which the benchmark removes at its end
 */
export function backendEnv(stateDir: string): Record<string, string> {
  return {
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_HOME: join(stateDir, "pulumi-home"),
    PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
}

/**
 * Signs in to the emulator at `emulatorUrl` as {@link BENCH_CLIENT} and returns the stack config `login` writes
 * (`auth/grant.ts` `loginConfigEntries`, secret settings as secrets), plus `bench:count`, the number of resources the
 * bench programs declare.
 *
 * @param count the initial `bench:count`
 * @throws Error when `emulatorUrl` is no base URL (kernel/base-url.ts), or the sign-in fails
 */
export async function signedInConfig(emulatorUrl: string, count: number): Promise<ConfigMap> {
  const baseUrl = parseBaseUrl(emulatorUrl);
  if ("problem" in baseUrl) throw new Error(`bench: ${baseUrl.problem}`);
  const tokens = await signInAutoApproved({ baseUrl: emulatorUrl, ...BENCH_CLIENT });
  const entries = loginConfigEntries({ ...BENCH_CLIENT, baseUrl: baseUrl.url }, tokens);
  return {
    ...Object.fromEntries(entries.map((entry) => [entry.key, { value: entry.value, secret: entry.secret }])),
    "bench:count": { value: String(count) },
  };
}
