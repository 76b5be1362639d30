/**
 * No credential and no escape sequence reaches a person, whatever a server echoes. A hostile proxy in front of the
 * emulator answers chosen requests with an error that echoes the whole request (method, url, every header, the
 * body raw, URL-encoded and base64) wrapped in terminal escape sequences (an OSC 8 link, a clear-screen); everything
 * else it forwards. Through it, the real CLI and the real Pulumi CLI run the user's whole life cycle: login, status,
 * `pulumi preview`, a failing and a passing `up`, a failing and a passing `pulumi-helpdesk refresh`, a provider-side
 * token renewal that fails and one that passes, a failing and a passing `destroy`, logout. Every output, the exported
 * state, the state file, the stack file and the token cache directory listing are scanned for every planted value.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { completeAuthorizationAutoApproved } from "../../emulator-client/index.js";
import { runCommand } from "../../scripts/lib/processes.ts";
import { freePort } from "../support/cli.js";
import { heldWebhooks } from "../support/emulator.js";
import { pulumiAvailable } from "../support/pulumi.js";
import { pulumiEnv } from "../support/pulumi-cli.js";

const programDir = fileURLToPath(new URL("./program", import.meta.url));
const cliPath = fileURLToPath(new URL("../../dist/bin/pulumi-helpdesk.js", import.meta.url));
const stackName = `scan${randomBytes(4).toString("hex")}`;
const clientSecret = `cs-${randomBytes(12).toString("hex")}`;
const secretUrl = `https://hooks.example.test/services/T${randomBytes(4).toString("hex")}/B0/${randomBytes(10).toString("hex")}`;

/** Every credential value seen: chosen here, or captured from the traffic (codes, verifiers, issued tokens). */
const planted = new Set<string>([clientSecret, secretUrl]);
/** Every text a person or a file could show, by where it came from. */
const scanned: Array<{ place: string; text: string }> = [];

const HOSTILE = "\u001b]8;;https://evil.example/\u0007click here\u001b]8;;\u0007\u001b[2J\u001b[31m";

/** Which requests the proxy responds with an echoing error instead of forwarding. */
let failing: ((method: string, path: string) => boolean) | undefined;

let emulator: RunningEmulator;
let proxy: Server;
let proxyUrl: string;
let stateDir: string;
let cacheDir: string;

