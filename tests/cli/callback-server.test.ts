/**
 * The loopback redirect receiver of `login` (cli/login/callback-server.ts) over real HTTP on 127.0.0.1: only the redirect
 * that carries the expected `state` ends the wait; everything else gets a 4xx and the wait goes on; the browser's
 * request is held until the login says how it went.
 */

import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { OAUTH_ERROR_CODES, OAuthError } from "../../auth/oauth.js";
import {
  type CallbackOptions,
  type CallbackReceiver,
  type IgnoredReason,
  listenForCallback,
} from "../../cli/login/callback-server.js";
import { CliError } from "../../cli/shared/output.js";
import { freePort } from "../support/cli.js";

const STATE = "s3cr3t-state-0123456789abcdefghij";

/** Whether `promise` is still pending after `ms` milliseconds. */
async function stillPending(promise: Promise<unknown>, ms = 150): Promise<boolean> {
  const pending = Symbol("pending");
  const outcome = await Promise.race([
    promise.then(
      () => "settled",
      () => "settled",
    ),
    delay(ms, pending),
  ]);
  return outcome === pending;
}

async function get(
  url: string,
  method: "GET" | "POST" | "HEAD" = "GET",
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const response = await request(url, {
    method,
    ...(method === "POST" && {
      body: "code=x&state=y",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }),
  });
  return { status: response.statusCode, body: await response.body.text(), headers: response.headers };
}

