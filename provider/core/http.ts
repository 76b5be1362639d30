/**
 * One HTTP exchange of the provider with the help-desk API, on Node's `node:http` / `node:https` with one keep-alive
 * agent per provider process.
 *
 * Why not undici, the HTTP client of the rest of the project: this runs inside Pulumi's provider process, whose peak
 * memory counts on every `pulumi up`, and undici costs native memory per connection. Measured on Node 24 in a process
 * that had loaded `@pulumi/pulumi`, peak RSS added by 10 parallel requests to 127.0.0.1: `node:http` +1 MiB, Node's
 * global fetch (the undici inside Node.js) +9 to +18 MiB, the undici package +17 MiB. A `pulumi up` of 10 webhooks
 * makes exactly such a burst. The API calls here are two plain requests (docs/helpdesk-api.md §4.3, §4.4), so the standard module
 * does all they need.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { messageOf, PulumiHelpdeskError } from "../../kernel/errors.js";
import { localhostLookup } from "../../kernel/loopback.js";
import { MAX_RESPONSE_BYTES, readAtMost, tooLargeText } from "../../kernel/response-limit.js";

/** What the API responded: status, headers (lower-case names, repeated ones joined with ", ") and the body as text. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request: method, absolute URL, headers, an optional body, and the deadline of the whole exchange. */
export interface HttpExchange {
  method: "POST" | "DELETE";
  /** Absolute http(s) URL; a `URL` is used as it is (the client has parsed it already: no second parse per request). */
  url: string | URL;
  headers: Record<string, string>;
  body?: string;
  /** Deadline of the whole exchange (connect, send, headers and body), in milliseconds. */
  timeoutMs: number;
}

/**
 * The codes of {@link HttpExchangeError} this module makes (constants, as oauth4webapi exports its codes): `TIMEOUT`
 * when the deadline passed, `TOO_LARGE` when the response's body was longer than {@link MAX_RESPONSE_BYTES},
 * `NETWORK` when the failure carried no code of Node.js's.
 */
export const HTTP_EXCHANGE_ERROR_CODES = Object.freeze({
  TIMEOUT: "TIMEOUT",
  TOO_LARGE: "TOO_LARGE",
  NETWORK: "NETWORK",
} as const);

/**
 * An error code of Node.js or undici, as its error carries it: a system error's (`ECONNREFUSED`, `ECONNRESET`,
 * `ENOTFOUND`), Node.js's own (`ERR_…`), its HTTP parser's (`HPE_…`, a malformed response), undici's (`UND_ERR_…`).
 */
type NodeErrorCode = `E${string}` | `HPE_${string}` | `UND_ERR_${string}`;

/** A code of {@link HttpExchangeError}: one of {@link HTTP_EXCHANGE_ERROR_CODES}, or Node.js's. */
export type HttpExchangeErrorCode =
  | (typeof HTTP_EXCHANGE_ERROR_CODES)[keyof typeof HTTP_EXCHANGE_ERROR_CODES]
  | NodeErrorCode;

/** Whether a failure's `code` is one of Node.js's or undici's ({@link NodeErrorCode}). */
function isNodeErrorCode(code: unknown): code is NodeErrorCode {
  return typeof code === "string" && /^(?:E|HPE_|UND_ERR_)/.test(code);
}

/**
 * A failed exchange: no usable response. `code` is Node's network error code (`ECONNREFUSED`, `ECONNRESET`,
 * `ENOTFOUND`, ...), or one of {@link HTTP_EXCHANGE_ERROR_CODES} (for `TOO_LARGE`, `status` is the response's status;
 * the body was not kept). The retry policy (retry.ts) decides on the network codes. Internal to the provider: the
 * client turns it into a `HelpdeskError` that keeps it as `cause`.
 */
export class HttpExchangeError extends PulumiHelpdeskError<HttpExchangeErrorCode> {
  /** The response's HTTP status, for `TOO_LARGE`; else undefined (no response came). */
  readonly status: number | undefined;