function capture(text: string): void {
  for (const [, value] of text.matchAll(
    /(?:^|[&?"])(?:code|code_verifier|access_token|refresh_token)[=":]+([A-Za-z0-9\-._~+/%]{8,})/g,
  )) {
    if (value) planted.add(decodeURIComponent(value));
  }
}

async function forward(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
  const headers = { ...req.headers };
  delete headers.host;
  const answer = await request(`${emulator.url}${req.url ?? "/"}`, {
    method: req.method as "GET",
    headers,
    body: body.length > 0 ? body : undefined,
  });
  const text = await answer.body.text();
  capture(text);
  res.writeHead(
    answer.statusCode,
    Object.fromEntries(
      Object.entries(answer.headers).filter(([k]) => !["transfer-encoding", "connection"].includes(k)),
    ) as Record<string, string>,
  );
  res.end(text);
}

function echoError(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const raw = body.toString("utf8");
  const echo = `${HOSTILE} ${req.method} ${req.url} headers=${JSON.stringify(req.headers)} body=${raw} urlencoded=${encodeURIComponent(raw)} base64=${body.toString("base64")} ${HOSTILE}`;
  const oauth = (req.url ?? "").startsWith("/oauth/token");
  res.writeHead(oauth ? 400 : 500, { "content-type": "application/json" });
  res.end(
    JSON.stringify(
      oauth
        ? { error: `invalid_grant${HOSTILE}`, error_description: echo }
        : { error: "internal_error", message: echo },
    ),
  );
}

interface Ran {
  code: number | null;
  out: string;
}

const env = (): NodeJS.ProcessEnv => pulumiEnv(`file://${stateDir}`, cacheDir);

/** Runs a command in the program's directory, records its whole output for the scan. */
async function run(
  place: string,
  command: string,
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
  onStderr?: (text: string) => void,
): Promise<Ran> {
  const ran = await runCommand(command, args, {
    cwd: programDir,
    env: { ...env(), ...extraEnv },
    ...(onStderr ? { onStderr } : {}),
  });
  scanned.push({ place: `${place} (stdout)`, text: ran.stdout }, { place: `${place} (stderr)`, text: ran.stderr });
  return { code: ran.code, out: ran.stdout + ran.stderr };
}

const helpdesk = (place: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, onStderr?: (text: string) => void) =>
  run(place, process.execPath, [cliPath, ...args, "--stack", stackName], extraEnv, onStderr);
const pulumi = (place: string, args: string[]) =>
  run(place, "pulumi", [...args, "--stack", stackName, "--non-interactive", "--color", "never"]);

describe.skipIf(!pulumiAvailable())("credentials never reach a person, whatever a server echoes", () => {
  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), "helpdesk-scan-state-"));
    cacheDir = join(mkdtempSync(join(tmpdir(), "helpdesk-scan-cache-")), "tokens");
    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    emulator = await startEmulator({
      port: 0,
      autoApprove: true,
      rotateRefreshTokens: true,
      clients: [{ clientId: "scan-client", clientSecret, redirectUri }],
    });
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        capture(body.toString("utf8"));
        if (failing?.(req.method ?? "GET", req.url ?? "/")) return echoError(req, res, body);
        forward(req, res, body).catch((error: unknown) => {
          res.writeHead(502).end(String(error));
        });
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

    let browsed: Promise<void> | undefined;
    const login = await helpdesk(
      "login",
      [
        "login",
        "--base-url",
        proxyUrl,
        "--client-id",
        "scan-client",
        "--redirect-uri",
        redirectUri,
        "--no-browser",
        "--timeout",
        "60",
      ],
      { HELPDESK_CLIENT_SECRET: clientSecret },
      (text) => {
        const url = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(text)?.[1];
        if (url && !browsed) browsed = completeAuthorizationAutoApproved(url.replace(proxyUrl, emulator.url));
      },
    );
    await browsed;
    expect(login.code, login.out).toBe(0);
    for (const [key, value, secret] of [
      ["helpdesk:maxRetries", "0", false],
      [
        "e2e:hooks",
        JSON.stringify([
          { name: "plain", event: "ticket_opened", url: "https://hooks.example.test/plain" },
          { name: "secret", event: "note_added", url: "", secretUrl: true },
        ]),
        false,
      ],
      ["e2e:secretUrl", secretUrl, true],
    ] as const) {
      const set = await run("config set", "pulumi", [
        "config",
        "set",
        "--stack",
        stackName,
        ...(secret ? ["--secret"] : ["--plaintext"]),
        "--",
        key,
        value,
      ]);
      expect(set.code, set.out).toBe(0);
    }
  }, 120_000);

  afterAll(async () => {
    failing = undefined;
    await run("cleanup destroy", "pulumi", [
      "destroy",
      "--yes",
      "--skip-preview",
      "--stack",
      stackName,
      "--non-interactive",
    ]).catch(() => undefined);
    await run("cleanup rm", "pulumi", [
      "stack",
      "rm",
      "--yes",
      "--force",
      "--stack",
      stackName,
      "--non-interactive",
    ]).catch(() => undefined);
    await new Promise<void>((resolve) => proxy?.close(() => resolve()));
    await emulator?.close();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(join(cacheDir, ".."), { recursive: true, force: true });
  });

  it("runs the whole life cycle with echoing failures at each step, then finds no credential and no escape sequence", async () => {
    expect((await helpdesk("status", ["status"])).code).toBe(0);
    expect((await helpdesk("status --json", ["status", "--json"])).code).toBe(0);
    expect((await pulumi("preview", ["preview"])).code).toBe(0);

    failing = (method, path) => method === "POST" && path.startsWith("/v1/webhooks");
    const failedUp = await pulumi("up (echoing failure)", ["up", "--yes", "--skip-preview"]);
    expect(failedUp.code).not.toBe(0);
    expect(failedUp.out).toContain("[redacted]"); // the echo reached the message, cleaned
    failing = undefined;
    expect((await pulumi("up", ["up", "--yes", "--skip-preview"])).code).toBe(0);
    expect(await heldWebhooks(emulator)).toHaveLength(2);

    failing = (_method, path) => path.startsWith("/oauth/token");
    const failedRefresh = await helpdesk("refresh (echoing failure)", ["refresh"]);
    expect(failedRefresh.code).toBe(1);
    failing = undefined;
    expect((await helpdesk("refresh", ["refresh"])).code).toBe(0);

    // A provider-side renewal: the recorded expiry is in the past, so destroy refreshes first; once failing, once not.
    expect(
      (
        await run("config set expiry", "pulumi", [
          "config",
          "set",
          "helpdesk:tokenExpiresAt",
          "2000-01-01T00:00:00Z",
          "--stack",
          stackName,
        ])
      ).code,
    ).toBe(0);
    failing = (method, path) => path.startsWith("/oauth/token") || method === "DELETE";
    const failedDestroy = await pulumi("destroy (echoing failure)", ["destroy", "--yes", "--skip-preview"]);
    expect(failedDestroy.code).not.toBe(0);
    failing = (method) => method === "DELETE";
    expect((await pulumi("destroy (echoing delete failure)", ["destroy", "--yes", "--skip-preview"])).code).not.toBe(0);
    failing = undefined;
    expect((await pulumi("destroy", ["destroy", "--yes", "--skip-preview"])).code).toBe(0);
    expect(await heldWebhooks(emulator)).toEqual([]);

    expect((await helpdesk("status after renewal", ["status"])).code).toBe(0);
    expect((await helpdesk("logout", ["logout"])).code).toBe(0);

    const exported = await run("stack export", "pulumi", ["stack", "export", "--stack", stackName]);
    expect(exported.code).toBe(0);
    for (const file of readdirSync(join(stateDir, ".pulumi", "stacks"), { recursive: true, withFileTypes: true })) {
      if (file.isFile())
        scanned.push({
          place: `state file ${file.name}`,
          text: readFileSync(join(file.parentPath, file.name), "utf8"),
        });
    }
    scanned.push({
      place: "stack config file",
      text: readFileSync(join(programDir, `Pulumi.${stackName}.yaml`), "utf8"),
    });
    scanned.push({
      place: "token cache directory listing",
      text: readdirSync(join(cacheDir, ".."), { recursive: true }).join("\n"),
    });

    const values = [...planted].filter((value) => value.length >= 8);
    expect(
      values.length,
      "planted: client secret, url, code, code verifier, access and refresh tokens",
    ).toBeGreaterThanOrEqual(6);
    const leaks: string[] = [];
    for (const { place, text } of scanned) {
      for (const value of values) {
        for (const form of [
          value,
          encodeURIComponent(value),
          Buffer.from(value).toString("base64").replace(/=+$/, ""),
        ]) {
          if (text.includes(form)) leaks.push(`${place}: ${form.slice(0, 12)}…`);
        }
      }
      // biome-ignore lint/suspicious/noControlCharactersInRegex: an escape sequence begins with ESC or CSI, or ends with BEL
      if (/[\u001b\u009b\u0007]/.test(text)) leaks.push(`${place}: an escape sequence`);
    }
    console.log(
      `secret scan: ${scanned.length} places, ${values.length} planted values (3 encodings each), ${leaks.length} leaks`,
    );
    expect(leaks).toEqual([]);
  });
});
