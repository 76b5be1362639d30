/**
 * What of gRPC's wire format the release executable's own gRPC server and client share (`./unary-server.ts`,
 * `./unary-client.ts`, which say why not grpc-js): the status codes, an error that carries one, the framing of one
 * message and its incremental reading with grpc-js's receive limit, the deadline header and the status message header.
 * Source: grpc/grpc `doc/PROTOCOL-HTTP2.md` (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md), and where
 * the spec leaves a choice, what grpc-js 1.14.7 does (its file named at each place).
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
   * @param options the `cause`, kept in the process (never sent)
   */
  constructor(
    readonly code: GrpcStatus | number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "GrpcStatusError";
  }
}

/** The length of a gRPC message's prefix: a compression flag byte and a 4-byte big-endian length (PROTOCOL-HTTP2.md "Length-Prefixed-Message"). */
export const PREFIX_BYTES = 5;

/**
 * The largest message received unless a method says otherwise, in bytes: 4 MiB, grpc-js's
 * `DEFAULT_MAX_RECEIVE_MESSAGE_LENGTH` (`src/constants.ts`), for its server and its client alike.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * The largest message Pulumi's own servers accept, in bytes: 400 MiB, the `maxRPCMessageSize` with which
 * `@pulumi/pulumi` (`runtime/settings.js`) and `@pulumi/policy` 1.21.0 (`server.js`) lift gRPC's 4 MiB default, as
 * grpc-go's engine does, because a resource's state or a whole stack can be one message.
 */
export const PULUMI_MAX_MESSAGE_BYTES = 400 * 1024 * 1024;

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

/** Why a unary call's body is refused when it is not exactly one message. */
const NOT_ONE_MESSAGE = "a unary call's body is exactly one message";

/**
 * Reads the one message of a unary call's body (a request's or a response's) as its DATA frames arrive, holding it to
 * a largest length the way grpc-js's `StreamDecoder` (`src/stream-decoder.ts`) does: the declared length is checked as
 * soon as the 5-byte prefix is in, so a message declared too large is refused before any of it is kept; and no byte
 * beyond the one message is kept either (a unary body holds one message; grpc-js fails a second one too).
 *
 * The message is copied into one buffer of its declared length as it arrives, where grpc-js keeps the frames and
 * concatenates them at the end: a large message is held once, not twice at its end. The buffer is allocated unfilled
 * (`Buffer.allocUnsafe`), so its memory becomes resident only as the bytes arrive; no byte of it is read before it is
 * written (the message is handed on only once every declared byte has come).
 */
export class UnaryMessageReader {
  private readonly prefix = Buffer.alloc(PREFIX_BYTES);
  private prefixBytes = 0;
  private message: Buffer | undefined;
  private received = 0;
  private failed = false;

  /** @param maxMessageBytes the largest message accepted, in bytes (e.g. {@link DEFAULT_MAX_MESSAGE_BYTES}) */
  constructor(private readonly maxMessageBytes: number) {}

  /** The message's declared length in bytes, once its prefix is in (and accepted); undefined before. */
  get declaredBytes(): number | undefined {
    return this.message?.length;
  }

  /**
   * Takes the body's next bytes. After an error nothing more is kept: the caller ends the call with it.
   *
   * @param chunk one DATA frame's bytes
   * @returns undefined to read on; else the call's error: RESOURCE_EXHAUSTED `Received message larger than max (<declared>
   *   vs <max>)` (grpc-js's words) at the prefix, UNIMPLEMENTED for a compressed message, INTERNAL for bytes beyond the
   *   one message
   */
  push(chunk: Buffer): GrpcStatusError | undefined {
    if (this.failed) return undefined;
    let rest = chunk;
    if (this.message === undefined) {
      const take = Math.min(PREFIX_BYTES - this.prefixBytes, rest.length);
      rest.copy(this.prefix, this.prefixBytes, 0, take);
      this.prefixBytes += take;
      rest = rest.subarray(take);
      if (this.prefixBytes < PREFIX_BYTES) return undefined;
      const declared = this.prefix.readUInt32BE(1);
      // The engine compresses nothing, and neither side announces an encoding it would accept (no grpc-accept-encoding).
      if (this.prefix[0] !== 0) return this.fail(GRPC_STATUS.UNIMPLEMENTED, "compressed messages are not accepted");
      if (declared > this.maxMessageBytes)
        return this.fail(
          GRPC_STATUS.RESOURCE_EXHAUSTED,
          `Received message larger than max (${declared} vs ${this.maxMessageBytes})`,
        );
      this.message = Buffer.allocUnsafe(declared);
    }
    if (rest.length === 0) return undefined;
    if (this.received + rest.length > this.message.length) return this.fail(GRPC_STATUS.INTERNAL, NOT_ONE_MESSAGE);
    rest.copy(this.message, this.received);
    this.received += rest.length;
    return undefined;
  }

  /**
   * The message, once the body has ended.
   *
   * @returns the message's bytes, or INTERNAL when the body ended before one whole message
   */
  end(): Uint8Array | GrpcStatusError {
    if (this.failed || this.message === undefined || this.received !== this.message.length)
      return new GrpcStatusError(GRPC_STATUS.INTERNAL, NOT_ONE_MESSAGE);
    return this.message;
  }

