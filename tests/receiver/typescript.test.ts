/**
 * The TypeScript receiver kit (receiver/nodejs/): the shared cases in-process (`receiveDelivery`); the token check
 * never throws and never accepts a token it was not given (a property); tokens and options are checked when a handler
 * is made, naming a token by its index only; the Node.js and fetch handlers refuse an over-cap body while it is read,
 * not after; `onDelivery`'s failure is a 500 with no detail; typed dispatch; and the fetch path bundles for a
 * platform with no Node.js and runs where there is no `process`.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createContext, runInContext } from "node:vm";
import * as esbuild from "esbuild";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DELIVERY_TOKEN_PARAM, deliveryTokenProblem } from "../../kernel/delivery-token.js";
import { EVENTS } from "../../kernel/events.js";
import {
  acceptedTokens as checkTokens,
  createFetchHandler,
  createNodeHandler,
  DEFAULT_MAX_BODY_BYTES,
  type Delivery,
  DeliveryRouter,
  isJsonContentType,
  ReceiverConfigError,
  receiveDelivery,
  verifyDelivery,
} from "../../receiver/nodejs/index.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { acceptedTokens, allTokens, bodyOf, casesFile, queryOf, targetOf } from "./support/cases.ts";
import { failsTheHandler, summarize } from "./support/summary.ts";

const [TOKEN_A = "", TOKEN_B = ""] = acceptedTokens;
const ticketCase = casesFile.cases.find((test) => test.query.startsWith("helpdesk_event=ticket_opened&"));
if (ticketCase === undefined) throw new Error("receiver/cases.json has no ticket_opened delivery");
const TICKET = bodyOf(ticketCase);
const TICKET_URL = targetOf(ticketCase);

/** A valid delivery token: 22 to 64 characters of the token rule's alphabet. */
const validToken = fc.stringMatching(/^[A-Za-z0-9._~-]{22,64}$/);

describe("receiveDelivery: the shared cases (receiver/cases.json), in-process", () => {
  it("gives each case its status, error code, field and typed delivery", () => {
    expect(casesFile.cases.length).toBeGreaterThanOrEqual(40);
    for (const test of casesFile.cases) {
      const reception = receiveDelivery({
        method: test.method,
        requestUrl: targetOf(test),
        contentType: test.contentType,
        body: bodyOf(test),
        tokens: acceptedTokens,
      });
      if ("delivery" in reception) {
        if (failsTheHandler(reception.delivery)) {
          expect(test.expect.status, test.name).toBe(500);
          continue;
        }
        expect({ case: test.name, delivered: summarize(reception.delivery, reception.tokenIndex) }).toEqual({
          case: test.name,
          delivered: test.expect.delivered,
        });
      } else {
        expect({ case: test.name, status: reception.status, ...reception.refusal, message: undefined }).toEqual({
          case: test.name,
          status: test.expect.status,
          error: test.expect.error,
          field: test.expect.field,
          message: undefined,
        });
      }
    }
  });

  it("takes a body given as text, counting its UTF-8 bytes against the cap", () => {
    const text = new TextDecoder().decode(TICKET);
    expect(receiveDelivery({ method: "POST", requestUrl: TICKET_URL, body: text, tokens: TOKEN_A }).status).toBe(204);
    const cap = TICKET.length + 1;
    // "é" is one UTF-16 unit and two UTF-8 bytes: the text fits the cap by its length, not by its bytes.
    const over = `${text.slice(0, -1)},"x":"é"}`;
    expect(over.length).toBeLessThanOrEqual(cap + 7);
    expect(
      receiveDelivery({
        method: "POST",
        requestUrl: TICKET_URL,
        body: over,
        tokens: TOKEN_A,
        maxBodyBytes: over.length,
      }).status,
    ).toBe(413);
  });
});

