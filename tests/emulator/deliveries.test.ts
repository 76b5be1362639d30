/**
 * Event deliveries (docs/helpdesk-api.md §6, records of §2.3–2.6) to a real receiver on 127.0.0.1, with retries, plus the public
 * `kernel/records.ts` parser.
 */

import { afterEach, describe, expect, test } from "vitest";
import type { RunningEmulator } from "../../emulator/index.js";
import { EVENTS } from "../../kernel/events.js";
import { Agent as AgentSchema, DeliveryParseError, EVENT_RECORD, parseDelivery, Ticket } from "../../kernel/records.js";
import { required } from "../../kernel/required.js";
import { waitFor } from "../../scripts/lib/processes.ts";
import { bearer, http, login, start, startReceiver } from "./helpers.js";

/** A delivery log entry as the inspection route sends it, read field by field. */
// biome-ignore lint/suspicious/noExplicitAny: the entries' fields are of every type, each asserted where it is read
type LogEntry = Record<string, any>;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((f) => f()));
});

async function setup(options: Parameters<typeof start>[0] = {}, statusFor?: (n: number) => number) {
  const e = await start({ deliveryRetry: { attempts: 4, baseDelayMs: 10 }, ...options });
  const receiver = await startReceiver(statusFor);
  cleanups.push(
    () => e.close(),
    () => receiver.close(),
  );
  const token = (await login(e.url)).access_token;
  const hook = async (event: string, url = receiver.url) =>
    (await http(`${e.url}/v1/webhooks`, { method: "POST", headers: bearer(token), json: { event, url } })).json.webhook
      .id as string;
  const trigger = (body: unknown) => http(`${e.url}/_emulator/events`, { method: "POST", json: body });
  const deliveries = async () => (await http(`${e.url}/_emulator/deliveries`)).json.deliveries as LogEntry[];
  return { e, receiver, token, hook, trigger, deliveries };
}

const settled = (e: RunningEmulator) =>
  waitFor(
    "deliveries to settle",
    async () => {
      const list = (await http(`${e.url}/_emulator/deliveries`)).json.deliveries as Array<{
        done: boolean;
        time: string;
      }>;
      return list.length > 0 && list.every((d) => d.done) ? list : undefined;
    },
    5000,
  );