  /**
   * @param code Node's network error code, or one of {@link HTTP_EXCHANGE_ERROR_CODES}
   * @param message what happened (may quote Node's message; never a header value)
   * @param options `cause`: Node's error; `status`: the response's status, for `TOO_LARGE`
   */
  constructor(code: HttpExchangeErrorCode, message: string, options: { cause?: unknown; status?: number } = {}) {
    super(code, message, options);
    this.status = options.status;
  }
}

/**
 * The keep-alive agents of this provider process, one per scheme: every operation reuses their connections, so
 * `pulumi up` of N webhooks opens a handful of TCP connections, not N. 16 sockets per host at most.
 */
const agents = {
  http: new HttpAgent({ keepAlive: true, keepAliveMsecs: 10_000, maxSockets: 16 }),
  https: new HttpsAgent({ keepAlive: true, keepAliveMsecs: 10_000, maxSockets: 16 }),
};

/**
 * Sends one request and reads the whole response, at most {@link MAX_RESPONSE_BYTES} of body (kernel/response-limit.ts).
 * Never follows redirects (a redirect would carry the bearer token elsewhere; the API never redirects,
 * docs/helpdesk-api.md §4). `localhost` connects to the loopback addresses without a lookup (kernel/loopback.ts).
 *
 * @returns the response, whatever its status
 * @throws HttpExchangeError when no complete response came (refused, reset, DNS failure, deadline passed), or
 *   `TOO_LARGE` when the body is longer than the limit (the connection is closed at once, the body never kept)
 */
export function exchange(request: HttpExchange): Promise<HttpResponse> {
  const url = typeof request.url === "string" ? new URL(request.url) : request.url;
  const secure = url.protocol === "https:";
  const send = secure ? httpsRequest : httpRequest;
  const signal = AbortSignal.timeout(request.timeoutMs);
  return new Promise<HttpResponse>((resolve, reject) => {
    const fail = (error: unknown): void => {
      if (error instanceof HttpExchangeError) {
        reject(error);
        return;
      }
      if (signal.aborted) {
        reject(
          new HttpExchangeError(
            HTTP_EXCHANGE_ERROR_CODES.TIMEOUT,
            `no complete response within ${request.timeoutMs / 1000} s`,
            {
              cause: error,
            },
          ),
        );
        return;
      }
      const code = (error as { code?: unknown }).code;
      const message = messageOf(error);
      reject(
        new HttpExchangeError(isNodeErrorCode(code) ? code : HTTP_EXCHANGE_ERROR_CODES.NETWORK, message, {
          cause: error,
        }),
      );
    };
    const headers =
      request.body === undefined
        ? request.headers
        : { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) };
    const outgoing = send(
      url,
      { method: request.method, headers, agent: secure ? agents.https : agents.http, lookup: localhostLookup, signal },
      (response: IncomingMessage) => {
        readResponse(response).then(resolve, fail);
      },
    );
    outgoing.on("error", fail);
    outgoing.end(request.body);
  });
}

/**
 * The response of `response`, its body read with the limit of kernel/response-limit.ts and decoded as UTF-8. Async, so
 * that whatever goes wrong while reading or decoding rejects (and reaches the caller) rather than throwing from a
 * stream's event listener, where it would be uncaught and end the provider process.
 *
 * @throws HttpExchangeError `TOO_LARGE` (with the status) when the body is longer than {@link MAX_RESPONSE_BYTES};
 *   the stream's error when the connection failed while reading
 */
async function readResponse(response: IncomingMessage): Promise<HttpResponse> {
  const status = response.statusCode ?? 0;
  const body = await readAtMost(response, MAX_RESPONSE_BYTES, response.headers["content-length"], () =>
    response.destroy(),
  );
  if (body === undefined)
    throw new HttpExchangeError(HTTP_EXCHANGE_ERROR_CODES.TOO_LARGE, tooLargeText("the API", MAX_RESPONSE_BYTES), {
      status,
    });
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return { status, headers: flat, body: body.toString("utf8") };
}
