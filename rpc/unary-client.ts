/**
 * A gRPC client of unary methods on `node:http2`, for the plugins' calls to the engine that started them:
 * `pulumirpc.Engine/Log` (the native plugin's warnings, `provider/native/engine-log.ts`) and the health check that
 * tells a plugin its engine is gone (`./engine-watch.ts`).
 *
 * Why not `@grpc/grpc-js`: the plugin serves on `./unary-server.ts` so as not to load grpc-js at start (every
 * `pulumi` command waits for the plugin's port: docs/benchmark.md), and these calls are all it would still load it
 * for (its index, channelz, the resolver and load-balancer machinery: about 13 ms of CPU of a plugin's 73). What they
 * need is small: one connection to a loopback address, reopened when it closes; unary calls without metadata,
 * compression or TLS; a deadline; and a call's status as grpc-js reports it (UNAVAILABLE when nothing listens or the
 * connection fails, DEADLINE_EXCEEDED when the deadline passes, else the server's `grpc-status` and `grpc-message`).
 *
 * Held to grpc-js's client bounds (docs/design.md "What grpc-js enforces and where this code does the same"): a
 * response's declared length is checked against 4 MiB as its prefix arrives (`src/subchannel-call.ts`: the stream is
 * cancelled, RESOURCE_EXHAUSTED), nothing beyond the one message is kept, and every call has a deadline, sent as
 * `grpc-timeout` and enforced here: a server that answers forever, or never, cannot hold the plugin (audit M1).
 *
 * The connection does not keep the process alive (`unref`): the plugin lives as long as its server, and ends with its
 * engine.
 */
import { type ClientHttp2Session, connect, constants, type IncomingHttpHeaders } from "node:http2";
import { messageOf } from "../kernel/errors.js";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  framedMessage,
  GRPC_STATUS,
  GrpcStatusError,
  statusMessageOf,
  timeoutHeader,
  UnaryMessageReader,
} from "./wire.js";

/** A client of one gRPC server. */
export interface UnaryClient {
  /**
   * Calls one unary method.
   *
   * @param path the method's path, e.g. `/pulumirpc.Engine/Log`
   * @param request the request's encoded message
   * @param deadlineMs how long the call may take, in milliseconds (every call has one; sent as `grpc-timeout`)
   * @returns the response's encoded message (at most {@link DEFAULT_MAX_MESSAGE_BYTES})
   * @throws GrpcStatusError (as a rejection) with the call's status when it is not OK: the server's; UNAVAILABLE when
   *   the connection fails; DEADLINE_EXCEEDED when the deadline passes; RESOURCE_EXHAUSTED for a response declared
   *   larger than 4 MiB; INTERNAL for a body that is not one message
   */
  call(path: string, request: Uint8Array, deadlineMs: number): Promise<Uint8Array>;
  /** Closes the connection; a later call opens another. */
  close(): void;
}

/**
 * A client of the gRPC server at `address`, over plaintext HTTP/2 (loopback and unauthenticated, as every Pulumi
 * plugin's and engine's port is). The connection opens at the first call.
 *
 * @param address `host:port`, e.g. `127.0.0.1:40123` (an IPv6 host in brackets)
 */
export function unaryClient(address: string): UnaryClient {
  let session: ClientHttp2Session | undefined;
  const open = (): ClientHttp2Session => {
    if (session !== undefined && !session.closed && !session.destroyed) return session;
    const opened = connect(`http://${address}`);
    // A connection that fails fails its calls (each stream's own error or close); nothing to crash the process.
    opened.on("error", () => undefined);
    opened.unref();
    session = opened;
    return opened;
  };
  return {
    call: (path, request, deadlineMs) =>
      new Promise((resolve, reject) => {
        let settled = false;
        let timer: NodeJS.Timeout | undefined;
        const settle = (outcome: Uint8Array | GrpcStatusError): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if (outcome instanceof GrpcStatusError) reject(outcome);
          else resolve(outcome);
        };
        let stream: ReturnType<ClientHttp2Session["request"]>;
        try {
          stream = open().request({
            ":method": "POST",
            ":path": path,
            "content-type": "application/grpc+proto",
            te: "trailers",
            // So the server may give up as well (PROTOCOL-HTTP2.md "Timeout").
            "grpc-timeout": timeoutHeader(deadlineMs),
          });
        } catch (error) {
          settle(new GrpcStatusError(GRPC_STATUS.UNAVAILABLE, messageOf(error)));
          return;
        }
        // Ends the call with `error` and cancels the stream (RST_STREAM CANCEL, as grpc-js cancels a call): nothing
        // more the server sends is read.
        const cancel = (error: GrpcStatusError): void => {
          settle(error);
          stream.close(constants.NGHTTP2_CANCEL);
        };
        timer = setTimeout(
          () => cancel(new GrpcStatusError(GRPC_STATUS.DEADLINE_EXCEEDED, "Deadline exceeded")),
          deadlineMs,
        );
        let responseHeaders: IncomingHttpHeaders | undefined;
        let trailers: IncomingHttpHeaders | undefined;
        const reader = new UnaryMessageReader(DEFAULT_MAX_MESSAGE_BYTES);
        stream.on("response", (received) => {
          responseHeaders = received;
        });
        stream.on("trailers", (received) => {
          trailers = received;
        });
        stream.on("data", (chunk: Buffer) => {
          if (settled) return;
          const error = reader.push(chunk);
          if (error !== undefined) cancel(error);
        });
        stream.on("error", (error) => settle(new GrpcStatusError(GRPC_STATUS.UNAVAILABLE, messageOf(error))));
        stream.on("close", () => settle(outcomeOf(responseHeaders, trailers, reader)));
        stream.end(framedMessage(request));
      }),
    close: () => {
      session?.close();
      session = undefined;
    },
  };
}

/**
 * A finished call's outcome: its response message when its status is OK, else its status as an error.
 *
 * @param headers the response's headers (a trailers-only response carries the status there); undefined when none came
 * @param trailers the response's trailers
 * @param reader the response's body, as read
 */
function outcomeOf(
  headers: IncomingHttpHeaders | undefined,
  trailers: IncomingHttpHeaders | undefined,
  reader: UnaryMessageReader,
): Uint8Array | GrpcStatusError {
  // No response at all: the connection failed or the stream was reset before the server responded.
  if (headers === undefined) return new GrpcStatusError(GRPC_STATUS.UNAVAILABLE, "the server did not respond");
  const status = trailers?.["grpc-status"] ?? headers["grpc-status"];
  if (status === undefined)
    return new GrpcStatusError(GRPC_STATUS.UNKNOWN, `a response without a gRPC status (HTTP ${headers[":status"]})`);
  if (Number(status) !== GRPC_STATUS.OK) {
    const message = trailers?.["grpc-message"] ?? headers["grpc-message"];
    return new GrpcStatusError(Number(status), typeof message === "string" ? statusMessageOf(message) : "");
  }
  return reader.end();
}