  /** Drops what was kept and reports the error once. */
  private fail(code: GrpcStatus, message: string): GrpcStatusError {
    this.failed = true;
    this.message = undefined;
    return new GrpcStatusError(code, message);
  }
}

/**
 * `grpc-timeout`'s units and their length in milliseconds (PROTOCOL-HTTP2.md "Timeout → TimeoutValue TimeoutUnit":
 * Hour, Minute, Second, Millisecond, Microsecond, Nanosecond).
 */
const TIMEOUT_UNITS_MS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 };

/**
 * The longest timer Node.js keeps, in milliseconds (a longer `setTimeout` fires at once); grpc-js treats a deadline
 * further away as none (`src/deadline.ts` `MAX_TIMEOUT_TIME`), and so does {@link timeoutOf}.
 */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * A `grpc-timeout` header's value for a deadline `ms` milliseconds away: at most 8 digits, in the finest unit that
 * holds them, rounded up (as grpc-js's `getDeadlineTimeoutString`, `src/deadline.ts`).
 *
 * @param ms the time left, in milliseconds (at least 0)
 * @returns e.g. `5000m`, `100000S`
 * @throws Error for a deadline over 99999999 hours away, which the header cannot carry
 */
export function timeoutHeader(ms: number): string {
  for (const unit of ["m", "S", "M", "H"] as const) {
    const amount = Math.ceil(Math.max(ms, 0) / (TIMEOUT_UNITS_MS[unit] ?? 1));
    if (amount < 1e8) return `${amount}${unit}`;
  }
  throw new Error(`a deadline ${ms} ms away is too far for grpc-timeout`);
}

/**
 * A `grpc-timeout` header's deadline, in milliseconds from now (PROTOCOL-HTTP2.md: "TimeoutValue → {positive integer
 * as ASCII string of at most 8 digits}", a unit of `H M S m u n`; grpc-js's server reads it with the same bounds,
 * `src/server-interceptors.ts` `handleTimeoutHeader`).
 *
 * @param value the header's value, e.g. `5S`, `100m`
 * @returns the milliseconds (0 for `0n`: already passed); Infinity when further than {@link MAX_TIMEOUT_MS}; undefined
 *   when the value is not a timeout (the server responds INTERNAL, as grpc-js does)
 */
export function timeoutOf(value: string): number | undefined {
  const parts = /^(\d{1,8})([HMSmun])$/.exec(value);
  const digits = parts?.[1];
  const unit = parts?.[2];
  if (digits === undefined || unit === undefined) return undefined;
  const ms = Number(digits) * (TIMEOUT_UNITS_MS[unit] ?? 1);
  return ms > MAX_TIMEOUT_MS ? Number.POSITIVE_INFINITY : ms;
}

/**
 * The longest `grpc-message` header value sent, in characters once percent-encoded. The engine shows the message to the
 * person running Pulumi, and a header block beyond what the peer takes (Node.js sends at most 64 KiB,
 * `maxSendHeaderBlockLength`; grpc-go's client takes 16 MiB) is a stream reset instead of a status (audit I2): 4 KiB
 * holds any message of ours whole.
 */
export const MAX_STATUS_MESSAGE_LENGTH = 4096;

/** What ends a cut status message. */
const CUT_MARK = "…";

/**
 * A status message as the `grpc-message` header carries it: percent-encoded with `encodeURI`, as grpc-js's server
 * encodes it (`src/server-interceptors.ts`; PROTOCOL-HTTP2.md "Status-Message → Percent-Encoded"), after lone surrogates
 * are replaced (`toWellFormed`: `encodeURI` throws on one), and cut on a code point to at most
 * {@link MAX_STATUS_MESSAGE_LENGTH} characters, ending with `…`, when longer.
 *
 * @param message the status message (no secret: the engine shows it)
 * @returns the header's value, ASCII
 */
export function statusMessageHeader(message: string): string {
  const wellFormed = message.toWellFormed();
  // Every character encodes to at least one: a message no longer than the limit may fit whole.
  if (wellFormed.length <= MAX_STATUS_MESSAGE_LENGTH) {
    const whole = encodeURI(wellFormed);
    if (whole.length <= MAX_STATUS_MESSAGE_LENGTH) return whole;
  }
  const mark = encodeURI(CUT_MARK);
  let cut = "";
  // for...of steps by code point, so a surrogate pair is never split.
  for (const character of wellFormed) {
    const encoded = encodeURI(character);
    if (cut.length + encoded.length + mark.length > MAX_STATUS_MESSAGE_LENGTH) break;
    cut += encoded;
  }
  return cut + mark;
}

/**
 * A received `grpc-message` header decoded (percent-decoding, PROTOCOL-HTTP2.md), or as sent when it is malformed.
 *
 * @param header the header's value
 */
export function statusMessageOf(header: string): string {
  try {
    return decodeURIComponent(header);
  } catch {
    return header;
  }
}
