/**
 * One table of webhook edge cases, each judged by both users of the shared rule (kernel/webhook-rules.ts): the
 * provider's `check` and the real emulator over HTTP on 127.0.0.1 (`POST /v1/webhooks`, 201 or 422). Both must give
 * the same verdict and the same reasons, so that a green `pulumi preview` is never followed by a refused `pulumi up`.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEmulator } from "../../emulator/index.js";
import { EVENTS } from "../../kernel/events.js";
import { UNKNOWN } from "../../kernel/pulumi-wire.js";
import { required } from "../../kernel/required.js";
import { MAX_URL_LENGTH, webhookEventProblem, webhookProblems, webhookUrlProblem } from "../../kernel/webhook-rules.js";
import { checkWebhook } from "../../provider/core/webhooks.js";
import { bearer, http, login, start } from "../emulator/helpers.js";

/** Put in bad urls so that a reason echoing any part of them is caught, not only one echoing all of it. */
const SECRET = "s3cr3t";

/** `undefined` as an input means "absent" (JSON.stringify drops it). */
interface Row {
  name: string;
  event?: unknown;
  url?: unknown;
  /** The failing fields, in order; empty when the inputs are valid. */
  refused: Array<"event" | "url">;
}

const ok = "ticket_opened";
const long = (length: number) => {
  const head = "https://h.example/";
  return head + "a".repeat(length - head.length);
};

const TABLE: Row[] = [
  // Valid.
  { name: "https with a path", event: ok, url: "https://h.example/x", refused: [] },
  { name: "http to a loopback IPv4 with a port", event: ok, url: "http://127.0.0.1:9/x", refused: [] },
  { name: "IPv6 literal with a port", event: ok, url: "https://[::1]:8443/p", refused: [] },
  { name: "userinfo, query and fragment", event: ok, url: "https://user:pass@h.example/p?token=a#f", refused: [] },
  { name: `exactly ${MAX_URL_LENGTH} characters`, event: ok, url: long(MAX_URL_LENGTH), refused: [] },
  { name: "scheme and host in upper case", event: ok, url: "HTTPS://H.EXAMPLE", refused: [] },
  { name: "no path", event: ok, url: "http://localhost", refused: [] },
  { name: "empty port", event: ok, url: "https://h.example:/x", refused: [] },
  {
    name: "non-ASCII host and path (IDNA, percent-encoded on the wire)",
    event: ok,
    url: "https://bücher.example/pfad/ä",
    refused: [],
  },
  { name: "percent-encoded space", event: ok, url: "https://h.example/a%20b", refused: [] },
  {
    name: "Slack-style secret path",
    event: ok,
    url: `https://hooks.slack.example/services/T0/B0/${SECRET}`,
    refused: [],
  },
  {
    name: "the last event of docs/helpdesk-api.md §6",
    event: "agent_replied",
    url: "https://h.example/x",
    refused: [],
  },

  // Invalid url.
  { name: "three slashes (WHATWG would repair the host)", event: ok, url: `https:///${SECRET}`, refused: ["url"] },
  { name: "one slash", event: ok, url: `https:/${SECRET}.example/x`, refused: ["url"] },
  { name: "no slash", event: ok, url: `http:${SECRET}.example`, refused: ["url"] },
  { name: "query where the host belongs", event: ok, url: `https://?token=${SECRET}`, refused: ["url"] },
  { name: "ftp scheme", event: ok, url: `ftp://h.example/${SECRET}`, refused: ["url"] },
  { name: "javascript: scheme", event: ok, url: "javascript:alert(1)", refused: ["url"] },
  { name: "a username that looks like a scheme", event: ok, url: `myuser:${SECRET}@h.example/x`, refused: ["url"] },
  { name: "scheme-relative", event: ok, url: `//h.example/${SECRET}`, refused: ["url"] },
  { name: "relative path", event: ok, url: "/relative", refused: ["url"] },
  { name: "no scheme at all", event: ok, url: `hooks.example.com/${SECRET}`, refused: ["url"] },
  { name: "empty string", event: ok, url: "", refused: ["url"] },
  { name: "only spaces", event: ok, url: "   ", refused: ["url"] },
  { name: "a space in the path", event: ok, url: `https://h.example/${SECRET} x`, refused: ["url"] },
  { name: "a leading space", event: ok, url: ` https://h.example/${SECRET}`, refused: ["url"] },
  { name: "a tab", event: ok, url: `https://h.example/\t${SECRET}`, refused: ["url"] },
  { name: "a trailing newline", event: ok, url: `https://h.example/${SECRET}\n`, refused: ["url"] },
  { name: "a NUL character", event: ok, url: `https://h.example/${SECRET}\u0000`, refused: ["url"] },
  { name: "a no-break space", event: ok, url: `https://h.example/\u00a0${SECRET}`, refused: ["url"] },
  { name: "a zero-width space in the host", event: ok, url: `https://h\u200b.example/${SECRET}`, refused: ["url"] },
  { name: "a bidi override", event: ok, url: `https://h.example/\u202e${SECRET}`, refused: ["url"] },
  {
    name: "a backslash before @ (parser differential)",
    event: ok,
    url: `https://h.example\\@${SECRET}.example/`,
    refused: ["url"],
  },
  { name: "backslashes for the slashes", event: ok, url: `https:\\\\h.example/${SECRET}`, refused: ["url"] },
  { name: `${MAX_URL_LENGTH + 1} characters`, event: ok, url: long(MAX_URL_LENGTH + 1), refused: ["url"] },
  { name: "port above 65535", event: ok, url: `https://h.example:65536/${SECRET}`, refused: ["url"] },
  { name: "userinfo without a host", event: ok, url: `https://user:${SECRET}@/x`, refused: ["url"] },
  { name: "unclosed IPv6 literal", event: ok, url: `https://[::1/${SECRET}`, refused: ["url"] },
  { name: "IPv4 octet above 255", event: ok, url: `http://256.1.1.1/${SECRET}`, refused: ["url"] },
  { name: "a number", event: ok, url: 42, refused: ["url"] },
  { name: "null", event: ok, url: null, refused: ["url"] },
  { name: "absent", event: ok, refused: ["url"] },
  { name: "an array", event: ok, url: ["https://h.example/"], refused: ["url"] },
  { name: "an object", event: ok, url: { href: "https://h.example/" }, refused: ["url"] },

  // Invalid event.
  { name: "unknown event (typo)", event: "ticket_open", url: "https://h.example/x", refused: ["event"] },
  { name: "event in another case", event: "Ticket_Opened", url: "https://h.example/x", refused: ["event"] },
  { name: "event with a trailing space", event: "ticket_opened ", url: "https://h.example/x", refused: ["event"] },
  { name: "event as a number", event: 5, url: "https://h.example/x", refused: ["event"] },
  { name: "empty event", event: "", url: "https://h.example/x", refused: ["event"] },
  { name: "absent event", url: "https://h.example/x", refused: ["event"] },
  { name: "both bad", event: "nope", url: `https:///${SECRET}`, refused: ["event", "url"] },
  { name: "both absent", refused: ["event", "url"] },
];

