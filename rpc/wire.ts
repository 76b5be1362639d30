/**
 * What of gRPC's wire format the release executable's own gRPC server and client share (`./unary-server.ts`,
 * `./unary-client.ts`, which say why not grpc-js): the status codes, an error that carries one, and the framing of
 * one message (grpc/grpc `doc/PROTOCOL-HTTP2.md`: a flag byte, 0 for uncompressed, and a 4-byte big-endian length).
 */

/**
 * The gRPC status codes the executable's server responds with and its client rejects with (grpc/grpc
 * `doc/statuscodes.md`; the same numbers as grpc-js's `status`, which tests/rpc/unary.test.ts holds).
 */
export const GRPC_STATUS = {
  OK: 0,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

/** One of {@link GRPC_STATUS}'s codes. */
export type GrpcStatus = (typeof GRPC_STATUS)[keyof typeof GRPC_STATUS];

/**
 * A call's gRPC status other than OK, with its message: what a server's method throws (or rejects with) to respond with
 * a status other than UNKNOWN, and what the client rejects a call with. Not one of the package's public errors
 * (`kernel/errors.ts`): it never leaves the plugin's process; a server turns it into a response's `grpc-status` and
 * `grpc-message`.
 */
export class GrpcStatusError extends Error {
  /**
   * @param code the status, e.g. {@link GRPC_STATUS}.FAILED_PRECONDITION (a client may read any number off the wire)
   * @param message what happened, for the person running Pulumi (the engine shows a server's): no secret
   */
  constructor(
    readonly code: GrpcStatus | number,
    message: string,
  ) {
    super(message);
    this.name = "GrpcStatusError";
  }
}

/** The length of a gRPC message's prefix: a compression flag byte and a 4-byte length. */
export const PREFIX_BYTES = 5;

/**
 * One message framed for an HTTP/2 body: the uncompressed flag, its length and its bytes.
 *
 * @param message the encoded message (protobuf)
 */
export function framedMessage(message: Uint8Array): Buffer {
  const framed = Buffer.allocUnsafe(PREFIX_BYTES + message.byteLength);
  framed[0] = 0;
  framed.writeUInt32BE(message.byteLength, 1);
  framed.set(message, PREFIX_BYTES);
  return framed;
}

/**
 * The one message of a unary call's body (a request's or a response's).
 *
 * @param body the whole body, every DATA frame's bytes
 * @returns the message, or the error to respond or reject with when the body is not exactly one uncompressed message
 */
export function messageOfBody(body: Buffer): Uint8Array | GrpcStatusError {
  if (body.length < PREFIX_BYTES || body.length !== PREFIX_BYTES + body.readUInt32BE(1))
    return new GrpcStatusError(GRPC_STATUS.INTERNAL, "a unary call's body is exactly one message");
  // The engine compresses nothing, and neither side announces an encoding it would accept (no grpc-accept-encoding).
  if (body[0] !== 0) return new GrpcStatusError(GRPC_STATUS.UNIMPLEMENTED, "compressed messages are not accepted");
  return body.subarray(PREFIX_BYTES);
}