describe("loopback callback receiver", () => {
  let receiver: CallbackReceiver | undefined;
  let redirectUri: URL;
  let ignored: IgnoredReason[];

  async function listen(options: Partial<CallbackOptions> = {}): Promise<CallbackReceiver> {
    redirectUri = new URL(`http://127.0.0.1:${await freePort()}/callback`);
    ignored = [];
    receiver = await listenForCallback(redirectUri, {
      state: STATE,
      timeoutSeconds: 30,
      onIgnored: (reason) => ignored.push(reason),
      ...options,
    });
    return receiver;
  }
  const at = (query: string, path = redirectUri.pathname) => `${redirectUri.origin}${path}${query}`;

  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it("responds to stray requests with 4xx and keeps waiting; only the right state ends the wait", async () => {
    const { callback } = await listen();
    const sameLength = STATE.replace(/.$/, (c) => (c === "x" ? "y" : "x"));
    expect(sameLength).toHaveLength(STATE.length);
    const strays: [string, "GET" | "POST" | "HEAD", number, IgnoredReason][] = [
      [at("?code=abc"), "GET", 400, "missing_state"],
      [at(""), "GET", 400, "missing_state"],
      [at("?code=abc&state=forged"), "GET", 400, "state_mismatch"],
      [at(`?code=abc&state=${sameLength}`), "GET", 400, "state_mismatch"],
      [at(`?code=abc&state=${STATE}x`), "GET", 400, "state_mismatch"],
      [at(`?code=abc&state=${STATE}&state=${STATE}`), "GET", 400, "state_mismatch"],
      [at(`?code=abc&state=${STATE}`, "/favicon.ico"), "GET", 404, "not_found"],
      [at(`?code=abc&state=${STATE}`, "/"), "GET", 404, "not_found"],
      [at(`?code=abc&state=${STATE}`, "/callback/"), "GET", 404, "not_found"],
      [at(`?code=abc&state=${STATE}`), "POST", 405, "method_not_allowed"],
      [at(`?code=abc&state=${STATE}`), "HEAD", 405, "method_not_allowed"],
    ];
    for (const [url, method, status] of strays) {
      const answer = await get(url, method);
      expect(answer.status, `${method} ${url}`).toBe(status);
      expect(answer.body).not.toMatch(/signed in/i);
      expect(String(answer.headers["content-type"])).toContain("text/plain");
      if (status === 405) expect(answer.headers.allow).toBe("GET");
    }
    expect(ignored).toEqual(strays.map(([, , , reason]) => reason));
    expect(await stillPending(callback)).toBe(true);

    const page = get(at(`?code=the-code&state=${STATE}`));
    const redirect = await callback;
    expect(redirect.url.href).toBe(`${redirectUri.href}?code=the-code&state=${STATE}`);
    expect(await stillPending(page)).toBe(true); // held until the login says how it went
    redirect.respond({ ok: true });
    redirect.respond({ ok: false, message: "too late" }); // only the first answer counts
    const answer = await page;
    expect(answer.status).toBe(200);
    expect(answer.body).toContain("You are signed in");
    expect(answer.headers["cache-control"]).toBe("no-store");

    expect((await get(at(`?code=again&state=${STATE}`))).status).toBe(409); // a reload after the end
    expect((await get(at("?code=x&state=forged"))).status).toBe(400);
  });

  it("shows a failed exchange on the page, HTML-escaped and without escape sequences, never 'signed in'", async () => {
    const { callback } = await listen();
    const page = get(at(`?code=c&state=${STATE}`));
    (await callback).respond({
      ok: false,
      message: "token endpoint responded with 400 invalid_grant: <b>bad</b>\u001b[31m code\u0007",
    });
    const { status, body } = await page;
    expect(status).toBe(200);
    expect(body).toContain("Sign-in failed");
    expect(body).toContain("invalid_grant: &lt;b&gt;bad&lt;/b&gt; code");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the page must hold no ESC or BEL a server sent
    expect(body).not.toMatch(/signed in|\u001b|\u0007|<b>/);
  });

  it("bounds how long the browser waits for the result, then tells it to look at the terminal", async () => {
    const { callback } = await listen({ responseTimeoutSeconds: 0.3 });
    const started = Date.now();
    const page = get(at(`?code=c&state=${STATE}`));
    const redirect = await callback;
    const { status, body } = await page;
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(status).toBe(200);
    expect(body).toContain("Still finishing the sign-in");
    expect(body).not.toMatch(/signed in/i);
    redirect.respond({ ok: true }); // no-op, the browser has its response
  });

  it("close() answers a browser request still held, and stops listening", async () => {
    const listening = await listen();
    const page = get(at(`?code=c&state=${STATE}`));
    await listening.callback;
    await listening.close();
    expect((await page).body).toContain("Return to the terminal");
    await expect(get(at(`?code=c&state=${STATE}`))).rejects.toThrow();
  });

  it("times out with a clear error, and stray requests do not extend the wait", async () => {
    const started = Date.now();
    const { callback } = await listen({ timeoutSeconds: 0.6 });
    for (let i = 0; i < 4; i++) {
      await delay(100);
      expect((await get(at("?state=nope&code=x"))).status).toBe(400);
    }
    await expect(callback).rejects.toThrow(CliError);
    await expect(callback).rejects.toThrow(
      `timed out after 0.6 s waiting for the browser to come back to ${redirectUri.href}`,
    );
    expect(Date.now() - started).toBeLessThan(1500);
    expect((await get(at(`?code=late&state=${STATE}`))).status).toBe(409);
  });

  it("an error redirect with the right state ends the login clearly: access_denied says you declined", async () => {
    const { callback } = await listen();
    const { status, body } = await get(
      at(`?error=access_denied&error_description=The+user+denied+the+request&state=${STATE}`),
    );
    expect(status).toBe(200);
    expect(body).toContain("Sign-in failed");
    expect(body).toContain("access_denied");
    const error = await callback.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({ code: OAUTH_ERROR_CODES.ACCESS_DENIED });
    expect((error as Error).message).toBe(
      "authorization failed with access_denied (you declined in the browser): The user denied the request",
    );
  });

  it("an error redirect with a wrong state is ignored like any stray request", async () => {
    const { callback } = await listen();
    expect((await get(at("?error=access_denied&state=forged"))).status).toBe(400);
    expect((await get(at("?error=access_denied"))).status).toBe(400);
    expect(await stillPending(callback)).toBe(true);
  });

  it("removes escape sequences and control characters from error_description, and shortens it", async () => {
    const { callback } = await listen();
    const description =
      "\u001b[2J\u001b[31mred\u001b[0m \u001b]8;;https://evil.test\u001b\\link\u001b]8;;\u001b\\ \u001b]0;title\u0007\u202eevil\u202c\r\nnext\u0000\u009b1mline " +
      "x".repeat(500);
    await get(
      at(`?${new URLSearchParams({ error: "server_error\u001b[5m", error_description: description, state: STATE })}`),
    );
    const message = (await callback.then(
      () => "",
      (e: Error) => e.message,
    )) as string;
    expect(message).toMatch(/^authorization failed with server_error: red link evil nextline x+…$/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the message must hold no control character
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(message.length).toBeLessThan(260);
  });

  it("a right-state redirect without a code fails clearly instead of waiting", async () => {
    const { callback } = await listen();
    expect((await get(at(`?state=${STATE}`))).body).toContain("Sign-in failed");
    await expect(callback).rejects.toMatchObject({
      code: OAUTH_ERROR_CODES.BAD_RESPONSE,
      message: "the redirect carried no authorization code",
    });
  });

  it("names the port when it is taken", async () => {
    const first = await listen();
    await expect(listenForCallback(redirectUri, { state: STATE, timeoutSeconds: 1 })).rejects.toThrow(
      `127.0.0.1:${redirectUri.port} is already in use`,
    );
    await first.close();
  });
});

/** A process that holds `host:port` (a squatter, or anything else listening there). */
async function squat(host: string, port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, host, resolve));
  return server;
}
const stop = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe("a localhost redirect URI: both loopback addresses, or none (audit L3)", () => {
  it("listens on 127.0.0.1 and on [::1]: a redirect arriving on either is received", async () => {
    for (const address of ["[::1]", "127.0.0.1"]) {
      const port = await freePort();
      const redirectUri = new URL(`http://localhost:${port}/callback`);
      const receiver = await listenForCallback(redirectUri, { state: STATE, timeoutSeconds: 30 });
      try {
        // Both addresses are held (a stray request is answered, not refused by the system).
        for (const host of ["127.0.0.1", "[::1]"])
          expect((await get(`http://${host}:${port}/callback?state=forged`)).status, host).toBe(400);
        const page = get(`http://${address}:${port}/callback?code=the-code&state=${STATE}`);
        const redirect = await receiver.callback;
        expect(redirect.url.href).toBe(`http://localhost:${port}/callback?code=the-code&state=${STATE}`);
        redirect.respond({ ok: true });
        expect((await page).body).toContain("You are signed in");
      } finally {
        await receiver.close();
      }
    }
  });

  for (const [squatted, shown] of [
    ["::1", "[::1]"],
    ["127.0.0.1", "127.0.0.1"],
  ] as const) {
    it(`fails with "already in use" when ${shown}:port is taken, leaving nothing listening on the other address`, async () => {
      const port = await freePort();
      const squatter = await squat(squatted, port);
      try {
        const listening = listenForCallback(new URL(`http://localhost:${port}/callback`), {
          state: STATE,
          timeoutSeconds: 30,
        });
        await expect(listening).rejects.toThrow(CliError);
        await expect(listening).rejects.toThrow(
          `cannot receive the sign-in redirect: ${shown}:${port} is already in use.`,
        );
        // No half-listen: both addresses other than the squatter's are free again.
        for (const host of ["127.0.0.1", "::1"].filter((host) => host !== squatted))
          await stop(await squat(host, port));
      } finally {
        await stop(squatter);
      }
    });
  }

  // A machine without IPv6 loopback (a network namespace whose `lo` has IPv6 disabled): nobody can listen on ::1
  // there, so 127.0.0.1 alone is complete; any other failure still fails. Linux: `unshare` (user and network
  // namespaces) and `ip` from util-linux and iproute2.
  it.runIf(process.platform === "linux")(
    "without IPv6 loopback, listens on 127.0.0.1 alone; a taken 127.0.0.1 still fails",
    () => {
      const module = fileURLToPath(new URL("../../dist/cli/login/callback-server.js", import.meta.url));
      const script = `
const { listenForCallback } = await import(${JSON.stringify(module)});
const net = await import("node:net");
const results = {};
const ipv6 = await new Promise((resolve) => net.createServer().once("error", (e) => resolve(e.code)).listen(18990, "::1", function () { this.close(); resolve("bound"); }));
results.ipv6 = ipv6;
const receiver = await listenForCallback(new URL("http://localhost:18990/callback"), { state: "s", timeoutSeconds: 5 });
const answer = await fetch("http://127.0.0.1:18990/callback?state=x");
results.answered = answer.status;
await receiver.close();
const squatter = await new Promise((resolve) => { const s = net.createServer().listen(18991, "127.0.0.1", () => resolve(s)); });
results.taken = await listenForCallback(new URL("http://localhost:18991/callback"), { state: "s", timeoutSeconds: 5 }).then(() => "listened", (e) => e.message);
squatter.close();
console.log(JSON.stringify(results));`;
      const run = spawnSync(
        "unshare",
        [
          "--user",
          "--map-root-user",
          "--net",
          "sh",
          "-ec",
          'ip link set lo up; echo 1 > /proc/sys/net/ipv6/conf/lo/disable_ipv6; exec "$@"',
          "sh",
          process.execPath,
          "--input-type=module",
          "-e",
          script,
        ],
        { encoding: "utf8" },
      );
      expect(run.stderr).toBe("");
      expect(JSON.parse(run.stdout)).toEqual({
        ipv6: "EADDRNOTAVAIL",
        answered: 400,
        taken:
          "cannot receive the sign-in redirect: 127.0.0.1:18991 is already in use. Stop what listens there, or register a different redirect URI.",
      });
    },
  );
});