describe("verifyDelivery", () => {
  it("never throws for any url, and never accepts a token it was not given", () => {
    fc.assert(
      fc.property(
        fc.array(validToken, { minLength: 1, maxLength: 4 }),
        fc.oneof(fc.string({ unit: "binary" }), validToken, fc.constantFrom(TOKEN_A, TOKEN_B, "")),
        fc.string({ unit: "binary" }),
        fc.boolean(),
        (tokens, given, noise, encode) => {
          const value = encode ? encodeURIComponent(given) : given;
          for (const requestUrl of [noise, `/h?${noise}`, `/h?${DELIVERY_TOKEN_PARAM}=${value}&${noise}`]) {
            const verification = verifyDelivery({ requestUrl, tokens });
            if (!verification.verified) {
              expect(verification.tokenIndex).toBe(-1);
              continue;
            }
            // Accepted: the url carried exactly one token, and it is the accepted one at tokenIndex.
            const carried = new URLSearchParams(requestUrl.slice(requestUrl.indexOf("?") + 1)).getAll(
              DELIVERY_TOKEN_PARAM,
            );
            expect(carried).toEqual([tokens[verification.tokenIndex]]);
          }
          const forged = verifyDelivery({ requestUrl: `/h?${DELIVERY_TOKEN_PARAM}=${value}`, tokens });
          expect(forged.verified).toBe(tokens.includes(given));
          if (forged.verified) expect(tokens[forged.tokenIndex]).toBe(given);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("says which accepted token matched, and the url's event", () => {
    const url = (token: string): string => `/h?helpdesk_event=agent_invited&${DELIVERY_TOKEN_PARAM}=${token}`;
    expect(verifyDelivery({ requestUrl: url(TOKEN_B), tokens: [TOKEN_A, TOKEN_B] })).toEqual({
      verified: true,
      tokenIndex: 1,
      event: "agent_invited",
    });
    expect(verifyDelivery({ requestUrl: `https://r.example${url(TOKEN_A)}`, tokens: TOKEN_A })).toMatchObject({
      tokenIndex: 0,
    });
    expect(verifyDelivery({ requestUrl: url(TOKEN_A), tokens: [TOKEN_B] })).toEqual({
      verified: false,
      tokenIndex: -1,
      event: undefined,
    });
  });
});

describe("the accepted tokens", () => {
  it("are checked by the token rule, and a refusal names the token's index, never the token", () => {
    const secretLike = fc.oneof(
      fc.stringMatching(/^SECRET[A-Za-z0-9]{0,14}$/),
      fc.stringMatching(/^SECRET[A-Za-z0-9]{20,40}[ %/?#é]$/),
      fc.stringMatching(/^SECRET[A-Za-z0-9]{251,260}$/),
    );
    fc.assert(
      fc.property(fc.array(validToken, { maxLength: 3 }), secretLike, (valid, invalid) => {
        fc.pre(deliveryTokenProblem(invalid) !== undefined);
        const tokens = [...valid, invalid];
        for (const make of [
          () => checkTokens(tokens),
          () => createNodeHandler({ tokens, onDelivery: () => undefined }),
          () => createFetchHandler({ tokens, onDelivery: () => undefined }),
          () => verifyDelivery({ requestUrl: "/", tokens }),
        ]) {
          let thrown: unknown;
          try {
            make();
          } catch (error) {
            thrown = error;
          }
          expect(thrown).toBeInstanceOf(ReceiverConfigError);
          const message = (thrown as ReceiverConfigError).message;
          expect(message).toMatch(new RegExp(`^tokens\\[${valid.length}\\]: a delivery token must be `));
          expect(message).not.toContain(invalid);
          expect((thrown as ReceiverConfigError).code).toBe("invalid_tokens");
        }
      }),
      { numRuns: 100 },
    );
  });

  it("are at least one; the cap and the handlers are checked too", () => {
    expect(() => checkTokens([])).toThrow(/needs at least one delivery token/);
    expect(() => createNodeHandler({ tokens: TOKEN_A, onDelivery: () => undefined, maxBodyBytes: 0 })).toThrow(
      /maxBodyBytes must be a positive whole number/,
    );
    expect(() => createFetchHandler({ tokens: TOKEN_A, onDelivery: undefined as never })).toThrow(
      /onDelivery must be a function/,
    );
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1024 * 1024);
  });
});

describe("isJsonContentType", () => {
  it("takes JSON's media types and no others", () => {
    for (const yes of [undefined, "", "application/json", " Application/JSON ; charset=utf-8", "text/x+json"])
      expect(isJsonContentType(yes), String(yes)).toBe(true);
    for (const no of ["text/plain", "application/notjson", "+json", "/json", "application/+json", "a/b/c+json", ";"])
      expect(isJsonContentType(no), no).toBe(false);
  });
});

/** Servers started by a test, closed after it. */
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  vi.restoreAllMocks();
});

/** Listens on 127.0.0.1 with a request listener; returns the port. */
async function listen(listener: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/**
 * Sends chunks of `size` bytes until the answer comes, never ending the body: the answer must come while the body
 * is still being sent.
 *
 * @returns the status and how many bytes were sent when it came
 */
function streamUntilAnswered(port: number, path: string, size: number): Promise<{ status: number; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request({ host: "127.0.0.1", port, method: "POST", path, agent: false });
    req.on("response", (res) => {
      answered = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, sent });
      req.destroy();
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const chunk = new Uint8Array(size).fill(0x20);
    const pump = (): void => {
      if (answered || sent > 64 * size) return;
      sent += size;
      req.write(chunk, () => setTimeout(pump, 2));
    };
    pump();
  });
}

describe("the Node.js handler", () => {
  it("refuses a body over the cap with 413 while it is read, and handles nothing", async () => {
    const onDelivery = vi.fn();
    const port = await listen(createNodeHandler({ tokens: TOKEN_A, onDelivery, maxBodyBytes: 10_000 }));
    const { status, sent } = await streamUntilAnswered(port, TICKET_URL, 4096);
    expect(status).toBe(413);
    // Chunked, with no Content-Length: the answer came after the cap was passed, long before the body would end.
    expect(sent).toBeGreaterThan(10_000);
    expect(sent).toBeLessThan(64 * 4096);
    expect(onDelivery).not.toHaveBeenCalled();
  });

  it("reads a body an earlier middleware read as a Buffer (express.raw), and says when one read it otherwise", async () => {
    const delivered: Delivery[] = [];
    const errors: string[] = [];
    const handler = createNodeHandler({
      tokens: TOKEN_A,
      onDelivery: (delivery) => void delivered.push(delivery),
      onError: (error) => void errors.push(String(error)),
    });
    const port = await listen(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.headers["x-raw"]) (req as { body?: unknown }).body = Buffer.concat(chunks);
      await handler(req, res);
    });
    const post = (headers: Record<string, string>): Promise<number> =>
      fetch(`http://127.0.0.1:${port}${TICKET_URL}`, { method: "POST", body: TICKET, headers }).then((r) => r.status);
    expect(await post({ "x-raw": "1", "content-type": "application/json" })).toBe(204);
    expect(delivered.map((delivery) => delivery.event)).toEqual(["ticket_opened"]);
    expect(await post({ "content-type": "application/json" })).toBe(500);
    expect(errors).toEqual([expect.stringMatching(/mount it before any body parser/)]);
  });

  it("answers 500 with no detail when onDelivery throws, and its default report names the event and the error only", async () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const port = await listen(
      createNodeHandler({
        tokens: [TOKEN_A, TOKEN_B],
        onDelivery: () => {
          throw new Error("the database is down");
        },
      }),
    );
    const response = await fetch(`http://127.0.0.1:${port}${TICKET_URL}`, { method: "POST", body: TICKET });
    // fetch sends a string body as text/plain, a Uint8Array as none: this one has none.
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: "handler_failed",
      message: "the receiver failed to handle the delivery",
    });
    expect(printed.mock.calls).toEqual([["a ticket_opened delivery was answered 500: the database is down"]]);
    for (const token of allTokens) expect(`${text}${printed.mock.calls}`).not.toContain(token);
  });
});

