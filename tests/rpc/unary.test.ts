/**
 * The release executable's own gRPC on node:http2, each half against grpc-js over 127.0.0.1. The server of unary methods
 * that the analyzer and the native provider plugin serve on (rpc/unary-server.ts), asked by a real gRPC client
 * (`@grpc/grpc-js`): messages through, at once and from a Promise, large ones across many HTTP/2 frames, the caller's
 * address, and the statuses and messages grpc-js's server gives for a method that throws or rejects (with a status of
 * its own or not), an unknown method and a message too large. The client the plugin calls its engine with
 * (rpc/unary-client.ts), calling a real grpc-js server: responses, statuses and messages, UNAVAILABLE when
 * nothing listens, DEADLINE_EXCEEDED when the server does not respond in time.
 */

import { connect } from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { required } from "../../kernel/required.js";
import { unaryClient } from "../../rpc/unary-client.js";
import { serveUnary, type UnaryMethod, type UnaryServer } from "../../rpc/unary-server.js";
import { GRPC_STATUS, GrpcStatusError } from "../../rpc/wire.js";

/** The largest request the server under test accepts. */
const MAX = 2 * 1024 * 1024;

let server: UnaryServer;
let client: grpc.Client;

/** Calls `path` with `request`; resolves with the response or the error's code and details. */
function call(path: string, request: Uint8Array): Promise<Buffer | { code: number; details: string }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      path,
      (bytes: Uint8Array) => Buffer.from(bytes),
      (bytes: Buffer) => bytes,
      request,
      (error, response) =>
        resolve(error ? { code: error.code, details: error.details } : required(response, "the response")),
    );
  });
}

beforeAll(async () => {
  server = await serveUnary(
    new Map<string, UnaryMethod>([
      ["/test.Service/Reverse", (request: Uint8Array) => Uint8Array.from(request).reverse()],
      ["/test.Service/Length", (request: Uint8Array) => Buffer.from(String(request.byteLength))],
      [
        "/test.Service/Later",
        async (request: Uint8Array) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          return Uint8Array.from(request).reverse();
        },
      ],
      ["/test.Service/Peer", (_request, call) => Buffer.from(call.peer)],
      [
        "/test.Service/Refuse",
        async () => {
          throw new GrpcStatusError(GRPC_STATUS.FAILED_PRECONDITION, "not configured: 100% sure");
        },
      ],
      ["/test.Service/Reject", () => Promise.reject(new Error("create failed"))],
      [
        "/test.Service/Throw",
        () => {
          throw new Error("policy failed: 100% ünïcode\nsecond line");
        },
      ],
    ]),
    { maxRequestBytes: new Map([["/test.Service/Length", MAX]]) },
  );
  client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await server?.close();
});

describe("the unary gRPC server", () => {
  it("responds to a method with its response, and to an empty message with an empty one", async () => {
    expect(await call("/test.Service/Reverse", Buffer.from("abc"))).toEqual(Buffer.from("cba"));
    expect(await call("/test.Service/Reverse", new Uint8Array(0))).toEqual(Buffer.alloc(0));
  });

  it("reads a request that spans many HTTP/2 frames, up to the largest accepted", async () => {
    expect(String(await call("/test.Service/Length", Buffer.alloc(MAX, 7)))).toBe(String(MAX));
  });

  it("responds to many calls on one connection, one after the other and at once", async () => {
    for (let i = 0; i < 50; i++)
      expect(await call("/test.Service/Reverse", Buffer.from([i, 1]))).toEqual(Buffer.from([1, i]));
    const all = await Promise.all(Array.from({ length: 50 }, (_, i) => call("/test.Service/Length", Buffer.alloc(i))));
    expect(all.map(String)).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
  });

  it("responds with what an async method resolves to, many at once", async () => {
    const all = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call("/test.Service/Later", Buffer.from([i, 9]))),
    );
    expect(all).toEqual(Array.from({ length: 20 }, (_, i) => Buffer.from([9, i])));
  });

  it("responds with a GrpcStatusError's code and message, thrown or rejected, and UNKNOWN for any other rejection", async () => {
    expect(await call("/test.Service/Refuse", Buffer.from("x"))).toEqual({
      code: grpc.status.FAILED_PRECONDITION,
      details: "not configured: 100% sure",
    });
    expect(await call("/test.Service/Reject", Buffer.from("x"))).toEqual({
      code: grpc.status.UNKNOWN,
      details: "create failed",
    });
  });

  it("tells a method the caller's address, host and port", async () => {
    expect(String(await call("/test.Service/Peer", Buffer.alloc(0)))).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it("responds to a method that throws with UNKNOWN and the error's message, as grpc-js does", async () => {
    expect(await call("/test.Service/Throw", Buffer.from("x"))).toEqual({
      code: GRPC_STATUS.UNKNOWN,
      details: "policy failed: 100% ünïcode\nsecond line",
    });
  });

  it("responds to a method it does not serve with UNIMPLEMENTED, in grpc-js's words", async () => {
    expect(await call("/test.Service/Missing", Buffer.from("x"))).toEqual({
      code: grpc.status.UNIMPLEMENTED,
      details: "The server does not implement the method /test.Service/Missing",
    });
  });

  it("responds to a message larger than the largest accepted with RESOURCE_EXHAUSTED", async () => {
    const response = await call("/test.Service/Length", Buffer.alloc(MAX + 1));
    expect(response).toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED });
    expect((response as { details: string }).details).toMatch(
      /^Received message larger than max \(2097153 vs 2097152\)$/,
    );
    // The connection still serves.
    expect(await call("/test.Service/Reverse", Buffer.from("ok"))).toEqual(Buffer.from("ko"));
  });

  it("uses grpc-js's numbers for the statuses it responds with", () => {
    expect(GRPC_STATUS).toEqual({
      OK: grpc.status.OK,
      UNKNOWN: grpc.status.UNKNOWN,
      INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
      RESOURCE_EXHAUSTED: grpc.status.RESOURCE_EXHAUSTED,
      FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
      DEADLINE_EXCEEDED: grpc.status.DEADLINE_EXCEEDED,
      UNAVAILABLE: grpc.status.UNAVAILABLE,
      UNIMPLEMENTED: grpc.status.UNIMPLEMENTED,
      INTERNAL: grpc.status.INTERNAL,
    });
  });

  it("refuses a request that is not gRPC with 415, as grpc-js does", async () => {
    const session = connect(`http://127.0.0.1:${server.port}`);
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const request = session.request({
          ":method": "POST",
          ":path": "/test.Service/Reverse",
          "content-type": "text/plain",
        });
        request.on("response", (headers) => resolve(Number(headers[":status"])));
        request.on("error", reject);
        request.end("abc");
      });
      expect(status).toBe(415);
    } finally {
      session.close();
    }
  });
});

