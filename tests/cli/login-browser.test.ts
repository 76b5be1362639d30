/**
 * `pulumi-helpdesk login` with a person at the browser: the emulator's real consent page (auto-approve off), shown
 * in Chromium (playwright-core), where the person signs in and clicks Approve or Deny.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { required } from "../../kernel/required.js";
import { chromiumAvailable, launchChromium } from "../support/browser.js";
import { createTestProject, freePort, loginArgs, pulumiConfigGet, startCli, type TestProject } from "../support/cli.js";
import { pulumiAvailable } from "../support/pulumi.js";

const haveChromium = chromiumAvailable();

describe.skipIf(!haveChromium || !pulumiAvailable())("login through the consent page in Chromium", () => {
  let emulator: RunningEmulator;
  let project: TestProject;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let redirectUri: string;
  const client = { clientId: "browser-login", clientSecret: "browser-login-secret-61c0" };

  beforeAll(async () => {
    redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    emulator = await startEmulator({
      port: 0,
      clients: [{ ...client, redirectUri, name: "Acme Platform (Pulumi)" }],
      accounts: [{ username: "ada", password: "correct horse" }],
    });
    project = createTestProject();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await emulator?.close();
    project?.dispose();
  });

  async function loginInBrowser(stack: string, decision: "approve" | "deny") {
    const run = startCli(
      loginArgs({ stack, baseUrl: emulator.url, client: { clientId: client.clientId, redirectUri } }, 60),
      project,
      {
        HELPDESK_CLIENT_SECRET: client.clientSecret,
      },
    );
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await page.goto(await run.authorizeUrl);
    await expect(page.locator("body")).toBeDefined();
    expect(await page.textContent("body")).toContain("Acme Platform (Pulumi)");
    await page.fill("#username", "ada");
    await page.fill("#password", "correct horse");
    await page.click(`#${decision}`);
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    const shown = (await page.textContent("body")) ?? "";
    await page.close();
    return { ...(await run.done), shown };
  }

  it("Approve: login exits 0 and the stack config holds the secrets, encrypted in the file", async () => {
    const { code, shown, stdout, stderr } = await loginInBrowser("approved", "approve");
    expect(shown).toContain("You are signed in");
    expect(code, stderr).toBe(0);
    const file = project.stackFile("approved");
    for (const key of ["helpdesk:clientSecret", "helpdesk:accessToken", "helpdesk:refreshToken"]) {
      const value = required(pulumiConfigGet(project, "approved", key), key);
      expect(value, key).toBeTruthy();
      expect(file).not.toContain(value);
      expect(stdout + stderr).not.toContain(value);
    }
    expect(pulumiConfigGet(project, "approved", "helpdesk:clientSecret")).toBe(client.clientSecret);
  });

  it("Deny: login exits 1 with access_denied and writes nothing", async () => {
    const { code, shown, stderr } = await loginInBrowser("denied", "deny");
    expect(shown).toContain("access_denied");
    expect(shown).toContain("you declined in the browser");
    expect(shown).not.toMatch(/signed in/i);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /error: login failed: authorization failed with access_denied \(you declined in the browser\)/,
    );
    expect(pulumiConfigGet(project, "denied", "helpdesk:accessToken")).toBeUndefined();
    expect(pulumiConfigGet(project, "denied", "helpdesk:baseUrl")).toBeUndefined();
  });
});
