/**
 * Generated server answers against the provider and the OAuth client (fast-check, fixed seed): whatever a help desk
 * or its token endpoint answers (any status, headers, bodies with planted credentials and terminal escape
 * sequences), every failure is a typed error whose message holds no credential, no escape sequence and no control
 * character, and is short enough to print. Real HTTP on 127.0.0.1; the provider runs through its real entry point
 * (`webhookProvider`, the object the serialized shim loads), the OAuth client through `refreshAccessToken`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OAuthError, refreshAccessToken } from "../../auth/oauth.js";
import { CONFIG_KEYS } from "../../kernel/config.js";
import { HelpdeskError } from "../../provider/core/errors.js";
import { webhookProvider } from "../../provider/dynamic/index.js";

const SEED = 20261123;
const PROVIDER_RUNS = 1000;
const OAUTH_RUNS = 1000;

/** Credentials the code under test holds; a hostile server echoes them back in every way it can. */
const SECRETS = {
  accessToken: "at-PLANTED-access-9f8e7d6c5b4a",
  refreshToken: "rt-PLANTED-refresh-1a2b3c4d5e6f",
  clientSecret: "cs-PLANTED-client-secret-77aa",
  url: "https://hooks.example.test/services/T0PLANT/B0PLANT/urlS3cretPLANTED",
};
const planted = Object.values(SECRETS);
/** fast-check prints a failing answer; a 60 KiB body would drown the report. */
const shortReport = (answer: HttpResponse): string =>
  JSON.stringify({ ...answer, body: answer.body.subarray(0, 200).toString("latin1") });
/** A fast-check reporter that names the seed, the first 600 characters of the failure and the shortened answer. */
function report<T extends [HttpResponse, ...unknown[]]>(details: fc.RunDetails<T>): void {
  if (!details.failed) return;
  const failure = "errorInstance" in details ? String(details.errorInstance).slice(0, 600) : "no failure text";
  throw new Error(
    `seed ${SEED}: ${failure} on ${details.counterexample ? shortReport(details.counterexample[0]) : "?"}`,
  );
}

/** Every form in which a planted value must not appear in a message. */
const forbiddenForms = planted.flatMap((value) => [
  value,
  encodeURIComponent(value),
  Buffer.from(value).toString("base64").replace(/=+$/, ""),
]);
/** Distinctive fragments: a message that shows part of a secret leaks too. */
const fragments = ["PLANTED", "urlS3cret"];

/** What the next request gets. */
interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

let server: Server;
let baseUrl: string;
let next: HttpResponse = { status: 200, headers: {}, body: Buffer.alloc(0) };

const escapes = fc.constantFrom(
  "\u001b[2J\u001b[H", // clear screen
  "\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007", // OSC 8 link
  "\u001b[31mred\u001b[0m",
  "\u009b1;1H",
  "\u0007\u0008\u0000",
  "\u202e\u200b",
  "\r\n\t",
);
const secretEcho = fc
  .constantFrom(...planted)
  .chain((value) =>
    fc.constantFrom(
      value,
      encodeURIComponent(value),
      JSON.stringify(value).slice(1, -1),
      Buffer.from(value).toString("base64"),
      `Bearer ${value}`,
      `Basic ${Buffer.from(`helpdesk-demo:${value}`).toString("base64")}`,
      `refresh_token=${value}`,
      `client_secret=${encodeURIComponent(value)}`,
      `{"access_token":"${value}"}`,
    ),
  );
/** Text a hostile or broken server writes: planted credentials, escapes, noise. */
const hostileText = fc
  .array(
    fc.oneof(
      secretEcho,
      escapes,
      fc.string({ maxLength: 40 }),
      fc.constantFrom("error", "invalid_grant", "status_code: 500"),
    ),
    { maxLength: 8 },
  )
  .map((parts) => parts.join(" "));

