/**
 * The bounds the release executable's own gRPC holds itself to (docs/design.md "What grpc-js enforces and where this
 * code does the same"), each asked of the real server and client over 127.0.0.1 by a peer that does what the engine
 * never does: node:http2 clients and servers written for it, and raw HTTP/2 frames where node:http2 would keep to the
 * rules itself. The server (rpc/unary-server.ts): a request declared over its method's limit refused as its prefix
 * arrives and its stream closed; grpc-js's 4 MiB for a method that names no limit; a request reset with its end never
 * run; the budget of requests in flight; the streams' cap; `grpc-timeout` honoured; a status message short and well
 * formed. The client (rpc/unary-client.ts): a response declared over 4 MiB, or longer than it declared, failed at
 * once; the deadline sent and kept. And the wire's own readers (rpc/wire.ts): `grpc-timeout` and `grpc-message`.
 */
import { type ClientHttp2Stream, connect, constants, createServer, type Http2Server } from "node:http2";
import { connect as connectTcp, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unaryClient } from "../../rpc/unary-client.js";
import { MAX_CONCURRENT_STREAMS, serveUnary, type UnaryMethod, type UnaryServer } from "../../rpc/unary-server.js";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  framedMessage,
  GRPC_STATUS,
  GrpcStatusError,
  MAX_STATUS_MESSAGE_LENGTH,
  MAX_TIMEOUT_MS,
  statusMessageHeader,
  statusMessageOf,
  timeoutHeader,
  timeoutOf,
} from "../../rpc/wire.js";

/** A gRPC response as a raw client sees it: its status, its message (decoded) and how its stream closed. */
interface RawResponse {
  status: number | undefined;
  message: string;
  /** The `grpc-message` header as sent. */
  rawMessage: string;
  /** The RST_STREAM code the stream closed with (0: NO_ERROR, which a complete response's close carries too). */
  rstCode: number | undefined;
}

/** A raw node:http2 call: headers as given, the body written by `send`, the response read whole. */
function rawCall(
  port: number,
  path: string,
  send: (stream: ClientHttp2Stream) => void,
  headers: Record<string, string> = {},
): { stream: ClientHttp2Stream; response: Promise<RawResponse>; close(): void } {
  const session = connect(`http://127.0.0.1:${port}`);
  session.on("error", () => undefined);
  const stream = session.request({
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc+proto",
    te: "trailers",
    ...headers,
  });
  stream.on("error", () => undefined);
  const response = new Promise<RawResponse>((resolve) => {
    let status: number | undefined;
    let rawMessage = "";
    const take = (received: Record<string, unknown>): void => {
      if (received["grpc-status"] !== undefined) status = Number(received["grpc-status"]);
      if (typeof received["grpc-message"] === "string") rawMessage = received["grpc-message"];
    };
    stream.on("response", take);
    stream.on("trailers", take);
    stream.resume();
    stream.on("close", () =>
      resolve({ status, rawMessage, message: statusMessageOf(rawMessage), rstCode: stream.rstCode }),
    );
  });
  send(stream);
  return { stream, response, close: () => session.destroy() };
}

/**
 * `promise`, or a failure naming `what` once `ms` have passed: a response that never comes fails the test instead of
 * hanging it (a bound on waiting, not a measurement).
 */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A message's 5-byte prefix: uncompressed, `declared` bytes long. */
function prefix(declared: number): Buffer {
  const bytes = Buffer.alloc(5);
  bytes.writeUInt32BE(declared, 1);
  return bytes;
}

