/**
 * The analyzer's gRPC server of unary methods on node:http2 (policy/unary-server.ts), asked by a real gRPC client
 * (`@grpc/grpc-js`) over 127.0.0.1: messages through, large ones across many HTTP/2 frames, and the statuses and
 * messages grpc-js's server gives for a method that throws, an unknown method and a message too large.
 */
import { connect } from "node:http2";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GRPC_STATUS, serveUnary, type UnaryServer } from "../../policy/unary-server.js";

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
      (error, response) => resolve(error ? { code: error.code, details: error.details } : response!),
    );
  });
}

beforeAll(async () => {
  server = await serveUnary(
    new Map([
      ["/test.Service/Reverse", (request: Uint8Array) => Uint8Array.from(request).reverse()],
      ["/test.Service/Length", (request: Uint8Array) => Buffer.from(String(request.byteLength))],
      [
        "/test.Service/Throw",
        () => {
          throw new Error("policy failed: 100% ünïcode\nsecond line");
        },
      ],
    ]),
    MAX,
  );
  client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await server?.close();
});

describe("the analyzer's unary gRPC server", () => {
  it("responds to a method with its response, and an empty message with an empty one", async () => {
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
    const answer = await call("/test.Service/Length", Buffer.alloc(MAX + 1));
    expect(answer).toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED });
    expect((answer as { details: string }).details).toMatch(/^Received message larger than max \(\d+ vs\. 2097152\)$/);
    // The connection still serves.
    expect(await call("/test.Service/Reverse", Buffer.from("ok"))).toEqual(Buffer.from("ko"));
  });

  it("uses grpc-js's numbers for the statuses it responds with", () => {
    expect(GRPC_STATUS).toEqual({
      OK: grpc.status.OK,
      UNKNOWN: grpc.status.UNKNOWN,
      RESOURCE_EXHAUSTED: grpc.status.RESOURCE_EXHAUSTED,
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