const jsonBody = fc.oneof(
  hostileText.map((text) => ({ error: "invalid_grant", error_description: text })),
  hostileText.map((text) => ({ error: text, error_description: text, message: text })),
  hostileText.map((text) => ({ webhook: { id: text, event: "ticket_opened", url: SECRETS.url, state: text } })),
  fc.constant({ webhook: { event: "ticket_opened", url: SECRETS.url, state: "active" } }), // no id: the orphan error
  hostileText.map((text) => ({
    access_token: text,
    token_type: "bearer",
    expires_in: "soon",
    refresh_token: SECRETS.refreshToken,
  })),
  fc.constant({
    access_token: "fresh-access-token-0001",
    token_type: "bearer",
    expires_in: 7200,
    refresh_token: "fresh-refresh-token-0001",
  }),
  fc.jsonValue({ maxDepth: 4 }),
);
const body = fc.oneof(
  jsonBody.map((value) => Buffer.from(JSON.stringify(value))),
  hostileText.map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.constant(Buffer.from(`${SECRETS.refreshToken} `.repeat(2000))), // long
  fc.constant(Buffer.alloc(0)),
);
/** Header values must be valid HTTP (no control characters); credentials may still be in them. */
const headerValue = fc.oneof(fc.constantFrom(...planted), fc.stringMatching(/^[\x20-\x7e]{0,40}$/));
const answer: fc.Arbitrary<HttpResponse> = fc.record({
  status: fc.oneof(
    fc.constantFrom(200, 201, 204, 302, 400, 401, 403, 404, 405, 409, 413, 422, 429, 500, 502, 503),
    fc.integer({ min: 200, max: 599 }),
  ), // 1xx are interim answers: a final one must follow
  headers: fc.record(
    {
      "content-type": fc.constantFrom(
        "application/json",
        "application/json; charset=utf-8",
        "text/plain",
        "text/html",
        "application/x-www-form-urlencoded",
      ),
      location: headerValue.map((v) => `/v1/webhooks/${encodeURIComponent(v)}`),
      "retry-after": fc.constantFrom("0", "-1", "soon", "Wed, 21 Oct 2015 07:28:00 GMT"),
      "www-authenticate": headerValue.map(
        (v) => `Bearer error="invalid_token", error_description="${v.replace(/"/g, "")}"`,
      ),
    },
    { requiredKeys: [] },
  ),
  body,
});

/** The checks every failure message passes. */
function assertPrintable(message: string, context: string): void {
  for (const form of forbiddenForms)
    expect(message.includes(form), `${context}: planted credential in ${JSON.stringify(message)}`).toBe(false);
  for (const fragment of fragments)
    expect(message.includes(fragment), `${context}: credential fragment in ${JSON.stringify(message)}`).toBe(false);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the message must hold no control character
  expect(message, context).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e\u200b]/);
  expect(message.length, context).toBeLessThan(2000);
}

const config = {
  get(key: string): string | undefined {
    return {
      [CONFIG_KEYS.baseUrl]: baseUrl,
      [CONFIG_KEYS.accessToken]: SECRETS.accessToken,
      [CONFIG_KEYS.refreshToken]: SECRETS.refreshToken,
      [CONFIG_KEYS.clientId]: "helpdesk-demo",
      [CONFIG_KEYS.clientSecret]: SECRETS.clientSecret,
      [CONFIG_KEYS.maxRetries]: "0",
      [CONFIG_KEYS.requestTimeout]: "5",
    }[key];
  },
};

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(next.status, next.headers);
      res.end(next.status === 204 || next.status === 304 ? undefined : next.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const key of ["HELPDESK_BASE_URL", "HELPDESK_ACCESS_TOKEN"]) delete process.env[key];
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("generated server answers", () => {
  it(`provider create and delete: ${PROVIDER_RUNS} answers, every failure typed, redacted and printable`, async () => {
    const started = performance.now();
    let failures = 0;
    await fc.assert(
      fc.asyncProperty(answer, fc.boolean(), async (generated, creating) => {
        next = generated;
        try {
          if (creating) await webhookProvider.create(config, { event: "ticket_opened", url: SECRETS.url });
          else
            await webhookProvider.delete(config, "wh_1", { event: "ticket_opened", url: SECRETS.url, state: "active" });
        } catch (error) {
          failures++;
          expect(error, "a typed error").toBeInstanceOf(HelpdeskError);
          assertPrintable((error as Error).message, `status ${generated.status}`);
          assertPrintable((error as Error).stack ?? "", `stack, status ${generated.status}`);
        }
      }),
      { seed: SEED, numRuns: PROVIDER_RUNS, endOnFailure: true, reporter: report },
    );
    console.log(
      `provider fuzz: seed ${SEED}, ${PROVIDER_RUNS} answers, ${failures} failures checked, ${Math.round(performance.now() - started)} ms`,
    );
  });

  it(`OAuth refresh: ${OAUTH_RUNS} token endpoint answers, every failure an OAuthError, redacted and printable`, async () => {
    const started = performance.now();
    let failures = 0;
    await fc.assert(
      fc.asyncProperty(answer, async (generated) => {
        next = generated;
        try {
          await refreshAccessToken(
            { baseUrl: new URL(baseUrl), clientId: "helpdesk-demo", clientSecret: SECRETS.clientSecret },
            SECRETS.refreshToken,
          );
        } catch (error) {
          failures++;
          expect(error, "a typed error").toBeInstanceOf(OAuthError);
          assertPrintable((error as Error).message, `status ${generated.status}`);
        }
      }),
      { seed: SEED, numRuns: OAUTH_RUNS, endOnFailure: true, reporter: report },
    );
    console.log(
      `oauth fuzz: seed ${SEED}, ${OAUTH_RUNS} answers, ${failures} failures checked, ${Math.round(performance.now() - started)} ms`,
    );
  });
});
