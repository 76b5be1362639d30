/**
 * The receiver as a Web-standard handler, `(request: Request) => Promise<Response>` (the Fetch standard's classes):
 * for serverless and edge runtimes (Cloudflare Workers, Deno, Bun, Vercel and Netlify functions) and for Node.js
 * servers that speak them (Hono, `@hono/node-server`). No `node:` module is loaded on this path: it runs where there is
 * none (.dependency-cruiser.cjs `receiver-loads-no-node-module`; tests/receiver/typescript.test.ts bundles it for a
 * neutral platform).
 */
import type { WebhookEvent } from "../../kernel/events.js";
import { deliver, type ReceiverOptions, readCapped, receiverOf, refusalResponse, report } from "./handler.js";
import { admit, declaredTooLarge, parseBody, type Refused, refused } from "./receive.js";

/** A Web-standard handler that receives deliveries; its promise never rejects. */
export type FetchDeliveryHandler = (request: Request) => Promise<Response>;

/** The response of a refusal, or the 204 of an accepted delivery. */
function answer(outcome: Refused | undefined): Response {
  if (outcome === undefined) return new Response(null, { status: 204 });
  const { headers, body } = refusalResponse(outcome.refusal);
  return new Response(body, { status: outcome.status, headers });
}

/**
 * Reads a request's body, stopping as soon as it passes the cap (the stream is cancelled: nothing more is read).
 *
 * @returns the body, or `undefined` when it passed the cap
 */
async function readBody(request: Request, cap: number): Promise<Uint8Array | undefined> {
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const next = async (): Promise<Uint8Array | undefined> => {
    const read = await reader.read();
    return read.done ? undefined : read.value;
  };
  return readCapped(next, cap, () => {
    reader.cancel().catch(() => undefined);
  });
}

/**
 * Makes a Web-standard handler that receives deliveries, with the checks and answers of the Node.js handler
 * (receiver/nodejs/node.ts): method (405), token (401, before any of the body is read), size (413, from
 * Content-Length or as soon as the body passes the cap), content (415), event and record (400), then `onDelivery`
 * (204, or 500 when it throws).
 *
 * ```ts
 * const handler = createFetchHandler({ tokens: [env.DELIVERY_TOKEN], onDelivery: (d) => queue.send(d) });
 * export default { fetch: handler };
 * ```
 *
 * @param options the accepted tokens, `onDelivery`, the cap (default 1 MiB), `onError`
 * @returns `(request) => Promise<Response>`
 * @throws {ReceiverConfigError} at once, when a token or an option is not valid (a token is named by its index only)
 */
export function createFetchHandler(options: ReceiverOptions): FetchDeliveryHandler {
  const receiver = receiverOf(options);
  return async (request) => {
    let event: WebhookEvent | undefined;
    try {
      const admitted = admit(request.method, request.url, receiver.tokens);
      if ("refusal" in admitted) return answer(admitted);
      event = admitted.event;
      const declared = declaredTooLarge(request.headers.get("content-length"), receiver.cap);
      if (declared) return answer(declared);
      const body = await readBody(request, receiver.cap);
      if (body === undefined) return answer(refused("too_large"));
      const parsed = parseBody(admitted, request.headers.get("content-type") ?? undefined, body);
      if ("refusal" in parsed) return answer(parsed);
      return answer(await deliver(receiver, parsed));
    } catch (error) {
      // The request broke off while its body was read: 500, and why to the service's error reporter only.
      report(receiver, error, event);
      return answer(refused("handler_failed"));
    }
  };
}
