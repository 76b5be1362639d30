/**
 * Helpers for the emulator test suites: real HTTP over 127.0.0.1 with undici (and raw sockets), the OAuth dance, a
 * receiver server, the emulator as a process of its own.
 */

import type { ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import type { IncomingHttpHeaders, Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import type { Dispatcher } from "undici";
import { request } from "undici";
import type { EmulatorClient, EmulatorOptions, RunningEmulator } from "../../emulator/index.js";
import { DEFAULT_CLIENT, startEmulator } from "../../emulator/index.js";
import { required } from "../../kernel/required.js";
import { startProcess } from "../../scripts/lib/processes.ts";

/** A response with its body read: `json` is the parsed body when it is JSON, else `undefined`. */
export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read the emulator's JSON responses, of every shape, field by field
  json: any;
}

/** Sends one request and reads the whole response. `body` objects are sent as JSON unless `form` is set. */
export async function http(
  url: string,
  init: {
    method?: Dispatcher.HttpMethod | string;
    headers?: Record<string, string>;
    json?: unknown;
    form?: Record<string, string>;
    body?: string | Buffer;
  } = {},
): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  let body: string | Buffer | undefined = init.body;
  if (init.json !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(init.json);
  } else if (init.form !== undefined) {
    headers["content-type"] ??= "application/x-www-form-urlencoded";
    body = new URLSearchParams(init.form).toString();
  }
  const res = await request(url, { method: (init.method ?? "GET") as Dispatcher.HttpMethod, headers, body });
  const text = await res.body.text();
  let json: unknown;
  if (String(res.headers["content-type"] ?? "").includes("json")) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** The name of a cookie's `name=value` pair. */
function cookieName(pair: string): string {
  const [name = ""] = pair.split("=");
  return name;
}

/**
 * The `Cookie` header a browser sends after `res`: the `name=value` pairs of its `Set-Cookie` headers, over those of
 * `before` (a `Cookie` header; a name set again replaces the old pair).
 */
export function cookiesOf(res: HttpResponse, before = ""): string {
  const jar = new Map(
    before
      .split("; ")
      .filter(Boolean)
      .map((pair) => [cookieName(pair), pair] as const),
  );
  for (const line of [res.headers["set-cookie"] ?? []].flat()) {
    const [pair = ""] = line.split(";");
    jar.set(cookieName(pair), pair);
  }
  return [...jar.values()].join("; ");
}

/** A PKCE verifier and its S256 challenge (RFC 7636 §4.1, §4.2). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** The authorize URL for a client (docs/helpdesk-api.md §4.1). */
export function authorizeUrl(base: string, client: EmulatorClient, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({
    client_id: client.clientId,
    response_type: "code",
    redirect_uri: client.redirectUri,
    state: `st-${randomBytes(4).toString("hex")}`,
    ...extra,
  });
  return `${base}/oauth/authorize?${q}`;
}

/** Runs the authorize step against an auto-approving emulator and returns the code from the redirect. */
export async function getCode(
  base: string,
  client: EmulatorClient = DEFAULT_CLIENT,
  extra: Record<string, string> = {},
): Promise<string> {
  const res = await http(authorizeUrl(base, client, extra));
  if (res.status !== 302) throw new Error(`authorize responded with ${res.status}: ${res.text.slice(0, 200)}`);
  const location = new URL(String(res.headers.location));
  const code = location.searchParams.get("code");
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}

/** Exchanges a code (docs/helpdesk-api.md §4.2) with client_secret_post; returns the raw response. */
export function exchange(
  base: string,
  code: string,
  client: EmulatorClient = DEFAULT_CLIENT,
  extra: Record<string, string> = {},
): Promise<HttpResponse> {
  return http(`${base}/oauth/token`, {
    method: "POST",
    form: {
      grant_type: "authorization_code",
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uri: client.redirectUri,
      code,
      ...extra,
    },
  });
}

/** Full OAuth dance against an auto-approving emulator; returns the token response body. */
export async function login(
  base: string,
  client: EmulatorClient = DEFAULT_CLIENT,
): Promise<{ access_token: string; refresh_token: string; expires_in: number; token_type: string }> {
  const res = await exchange(base, await getCode(base, client), client);
  if (res.status !== 200) throw new Error(`token responded with ${res.status}: ${res.text}`);
  return res.json;
}

/**
 * Full OAuth dance through the consent page as `username` (emulator without autoApprove): opens the page, posts the
 * form with the credentials (and the page's `Origin`, as a browser does), exchanges the code.
 */
export async function loginAs(
  base: string,
  username: string,
  password: string,
  client: EmulatorClient = DEFAULT_CLIENT,
): Promise<{ access_token: string; refresh_token: string }> {
  const page = await http(authorizeUrl(base, client));
  const cookie = cookiesOf(page);
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page.text)?.[1] ?? "";
  const res = await http(`${base}/oauth/authorize`, {
    method: "POST",
    headers: { cookie, origin: base },
    form: { request: field("request"), csrf: field("csrf"), decision: "approve", username, password },
  });
  const code = new URL(String(res.headers.location)).searchParams.get("code");
  if (!code) throw new Error(`consent responded with ${res.status}`);
  const token = await exchange(base, code, client);
  return token.json;
}

