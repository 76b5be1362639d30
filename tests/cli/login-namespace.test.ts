/**
 * `pulumi-helpdesk login / status / refresh / logout --namespace <ns>`: a second help desk's sign-in in the same
 * stack, under its own config namespace (`eu:*`), for an explicit provider of the native plugin. The built CLI as a
 * child process, the real Pulumi CLI underneath, two real emulators on 127.0.0.1 (the default help desk and "eu").
 */

import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OAUTH_ERROR_CODES, refreshAccessToken } from "../../auth/oauth.js";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { completeAuthorizationAutoApproved } from "../../emulator-client/index.js";
import { required } from "../../kernel/required.js";
import { accessTokenWorks, stackConfig } from "../auth/support/helpers.js";
import {
  createTestProject,
  freePort,
  loginArgs,
  pulumiConfigGet,
  runCli,
  startCli,
  type TestProject,
} from "../support/cli.js";
import { pulumiAvailable } from "../support/pulumi.js";

const STACK = "dev";
const EU_SECRET_KEYS = ["eu:clientSecret", "eu:accessToken", "eu:refreshToken"];
const EU_KEYS = ["eu:baseUrl", "eu:clientId", "eu:redirectUri", ...EU_SECRET_KEYS, "eu:tokenExpiresAt"];

/** The stack's `helpdesk:*` config (secrets decrypted). */
function defaultConfig(project: TestProject): Record<string, string> {
  return Object.fromEntries(Object.entries(stackConfig(project, STACK)).filter(([key]) => key.startsWith("helpdesk:")));
}