let emulator: RunningEmulator;
let token: string;
beforeAll(async () => {
  emulator = await start();
  token = (await login(emulator.url)).access_token;
});
afterAll(async () => {
  await emulator.close();
});

describe("one rule for a valid webhook: provider check and emulator agree", () => {
  it("has a table of at least 30 edge cases", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(30);
    expect(long(MAX_URL_LENGTH).length).toBe(2048);
  });

  for (const row of TABLE) {
    it(`${row.refused.length ? `refuses ${row.refused.join(" and ")}` : "accepts"}: ${row.name}`, async () => {
      const { failures } = checkWebhook({ event: row.event, url: row.url });
      expect(failures?.map((f) => f.property)).toEqual(row.refused);

      const res = await http(`${emulator.url}/v1/webhooks`, {
        method: "POST",
        headers: bearer(token),
        json: { event: row.event, url: row.url },
      });
      if (row.refused.length === 0) {
        expect(res.status, res.text).toBe(201);
        expect(res.json.webhook).toMatchObject({ event: row.event, url: row.url, state: "active" });
        return;
      }
      expect(res.status, res.text).toBe(422);
      expect(res.json.error).toBe("validation_failed");
      const errors = res.json.errors as Array<{ field: string; message: string; allowed?: string[] }>;
      // Same fields, same words on both sides.
      expect(errors.map((e) => [e.field, e.message])).toEqual(failures?.map((f) => [f.property, f.reason]));
      for (const e of errors) if (e.field === "event") expect(e.allowed).toEqual([...EVENTS]);

      const said = [...(failures ?? []).map((f) => f.reason), res.json.message as string];
      for (const reason of said) {
        expect(reason).not.toContain(SECRET);
        if (typeof row.url === "string" && row.url.trim().length > 8) expect(reason).not.toContain(row.url.trim());
      }
    });
  }
});

describe("the reasons", () => {
  it("say what was wrong and what is allowed", () => {
    expect(webhookEventProblem("Ticket_Opened")).toMatch(
      /^event "Ticket_Opened" is not a help-desk event\. Did you mean "ticket_opened"\? Allowed values: ticket_started, .*agent_replied$/,
    );
    expect(webhookEventProblem(undefined)).toMatch(/^event is required\. Allowed values: /);
    expect(webhookEventProblem(5)).toMatch(/^event must be a string, got a number\. Allowed values: /);
    expect(webhookUrlProblem(`ftp://h.example/${SECRET}`)).toMatch(
      /^url must use http or https, got "ftp": an absolute http or https URL/,
    );
    expect(webhookUrlProblem(`https:///${SECRET}`)).toMatch(/^url must name its host right after "https:\/\/"/);
    expect(webhookUrlProblem(long(3000))).toBe("url is 3000 characters long; at most 2048 are allowed");
    expect(webhookUrlProblem("https://h.example/a b")).toMatch(/whitespace .* at position 20; percent-encode it/);
    expect(webhookUrlProblem(null)).toMatch(/^url is required: /);
  });

  it("name a scheme only when it is plainly one", () => {
    expect(webhookUrlProblem(`${SECRET}:pw@h.example/`)).toContain("got another scheme");
    expect(webhookUrlProblem(`${"x".repeat(30)}://h.example/`)).toContain("got another scheme");
  });

  it("echo at most 100 characters of a bad event name", () => {
    const reason = required(webhookEventProblem("e".repeat(5000)), "the problem of a long event name");
    expect(reason).toContain(`"${"e".repeat(100)}"…`);
    expect(reason).not.toContain("e".repeat(101));
  });

  it("list every failing field, event first", () => {
    expect(webhookProblems({}).map((p) => p.field)).toEqual(["event", "url"]);
    expect(webhookProblems({ event: ok, url: "https://h.example/" })).toEqual([]);
  });

  it("are skipped for Pulumi's unknown sentinel in check only (the emulator never sees it)", () => {
    expect(checkWebhook({ event: UNKNOWN, url: "https:///x" }).failures?.map((f) => f.property)).toEqual(["url"]);
    expect(checkWebhook({ event: "nope", url: UNKNOWN }).failures?.map((f) => f.property)).toEqual(["event"]);
  });
});
