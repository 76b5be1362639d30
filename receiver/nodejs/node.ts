/**
 * The receiver as a Node.js `http` request listener: for `http.createServer(handler)`, and as an Express-style route
 * handler `(req, res)` (mount it before any body parser, or after `express.raw()`, whose Buffer it reads). Only
 * `node:http`'s types are imported: the handler talks to the request as a stream of chunks.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { WebhookEvent } from "../../kernel/events.js";
import { deliver, joined, type ReceiverOptions, receiverOf, refusalResponse, report } from "./handler.js";
import { admit, declaredTooLarge, parseBody, type Refused, refused } from "./receive.js";

/** A Node.js request listener that receives deliveries; its promise never rejects. */
export type NodeDeliveryHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** A body an earlier middleware already read: `express.raw()`'s Buffer, or `express.text()`'s string. */
function bodyReadBefore(req: IncomingMessage): Uint8Array | string | undefined {
  const body = (req as { body?: unknown }).body;
  return body instanceof Uint8Array || typeof body === "string" ? body : undefined;
}

/** The request broke off while its body was read (the client went away): no one is left to answer, nothing to report. */
class RequestBrokeOff extends Error {}

/**
 * Reads the request's body, stopping at the cap: past it, the chunks still coming are dropped unread (not kept), and
 * the connection closes once the 413 is sent.
 *
 * @returns the body, or `undefined` when it passed the cap
 * @throws RequestBrokeOff when the request breaks off before its end
 */
function readBody(req: IncomingMessage, cap: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const stop = (): void => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    };
    const onData = (chunk: Uint8Array): void => {
      size += chunk.length;
      if (size <= cap) {
        chunks.push(chunk);
        return;
      }
      stop();
      // Keep the stream flowing into nothing, so the 413 can be written and the socket closed after it.
      req.on("data", () => undefined).on("error", () => undefined);
      resolve(undefined);
    };
    const onEnd = (): void => {
      stop();
      resolve(joined(chunks, size));
    };
    const onError = (error: Error): void => {
      stop();
      reject(new RequestBrokeOff(error.message));
    };
    const onClose = (): void => onError(new RequestBrokeOff("the request closed before its body ended"));
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

/** Writes a refusal, or the 204 of an accepted delivery. */
function answer(res: ServerResponse, outcome: Refused | undefined, close = false): void {
  if (res.headersSent) return;
  if (outcome === undefined) {
    res.writeHead(204, close ? { connection: "close" } : {});
    res.end();
    return;
  }
  const { headers, body } = refusalResponse(outcome.refusal);
  res.writeHead(outcome.status, close ? { ...headers, connection: "close" } : headers);
  res.end(body);
}

/**
 * Makes a Node.js request listener that receives deliveries: method (405), token (401, before any of the body is
 * read), size (413: from Content-Length, or as soon as the body passes the cap while it is read), content (415),
 * event and record (400), then `onDelivery` (204, or 500 when it throws). Refusals are JSON
 * (`{ error, message, field? }`, receiver/nodejs/refusals.ts) and never show anything of the url.
 *
 * ```ts
 * http.createServer(createNodeHandler({ tokens: [process.env.DELIVERY_TOKEN], onDelivery: (d) => save(d) }));
 * ```
 *
 * @param options the accepted tokens, `onDelivery`, the cap (default 1 MiB), `onError`
 * @returns `(req, res) => Promise<void>`, for `http.createServer` or an Express route
 * @throws {ReceiverConfigError} at once, when a token or an option is not valid (a token is named by its index only)
 */
export function createNodeHandler(options: ReceiverOptions): NodeDeliveryHandler {
  const receiver = receiverOf(options);
  return async (req, res) => {
    let event: WebhookEvent | undefined;
    try {
      const admitted = admit(req.method ?? "", req.url ?? "", receiver.tokens);
      // A refusal before the body is read closes the connection: the body still coming is not read.
      if ("refusal" in admitted) return answer(res, admitted, !req.complete);
      event = admitted.event;
      const declared = declaredTooLarge(req.headers["content-length"], receiver.cap);
      if (declared) return answer(res, declared, !req.complete);
      const given = bodyReadBefore(req);
      if (given === undefined && req.readableEnded)
        throw new Error(
          "the request's body was read before the receiver's handler: mount it before any body parser (or after express.raw())",
        );
      const body = given ?? (await readBody(req, receiver.cap));
      if (body === undefined) return answer(res, refused("too_large"), true);
      const size = typeof body === "string" ? new TextEncoder().encode(body).length : body.length;
      if (size > receiver.cap) return answer(res, refused("too_large"));
      const parsed = parseBody(admitted, req.headers["content-type"], body);
      if ("refusal" in parsed) return answer(res, parsed);
      answer(res, await deliver(receiver, parsed));
    } catch (error) {
      // The request broke off while its body was read (then there is no one to answer), or the server is set up
      // wrong: 500, and the reason to the service's error reporter, never to the sender.
      if (!(error instanceof RequestBrokeOff)) report(receiver, error, event);
      if (!res.headersSent) answer(res, refused("handler_failed"), true);
      else res.destroy();
    }
  };
}
