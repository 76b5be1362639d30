/**
 * What every benchmark driver (bench.ts, native-profile.ts) gives its stacks: the OAuth client it signs in with, the
 * environment of a throw-away file:// backend, and the stack config `pulumi-helpdesk login` would write.
 */
import { randomBytes } from "node:crypto";
import type { ConfigMap } from "@pulumi/pulumi/automation/index.js";
import { signInAutoApproved } from "pulumi-helpdesk/emulator/client";
import { CONFIG_KEYS } from "pulumi-helpdesk";

/** The emulator's OAuth client the benchmark signs in as. */
export const BENCH_CLIENT = { clientId: "bench-client", clientSecret: "bench-client-secret-value", redirectUri: "http://127.0.0.1:1/callback", name: "bench" };

/**
 * The environment of Pulumi operations on a file:// backend in `stateDir`, offline, with a random passphrase.
 *
 * @param stateDir the backend's directory (absolute)
 */
export function backendEnv(stateDir: string): Record<string, string> {
  return {
    PULUMI_BACKEND_URL: `file://${stateDir}`,
    PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
}

/**
 * Signs in to the emulator at `emulatorUrl` as {@link BENCH_CLIENT} and returns the stack config `login` would write,
 * plus `bench:count`, the number of resources the bench programs declare.
 *
 * @param count the initial `bench:count`
 */
export async function signedInConfig(emulatorUrl: string, count: number): Promise<ConfigMap> {
  const tokens = await signInAutoApproved({ baseUrl: emulatorUrl, ...BENCH_CLIENT });
  return {
    [CONFIG_KEYS.baseUrl]: { value: emulatorUrl },
    [CONFIG_KEYS.clientId]: { value: BENCH_CLIENT.clientId },
    [CONFIG_KEYS.redirectUri]: { value: BENCH_CLIENT.redirectUri },
    [CONFIG_KEYS.clientSecret]: { value: BENCH_CLIENT.clientSecret, secret: true },
    [CONFIG_KEYS.accessToken]: { value: tokens.accessToken, secret: true },
    [CONFIG_KEYS.refreshToken]: { value: tokens.refreshToken ?? "", secret: true },
    ...(tokens.expiresAt ? { [CONFIG_KEYS.tokenExpiresAt]: { value: tokens.expiresAt } } : {}),
    "bench:count": { value: String(count) },
  };
}
