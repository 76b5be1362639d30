import { describe, expect, it } from "vitest";
import { EVENTS, nearestEvent } from "../../kernel/events.js";
import { UNKNOWN } from "../../kernel/pulumi-wire.js";
import { checkWebhook } from "../../provider/core/webhooks.js";

describe("check (Webhook input validation)", () => {
  it("accepts every event of docs/helpdesk-api.md §6 with an https url", () => {
    for (const event of EVENTS) {
      expect(checkWebhook({ event, url: "https://hooks.example.com/x" }).failures).toEqual([]);
    }
  });

  it("reports every failure at once, each naming its property", () => {
    const { failures } = checkWebhook({ event: "ticket_open", url: "ftp://example.com" });
    expect(failures?.map((f) => f.property)).toEqual(["event", "url"]);
    expect(failures?.[0]?.reason).toContain('Did you mean "ticket_opened"?');
    expect(failures?.[0]?.reason).toContain("agent_replied"); // lists the allowed values
    expect(failures?.[1]?.reason).toContain("http or https");
  });

  it("rejects missing, non-string and relative values", () => {
    expect(checkWebhook({}).failures?.map((f) => f.reason)).toEqual([
      expect.stringContaining("event is required"),
      expect.stringContaining("url is required"),
    ]);
    expect(checkWebhook({ event: 3, url: "/relative" }).failures?.map((f) => f.reason)).toEqual([
      expect.stringContaining("must be a string"),
      expect.stringContaining("not an absolute URL"),
    ]);
  });

  it("lets Pulumi's unknown sentinel through during preview", () => {
    expect(checkWebhook({ event: UNKNOWN, url: UNKNOWN }).failures).toEqual([]);
  });

  it("keeps only event and url as inputs", () => {
    expect(checkWebhook({ event: "note_added", url: "https://x.test", extra: 1 }).inputs).toEqual({
      event: "note_added",
      url: "https://x.test",
    });
  });

  it("suggests the nearest event for typos and nothing for unrelated words", () => {
    expect(nearestEvent("ticket_open")).toBe("ticket_opened");
    expect(nearestEvent("Ticket-Closed")).toBe("ticket_closed");
    expect(nearestEvent("agent_replyed")).toBe("agent_replied");
    expect(nearestEvent("zzz")).toBeUndefined();
  });
});
