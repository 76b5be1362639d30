/**
 * The emulator's Node HTTP server around the Hono app: deliberate timeouts, and the responses Node would otherwise write
 * itself (malformed messages, timeouts, `Expect`, `CONNECT`, no `Host`) in the emulator's JSON shape with
 * `X-Content-Type-Options: nosniff`.
 */

import type { Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import type { Hono } from "hono";
import type { AppEnv } from "./app-env.js";
import { clientErrorResponse, malformedRequestResponse, NO_SNIFF, rawResponse, transportError } from "./errors.js";
import type { Stats } from "./stats.js";
import type { HttpTimeoutOptions } from "./types.js";

/** Default HTTP server timeouts in milliseconds; the reasons are in {@link HttpTimeoutOptions}. */
export const DEFAULT_HTTP_TIMEOUTS: Readonly<Required<HttpTimeoutOptions>> = Object.freeze({
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 10_000,
});

/** How often Node checks the header and request timeouts of open connections (its default, 30 s, would blur them). */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** How long a connection refused below the app stays open after the response, discarding what the client sends: 1 s. */
const REFUSED_LINGER_MS = 1000;

/**
 * Writes a raw response and ends the connection: what the client still sends (a body behind a refused header section,
 * say) is read and discarded, so that it sees the response rather than a reset, and after {@link REFUSED_LINGER_MS} the
 * socket is destroyed whatever the client does.
 */
function refuseConnection(socket: Duplex, response: string): void {
  socket.end(response);
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
}

/**
 * Node's `clientError` (a message the parser refused, or a header or request timeout): a JSON 400, 408 or 431 (see
 * {@link clientErrorResponse}). When the broken bytes follow a whole request (a `Content-Length` shorter than the
 * body), that request gets its response first and the refusal follows it, in order.
 */
function onClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const refuse = () => {
    if (socket.writable) refuseConnection(socket, clientErrorResponse(error.code));
    else socket.destroy();
  };
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  // The response being written on this connection (Node keeps it there; no public accessor exists).
  const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  if (inFlight && !inFlight.writableEnded && inFlight.req.complete) {
    inFlight.once("finish", refuse);
    inFlight.once("close", () => socket.destroy());
    return;
  }
  // As Node's own handler: a response already begun for an unfinished request cannot be followed by another.
  if (inFlight?.headersSent) socket.destroy();
  else refuse();
}

/**
 * Creates (does not start) the HTTP server of one emulator.
 *
 * - Timeouts (milliseconds): `headersTimeout` = `headersMs`, `requestTimeout` = `requestMs` (at least `headersMs`, as
 *   Node requires; 0 turns it off), `keepAliveTimeout` = `keepAliveMs`, checked every second; see
 *   {@link HttpTimeoutOptions} for the reasons.
 * - Every response says `X-Content-Type-Options: nosniff`, also those written below the app: 400/408/431 for refused
 *   messages and timeouts, 417 for an `Expect` other than `100-continue` (RFC 9110 §10.1.1), 405 for `CONNECT`, 400
 *   for a request without `Host` (RFC 9112 §3.2) or with a target the adapter cannot read.
 *
 * @param app the emulator's Hono app
 * @param timeouts the server timeouts
 * @param stats counts accepted connections
 */
export function createHttpServer(app: Hono<AppEnv>, timeouts: Required<HttpTimeoutOptions>, stats: Stats): Server {
  // Requests the adapter cannot turn into a Request get a JSON 400; the app itself never throws.
  const listener = getRequestListener(app.fetch, { errorHandler: () => malformedRequestResponse() });
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs === 0 ? 0 : Math.max(timeouts.requestMs, timeouts.headersMs),
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      // A missing Host is refused by the adapter (400) with the headers of every other response; Node's own refusal
      // would carry none of them.
      requireHostHeader: false,
    },
    (req, res) => {
      // Every response, the app's and those the adapter writes itself, says nosniff.
      res.setHeader(NO_SNIFF.name, NO_SNIFF.value);
      return listener(req, res);
    },
  );
  server.on("connection", (socket: Socket) => {
    stats.connection();
    socket.on("error", () => undefined);
  });
  server.on("clientError", onClientError);
  server.on("checkExpectation", (_req, res: ServerResponse) => {
    const { status, headers, body } = transportError(
      417,
      "expectation_failed",
      "Only Expect: 100-continue is supported",
    );
    res.writeHead(status, headers).end(body);
  });
  // CONNECT is not served (no proxy here); respond instead of leaving the socket hanging.
  server.on("connect", (_req, socket: Socket) => {
    refuseConnection(
      socket,
      rawResponse(
        transportError(405, "method_not_allowed", "CONNECT is not supported", {
          Allow: "GET, HEAD, POST, PUT, PATCH, DELETE",
        }),
      ),
    );
  });
  return server;
}