/** What a call of the client under test settles with: the response, or the error's code and message. */
async function settled(promise: Promise<Uint8Array>): Promise<Buffer | { code: number; message: string }> {
  try {
    return Buffer.from(await promise);
  } catch (error) {
    if (!(error instanceof GrpcStatusError)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe("the unary gRPC client", () => {
  let grpcServer: grpc.Server;
  let port: number;
  /** Calls the grpc-js server's Hang never respond. */
  const hanging: grpc.ServerUnaryCall<Buffer, Buffer>[] = [];

  beforeAll(async () => {
    grpcServer = new grpc.Server();
    const passThrough = { serialize: (bytes: Buffer) => bytes, deserialize: (bytes: Buffer) => bytes };
    const method = (path: string) => ({
      path,
      requestStream: false,
      responseStream: false,
      requestSerialize: passThrough.serialize,
      requestDeserialize: passThrough.deserialize,
      responseSerialize: passThrough.serialize,
      responseDeserialize: passThrough.deserialize,
    });
    grpcServer.addService(
      {
        reverse: method("/test.Service/Reverse"),
        fail: method("/test.Service/Fail"),
        hang: method("/test.Service/Hang"),
      },
      {
        reverse: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) =>
          callback(null, Buffer.from(call.request).reverse()),
        fail: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) =>
          callback({ code: grpc.status.PERMISSION_DENIED, details: "no: 100% ünïcode" }),
        hang: (call: grpc.ServerUnaryCall<Buffer, Buffer>) => {
          hanging.push(call);
        },
      },
    );
    port = await new Promise<number>((resolve, reject) =>
      grpcServer.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
  });

  afterAll(() => {
    grpcServer?.forceShutdown();
  });

  it("calls a grpc-js server's method, many times at once, and again after closing", async () => {
    const engine = unaryClient(`127.0.0.1:${port}`);
    try {
      expect(await settled(engine.call("/test.Service/Reverse", Buffer.from("abc"), 5_000))).toEqual(
        Buffer.from("cba"),
      );
      const all = await Promise.all(
        Array.from({ length: 20 }, (_, i) => settled(engine.call("/test.Service/Reverse", Buffer.from([i, 1]), 5_000))),
      );
      expect(all).toEqual(Array.from({ length: 20 }, (_, i) => Buffer.from([1, i])));
      engine.close();
      expect(await settled(engine.call("/test.Service/Reverse", new Uint8Array(0), 5_000))).toEqual(Buffer.alloc(0));
    } finally {
      engine.close();
    }
  });

  it("rejects with the server's status and message, and UNIMPLEMENTED for a method it does not serve", async () => {
    const engine = unaryClient(`127.0.0.1:${port}`);
    try {
      expect(await settled(engine.call("/test.Service/Fail", Buffer.from("x"), 5_000))).toEqual({
        code: grpc.status.PERMISSION_DENIED,
        message: "no: 100% ünïcode",
      });
      expect(await settled(engine.call("/test.Service/Missing", Buffer.from("x"), 5_000))).toMatchObject({
        code: grpc.status.UNIMPLEMENTED,
      });
    } finally {
      engine.close();
    }
  });

  it("rejects with DEADLINE_EXCEEDED when the server does not respond within the deadline", async () => {
    const engine = unaryClient(`127.0.0.1:${port}`);
    try {
      const started = Date.now();
      expect(await settled(engine.call("/test.Service/Hang", Buffer.from("x"), 200))).toMatchObject({
        code: grpc.status.DEADLINE_EXCEEDED,
      });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(hanging.length).toBe(1);
    } finally {
      engine.close();
    }
  });

  it("rejects with UNAVAILABLE when nothing listens at the address, and calls our own server", async () => {
    const closed = await serveUnary(new Map());
    await closed.close();
    const nobody = unaryClient(`127.0.0.1:${closed.port}`);
    expect(await settled(nobody.call("/test.Service/Reverse", Buffer.from("x"), 1_000))).toMatchObject({
      code: grpc.status.UNAVAILABLE,
    });
    nobody.close();
    const ours = unaryClient(`127.0.0.1:${server.port}`);
    try {
      expect(await settled(ours.call("/test.Service/Later", Buffer.from("ab"), 5_000))).toEqual(Buffer.from("ba"));
      expect(await settled(ours.call("/test.Service/Refuse", Buffer.from("x"), 5_000))).toEqual({
        code: GRPC_STATUS.FAILED_PRECONDITION,
        message: "not configured: 100% sure",
      });
    } finally {
      ours.close();
    }
  });
});
