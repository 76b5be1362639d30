/**
 * `pulumi-helpdesk login`, `status`, `refresh`, `logout` as a person runs them: the built CLI as a child process,
 * the real Pulumi CLI underneath for the stack config, a real emulator on 127.0.0.1 as the help desk.
 */

import { createServer } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OAUTH_ERROR_CODES, refreshAccessToken } from "../../auth/oauth.js";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { required } from "../../kernel/required.js";
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

const SECRET_KEYS = ["helpdesk:clientSecret", "helpdesk:accessToken", "helpdesk:refreshToken"];

/** Plays the browser against an auto-approving emulator: GET authorize, return the redirect's Location. */
async function approve(authorizeUrl: string): Promise<string> {
  const response = await request(authorizeUrl);
  await response.body.dump();
  expect(response.statusCode).toBe(302);
  return response.headers.location as string;
}

async function follow(url: string): Promise<{ status: number; body: string }> {
  const response = await request(url);
  return { status: response.statusCode, body: await response.body.text() };
}

describe.skipIf(!pulumiAvailable())("pulumi-helpdesk login / status / refresh / logout", () => {
  let emulator: RunningEmulator;
  let project: TestProject;
  let redirectUri: string;
  let localhostRedirect: string;
  const remoteRedirect = "https://app.example.test/helpdesk/callback";
  const client = { clientId: "cli-tests", clientSecret: "cli-tests-client-secret-4d2e" };

  beforeAll(async () => {
    redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    localhostRedirect = `http://localhost:${await freePort()}/callback`;
    emulator = await startEmulator({
      port: 0,
      autoApprove: true,
      rotateRefreshTokens: true,
      clients: [
        { ...client, redirectUri, name: "CLI tests" },
        {
          clientId: "cli-remote",
          clientSecret: "cli-remote-secret-9a1b",
          redirectUri: remoteRedirect,
          name: "CLI tests (remote redirect)",
        },
        {
          clientId: "cli-localhost",
          clientSecret: "cli-localhost-secret-7c3f",
          redirectUri: localhostRedirect,
          name: "CLI tests (localhost redirect)",
        },
      ],
    });
    project = createTestProject();
  });

  afterAll(async () => {
    await emulator?.close();
    project?.dispose();
  });

  const argsFor = (stack: string, timeoutSeconds?: number) =>
    loginArgs({ stack, baseUrl: emulator.url, client: { clientId: client.clientId, redirectUri } }, timeoutSeconds);

  it("signs in through the loopback redirect and stores the credentials as encrypted stack config", async () => {
    const started = Date.now();
    const run = startCli(argsFor("dev"), project, { HELPDESK_CLIENT_SECRET: client.clientSecret });
    const page = await follow(await approve(await run.authorizeUrl));
    expect(page.status).toBe(200);
    expect(page.body).toContain("You are signed in");
    const { code, stdout, stderr } = await run.done;
    const ended = Date.now();
    expect(stderr).toContain(`wrote stack "dev" config`);
    expect(code).toBe(0);
    const file = project.stackFile("dev");
    for (const key of SECRET_KEYS) {
      const value = required(pulumiConfigGet(project, "dev", key), `config ${key}`);
      expect(value, key).toBeTruthy();
      expect(file).not.toContain(value); // only ciphertext on disk
      expect(stdout + stderr).not.toContain(value); // and never printed
      expect(file).toMatch(new RegExp(`${key}:\\s*\\n\\s*secure: v1:`));
    }
    expect(pulumiConfigGet(project, "dev", "helpdesk:clientSecret")).toBe(client.clientSecret);
    expect(pulumiConfigGet(project, "dev", "helpdesk:baseUrl")).toBe(emulator.url);
    // The token lives 7200 s (the emulator's default) from when the CLI received it, i.e. during the login run; the
    // bounds come from that run, not from the clock now, so slow `pulumi config get` calls above cannot matter.
    const expiresAt = Date.parse(
      required(pulumiConfigGet(project, "dev", "helpdesk:tokenExpiresAt"), "config helpdesk:tokenExpiresAt"),
    );
    expect(expiresAt).toBeGreaterThanOrEqual(started + 7200 * 1000);
    expect(expiresAt).toBeLessThanOrEqual(ended + 7200 * 1000);
  });

  it("status --json reports presence and expiry, never a value", async () => {
    // How long the token has left depends on when status runs (the previous test takes seconds to a minute on a busy
    // machine), so the expected remaining time is bracketed by the clock just before and just after each run.
    const expiresAt = required(
      pulumiConfigGet(project, "dev", "helpdesk:tokenExpiresAt"),
      "config helpdesk:tokenExpiresAt",
    );
    const at = Date.parse(expiresAt);
    const secondsLeft = (time: number) => Math.round((at - time) / 1000);
    let before = Date.now();
    const { code, stdout } = await runCli(["status", "--stack", "dev", "--json"], project);
    let after = Date.now();
    expect(code).toBe(0);
    const status = JSON.parse(stdout) as Record<string, unknown> & {
      accessToken: { present: boolean; expired: boolean; expiresAt: string; expiresInSeconds: number };
    };
    expect(status).toMatchObject({
      stack: "dev",
      baseUrl: emulator.url,
      clientId: client.clientId,
      redirectUri,
      refreshToken: { present: true },
      clientSecret: { present: true },
    });
    expect(status.accessToken.present).toBe(true);
    expect(status.accessToken.expired).toBe(false);
    expect(status.accessToken.expiresAt).toBe(expiresAt);
    expect(status.accessToken.expiresInSeconds).toBeGreaterThanOrEqual(secondsLeft(after));
    expect(status.accessToken.expiresInSeconds).toBeLessThanOrEqual(secondsLeft(before));
    for (const key of SECRET_KEYS)
      expect(stdout).not.toContain(required(pulumiConfigGet(project, "dev", key), `config ${key}`));
    before = Date.now();
    const text = await runCli(["status", "--stack", "dev"], project);
    after = Date.now();
    const shown = /access token:\s+present \(secret\), expires in (\d+) h (\d+) min \(([^)]+)\)/.exec(text.stdout);
    expect(shown, text.stdout).not.toBeNull();
    const [, hours, minutes, until] = shown ?? [];
    expect(until).toBe(expiresAt);
    const minutesShown = Number(hours) * 60 + Number(minutes);
    expect(Number(minutes)).toBeLessThan(60);
    expect(minutesShown).toBeGreaterThanOrEqual(Math.floor(secondsLeft(after) / 60));
    expect(minutesShown).toBeLessThanOrEqual(Math.floor(secondsLeft(before) / 60));
  });

  it("refresh (rotation on) stores the new tokens, and the old refresh token stops working", async () => {
    const before = {
      access: required(pulumiConfigGet(project, "dev", "helpdesk:accessToken"), "config helpdesk:accessToken"),
      refresh: required(pulumiConfigGet(project, "dev", "helpdesk:refreshToken"), "config helpdesk:refreshToken"),
    };
    const { code, stderr } = await runCli(["refresh", "--stack", "dev"], project);
    expect(stderr).toContain("the server issued a new refresh token");
    expect(code).toBe(0);
    const after = {
      access: required(pulumiConfigGet(project, "dev", "helpdesk:accessToken"), "config helpdesk:accessToken"),
      refresh: required(pulumiConfigGet(project, "dev", "helpdesk:refreshToken"), "config helpdesk:refreshToken"),
    };
    expect(after.access).not.toBe(before.access);
    expect(after.refresh).not.toBe(before.refresh);
    await expect(
      refreshAccessToken({ baseUrl: new URL(emulator.url), ...client }, before.refresh),
    ).rejects.toMatchObject({ code: OAUTH_ERROR_CODES.INVALID_GRANT });
  });

  it("logout removes the token keys and keeps the client settings", async () => {
    const { code, stderr } = await runCli(["logout", "--stack", "dev"], project);
    expect(code).toBe(0);
    expect(stderr).toContain("removed helpdesk:accessToken, helpdesk:refreshToken, helpdesk:tokenExpiresAt");
    expect(pulumiConfigGet(project, "dev", "helpdesk:accessToken")).toBeUndefined();
    expect(pulumiConfigGet(project, "dev", "helpdesk:refreshToken")).toBeUndefined();
    expect(pulumiConfigGet(project, "dev", "helpdesk:clientId")).toBe(client.clientId);
    const status = JSON.parse((await runCli(["status", "--stack", "dev", "--json"], project)).stdout) as {
      accessToken: { present: boolean };
    };
    expect(status.accessToken.present).toBe(false);
  });

  it("logs in again with no flags: settings come from the stack config", async () => {
    const run = startCli(["login", "--stack", "dev", "--no-browser"], project);
    await follow(await approve(await run.authorizeUrl));
    expect((await run.done).code).toBe(0);
    expect(pulumiConfigGet(project, "dev", "helpdesk:accessToken")).toBeTruthy();
  });

  it("--no-browser with a redirect URI elsewhere: takes the pasted redirect URL from stdin", async () => {
    const run = startCli(
      [
        "login",
        "--stack",
        "remote",
        "--base-url",
        emulator.url,
        "--client-id",
        "cli-remote",
        "--redirect-uri",
        remoteRedirect,
        "--no-browser",
      ],
      project,
      { HELPDESK_CLIENT_SECRET: "cli-remote-secret-9a1b" },
    );
    const location = await approve(await run.authorizeUrl);
    expect(location.startsWith(`${remoteRedirect}?`)).toBe(true);
    run.child.stdin.end(`${location}\n`);
    const { code, stderr } = await run.done;
    expect(stderr).toContain("paste the URL you were redirected to");
    expect(code).toBe(0);
    expect(pulumiConfigGet(project, "remote", "helpdesk:accessToken")).toBeTruthy();
  });

  it("stray requests to the callback get 4xx and login keeps waiting; the genuine redirect then signs in", async () => {
    const run = startCli(argsFor("strays"), project, { HELPDESK_CLIENT_SECRET: client.clientSecret });
    const location = new URL(await approve(await run.authorizeUrl));
    const forged = new URL(location);
    forged.searchParams.set("state", "forged-state"); // the genuine code, a foreign state
    const callback = new URL(redirectUri);
    const strays: ["GET" | "POST" | "HEAD", string, number][] = [
      ["GET", callback.href, 400], // a prefetch: no state
      [
        "GET",
        `${callback.href}?code=bogus&state=${"x".repeat(required(location.searchParams.get("state"), "the state").length)}`,
        400,
      ],
      ["GET", forged.href, 400],
      ["GET", `${callback.origin}/favicon.ico`, 404],
      ["POST", location.href, 405],
      ["HEAD", location.href, 405],
    ];
    for (const [method, url, status] of strays) {
      const response = await request(url, { method });
      const body = await response.body.text();
      expect(response.statusCode, `${method} ${url}`).toBe(status);
      expect(body).not.toMatch(/signed in/i);
    }
    expect(run.child.exitCode).toBeNull(); // still waiting
    const page = await follow(location.href);
    // The page is sent only after the code exchange and the config write: the token is already in the stack.
    expect(pulumiConfigGet(project, "strays", "helpdesk:accessToken")).toBeTruthy();
    expect(page.status).toBe(200);
    expect(page.body).toContain("You are signed in");
    const { code, stderr } = await run.done;
    expect(stderr).toContain("warning: ignored a request to");
    expect(stderr).not.toContain("error:");
    expect(code).toBe(0);
  });

  it("a forged callback with a bogus code and a wrong state does not end login, and writes nothing", async () => {
    const run = startCli(argsFor("wrongstate", 4), project, {
      HELPDESK_CLIENT_SECRET: client.clientSecret,
    });
    await approve(await run.authorizeUrl); // the person approved, but only the forger comes back
    const page = await follow(`${redirectUri}?code=bogus-code&state=forged-state`);
    expect(page.status).toBe(400);
    expect(page.body).not.toMatch(/signed in/i);
    expect(run.child.exitCode).toBeNull();
    const { code, stderr } = await run.done;
    expect(code).toBe(1);
    expect(stderr).toMatch(/warning: ignored a request to .* whose state does not belong to this sign-in/);
    expect(stderr).toContain(`error: timed out after 4 s waiting for the browser to come back to ${redirectUri}`);
    expect(pulumiConfigGet(project, "wrongstate", "helpdesk:accessToken")).toBeUndefined();
  });

  it("with the right state but a code the server rejects, the page shows the failure and login exits 1", async () => {
    const run = startCli(argsFor("badcode"), project, { HELPDESK_CLIENT_SECRET: client.clientSecret });
    const state = required(new URL(await run.authorizeUrl).searchParams.get("state"), "the state");
    const page = await follow(`${redirectUri}?code=bogus-code-0123&state=${encodeURIComponent(state)}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Sign-in failed");
    expect(page.body).toContain("invalid_grant");
    expect(page.body).not.toMatch(/signed in|bogus-code-0123/i);
    expect(page.body).not.toContain(client.clientSecret);
    const { code, stderr } = await run.done;
    expect(code).toBe(1);
    expect(stderr).toMatch(/error: login failed: authorization code exchange failed: .*invalid_grant/);
    expect(pulumiConfigGet(project, "badcode", "helpdesk:accessToken")).toBeUndefined();
  });

  it("a redirect URI other than the registered one gets the help desk's error page, never a redirect", async () => {
    const wrong = `http://127.0.0.1:${await freePort()}/not-registered`;
    const run = startCli(
      [
        "login",
        "--stack",
        "mismatch",
        "--base-url",
        emulator.url,
        "--client-id",
        client.clientId,
        "--redirect-uri",
        wrong,
        "--no-browser",
        "--timeout",
        "2",
      ],
      project,
      {
        HELPDESK_CLIENT_SECRET: client.clientSecret,
      },
    );
    const response = await request(await run.authorizeUrl);
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(await response.body.text()).toMatch(/redirect_uri/i);
    const { code, stderr } = await run.done;
    expect(code).toBe(1);
    expect(stderr).toMatch(/timed out after 2 s/);
  });

  it("times out with a clear message when the browser never comes back", async () => {
    const { code, stderr } = await runCli(argsFor("timeout", 1), project, {
      HELPDESK_CLIENT_SECRET: client.clientSecret,
    });
    expect(code).toBe(1);
    expect(stderr).toContain(`error: timed out after 1 s waiting for the browser to come back to ${redirectUri}`);
  });

  it("says so when the redirect port is already taken", async () => {
    const port = Number(new URL(redirectUri).port);
    const blocker = createServer().listen(port, "127.0.0.1");
    await new Promise((resolve) => blocker.once("listening", resolve));
    try {
      const { code, stderr } = await runCli(argsFor("busy"), project, {
        HELPDESK_CLIENT_SECRET: client.clientSecret,
      });
      expect(code).toBe(1);
      expect(stderr).toContain(`127.0.0.1:${port} is already in use`);
    } finally {
      blocker.close();
    }
  });

  it("a localhost redirect URI: login signs in, and a squatter on [::1]:port makes it fail as already in use", async () => {
    const { port } = new URL(localhostRedirect);
    const localhostArgs = (stack: string) => [
      "login",
      "--stack",
      stack,
      "--base-url",
      emulator.url,
      "--client-id",
      "cli-localhost",
      "--redirect-uri",
      localhostRedirect,
      "--no-browser",
    ];
    const env = { HELPDESK_CLIENT_SECRET: "cli-localhost-secret-7c3f" };
    const squatter = createServer().listen(Number(port), "::1");
    await new Promise((resolve) => squatter.once("listening", resolve));
    try {
      const { code, stderr } = await runCli(localhostArgs("squatted"), project, env);
      expect(code).toBe(1);
      expect(stderr).toContain(`error: cannot receive the sign-in redirect: [::1]:${port} is already in use.`);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    // The browser comes back on [::1], as one that tries IPv6 first for `localhost` does.
    const run = startCli(localhostArgs("local"), project, env);
    const location = new URL(await approve(await run.authorizeUrl));
    expect(location.hostname).toBe("localhost");
    location.hostname = "[::1]";
    expect((await follow(location.href)).body).toContain("You are signed in");
    expect((await run.done).code).toBe(0);
    expect(pulumiConfigGet(project, "local", "helpdesk:redirectUri")).toBe(localhostRedirect);
  });

  it("non-interactive: never prompts, says which flags or env vars to set (exit 2)", async () => {
    const { code, stderr } = await runCli(["login", "--stack", "ci", "--base-url", emulator.url], project);
    expect(code).toBe(2);
    expect(stderr).toContain("no terminal to ask on");
    expect(stderr).toMatch(/--client-id\s+or env HELPDESK_CLIENT_ID/);
    expect(stderr).toMatch(/--client-secret\s+or env HELPDESK_CLIENT_SECRET/);
    expect(stderr).toMatch(/--redirect-uri\s+or env HELPDESK_REDIRECT_URI/);
    expect(pulumiConfigGet(project, "ci", "helpdesk:baseUrl")).toBeUndefined(); // nothing written, no stack created
    const fresh = createTestProject();
    try {
      const noStack = await runCli(["status"], fresh);
      expect(noStack.code).toBe(2);
      expect(noStack.stderr).toContain("pass --stack");
    } finally {
      fresh.dispose();
    }
  });

  it("rejects malformed settings and unknown flags with exit code 2", async () => {
    // Login with a base URL it must refuse, every other setting well formed (the client secret as a flag, too).
    const withBaseUrl = (baseUrl: string) =>
      runCli(
        [...loginArgs({ stack: "bad", baseUrl, client: { clientId: "x", redirectUri } }), "--client-secret", "y"],
        project,
      );
    const bad = await withBaseUrl("helpdesk.example.com");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--base-url: base URL "helpdesk.example.com" is not an absolute URL/);
    // The provider refuses a base URL with a query (it would build `.../?q=1/oauth/authorize`); so does login.
    const query = await withBaseUrl("https://h.example/?q=1");
    expect(query.code).toBe(2);
    expect(query.stderr).toMatch(/--base-url: base URL "https:\/\/h.example\/\?q=1" must not carry a query/);
    const unknown = await runCli(["login", "--frobnicate"], project);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--frobnicate'");
    const help = await runCli(["status", "--help"], project);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Examples:");
  });
});