describe.skipIf(!pulumiAvailable())("pulumi-helpdesk --namespace: a second help desk in the same stack", () => {
  const desks: Record<
    "home" | "eu",
    { emulator: RunningEmulator; client: { clientId: string; clientSecret: string; redirectUri: string } }
  > = {} as never;
  let project: TestProject;
  let homeBefore: Record<string, string>;

  /** Runs `login` for one desk, playing the browser against its auto-approving emulator. */
  async function login(desk: "home" | "eu", extra: string[] = []) {
    const { emulator, client } = desks[desk];
    const run = startCli([...loginArgs({ stack: STACK, baseUrl: emulator.url, client }), ...extra], project, {
      HELPDESK_CLIENT_SECRET: client.clientSecret,
    });
    run.child.stdin.end();
    try {
      await completeAuthorizationAutoApproved(await run.authorizeUrl);
    } catch (error) {
      // Show what the CLI said: a reset callback connection means the CLI ended before it answered.
      run.child.kill();
      const ended = await run.done;
      throw new Error(
        `playing the browser for login (${desk}) failed: ${(error as Error).message}\nCLI exit ${ended.code}\n${ended.stdout}${ended.stderr}`,
        { cause: error },
      );
    }
    return run.done;
  }

  beforeAll(async () => {
    for (const name of ["home", "eu"] as const) {
      const client = {
        clientId: `ns-${name}`,
        clientSecret: `ns-${name}-client-secret-8b3f`,
        redirectUri: `http://127.0.0.1:${await freePort()}/callback`,
      };
      const emulator = await startEmulator({
        port: 0,
        autoApprove: true,
        rotateRefreshTokens: true,
        clients: [{ ...client, name }],
      });
      desks[name] = { emulator, client };
    }
    project = createTestProject();
    const home = await login("home");
    expect(home.code, home.stderr).toBe(0);
    homeBefore = defaultConfig(project);
    // A key of the program's own in the namespace: login warns that the namespace is shared (names only).
    execFileSync("pulumi", ["config", "set", "eu:receiverBaseUrl", "https://hooks.example.test", "--stack", STACK], {
      cwd: project.dir,
      env: project.env,
      stdio: "pipe",
    });
  });

  afterAll(async () => {
    for (const desk of Object.values(desks)) await desk.emulator.close();
    project?.dispose();
  });

  it("login --namespace eu writes eu:* (secrets encrypted), prints the keys and a program hint, and leaves helpdesk:* as it was", async () => {
    const { code, stdout, stderr } = await login("eu", ["--namespace", "eu"]);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      `Signed in to ${desks.eu.emulator.url} as client ns-eu; wrote stack "${STACK}" config (namespace "eu"):`,
    );
    for (const key of EU_KEYS)
      expect(stdout).toMatch(new RegExp(`^  ${key}${EU_SECRET_KEYS.includes(key) ? " \\(secret\\)" : ""}$`, "m"));
    expect(stdout).not.toContain("helpdesk:");
    expect(stderr).toContain(
      `warning: stack "${STACK}" already holds config in namespace "eu" that is no help-desk setting (eu:receiverBaseUrl)`,
    );
    expect(pulumiConfigGet(project, STACK, "eu:receiverBaseUrl")).toBe("https://hooks.example.test");
    // The hint survives the redaction of every output line whole.
    expect(stderr).toContain('const cfg = new pulumi.Config("eu");');
    // Secrets read as secrets, and what a token response may lack (refresh token, expiry) read with get.
    expect(stderr).toContain(
      'const clientSecret = cfg.requireSecret("clientSecret"), accessToken = cfg.requireSecret("accessToken"), refreshToken = cfg.getSecret("refreshToken");',
    );
    expect(stderr).toContain(
      'const desk = new Provider("eu", { baseUrl: cfg.require("baseUrl"), clientId: cfg.require("clientId"), tokenExpiresAt: cfg.get("tokenExpiresAt"), clientSecret, accessToken, refreshToken });',
    );
    expect(stderr).not.toContain("[redacted]");
    expect(stderr).toContain('pulumi.Config("eu").require_secret("accessToken")');
    expect(stderr).toContain("name: eu:accessToken, type: String, secret: true");

    const file = project.stackFile(STACK);
    for (const key of EU_SECRET_KEYS) {
      const value = required(pulumiConfigGet(project, STACK, key), `config ${key}`);
      expect(value, key).toBeTruthy();
      expect(file).not.toContain(value);
      expect(stdout + stderr).not.toContain(value);
      expect(file).toMatch(new RegExp(`${key}:\\s*\\n\\s*secure: v1:`));
    }
    expect(pulumiConfigGet(project, STACK, "eu:baseUrl")).toBe(desks.eu.emulator.url);
    expect(pulumiConfigGet(project, STACK, "eu:clientId")).toBe("ns-eu");
    expect(pulumiConfigGet(project, STACK, "eu:clientSecret")).toBe(desks.eu.client.clientSecret);
    expect(pulumiConfigGet(project, STACK, "eu:redirectUri")).toBe(desks.eu.client.redirectUri);
    expect(
      Date.parse(required(pulumiConfigGet(project, STACK, "eu:tokenExpiresAt"), "config eu:tokenExpiresAt")),
    ).toBeGreaterThan(Date.now());
    expect(
      await accessTokenWorks(
        desks.eu.emulator,
        required(pulumiConfigGet(project, STACK, "eu:accessToken"), "config eu:accessToken"),
      ),
    ).toBe(true);
    expect(
      await accessTokenWorks(
        desks.home.emulator,
        required(pulumiConfigGet(project, STACK, "eu:accessToken"), "config eu:accessToken"),
      ),
    ).toBe(false);
    expect(defaultConfig(project)).toEqual(homeBefore);
  });

  it("status --namespace eu shows eu's sign-in; status without it still shows helpdesk's", async () => {
    const eu = await runCli(["status", "--stack", STACK, "--namespace", "eu", "--json"], project);
    expect(eu.code, eu.stderr).toBe(0);
    expect(JSON.parse(eu.stdout)).toMatchObject({
      stack: STACK,
      namespace: "eu",
      baseUrl: desks.eu.emulator.url,
      clientId: "ns-eu",
      redirectUri: desks.eu.client.redirectUri,
      clientSecret: { present: true },
      accessToken: { present: true, expired: false, expiresAt: pulumiConfigGet(project, STACK, "eu:tokenExpiresAt") },
      refreshToken: { present: true },
    });
    for (const key of EU_SECRET_KEYS)
      expect(eu.stdout).not.toContain(required(pulumiConfigGet(project, STACK, key), `config ${key}`));
    const home = await runCli(["status", "--stack", STACK, "--json"], project);
    expect(JSON.parse(home.stdout)).toMatchObject({
      namespace: "helpdesk",
      baseUrl: desks.home.emulator.url,
      clientId: "ns-home",
    });
    const text = await runCli(["status", "--stack", STACK, "-n", "eu"], project);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^namespace:\s+eu$/m);
    expect(text.stdout).toMatch(new RegExp(`^base URL:\\s+${desks.eu.emulator.url.replace(/[.]/g, "\\.")}$`, "m"));
  });

  it("refresh --namespace eu renews eu's tokens at eu's help desk only", async () => {
    const before = {
      access: required(pulumiConfigGet(project, STACK, "eu:accessToken"), "config eu:accessToken"),
      refresh: required(pulumiConfigGet(project, STACK, "eu:refreshToken"), "config eu:refreshToken"),
    };
    const { code, stdout, stderr } = await runCli(["refresh", "--stack", STACK, "--namespace", "eu"], project);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      `Refreshed the tokens of stack "${STACK}" (namespace "eu") (the server issued a new refresh token):`,
    );
    expect(stdout.split("\n").filter(Boolean)).toEqual([
      "  eu:accessToken (secret)",
      "  eu:refreshToken (secret)",
      "  eu:tokenExpiresAt",
    ]);
    const after = {
      access: required(pulumiConfigGet(project, STACK, "eu:accessToken"), "config eu:accessToken"),
      refresh: required(pulumiConfigGet(project, STACK, "eu:refreshToken"), "config eu:refreshToken"),
    };
    expect(after.access).not.toBe(before.access);
    expect(after.refresh).not.toBe(before.refresh);
    expect(stdout + stderr).not.toContain(after.access);
    expect(await accessTokenWorks(desks.eu.emulator, after.access)).toBe(true);
    await expect(
      refreshAccessToken({ baseUrl: new URL(desks.eu.emulator.url), ...desks.eu.client }, before.refresh),
    ).rejects.toMatchObject({ code: OAUTH_ERROR_CODES.INVALID_GRANT });
    expect(defaultConfig(project)).toEqual(homeBefore);
  });

  it("logout --namespace eu removes eu's tokens only", async () => {
    const { code, stderr } = await runCli(["logout", "--stack", STACK, "--namespace", "eu"], project);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      `Signed out stack "${STACK}" (namespace "eu"): removed eu:accessToken, eu:refreshToken, eu:tokenExpiresAt.`,
    );
    for (const key of ["eu:accessToken", "eu:refreshToken", "eu:tokenExpiresAt"])
      expect(pulumiConfigGet(project, STACK, key), key).toBeUndefined();
    expect(pulumiConfigGet(project, STACK, "eu:clientId")).toBe("ns-eu");
    expect(defaultConfig(project)).toEqual(homeBefore);
    const eu = JSON.parse(
      (await runCli(["status", "--stack", STACK, "--namespace", "eu", "--json"], project)).stdout,
    ) as { accessToken: { present: boolean } };
    expect(eu.accessToken.present).toBe(false);
    const again = await runCli(["logout", "--stack", STACK, "--namespace", "eu"], project);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`Stack "${STACK}" (namespace "eu") holds no tokens; nothing to do.`);
    const text = await runCli(["status", "--stack", STACK, "--namespace", "eu"], project);
    expect(text.stderr).toContain(`Not signed in: run \`pulumi-helpdesk login --stack ${STACK} --namespace eu\`.`);
  });

  it.each([
    [["login", "--namespace", "eu:west"], /contains ":", which separates a namespace from its key/],
    [["status", "--namespace", ""], /the namespace is empty/],
    [["status", "--namespace", "  "], /the namespace is empty/],
    [["refresh", "--namespace", "pulumi"], /"pulumi" is reserved/],
    [["logout", "--namespace", "config"], /"config" is reserved/],
    [["logout", "-n", "eu west"], /"eu west" is not allowed/],
  ])("%j exits 2 and says what a namespace may be, touching nothing", async (args, why) => {
    const before = stackConfig(project, STACK);
    const { code, stderr } = await runCli([...args, "--stack", STACK], project, { HELPDESK_CLIENT_SECRET: "unused" });
    expect(code).toBe(2);
    expect(stderr).toContain("option '-n, --namespace <ns>' argument");
    expect(stderr).toMatch(why);
    expect(stderr).toMatch(
      /a config namespace is a name of at most 100 letters, digits, "-", "_" or "\.", starting with a letter, e\.g\. eu or helpdesk-eu|choose another, e\.g\. eu or helpdesk-eu/,
    );
    expect(stackConfig(project, STACK)).toEqual(before);
  });
});