describe("the fetch handler", () => {
  it("refuses a body over the cap with 413 while it is read, and reads no further", async () => {
    let pulled = 0;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1000).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const onDelivery = vi.fn();
    const handler = createFetchHandler({ tokens: TOKEN_A, onDelivery, maxBodyBytes: 5000 });
    const response = await handler(
      new Request(`https://r.example${TICKET_URL}`, { method: "POST", body, duplex: "half" } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(cancelled).toBe(true);
    // 6 chunks pass the cap of 5000 bytes; the stream may have queued one more, never the endless rest.
    expect(pulled).toBeGreaterThanOrEqual(6);
    expect(pulled).toBeLessThanOrEqual(8);
    expect(onDelivery).not.toHaveBeenCalled();
  });

  it("refuses a forged POST without reading its body", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(TICKET);
        controller.close();
      },
    });
    const handler = createFetchHandler({ tokens: TOKEN_A, onDelivery: () => undefined });
    const forged = TICKET_URL.replace(TOKEN_A, "hdt_forged-token_0123456789abcdefghijklmnopq");
    const response = await handler(
      new Request(`https://r.example${forged}`, { method: "POST", body, duplex: "half" } as RequestInit),
    );
    expect(response.status).toBe(401);
    // A ReadableStream pulls once to fill its queue when made; reading the body would pull again.
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it("bundles for a platform with no Node.js, and receives a delivery where there is no process", async () => {
    const built = await esbuild.build({
      entryPoints: [join(repoRoot, "receiver", "nodejs", "fetch.ts")],
      bundle: true,
      write: false,
      platform: "neutral",
      mainFields: ["module", "main"],
      format: "iife",
      globalName: "receiverKit",
      logLevel: "silent",
    });
    const code = built.outputFiles[0]?.text ?? "";
    expect(code).toContain("createFetchHandler");
    expect(code).not.toMatch(/\bnode:|\brequire\(|\bprocess\./);
    // A context with the Web platform's globals only: no process, no require, no Buffer.
    const context = createContext({
      Request,
      Response,
      ReadableStream,
      TextDecoder,
      TextEncoder,
      URL,
      URLSearchParams,
    });
    runInContext(code, context);
    const delivered: string[] = [];
    context.onDelivery = (delivery: Delivery): void => void delivered.push(delivery.event);
    context.tokens = [TOKEN_A];
    const handler = runInContext("receiverKit.createFetchHandler({ tokens, onDelivery })", context) as (
      request: Request,
    ) => Promise<Response>;
    expect(runInContext("typeof process", context)).toBe("undefined");
    const response = await handler(new Request(`https://r.example${TICKET_URL}`, { method: "POST", body: TICKET }));
    expect(response.status).toBe(204);
    expect(delivered).toEqual(["ticket_opened"]);
  });
});