describe("the unary gRPC server's bounds", () => {
  let server: UnaryServer;
  /** How many times each method ran. */
  const runs = new Map<string, number>();
  const counted =
    (name: string, method: UnaryMethod): UnaryMethod =>
    (request, call) => {
      runs.set(name, (runs.get(name) ?? 0) + 1);
      return method(request, call);
    };
  /** Calls of Hang, which never respond. */
  const hanging: number[] = [];
  const LARGE = 8 * 1024 * 1024;

  beforeAll(async () => {
    server = await serveUnary(
      new Map<string, UnaryMethod>([
        ["/test.Service/Length", counted("Length", (request) => Buffer.from(String(request.byteLength)))],
        ["/test.Service/Large", counted("Large", (request) => Buffer.from(String(request.byteLength)))],
        ["/test.Service/Hang", counted("Hang", () => new Promise(() => hanging.push(1)))],
        [
          "/test.Service/Shout",
          (request) => {
            throw new Error(Buffer.from(request).toString("utf8"));
          },
        ],
      ]),
      { maxRequestBytes: new Map([["/test.Service/Large", LARGE]]) },
    );
  });

  afterAll(async () => {
    await server?.close();
  });

  it("refuses a request declared over its method's limit as soon as its prefix is in, and closes its stream", async () => {
    // Only the prefix is sent, declaring 4 GiB - 1, and the body is never ended: the refusal cannot wait for more.
    const call = rawCall(server.port, "/test.Service/Large", (stream) => stream.write(prefix(0xffffffff)));
    try {
      const response = await within(call.response, 10_000, "refusal");
      expect(response).toMatchObject({
        status: GRPC_STATUS.RESOURCE_EXHAUSTED,
        message: `Received message larger than max (4294967295 vs ${LARGE})`,
        rstCode: constants.NGHTTP2_NO_ERROR,
      });
      // The stream is closed by the server (the client never ended it): what the client would send next is not read.
      expect(call.stream.closed).toBe(true);
      expect(runs.get("Large")).toBeUndefined();
    } finally {
      call.close();
    }
  });

  it("closes the stream of a request refused while the client keeps sending, and reads none of it", async () => {
    let sent = 0;
    const call = rawCall(server.port, "/test.Service/Large", (stream) => {
      const chunk = Buffer.alloc(1024 * 1024);
      const pump = (): void => {
        while (!stream.destroyed && sent < 64) {
          sent++;
          if (!stream.write(sent === 1 ? Buffer.concat([prefix(0xfffffff0), chunk]) : chunk)) {
            stream.once("drain", pump);
            return;
          }
        }
      };
      pump();
    });
    try {
      const response = await within(call.response, 10_000, "refusal");
      expect(response.status).toBe(GRPC_STATUS.RESOURCE_EXHAUSTED);
      // The server stopped the client well before its 64 MiB were through: flow control holds the rest back.
      expect(sent).toBeLessThan(64);
    } finally {
      call.close();
    }
  });

  it("holds a method that names no limit to grpc-js's 4 MiB, and takes exactly 4 MiB", async () => {
    const over = rawCall(server.port, "/test.Service/Length", (stream) =>
      stream.end(framedMessage(Buffer.alloc(DEFAULT_MAX_MESSAGE_BYTES + 1))),
    );
    expect(await over.response).toMatchObject({
      status: GRPC_STATUS.RESOURCE_EXHAUSTED,
      message: `Received message larger than max (${DEFAULT_MAX_MESSAGE_BYTES + 1} vs ${DEFAULT_MAX_MESSAGE_BYTES})`,
    });
    over.close();
    const client = unaryClient(`127.0.0.1:${server.port}`);
    try {
      const length = await client.call("/test.Service/Length", Buffer.alloc(DEFAULT_MAX_MESSAGE_BYTES), 10_000);
      expect(Buffer.from(length).toString()).toBe(String(DEFAULT_MAX_MESSAGE_BYTES));
    } finally {
      client.close();
    }
  });

  it("never runs a method whose request is reset as it ends, and still serves", async () => {
    const before = runs.get("Length") ?? 0;
    const session = connect(`http://127.0.0.1:${server.port}`);
    session.on("error", () => undefined);
    try {
      const closed: Promise<void>[] = [];
      for (let i = 0; i < 20; i++) {
        const stream = session.request({
          ":method": "POST",
          ":path": "/test.Service/Length",
          "content-type": "application/grpc+proto",
        });
        stream.on("error", () => undefined);
        closed.push(new Promise((resolve) => stream.on("close", resolve)));
        // The whole request, then a cancel on the same turn: the server reads its end and its reset together.
        stream.end(framedMessage(Buffer.from("abc")));
        stream.close(constants.NGHTTP2_CANCEL);
      }
      await Promise.all(closed);
      const client = unaryClient(`127.0.0.1:${server.port}`);
      try {
        expect(Buffer.from(await client.call("/test.Service/Length", Buffer.from("ok"), 5_000)).toString()).toBe("2");
      } finally {
        client.close();
      }
      expect((runs.get("Length") ?? 0) - before).toBe(1);
    } finally {
      session.destroy();
    }
  });

  it("responds DEADLINE_EXCEEDED when the grpc-timeout passes, whether the method runs or the request never ends", async () => {
    const running = rawCall(server.port, "/test.Service/Hang", (stream) => stream.end(framedMessage(Buffer.alloc(0))), {
      "grpc-timeout": "200m",
    });
    const unfinished = rawCall(server.port, "/test.Service/Length", (stream) => stream.write(prefix(10)), {
      "grpc-timeout": "1S",
    });
    try {
      const responses = await within(Promise.all([running.response, unfinished.response]), 10_000, "deadline");
      for (const response of responses)
        expect(response).toMatchObject({ status: GRPC_STATUS.DEADLINE_EXCEEDED, message: "Deadline exceeded" });
      expect(hanging.length).toBe(1);
    } finally {
      running.close();
      unfinished.close();
    }
  });

  it("refuses a grpc-timeout that is not one, as grpc-js does", async () => {
    for (const value of ["1x", "123456789m", "-1S", "S"]) {
      const call = rawCall(
        server.port,
        "/test.Service/Length",
        (stream) => stream.end(framedMessage(Buffer.alloc(1))),
        {
          "grpc-timeout": value,
        },
      );
      expect(await call.response).toMatchObject({
        status: GRPC_STATUS.INTERNAL,
        message: `Invalid grpc-timeout value "${value}"`,
      });
      call.close();
    }
  });

  it("sends a long status message cut to a few KiB, whole code points, and one with a lone surrogate well formed", async () => {
    const long = `${"é".repeat(50_000)}😀 and more`;
    const cut = rawCall(server.port, "/test.Service/Shout", (stream) => stream.end(framedMessage(Buffer.from(long))));
    const response = await cut.response;
    cut.close();
    // A status, not a reset: the header stays far below what a peer takes.
    expect(response.status).toBe(GRPC_STATUS.UNKNOWN);
    expect(response.rawMessage.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_LENGTH);
    expect(response.rawMessage).toMatch(/^[\x20-\x7e]+$/);
    expect(response.message.endsWith("…")).toBe(true);
    expect(long.startsWith(response.message.slice(0, -1))).toBe(true);

    // A method's message with a lone surrogate (its request's bytes are not UTF-8: decoded with U+FFFD by Buffer, so the
    // method is given the text directly).
    const lone = await serveUnary(
      new Map<string, UnaryMethod>([
        [
          "/test.Service/Lone",
          () => {
            throw new Error("bad \ud800 value");
          },
        ],
      ]),
    );
    try {
      const call = rawCall(lone.port, "/test.Service/Lone", (stream) => stream.end(framedMessage(Buffer.alloc(0))));
      expect(await call.response).toMatchObject({ status: GRPC_STATUS.UNKNOWN, message: "bad \ufffd value" });
      call.close();
    } finally {
      await lone.close();
    }
  });

  it("takes one request larger than the budget of requests in flight alone, and refuses one beyond it beside another", async () => {
    const budgeted = await serveUnary(
      new Map<string, UnaryMethod>([["/test.Service/Length", (request) => Buffer.from(String(request.byteLength))]]),
      {
        maxRequestBytes: new Map([["/test.Service/Length", 4 * 1024 * 1024]]),
        maxRequestBytesInFlight: 1024 * 1024,
      },
    );
    const client = unaryClient(`127.0.0.1:${budgeted.port}`);
    try {
      // Alone: 3 MiB, over the 1 MiB budget, is taken.
      const alone = await client.call("/test.Service/Length", Buffer.alloc(3 * 1024 * 1024), 10_000);
      expect(Buffer.from(alone).toString()).toBe(String(3 * 1024 * 1024));
      // A request of 800 KiB half sent holds the budget; another of 400 KiB beside it is refused.
      const holding = rawCall(budgeted.port, "/test.Service/Length", (stream) =>
        stream.write(Buffer.concat([prefix(800 * 1024), Buffer.alloc(400 * 1024)])),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const refused = await client.call("/test.Service/Length", Buffer.alloc(400 * 1024), 10_000).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(GrpcStatusError);
      expect(refused).toMatchObject({ code: GRPC_STATUS.RESOURCE_EXHAUSTED });
      expect((refused as Error).message).toMatch(
        /^Received message larger than the server takes in at once \(409600 \+ 819200 in flight vs 1048576\)$/,
      );
      // Once the first ends, the budget is back.
      holding.stream.end(Buffer.alloc(400 * 1024));
      expect((await holding.response).status).toBe(GRPC_STATUS.OK);
      holding.close();
      const after = await client.call("/test.Service/Length", Buffer.alloc(400 * 1024), 10_000);
      expect(Buffer.from(after).toString()).toBe(String(400 * 1024));
    } finally {
      client.close();
      await budgeted.close();
    }
  });

  it("announces its cap of streams per connection, and refuses a stream beyond it", async () => {
    const session = connect(`http://127.0.0.1:${server.port}`);
    session.on("error", () => undefined);
    try {
      await new Promise((resolve) => session.once("remoteSettings", resolve));
      expect(session.remoteSettings.maxConcurrentStreams).toBe(MAX_CONCURRENT_STREAMS);
    } finally {
      session.destroy();
    }
    // node:http2 keeps to the cap itself; raw frames do not. Cap + 1 streams are opened, none ended.
    const refused = await rawStreamsRefused(server.port, MAX_CONCURRENT_STREAMS + 1);
    expect(refused).toEqual([2 * MAX_CONCURRENT_STREAMS + 1]);
  });
});

/**
 * Opens `count` streams on one raw HTTP/2 connection (client preface, SETTINGS and its ACK, then one HEADERS frame per
 * stream, none ended: RFC 9113), and collects which streams the server refused (RST_STREAM REFUSED_STREAM), or all of
 * those beyond its cap when it ends the connection (GOAWAY) instead.
 *
 * @returns the refused stream ids, once the server has answered every stream's headers or gone quiet for 1 s
 */
async function rawStreamsRefused(port: number, count: number): Promise<number[]> {
  const socket: Socket = connectTcp(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  const frame = (type: number, flags: number, stream: number, payload: Buffer): Buffer => {
    const header = Buffer.alloc(9);
    header.writeUIntBE(payload.length, 0, 3);
    header[3] = type;
    header[4] = flags;
    header.writeUInt32BE(stream, 5);
    return Buffer.concat([header, payload]);
  };
  // HPACK "literal header field without indexing, new name", lengths under 127, no Huffman (RFC 7541 §6.2.2).
  const literal = (name: string, value: string): Buffer =>
    Buffer.concat([Buffer.from([0, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value)]);
  const block = Buffer.concat([
    literal(":method", "POST"),
    literal(":scheme", "http"),
    literal(":path", "/test.Service/Hang"),
    literal(":authority", "127.0.0.1"),
    literal("content-type", "application/grpc+proto"),
  ]);
  const refused: number[] = [];
  let buffered = Buffer.alloc(0);
  let goaway = false;
  let lastSeen = Date.now();
  socket.on("data", (data: Buffer) => {
    lastSeen = Date.now();
    buffered = Buffer.concat([buffered, data]);
    while (buffered.length >= 9) {
      const length = buffered.readUIntBE(0, 3);
      if (buffered.length < 9 + length) break;
      const type = buffered.readUInt8(3);
      const flags = buffered.readUInt8(4);
      const stream = buffered.readUInt32BE(5) & 0x7fffffff;
      const payload = buffered.subarray(9, 9 + length);
      if (type === 0x4 && (flags & 1) === 0) socket.write(frame(0x4, 1, 0, Buffer.alloc(0))); // SETTINGS ACK
      if (type === 0x3 && payload.readUInt32BE(0) === constants.NGHTTP2_REFUSED_STREAM) refused.push(stream);
      if (type === 0x7) goaway = true;
      buffered = buffered.subarray(9 + length);
    }
  });
  socket.on("error", () => undefined);
  socket.write(Buffer.concat([Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), frame(0x4, 0, 0, Buffer.alloc(0))]));
  // Wait for the server's SETTINGS (and our ACK of them) before opening streams.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i++) frames.push(frame(0x1, 0x4, 2 * i + 1, block)); // HEADERS, END_HEADERS
  socket.write(Buffer.concat(frames));
  while (Date.now() - lastSeen < 1000 && refused.length === 0 && !goaway)
    await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
  if (goaway && refused.length === 0)
    return Array.from({ length: count - MAX_CONCURRENT_STREAMS }, (_, i) => 2 * (MAX_CONCURRENT_STREAMS + i) + 1);
  return refused;
}

describe("the unary gRPC client's bounds", () => {
  let engine: Http2Server;
  let port: number;
  /** The headers of each call the server received. */
  const seen: Record<string, unknown>[] = [];
  /** How many bytes of its endless responses the client took in before it closed them (write callbacks). */
  const flushed: number[] = [];

  beforeAll(async () => {
    engine = createServer();
    engine.on("stream", (stream, headers) => {
      seen.push(headers);
      stream.on("error", () => undefined);
      stream.resume();
      const path = headers[":path"];
      if (path === "/test.Service/PrefixOnly") {
        stream.respond({ ":status": 200, "content-type": "application/grpc+proto" });
        stream.write(prefix(0xfffffff0));
      } else if (path === "/test.Service/Endless" || path === "/test.Service/Longer") {
        stream.respond({ ":status": 200, "content-type": "application/grpc+proto" });
        const index = flushed.push(0) - 1;
        const chunk = Buffer.alloc(256 * 1024, 1);
        let first = true;
        const pump = (): void => {
          while (!stream.destroyed && !stream.closed) {
            let bytes = chunk;
            if (first) bytes = Buffer.concat([prefix(path === "/test.Service/Endless" ? 0xfffffff0 : 1024), chunk]);
            first = false;
            const length = bytes.length;
            const counted = (error?: Error | null): void => {
              if (!error) flushed[index] = (flushed[index] ?? 0) + length;
            };
            if (!stream.write(bytes, counted)) {
              stream.once("drain", pump);
              return;
            }
          }
        };
        pump();
      } else if (path === "/test.Service/Hang") {
        // Never responds.
      } else {
        stream.respond({ ":status": 200, "content-type": "application/grpc+proto" }, { waitForTrailers: true });
        stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
        stream.end(framedMessage(Buffer.from("ok")));
      }
    });
    port = await new Promise<number>((resolve) =>
      engine.listen(0, "127.0.0.1", () => resolve((engine.address() as { port: number }).port)),
    );
  });

  afterAll(async () => {
    await new Promise((resolve) => engine?.close(resolve));
  });

  /** The error a call rejects with, or undefined when it resolves. */
  const failure = (promise: Promise<Uint8Array>): Promise<unknown> =>
    promise.then(
      () => undefined,
      (error) => error,
    );

  it("fails a response declared over 4 MiB as soon as its prefix is in, as grpc-js does", async () => {
    const client = unaryClient(`127.0.0.1:${port}`);
    try {
      // The deadline is long: only the prefix can have failed the call.
      const error = await failure(client.call("/test.Service/PrefixOnly", Buffer.alloc(0), 60_000));
      expect(error).toBeInstanceOf(GrpcStatusError);
      expect(error).toMatchObject({
        code: GRPC_STATUS.RESOURCE_EXHAUSTED,
        message: `Received message larger than max (4294967280 vs ${DEFAULT_MAX_MESSAGE_BYTES})`,
      });
    } finally {
      client.close();
    }
  });

  it("closes an endless response having taken in no more than 4 MiB and a chunk, whatever length it declares", async () => {
    const client = unaryClient(`127.0.0.1:${port}`);
    try {
      expect(await failure(client.call("/test.Service/Endless", Buffer.alloc(0), 60_000))).toMatchObject({
        code: GRPC_STATUS.RESOURCE_EXHAUSTED,
      });
      // A response that declares 1 KiB and goes on: failed once it passes the one message it declared.
      expect(await failure(client.call("/test.Service/Longer", Buffer.alloc(0), 60_000))).toMatchObject({
        code: GRPC_STATUS.INTERNAL,
        message: "a unary call's body is exactly one message",
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      // What the server could write beyond what the client read is one flow-control window and a chunk.
      for (const bytes of flushed) expect(bytes).toBeLessThanOrEqual(DEFAULT_MAX_MESSAGE_BYTES + 1024 * 1024);
    } finally {
      client.close();
    }
  });

  it("sends every call's deadline as grpc-timeout, and fails DEADLINE_EXCEEDED when it passes", async () => {
    const client = unaryClient(`127.0.0.1:${port}`);
    try {
      expect(Buffer.from(await client.call("/test.Service/Ok", Buffer.alloc(0), 5_000)).toString()).toBe("ok");
      expect(seen.at(-1)?.["grpc-timeout"]).toBe("5000m");
      expect(await failure(client.call("/test.Service/Hang", Buffer.alloc(0), 300))).toMatchObject({
        code: GRPC_STATUS.DEADLINE_EXCEEDED,
        message: "Deadline exceeded",
      });
      expect(seen.at(-1)?.["grpc-timeout"]).toBe("300m");
    } finally {
      client.close();
    }
  });
});

describe("the wire's grpc-timeout and grpc-message", () => {
  it("reads grpc-timeout as the spec writes it: up to 8 digits and a unit", () => {
    expect(timeoutOf("5S")).toBe(5000);
    expect(timeoutOf("100m")).toBe(100);
    expect(timeoutOf("2M")).toBe(120_000);
    expect(timeoutOf("1H")).toBe(3_600_000);
    expect(timeoutOf("1500u")).toBe(1.5);
    expect(timeoutOf("99999999n")).toBeCloseTo(99.999999);
    expect(timeoutOf("0m")).toBe(0);
    expect(timeoutOf("99999999H")).toBe(Number.POSITIVE_INFINITY);
    expect(timeoutOf(`${MAX_TIMEOUT_MS}m`)).toBeUndefined(); // 10 digits
    for (const invalid of ["", "5", "S", "5s", "5 S", "123456789S", "1.5S", "-1S", "5SS"])
      expect(timeoutOf(invalid)).toBeUndefined();
  });

  it("writes grpc-timeout in the finest unit that holds 8 digits, rounded up, and reads it back", () => {
    expect(timeoutHeader(5000)).toBe("5000m");
    expect(timeoutHeader(0.2)).toBe("1m");
    expect(timeoutHeader(99_999_999)).toBe("99999999m");
    expect(timeoutHeader(100_000_000)).toBe("100000S");
    expect(timeoutHeader(24 * 3_600_000 * 5000)).toBe("7200000M");
    for (const ms of [1, 999, 5000, 123_456_789, 2_000_000_000])
      expect(timeoutOf(timeoutHeader(ms))).toBeGreaterThanOrEqual(ms);
  });

  it("percent-encodes a status message as grpc-js does, and decodes it back", () => {
    for (const message of ["plain", "100% sure", "ünïcode\nsecond line", "a:b/c?d#e", "😀"]) {
      expect(statusMessageHeader(message)).toBe(encodeURI(message));
      expect(statusMessageOf(statusMessageHeader(message))).toBe(message);
    }
    expect(statusMessageHeader("x\udc00y")).toBe(encodeURI("x\ufffdy"));
    expect(statusMessageOf("%E0%A4%A")).toBe("%E0%A4%A");
  });

  it("cuts a long status message on a code point, never over the limit", () => {
    for (const unit of ["a", "é", "€", "😀", "%"]) {
      const header = statusMessageHeader(unit.repeat(10_000));
      expect(header.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_LENGTH);
      const decoded = statusMessageOf(header);
      expect(decoded.endsWith("…")).toBe(true);
      expect([...decoded.slice(0, -1)].every((character) => character === unit)).toBe(true);
      expect(decoded.length).toBeGreaterThan(MAX_STATUS_MESSAGE_LENGTH / 13);
    }
  });
});
