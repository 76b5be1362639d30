/**
 * Browser tests of the emulator's pages with playwright-core driving the system Chromium (`/usr/bin/chromium`,
 * Debian package `chromium`): the webhooks page (sign in, add, send an event, see the delivery, delete) and the
 * OAuth consent page (Approve → callback with code + state; Deny → error=access_denied).
 *
 * Without Chromium the suite is skipped locally, and FAILS when `CI=true`.
 */

import { mkdir } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { EmulatorClient, RunningEmulator } from "../../emulator/index.js";
import { startEmulator } from "../../emulator/index.js";
import { required } from "../../kernel/required.js";
import { waitFor } from "../../scripts/lib/processes.ts";
import { chromiumAvailable, launchChromium } from "../support/browser.js";
import { authorizeUrl, exchange, http, startReceiver } from "./helpers.js";

const haveChromium = chromiumAvailable();

describe.skipIf(!haveChromium)("emulator pages in Chromium", () => {
  let context: BrowserContext;

  let browser: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    browser = await launchChromium();
    context = browser.context;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function freshPage(): Promise<Page> {
    await context.clearCookies();
    return context.newPage();
  }

  test("sign in, add a webhook, send an event, see the delivery, delete the webhook", async () => {
    const receiver = await startReceiver();
    const emulator = await startEmulator({ deliveryRetry: { attempts: 2, baseDelayMs: 50 } });
    const page = await freshPage();
    try {
      await page.goto(`${emulator.url}/`);
      await page.fill("#username", "demo");
      await page.fill("#password", "wrong");
      await page.click("#signin");
      // Server-rendered pages: wait for the response page's alert (Playwright's own wait, bounded by its action
      // timeout) instead of expect.poll, whose default 1 s deadline a loaded machine's navigation can exceed.
      await page.waitForSelector("[role=alert]");
      expect(await page.textContent("[role=alert]")).toContain("Wrong username or password");
      await page.fill("#password", "demo");
      await page.click("#signin");
      await page.waitForSelector("#account");
      expect(await page.textContent("#account")).toBe("demo");

      // A rejected URL is shown with its error and nothing is created.
      await page.selectOption("#event", "ticket_opened");
      await page.fill("#url", "ftp://nope");
      await page.click("#add");
      await page.waitForSelector("[role=alert]");
      expect(await page.textContent("[role=alert]")).toContain("url");
      expect((await http(`${emulator.url}/_emulator/webhooks`)).json.webhooks).toEqual([]);

      await page.selectOption("#event", "ticket_opened");
      await page.fill("#url", receiver.url);
      await page.click("#add");
      await page.waitForSelector("#webhooks tbody tr[data-webhook-id]");
      const row = page.locator("#webhooks tbody tr[data-webhook-id]");
      expect(await row.count()).toBe(1);
      expect(await row.textContent()).toContain(receiver.url);
      expect(await row.textContent()).toContain("ticket_opened");
      expect(await row.textContent()).toContain("active");

      await page.selectOption("#trigger-event", "ticket_opened");
      await page.click("#send");
      await waitFor("the delivery", () => receiver.received.length === 1, 5000);
      expect(receiver.received[0]?.headers["x-helpdesk-event"]).toBe("ticket_opened");
      // The receiver has the request before the emulator has its response: wait until the emulator has logged the
      // delivery as done, then one reload must show it (no re-rendering race, no 1 s expect.poll deadline).
      await waitFor(
        "the delivery to be logged as done",
        async () => {
          const [delivery] = (await http(`${emulator.url}/_emulator/deliveries`)).json.deliveries as {
            done: boolean;
          }[];
          return delivery?.done;
        },
        5000,
      );
      await page.reload();
      expect(await page.textContent("#deliveries tbody")).toContain("200 ok");
      expect(await page.textContent("#webhooks tbody")).toContain("200 ok");

      await mkdir("test-results", { recursive: true });
      await page.screenshot({ path: "test-results/emulator-page.png", fullPage: true });

      await page.click("#webhooks tbody tr[data-webhook-id] button.danger");
      await page.waitForSelector("text=Webhook deleted.");
      expect(await page.locator("#webhooks tbody tr[data-webhook-id]").count()).toBe(0);
      expect((await http(`${emulator.url}/_emulator/webhooks`)).json.webhooks).toEqual([]);
    } finally {
      await page.close();
      await emulator.close();
      await receiver.close();
    }
  });

  test("a one-time sign-in link signs the browser in; a second use is refused", async () => {
    const emulator = await startEmulator();
    const page = await freshPage();
    try {
      const link = (await http(`${emulator.url}/_emulator/login-link?account=demo`)).json.url as string;
      await page.goto(link);
      await page.waitForSelector("#account");
      await context.clearCookies();
      const second = await page.goto(link);
      expect(second?.status()).toBe(400);
    } finally {
      await page.close();
      await emulator.close();
    }
  });

  describe("a page on another port of 127.0.0.1 cannot use the signed-in browser (CSRF, issue 11 item 9)", () => {
    let attacker: { url: string; close(): Promise<void> };
    let emulator: RunningEmulator;
    let target = "";

    beforeAll(async () => {
      emulator = await startEmulator();
      target = emulator.url;
      // The attacker's page: plants the old double-submit cookie (cookies are not isolated by port; a path of its own
      // gets past an existing HttpOnly cookie of that name) and submits a form to the emulator at once.
      // `?policy=no-referrer` makes Chromium send `Origin: null` (Fetch §3.2.5).
      const server = createServer((req, res) => {
        const query = new URL(req.url ?? "/", "http://127.0.0.1").searchParams;
        const planted = "planted-planted-planted-planted";
        const fields =
          query.get("action") === "/signin"
            ? { username: "demo", password: "demo" }
            : { event: "ticket_opened", url: "https://attacker.test/hook" };
        res.setHeader("content-type", "text/html");
        res.end(`<!doctype html><meta name="referrer" content="${query.get("policy") ?? "strict-origin-when-cross-origin"}">
<form id="f" method="post" action="${target}${query.get("action") ?? "/webhooks"}">
<input name="csrf" value="${planted}">${Object.entries(fields)
          .map(([k, v]) => `<input name="${k}" value="${v}">`)
          .join("")}
</form>
<script>document.cookie = "helpdesk_csrf=${planted}; path=${query.get("action") ?? "/webhooks"}"; document.getElementById("f").submit();</script>`);
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      attacker = {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        close: () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      };
    });

    afterAll(async () => {
      await attacker?.close();
      await emulator?.close();
    });

    for (const [policy, origin] of [
      ["no-referrer", "null"],
      ["strict-origin-when-cross-origin", "the attacker's"],
    ] as const) {
      test(`add-webhook form from the attacker's page (Origin: ${origin}) → 403, nothing created`, async () => {
        const page = await freshPage();
        try {
          await page.goto((await http(`${emulator.url}/_emulator/login-link`)).json.url as string);
          await page.waitForSelector("#account");
          const answer = page.waitForResponse((r) => r.url() === `${emulator.url}/webhooks`);
          await page.goto(`${attacker.url}?policy=${policy}`);
          const response = await answer;
          const sent = await response.request().allHeaders();
          expect(sent.origin).toBe(origin === "null" ? "null" : attacker.url.slice(0, -1));
          expect(sent.cookie).toContain("helpdesk_csrf=planted");
          expect(sent.cookie).toContain("helpdesk_session=");
          expect(response.status()).toBe(403);
          expect(emulator.state().webhooks).toEqual([]);
        } finally {
          await page.close();
        }
      });
    }

    test("sign-in form from the attacker's page (login CSRF, Origin: null) → 403, no session", async () => {
      const page = await freshPage();
      try {
        await page.goto(`${emulator.url}/`); // the browser holds the emulator's cookie, as after any visit
        const sessions = emulator.state().sessions;
        const answer = page.waitForResponse((r) => r.url() === `${emulator.url}/signin`);
        await page.goto(`${attacker.url}?policy=no-referrer&action=/signin`);
        const response = await answer;
        expect((await response.request().allHeaders()).origin).toBe("null");
        expect(response.status()).toBe(403);
        expect(emulator.state().sessions).toBe(sessions);
      } finally {
        await page.close();
      }
    });
  });

  describe("consent page", () => {
    let emulator: RunningEmulator;
    let client: EmulatorClient;
    let callback: { url: string; hits: URL[]; close(): Promise<void> };

    beforeAll(async () => {
      const hits: URL[] = [];
      const server = createServer((req, res) => {
        hits.push(new URL(req.url ?? "/", "http://127.0.0.1"));
        res.setHeader("content-type", "text/html");
        res.end("<!doctype html><title>callback</title><p>You can close this window.</p>");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as AddressInfo).port;
      callback = {
        url: `http://127.0.0.1:${port}/callback`,
        hits,
        close: () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      };
      client = {
        clientId: "browser-app",
        clientSecret: "browser-secret",
        redirectUri: callback.url,
        name: "Browser Test App",
      };
      emulator = await startEmulator({ clients: [client] });
    });

    afterAll(async () => {
      await emulator?.close();
      await callback?.close();
    });

    test("Approve → the callback receives code and state; the code is exchangeable", async () => {
      const page = await freshPage();
      try {
        await page.goto(authorizeUrl(emulator.url, client, { state: "approve-state" }));
        expect(await page.textContent("#app-name")).toBe("Browser Test App");
        await page.fill("#username", "demo");
        await page.fill("#password", "demo");
        await Promise.all([page.waitForURL((u) => u.href.startsWith(callback.url)), page.click("#approve")]);
        const landed = new URL(page.url());
        expect(landed.searchParams.get("state")).toBe("approve-state");
        const code = required(landed.searchParams.get("code"), "the code of the redirect");
        expect(code).toBeTruthy();
        const token = await exchange(emulator.url, code, client);
        expect(token.status).toBe(200);
        expect(token.json.token_type).toBe("bearer");
      } finally {
        await page.close();
      }
    });

    test("Deny → the callback receives error=access_denied and state, no code", async () => {
      const page = await freshPage();
      try {
        await page.goto(authorizeUrl(emulator.url, client, { state: "deny-state" }));
        await Promise.all([page.waitForURL((u) => u.href.startsWith(callback.url)), page.click("#deny")]);
        const landed = new URL(page.url());
        expect(landed.searchParams.get("error")).toBe("access_denied");
        expect(landed.searchParams.get("state")).toBe("deny-state");
        expect(landed.searchParams.has("code")).toBe(false);
      } finally {
        await page.close();
      }
    });

    test("a mismatched redirect_uri shows an error page and never leaves the emulator", async () => {
      const page = await freshPage();
      try {
        const response = await page.goto(
          authorizeUrl(emulator.url, { ...client, redirectUri: `${callback.url}/evil` }),
        );
        expect(response?.status()).toBe(400);
        expect(page.url().startsWith(emulator.url)).toBe(true);
        expect(await page.textContent("h1")).toContain("Redirect URI mismatch");
      } finally {
        await page.close();
      }
    });
  });
});
