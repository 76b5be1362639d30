/**
 * A gRPC server of unary methods on `node:http2`, for the release executable's two servers: the policy pack's analyzer
 * (`policy/server.ts`) and the native provider plugin (`provider/native/server.ts`). Each method takes the request's
 * encoded message and returns the response's (at once, or as a Promise), so the caller chooses what to decode (the
 * analyzer decodes nothing for `Remediate` and responds to it with bytes encoded once per `Configure`).
 *
 * Why not `@grpc/grpc-js`: the engine calls the analyzer twice per resource, one call after the other on its step
 * generator's path (`Remediate`, then `Analyze`: pulumi/pulumi v3.259 `pkg/resource/deploy/step_generator.go`), so
 * every call's cost is added to a governed preview. Replaying a preview's calls as the engine sends them
 * (`bench/analyzer-floor.ts`, docs/benchmark.md), the analyzer on grpc-js spent 1.1 to 1.3 ms of CPU per resource, on
 * this server 0.8 to 0.9 ms (grpc-js's per-call objects: metadata, interceptors, its stream decoder, channelz). And
 * every `pulumi preview`, `up`, `refresh` and `destroy` waits for the plugin's start, which loading grpc-js made 2.5
 * times Node.js's own (docs/benchmark.md). What grpc-js would do beyond this file is asked of neither server by the
 * v3.259 engine (`sdk/go/common/resource/plugin/provider_plugin.go`, `analyzer_plugin.go`): every method either
 * serves is unary; no streaming, compression, TLS; a deadline (`grpc-timeout`) is not enforced here, as a handler
 * cannot be stopped midway anyway.
 *
 * The protocol as the engine's client (grpc-go) speaks it (grpc/grpc `doc/PROTOCOL-HTTP2.md`): a POST with content type
 * `application/grpc[+proto]` to `/<service>/<method>`; the request is one length-prefixed message (a flag byte, 0 for
 * uncompressed, and a 4-byte big-endian length); the response is headers, one length-prefixed message and the trailers
 * `grpc-status: 0`, or, on an error, headers alone carrying `grpc-status` and `grpc-message` (trailers-only), as
 * grpc-js responds: the same codes and messages for an unknown method, a message too large, a content type not gRPC's.
 */
import { createServer, type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from "node:http2";
import { messageOf } from "../kernel/errors.js";
import { framedMessage, GRPC_STATUS, GrpcStatusError, messageOfBody, PREFIX_BYTES } from "./wire.js";

/** What a method may know of its call besides the request. */
export interface UnaryCall {
  /** The caller's address, `host:port` (e.g. `127.0.0.1:51234`), as grpc-js's `getPeer()` gives it. */
  readonly peer: string;
}

/**
 * One unary method: the request's encoded message in, the response's encoded message out, at once or as a Promise. What
 * it throws (or rejects with) gets a response with the status of a {@link GrpcStatusError}, else UNKNOWN, and the
 * error's message (as grpc-js responds to an error given to a unary handler's callback).
 */
export type UnaryMethod = (request: Uint8Array, call: UnaryCall) => Uint8Array | Promise<Uint8Array>;

/** A running server: its port on 127.0.0.1, and how to stop it. */
export interface UnaryServer {
  readonly port: number;
  /** Stops accepting connections and ends the open ones; resolves once every connection is closed. */
  close(): Promise<void>;
}

/** Responds to a call with a status and no message (a trailers-only response). */
function respondWithStatus(stream: ServerHttp2Stream, code: GrpcStatusError["code"], message: string): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond(
    {
      ":status": 200,
      "content-type": "application/grpc+proto",
      "grpc-status": String(code),
      // grpc-js encodes the message so (grpc-go decodes any %XX); a header value cannot hold every character.
      "grpc-message": encodeURI(message),
    },
    { endStream: true },
  );
}

/** Responds to a call with a thrown error's status and message ({@link UnaryMethod}). */
function respondWithError(stream: ServerHttp2Stream, error: unknown): void {
  respondWithStatus(stream, error instanceof GrpcStatusError ? error.code : GRPC_STATUS.UNKNOWN, messageOf(error));
}