/** Starts an emulator with `autoApprove: true` plus `options`. */
export function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ autoApprove: true, ...options });
}

/** `Authorization: Bearer` header. */
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** A received delivery. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on 127.0.0.1 whose response status per request is chosen by `statusFor(n)` (n = 1, 2, ...). */
export async function startReceiver(statusFor: (n: number) => number = () => 200): Promise<{
  url: string;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      res.statusCode = statusFor(received.length);
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What came back on a raw connection: every byte, the first status (or `undefined`), and when the socket closed. */
export interface RawResponse {
  text: string;
  status: number | undefined;
  /** Milliseconds from the write until the socket closed, or `undefined` when it was still open at `waitMs`. */
  closedAfterMs: number | undefined;
}

/**
 * Writes `message` as it is on a new TCP connection to 127.0.0.1:`port` (for what undici refuses to send: lying
 * `Content-Length`s, bodies that never come, malformed requests), optionally half-closes, and collects the response
 * until the server closes the connection or `waitMs` passes (then the socket is destroyed).
 */
export function rawExchange(
  port: number,
  message: string | Buffer,
  options: { waitMs?: number; halfClose?: boolean } = {},
): Promise<RawResponse> {
  const waitMs = options.waitMs ?? 3000;
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const started = performance.now();
    const done = (closedAfterMs: number | undefined) => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("latin1");
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ text, status: status === undefined ? undefined : Number(status), closedAfterMs });
    };
    const timer = setTimeout(() => {
      socket.destroy();
      done(undefined);
    }, waitMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => done(performance.now() - started));
    socket.write(message);
    if (options.halfClose) socket.end();
  });
}

/** An emulator running as `pulumi-helpdesk emulator` in a process of its own (the built CLI in dist/). */
export interface EmulatorProcess {
  url: string;
  child: ChildProcess;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Sends `signal` (default SIGTERM: a clean stop) and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const cliMain = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

/**
 * Starts `node dist/cli/main.js emulator --port 0 --auto-approve <args>` (build dist/ first: `bash scripts/build.sh`)
 * and waits for its base URL on stdout.
 * @param umask the process's umask, octal as `sh` takes it ("000"), set by `sh` before it runs node; default: this one's
 * @throws Error with its exit code and stderr when it exits before listening (a refused data file, say)
 */
export async function spawnEmulator(args: string[], umask?: string): Promise<EmulatorProcess> {
  const command = [process.execPath, cliMain, "emulator", "--port", "0", "--auto-approve", ...args];
  const [file, ...rest] = umask === undefined ? command : ["sh", "-c", `umask ${umask} && exec "$@"`, "sh", ...command];
  const started = startProcess(required(file, "the emulator's command"), rest, {
    env: { ...process.env, NO_COLOR: "1" },
  });
  const [, url = ""] = await started.waitFor("stdout", /^base URL:\s+(\S+)/m, "the emulator's base URL");
  return { url, child: started.child, stderr: started.stderr, stop: (signal) => started.stop(signal) };
}