describe("deliveries (docs/helpdesk-api.md §6)", () => {
  for (const event of EVENTS) {
    test(`${event} → POST JSON ${EVENT_RECORD[event]} record with X-Helpdesk-Event`, async () => {
      const { e, receiver, hook, trigger } = await setup();
      const id = await hook(event);
      const res = await trigger({ event });
      expect(res.status).toBe(202);
      expect(res.json.deliveries).toHaveLength(1);
      await waitFor("delivery", () => receiver.received.length === 1, 5000);
      const got = required(receiver.received[0], "the delivery");
      expect(got.method).toBe("POST");
      expect(got.url).toBe("/hook");
      expect(got.headers["x-helpdesk-event"]).toBe(event);
      expect(got.headers["user-agent"]).toBe("helpdesk-emulator");
      expect(got.headers["content-type"]).toBe("application/json");
      expect(got.headers["x-helpdesk-delivery"]).toBe(res.json.deliveries[0]);
      const parsed = parseDelivery(event, JSON.parse(got.body));
      expect(parsed.kind).toBe(EVENT_RECORD[event]);
      expect(JSON.parse(got.body).href.startsWith(`${e.url}/v1/`)).toBe(true);
      if (parsed.kind === "message") expect(parsed.record.note).toBe(event === "note_added");
      const [d] = await settled(e);
      expect(d).toMatchObject({
        id: res.json.deliveries[0],
        webhookId: id,
        event,
        url: receiver.url,
        status: 200,
        attempts: 1,
        ok: true,
      });
      const { time } = required(d, "the settled delivery");
      expect(new Date(time).toISOString()).toBe(time);
    });
  }

  test("record links follow docs/helpdesk-api.md §2.3 and §2.6 ({base_url}, url-encoded agent email in the tickets query)", async () => {
    const { e, receiver, hook, trigger } = await setup();
    await hook("ticket_opened");
    await hook("agent_invited");
    await trigger({ event: "ticket_opened" });
    await trigger({ event: "agent_invited" });
    await waitFor("both deliveries", () => receiver.received.length === 2, 5000);
    const byEvent = Object.fromEntries(
      receiver.received.map((r) => [r.headers["x-helpdesk-event"], JSON.parse(r.body)]),
    );
    const t = Ticket.parse(byEvent.ticket_opened);
    expect(t.href).toBe(`${e.url}/v1/tickets/${t.number}`);
    expect(t.links.state.href).toBe(`${t.href}/state`);
    expect(t.links.messages.href).toBe(`${t.href}/messages`);
    expect(t.links.assignee.href).toBe(`${e.url}/v1/agents/${t.assignee}`);
    expect(t.assigned_group).toBeNull();
    const a = AgentSchema.parse(byEvent.agent_invited);
    expect(a.links.tickets.href).toBe(`${e.url}/v1/tickets?assignee=${encodeURIComponent(a.email)}`);
  });

  test("only webhooks of that event and that account receive it", async () => {
    const { e, receiver, hook, trigger } = await setup({
      accounts: [
        { username: "demo", password: "demo" },
        { username: "eve", password: "eve" },
      ],
    });
    await hook("ticket_closed");
    await hook("ticket_opened", `${receiver.url}?other`);
    const none = await trigger({ event: "ticket_closed", account: "eve" });
    expect(none.json.deliveries).toEqual([]);
    await trigger({ event: "ticket_closed" });
    await waitFor("the delivery", () => receiver.received.length === 1, 5000);
    await settled(e);
    expect(receiver.received.map((r) => r.url)).toEqual(["/hook"]);
  });

  test("data overrides fields of the sample; data that breaks the record → 422", async () => {
    const { receiver, hook, trigger } = await setup();
    await hook("customer_added");
    await trigger({ event: "customer_added", data: { first_name: "Linus", custom: { plan: "gold" } } });
    await waitFor("the delivery", () => receiver.received.length === 1, 5000);
    expect(JSON.parse(required(receiver.received[0], "the delivery").body)).toMatchObject({
      first_name: "Linus",
      custom: { plan: "gold" },
    });
    const bad = await trigger({ event: "customer_added", data: { email: 5 } });
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].field).toBe("data.email");
  });

  test("trigger errors: unknown event → 422 with allowed; unknown account → 404; not JSON → 415", async () => {
    const { e, trigger } = await setup();
    const unknown = await trigger({ event: "ticket_exploded" });
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors[0]).toMatchObject({ field: "event", allowed: [...EVENTS] });
    expect((await trigger({ event: "ticket_opened", account: "ghost" })).status).toBe(404);
    const form = await http(`${e.url}/_emulator/events`, { method: "POST", form: { event: "ticket_opened" } });
    expect(form.status).toBe(415);
  });

  test("non-2xx responses are retried with backoff until success", async () => {
    const { e, receiver, hook, trigger } = await setup({}, (n) => (n < 3 ? 500 : 204));
    await hook("note_added");
    await trigger({ event: "note_added" });
    const [d] = await settled(e);
    expect(d).toMatchObject({ status: 204, attempts: 3, ok: true });
    expect(receiver.received).toHaveLength(3);
    const ids = new Set(receiver.received.map((r) => r.headers["x-helpdesk-delivery"]));
    expect(ids.size).toBe(1);
  });

  test("retries are bounded: 4 attempts, then ok=false with the last status and an error", async () => {
    const { e, receiver, hook, trigger } = await setup({}, () => 503);
    await hook("ticket_moved");
    const t0 = Date.now();
    await trigger({ event: "ticket_moved" });
    const [d] = await settled(e);
    expect(d).toMatchObject({ status: 503, attempts: 4, ok: false, error: expect.stringContaining("503") });
    expect(receiver.received).toHaveLength(4);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(10 + 20 + 40);
  });

  test("a network error is retried and logged with status null", async () => {
    const { e, receiver, hook, trigger } = await setup({ deliveryRetry: { attempts: 2, baseDelayMs: 5 } });
    await receiver.close();
    await hook("agent_archived");
    await trigger({ event: "agent_archived" });
    const [d] = await settled(e);
    expect(d).toMatchObject({ status: null, attempts: 2, ok: false, error: expect.stringMatching(/ECONNREFUSED/) });
  });

  test("close() cancels pending retries and ends promptly", async () => {
    const e = await start({ deliveryRetry: { attempts: 4, baseDelayMs: 10_000 } });
    const receiver = await startReceiver(() => 500);
    cleanups.push(() => receiver.close());
    const token = (await login(e.url)).access_token;
    await http(`${e.url}/v1/webhooks`, {
      method: "POST",
      headers: bearer(token),
      json: { event: "ticket_opened", url: receiver.url },
    });
    await http(`${e.url}/_emulator/events`, { method: "POST", json: { event: "ticket_opened" } });
    await waitFor("the delivery", () => receiver.received.length === 1, 5000);
    const t0 = Date.now();
    await e.close();
    expect(Date.now() - t0).toBeLessThan(1500);
  });
});

describe("sdk/records parseDelivery", () => {
  test("throws DeliveryParseError naming the event and the failing field", () => {
    expect(() => parseDelivery("ticket_opened", { number: "x" })).toThrow(DeliveryParseError);
    try {
      parseDelivery("agent_invited", {
        email: "a@b",
        first_name: "A",
        last_name: "B",
        href: "h",
        links: { tickets: {} },
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DeliveryParseError);
      expect((error as DeliveryParseError).event).toBe("agent_invited");
      expect((error as DeliveryParseError).field).toBe("links.tickets.href");
      expect((error as Error).message).toMatch(/agent_invited.*Agent.*links\.tickets\.href/);
    }
  });

  test("unknown event names and non-object bodies are rejected", () => {
    expect(() => parseDelivery("ticket_exploded", {})).toThrow(/unknown webhook event/);
    expect(() => parseDelivery("ticket_opened", "nope")).toThrow(
      /ticket_opened delivery is not a valid Ticket: the body/,
    );
  });

  test("null-or-value fields must be present but may hold anything; extra fields are kept", () => {
    const customer = {
      href: "h",
      links: { tickets: { href: "t" } },
      email: "e",
      first_name: "f",
      last_name: "l",
      about: null,
      twitter_username: "x",
      title: null,
      company_name: { a: 1 },
      phone_number: null,
      location: null,
      website_url: null,
      linkedin_username: null,
      custom: {},
      extra: true,
    };
    const parsed = parseDelivery("customer_added", customer);
    expect(parsed.kind).toBe("customer");
    expect((parsed.record as Record<string, unknown>).extra).toBe(true);
    const { about: _about, ...withoutAbout } = customer;
    expect(() => parseDelivery("customer_added", withoutAbout)).toThrow(/about/);
  });
});