/** Responds to a call with its response message and status OK. */
function respondWithMessage(stream: ServerHttp2Stream, message: Uint8Array): void {
  // A call the client reset while its method ran (an async one) has nothing left to respond to.
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  const framed = framedMessage(message);
  stream.respond({ ":status": 200, "content-type": "application/grpc+proto" }, { waitForTrailers: true });
  stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(GRPC_STATUS.OK) }));
  stream.end(framed);
}

/** The {@link UnaryCall} of a stream; the peer is read only when a method asks. */
function callOf(stream: ServerHttp2Stream): UnaryCall {
  return {
    get peer(): string {
      const socket = stream.session?.socket;
      return `${socket?.remoteAddress ?? ""}:${socket?.remotePort ?? ""}`;
    },
  };
}

/** Serves one call: reads its request, runs its method, responds. */
function serveCall(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  methods: ReadonlyMap<string, UnaryMethod>,
  maxRequestBytes: number,
): void {
  // A call the client resets or a connection that drops: nothing to respond to, and nothing to crash the process.
  stream.on("error", () => undefined);
  const contentType = headers["content-type"];
  if (headers[":method"] !== "POST" || typeof contentType !== "string" || !contentType.startsWith("application/grpc")) {
    stream.respond({ ":status": 415 }, { endStream: true });
    return;
  }
  const path = headers[":path"] ?? "";
  const method = methods.get(path);
  if (method === undefined) {
    respondWithStatus(stream, GRPC_STATUS.UNIMPLEMENTED, `The server does not implement the method ${path}`);
    stream.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  stream.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxRequestBytes + PREFIX_BYTES) {
      respondWithStatus(
        stream,
        GRPC_STATUS.RESOURCE_EXHAUSTED,
        `Received message larger than max (${received - PREFIX_BYTES} vs. ${maxRequestBytes})`,
      );
      chunks.length = 0;
      return;
    }
    if (!stream.headersSent) chunks.push(chunk);
  });
  stream.on("end", () => {
    if (stream.headersSent) return;
    const request = messageOfBody(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks));
    if (request instanceof GrpcStatusError) return respondWithStatus(stream, request.code, request.message);
    let response: Uint8Array | Promise<Uint8Array>;
    try {
      response = method(request, callOf(stream));
    } catch (error) {
      return respondWithError(stream, error);
    }
    // A method that responds at once is responded to on this turn (the analyzer's per-resource calls).
    if (response instanceof Uint8Array) return respondWithMessage(stream, response);
    response.then(
      (message) => respondWithMessage(stream, message),
      (error: unknown) => respondWithError(stream, error),
    );
  });
}

/**
 * Serves unary methods on 127.0.0.1 at a free port, over plaintext HTTP/2 (loopback and unauthenticated, as every
 * Pulumi plugin's port is).
 *
 * @param methods each method by its path, e.g. `/pulumirpc.Analyzer/Analyze`; any other path gets UNIMPLEMENTED
 * @param maxRequestBytes the largest request message accepted; a larger one gets RESOURCE_EXHAUSTED
 * @returns the port and the server
 * @throws Error when no port can be bound
 */
export function serveUnary(methods: ReadonlyMap<string, UnaryMethod>, maxRequestBytes: number): Promise<UnaryServer> {
  // No limit on a session's memory, as grpc-js sets it (its testing found Node.js's behaviour at the limit degrades
  // badly): a stack's AnalyzeStack request is one large message.
  const server = createServer({ maxSessionMemory: Number.MAX_SAFE_INTEGER });
  const sessions = new Set<ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    session.on("error", () => undefined);
  });
  server.on("stream", (stream, headers) => serveCall(stream, headers, methods, maxRequestBytes));
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      const close = (): Promise<void> =>
        new Promise((closed) => {
          server.close(() => closed());
          for (const session of sessions) session.close();
        });
      resolve({ port, close });
    });
  });
}
