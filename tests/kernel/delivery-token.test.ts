/**
 * The delivery token's contract (kernel/delivery-token.ts): the registered url carries the event and the token after
 * whatever query the user wrote, and gives both back; a token is matched against every accepted one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DELIVERY_EVENT_PARAM,
  DELIVERY_TOKEN_PARAM,
  deliveryParams,
  deliveryTokenProblem,
  HIDDEN_TOKEN,
  matchToken,
  registeredUrl,
  splitRegisteredUrl,
  tokenUrlProblem,
  withTokenHidden,
} from "../../kernel/delivery-token.js";
import { EVENTS } from "../../kernel/events.js";

const TOKEN = "hdt_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG";
const token = fc.stringMatching(/^[A-Za-z0-9._~-]{22,64}$/);
const query = fc.array(fc.stringMatching(/^[a-z]{1,5}=[a-z0-9%]{0,6}$/), { maxLength: 3 });

describe("the delivery token (kernel/delivery-token.ts)", () => {
  it("appends the event and the token to the url's query and reads them back from it", () => {
    fc.assert(
      fc.property(query, fc.constantFrom(...EVENTS), token, (pairs, event, t) => {
        const declared = `https://hooks.example.com/h${pairs.length > 0 ? `?${pairs.join("&")}` : ""}`;
        const registered = registeredUrl(declared, event, t);
        expect(registered.startsWith(declared)).toBe(true);
        expect(splitRegisteredUrl(registered)).toEqual({ url: declared, event, token: t });
        expect(deliveryParams(registered.slice("https://hooks.example.com".length))).toEqual({ token: t, event });
      }),
    );
  });

  it("refuses a url that already names one of its parameters, or has a fragment, without repeating it", () => {
    for (const url of [
      `https://h.example.com/?${DELIVERY_TOKEN_PARAM}=secret-value`,
      `https://h.example.com/?a=1&${DELIVERY_EVENT_PARAM}=ticket_opened`,
      "https://h.example.com/secret-value#frag",
    ]) {
      const problem = tokenUrlProblem(url);
      expect(problem).toBeDefined();
      expect(problem).not.toContain("secret-value");
      expect(() => registeredUrl(url, "ticket_opened", TOKEN)).toThrow(problem);
    }
  });

  it("refuses a token that is short, long or holds a character a url would encode, without showing it", () => {
    for (const bad of ["short-secret", "x".repeat(257), `${"s".repeat(30)}/secret`, `${"s".repeat(30)} `, 42]) {
      const problem = deliveryTokenProblem(bad);
      expect(problem).toMatch(/^a delivery token must be/);
      expect(problem).not.toContain("secret");
    }
    expect(deliveryTokenProblem(TOKEN)).toBeUndefined();
  });

  it("reads no token or event from a query that repeats them or names an unknown event", () => {
    expect(deliveryParams(`/h?${DELIVERY_TOKEN_PARAM}=a&${DELIVERY_TOKEN_PARAM}=b`).token).toBeUndefined();
    expect(deliveryParams(`/h?${DELIVERY_EVENT_PARAM}=ticket_opened&${DELIVERY_EVENT_PARAM}=note_added`).event).toBe(
      undefined,
    );
    expect(deliveryParams(`/h?${DELIVERY_EVENT_PARAM}=ticket_exploded`).event).toBeUndefined();
    expect(deliveryParams("/h")).toEqual({ token: undefined, event: undefined });
  });

  it("reads a query's token and event as URLSearchParams does, whatever the query", () => {
    // The pieces of a query that matter to its reading: the two names, their separators, escapes, '+', surrogates.
    const piece = fc.constantFrom(
      DELIVERY_TOKEN_PARAM,
      DELIVERY_EVENT_PARAM,
      "helpdesk_token2",
      "ticket_opened",
      "note_added",
      TOKEN,
      "&",
      "=",
      "%5F",
      "%",
      "+",
      "#",
      "?",
      "\uD800",
      "\uD83D\uDE00",
      "a",
      "",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const query = pieces.join("");
        const params = new URLSearchParams(query);
        const tokens = params.getAll(DELIVERY_TOKEN_PARAM);
        const events = params.getAll(DELIVERY_EVENT_PARAM);
        const event = events.length === 1 ? events[0] : undefined;
        expect(deliveryParams(`/h?${query}`)).toEqual({
          token: tokens.length === 1 ? tokens[0] : undefined,
          event: event === "ticket_opened" || event === "note_added" ? event : undefined,
        });
      }),
      { numRuns: 2000 },
    );
  });

  it("matches a token against every accepted one: the index of the equal one, else -1", () => {
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 3 }), token, (accepted, other) => {
        fc.pre(!accepted.includes(other));
        for (const t of accepted) expect(matchToken(t, accepted)).toBe(accepted.indexOf(t));
        expect(matchToken(other, accepted)).toBe(-1);
        expect(matchToken(`${accepted[0]}x`, accepted)).toBe(-1);
        expect(matchToken(accepted[0]?.slice(0, -1), accepted)).toBe(-1);
        expect(matchToken(undefined, accepted)).toBe(-1);
      }),
    );
    expect(matchToken("", [""])).toBe(-1);
  });

  it("shows a registered url with the token's value hidden, and any other url as it is", () => {
    fc.assert(
      fc.property(
        token,
        fc.constantFrom(...EVENTS),
        fc.constantFrom("https://h.example/p", "https://h.example/p?a=1"),
        (t, event, declared) => {
          const shown = withTokenHidden(registeredUrl(declared, event, t));
          expect(shown).not.toContain(t);
          expect(splitRegisteredUrl(shown)).toEqual({ url: declared, event, token: HIDDEN_TOKEN });
        },
      ),
    );
    expect(withTokenHidden("https://h.example/p?a=1")).toBe("https://h.example/p?a=1");
  });
});
