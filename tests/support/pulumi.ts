/**
 * Test support for suites that drive the real Pulumi CLI through the Automation API, with a file:// backend in a
 * temporary directory. The provider runs in Pulumi's own process and talks to a real emulator on 127.0.0.1.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConfigMap, LocalWorkspace, type Stack } from "@pulumi/pulumi/automation/index.js";
import { loginConfigEntries } from "../../auth/grant.js";
import { parseBaseUrl } from "../../kernel/base-url.js";
import { withoutSettingVariables } from "./environment.js";

/**
 * Tells whether the Pulumi CLI is on PATH. Under `CI=true` a missing CLI throws: CI must never pass by skipping.
 */
export function pulumiAvailable(): boolean {
  try {
    execFileSync("pulumi", ["version"], { stdio: "pipe" });
    return true;
  } catch {
    if (process.env.CI === "true") {
      throw new Error(
        "the Pulumi CLI is not on PATH; run scripts/setup.sh (npm test does) before the end-to-end tests",
      );
    }
    console.warn("SKIPPING end-to-end tests: the Pulumi CLI is not on PATH (run `npm test`, which installs it)");
    return false;
  }
}

/**
 * The environment of `pulumi-helpdesk` runs on a test stack: its backend, passphrase and token cache (the workspace's
 * variables), no colour, non-interactive, and none of the runner's help-desk setting variables.
 */
export function cliEnvOf(test: TestStack): NodeJS.ProcessEnv {
  return withoutSettingVariables({ ...process.env, ...test.stack.workspace.envVars, CI: "true", NO_COLOR: "1" });
}

/** A stack in a throw-away file:// backend. */
export interface TestStack {
  stack: Stack;
  /** The backend directory (state files live under it). */
  stateDir: string;
  /** Removes the stack (and its Pulumi.<stack>.yaml) and the backend directory. */
  dispose(): Promise<void>;
}

/**
 * Creates a uniquely named stack of the program in `workDir` with the given config.
 *
 * @param workDir directory of the program's Pulumi.yaml
 * @param config config to set (secret entries are encrypted by Pulumi)
 * @param envVars more environment variables of the Pulumi runs (and so of the program and its providers)
 */
export async function createTestStack(
  workDir: string,
  config: ConfigMap,
  envVars: Record<string, string> = {},
): Promise<TestStack> {
  const stateDir = mkdtempSync(join(tmpdir(), "helpdesk-state-"));
  const stackName = `t${randomBytes(4).toString("hex")}`;
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName, workDir },
    {
      envVars: {
        PULUMI_BACKEND_URL: `file://${stateDir}`,
        PULUMI_CONFIG_PASSPHRASE: "test-passphrase",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        // The provider's token cache of this stack only (a suite that needs another sets it in process.env first).
        HELPDESK_TOKEN_CACHE_DIR: process.env.HELPDESK_TOKEN_CACHE_DIR ?? join(stateDir, "token-cache"),
        ...envVars,
      },
    },
  );
  await stack.setAllConfig(config);
  return {
    stack,
    stateDir,
    async dispose() {
      await stack.workspace.removeStack(stackName, { force: true }).catch(() => undefined);
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * The stack's checkpoint as the file:// backend persisted it (secrets as ciphertext; the Automation API's
 * `exportStack` would show them decrypted).
 *
 * @param projectName the `name` of the program's Pulumi.yaml
 */
export function readStateFile(test: TestStack, projectName: string): string {
  return readFileSync(join(test.stateDir, ".pulumi", "stacks", projectName, `${test.stack.name}.json`), "utf8");
}

/**
 * The stack config `pulumi-helpdesk login` writes (`auth/grant.ts` `loginConfigEntries`: base URL, client, redirect
 * URI, tokens and their expiry; secrets marked secret), for suites that sign in headlessly instead of running the CLI.
 *
 * @param baseUrl the help desk's base URL
 * @param client the OAuth client (`clientId`, `clientSecret`)
 * @param tokens the token set of the sign-in (`refreshToken` may be absent)
 * @param namespace the config namespace (default `helpdesk`; `eu` as `login --namespace eu` writes it)
 */
export function configAsLoginWrites(
  baseUrl: string,
  client: { clientId: string; clientSecret: string; redirectUri: string },
  tokens: { accessToken: string; refreshToken?: string | undefined; expiresAt?: string | undefined },
  namespace = "helpdesk",
): ConfigMap {
  const parsed = parseBaseUrl(baseUrl);
  if ("problem" in parsed) throw new TypeError(parsed.problem);
  const entries = loginConfigEntries(
    { ...client, baseUrl: parsed.url },
    { refreshToken: undefined, expiresAt: undefined, ...tokens },
    namespace,
  );
  return Object.fromEntries(entries.map(({ key, value, secret }) => [key, secret ? { value, secret } : { value }]));
}