describe("DeliveryRouter", () => {
  it("calls the listeners of a delivery's event in order, typed by the event", async () => {
    const seen: string[] = [];
    const router = new DeliveryRouter()
      .on("ticket_opened", ({ record }) => void seen.push(`opened ${record.number}`))
      .on(["ticket_opened", "ticket_closed"], async ({ event, record }) => {
        await Promise.resolve();
        seen.push(`${event} ${record.links.state.href.length > 0}`);
      })
      .on("agent_invited", ({ record }) => void seen.push(record.email))
      .onAny(({ kind }, { tokenIndex }) => void seen.push(`any ${kind} ${tokenIndex}`));
    const handler = createFetchHandler({ tokens: [TOKEN_A, TOKEN_B], onDelivery: router.dispatch });
    const response = await handler(new Request(`https://r.example${TICKET_URL}`, { method: "POST", body: TICKET }));
    expect(response.status).toBe(204);
    expect(seen).toEqual(["opened 1042", "ticket_opened true", "any ticket 0"]);
  });

  it("refuses a name that is not an event, naming it and the events", () => {
    expect(() => new DeliveryRouter().on("ticket_reopened" as never, () => undefined)).toThrow(
      new RegExp(`^on\\("ticket_reopened"\\): not an event; the events are ${EVENTS.join(", ")}$`),
    );
  });

  it("answers 500 when a listener throws, after the listeners before it ran", async () => {
    const seen: string[] = [];
    const router = new DeliveryRouter()
      .on("ticket_opened", () => void seen.push("first"))
      .on("ticket_opened", () => {
        throw new Error("second fails");
      })
      .on("ticket_opened", () => void seen.push("third"));
    const reported: unknown[] = [];
    const handler = createFetchHandler({
      tokens: TOKEN_A,
      onDelivery: router.dispatch,
      onError: (error, event) => void reported.push(event, (error as Error).message),
    });
    const response = await handler(new Request(`https://r.example${TICKET_URL}`, { method: "POST", body: TICKET }));
    expect(response.status).toBe(500);
    expect(seen).toEqual(["first"]);
    expect(reported).toEqual(["ticket_opened", "second fails"]);
  });
});

describe("the cases' requests", () => {
  it("carry the tokens they name (so that no token in an answer means something)", () => {
    expect(queryOf(ticketCase)).toContain(TOKEN_A);
  });
});
