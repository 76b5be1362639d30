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
 * serves is unary; no streaming, compression, TLS.
 *
 * The protocol as the engine's client (grpc-go) speaks it (grpc/grpc `doc/PROTOCOL-HTTP2.md`): a POST with content type
 * `application/grpc[+proto]` to `/<service>/<method>`; the request is one length-prefixed message (a flag byte, 0 for
 * uncompressed, and a 4-byte big-endian length); the response is headers, one length-prefixed message and the trailers
 * `grpc-status: 0`, or, on an error, headers alone carrying `grpc-status` and `grpc-message` (trailers-only), as
 * grpc-js responds: the same codes and messages for an unknown method, a message too large, a content type not gRPC's.
 *
 * The port is loopback and unauthenticated, as every Pulumi plugin's is, so any local process may call it; the server
 * holds every call to grpc-js's bounds (docs/design.md "What grpc-js enforces and where this code does the same"): a
 * request's declared length is checked against its method's limit (4 MiB unless the method says otherwise) as soon as
 * its prefix is in; a `grpc-timeout` is honoured; the status message is cut short. And to two of its own, which grpc-js
 * leaves unlimited: at most {@link MAX_CONCURRENT_STREAMS} streams per connection and
 * {@link MAX_REQUEST_BYTES_IN_FLIGHT} of requests being received at once.
 */
import {
  constants,
  createServer,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from "node:http2";
import { messageOf } from "../kernel/errors.js";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  framedMessage,
  GRPC_STATUS,
  GrpcStatusError,
  statusMessageHeader,
  timeoutOf,
  UnaryMessageReader,
} from "./wire.js";

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
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
  /** Stops accepting connections and ends the open ones; resolves once every connection is closed. */
  close(): Promise<void>;
}

/**
 * The most streams one connection may have open at once (HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS`, RFC 9113 §6.5.2,
 * which advises at least 100): nghttp2 refuses a stream beyond it (RST_STREAM REFUSED_STREAM), while a client that
 * keeps to the setting, as grpc-go (the engine), grpc-js and Node.js do, waits for a stream to end before it opens
 * another. grpc-js and grpc-go servers leave it at 2^32 - 1 unless told. The engine runs up to `--parallel` steps at
 * once (by default 4 per CPU: pulumi/pulumi issue 14989), each one call at a time to the plugin.
 */
export const MAX_CONCURRENT_STREAMS = 100;

/**
 * How many bytes of requests the server takes in at once, by their declared lengths: a request whose prefix would take
 * the total beyond it is refused with RESOURCE_EXHAUSTED, unless no other request is in flight (so one request of its
 * method's limit, e.g. a whole stack's `AnalyzeStack` of 400 MiB, is always taken). The engine's requests are a few
 * KiB each; what this bounds is many streams of large declared lengths at once (audit L2), over any number of
 * connections. grpc-js has no such budget.
 */
export const MAX_REQUEST_BYTES_IN_FLIGHT = 64 * 1024 * 1024;

/** The server's limits; each defaults to grpc-js's or to this module's constant. */
export interface UnaryServerLimits {
  /**
   * The largest request message of each path that may be larger than {@link DEFAULT_MAX_MESSAGE_BYTES} (grpc-js's
   * default for every method), in bytes; a path not named here gets that default.
   */
  readonly maxRequestBytes?: ReadonlyMap<string, number>;
  /** Streams per connection at once; default {@link MAX_CONCURRENT_STREAMS}. */
  readonly maxConcurrentStreams?: number;
  /** Bytes of requests in flight at once; default {@link MAX_REQUEST_BYTES_IN_FLIGHT}. */
  readonly maxRequestBytesInFlight?: number;
}

/** The bytes of requests in flight, against {@link MAX_REQUEST_BYTES_IN_FLIGHT}. */
class RequestBudget {
  private inFlight = 0;

  constructor(private readonly max: number) {}

  /**
   * Takes `bytes` for a request whose prefix has arrived.
   *
   * @returns undefined when taken; else the refusal's message
   */
  take(bytes: number): string | undefined {
    if (this.inFlight > 0 && this.inFlight + bytes > this.max)
      return `Received message larger than the server takes in at once (${bytes} + ${this.inFlight} in flight vs ${this.max})`;
    this.inFlight += bytes;
    return undefined;
  }

  /** Gives back what a request took, once its stream has closed. */
  give(bytes: number): void {
    this.inFlight -= bytes;
  }
}

/**
 * Responds to a call with a status and no message (a trailers-only response), then closes the stream: a client still
 * sending is told to stop (RST_STREAM NO_ERROR after the complete response, RFC 9113 §8.1, as grpc-go does), and
 * nothing more it sends is read.
 */
function refuse(stream: ServerHttp2Stream, code: GrpcStatusError["code"], message: string): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond(
    {
      ":status": 200,
      "content-type": "application/grpc+proto",
      "grpc-status": String(code),
      "grpc-message": statusMessageHeader(message),
    },
    { endStream: true },
  );
  // Node.js closes a finished server stream whose request it never read the same way, on the next turn
  // (`lib/internal/http2/core.js` kMaybeDestroy): an RST_STREAM submitted at once could overtake the response's headers.
  setImmediate(() => stream.close(constants.NGHTTP2_NO_ERROR));
}

/** Responds to a call with a thrown error's status and message ({@link UnaryMethod}). */
function respondWithError(stream: ServerHttp2Stream, error: unknown): void {
  refuse(stream, error instanceof GrpcStatusError ? error.code : GRPC_STATUS.UNKNOWN, messageOf(error));
}

/** Responds to a call with its response message and status OK. */
function respondWithMessage(stream: ServerHttp2Stream, message: Uint8Array): void {
  // A call the client reset, or whose deadline passed, while its method ran (an async one) has nothing left to respond to.
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

/** What every call of one server shares. */
interface Served {
  readonly methods: ReadonlyMap<string, UnaryMethod>;
  readonly maxRequestBytes: ReadonlyMap<string, number>;
  readonly budget: RequestBudget;
}

/** Serves one call: reads its request within its bounds, runs its method, responds. */
function serveCall(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, served: Served): void {
  // A call the client resets or a connection that drops: nothing to respond to, and nothing to crash the process.
  stream.on("error", () => undefined);
  const contentType = headers["content-type"];
  if (headers[":method"] !== "POST" || typeof contentType !== "string" || !contentType.startsWith("application/grpc")) {
    stream.respond({ ":status": 415 }, { endStream: true });
    setImmediate(() => stream.close(constants.NGHTTP2_NO_ERROR));
    return;
  }
  const path = headers[":path"] ?? "";
  const method = served.methods.get(path);
  if (method === undefined) {
    refuse(stream, GRPC_STATUS.UNIMPLEMENTED, `The server does not implement the method ${path}`);
    return;
  }

  let deadline: NodeJS.Timeout | undefined;
  const timeout = headers["grpc-timeout"];
  if (typeof timeout === "string") {
    const ms = timeoutOf(timeout);
    // grpc-js's response to a malformed timeout (`src/server-interceptors.ts` handleTimeoutHeader).
    if (ms === undefined) {
      refuse(stream, GRPC_STATUS.INTERNAL, `Invalid grpc-timeout value "${timeout}"`);
      return;
    }
    // When it passes, the caller has given up: respond so (grpc-js's words), stop reading; a method already running
    // cannot be stopped midway, and what it responds is dropped.
    if (ms !== Number.POSITIVE_INFINITY)
      deadline = setTimeout(() => refuse(stream, GRPC_STATUS.DEADLINE_EXCEEDED, "Deadline exceeded"), ms);
  }

  const reader = new UnaryMessageReader(served.maxRequestBytes.get(path) ?? DEFAULT_MAX_MESSAGE_BYTES);
  let taken: number | undefined;
  stream.once("close", () => {
    clearTimeout(deadline);
    if (taken !== undefined) served.budget.give(taken);
  });
  stream.on("data", (chunk: Buffer) => {
    if (stream.headersSent) return;
    const error = reader.push(chunk);
    if (error !== undefined) return refuse(stream, error.code, error.message);
    const declared = reader.declaredBytes;
    if (taken === undefined && declared !== undefined) {
      const refusal = served.budget.take(declared);
      if (refusal !== undefined) return refuse(stream, GRPC_STATUS.RESOURCE_EXHAUSTED, refusal);
      taken = declared;
    }
  });
  stream.on("end", () => {
    // A reset that came with the end of the body (or before it) means the caller is gone: nothing is decoded and the
    // method does not run (audit I7; grpc-js runs it).
    if (stream.headersSent || stream.aborted || stream.destroyed || stream.closed) return;
    const request = reader.end();
    if (request instanceof GrpcStatusError) return refuse(stream, request.code, request.message);
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
 * @param limits the largest request of the methods that take more than 4 MiB, and the server's bounds
 *   ({@link UnaryServerLimits}); a request beyond its method's limit gets RESOURCE_EXHAUSTED as its prefix arrives
 * @returns the port and the server
 * @throws Error when no port can be bound
 */
export function serveUnary(
  methods: ReadonlyMap<string, UnaryMethod>,
  limits: UnaryServerLimits = {},
): Promise<UnaryServer> {
  const served: Served = {
    methods,
    maxRequestBytes: limits.maxRequestBytes ?? new Map(),
    budget: new RequestBudget(limits.maxRequestBytesInFlight ?? MAX_REQUEST_BYTES_IN_FLIGHT),
  };
  const server = createServer({
    // No limit on a session's memory, as grpc-js sets it (`src/server.ts`: its testing found Node.js's behaviour at the
    // limit degrades badly); what a session holds is bounded by the streams' cap, their flow-control windows and the
    // budget of requests in flight.
    maxSessionMemory: Number.MAX_SAFE_INTEGER,
    settings: { maxConcurrentStreams: limits.maxConcurrentStreams ?? MAX_CONCURRENT_STREAMS },
  });
  const sessions = new Set<ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    session.on("error", () => undefined);
  });
  server.on("stream", (stream, headers) => serveCall(stream, headers, served));
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
