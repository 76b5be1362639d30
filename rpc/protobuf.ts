/**
 * Decoding a request with `google-protobuf` (the generated messages the plugin and the analyzer serve) without letting a
 * few bytes hold the process: every length google-protobuf reads is checked against the bytes that remain first.
 *
 * Why: google-protobuf 3.21.4 does not check a declared length against the bytes present for a string
 * (`BinaryDecoder.readString` loops from the cursor to cursor + length, past the end of the buffer), an embedded
 * message (`BinaryReader.readMessage` moves the end, then reads fields of nothing) or a packed field; it checks only
 * `readBytes`. Its cost is the declared length, up to 2^32: the 11-byte request `0a ff ff ff ff 0f` (field 1, a string
 * of 4 GiB) kept the plugin and the analyzer busy for half a minute each, serving nothing (audit L1). grpc-js runs the
 * same decoder, so this is not one of its limits but a gap both share; grpc-go's decoder checks every length.
 *
 * Why not a walk of the wire format before decoding: the walk is exact only at the top level. Whether a nested
 * length-delimited field is a string or a message is in the schema, not on the wire (`0a 61 62 63` is the string
 * "\nabc" or a message whose field 1 declares 97 bytes), and a bogus length inside an embedded message (a `Struct`'s
 * key) spins google-protobuf all the same (tests/rpc/protobuf.test.ts). So the check sits where the schema is known:
 * in google-protobuf's own reads of a length, which this module wraps once, on `BinaryReader.prototype` (the generated
 * code and `jspb.Map` call them through the prototype). A length that fits changes nothing; one that does not throws,
 * and {@link decodeMessage} refuses the request with INTERNAL, as grpc-js refuses a request it cannot deserialize
 * (`src/server-interceptors.ts`, "Error deserializing request"). Checking against the whole buffer, not the embedded
 * message's end, is enough: what google-protobuf reads is then bounded by the request's size, and it fails at the
 * message's end.
 */
import googleProtobuf from "google-protobuf";
import { GRPC_STATUS, GrpcStatusError } from "./wire.js";

/** The message a request that is not a protobuf message of its method's type is refused with. */
export const NOT_PROTOBUF = "request is not a valid protobuf message";

/** The longest varint google-protobuf reads (a 64-bit value in 7-bit groups). */
const MAX_VARINT_BYTES = 10;

/** What the length check throws: a declared length beyond the bytes there are (the cause of {@link decodeMessage}'s refusal). */
export class LengthBeyondBytes extends Error {
  override readonly name = "LengthBeyondBytes";
}

/** A reader's position: the buffer it reads and its cursor (both public in google-protobuf 3.21). */
interface ReaderPosition {
  getBuffer(): Uint8Array;
  getCursor(): number;
}

/**
 * Throws when the length-delimited field at a reader's cursor declares more bytes than its buffer holds after the
 * length. The length is read as google-protobuf's `readUnsignedVarint32` reads it: the low 32 bits of a varint of at
 * most 10 bytes.
 *
 * @throws LengthBeyondBytes naming the declared and remaining bytes, or a varint that does not end in 10 bytes or in
 *   the buffer
 */
function assertLengthFits(reader: ReaderPosition): void {
  const bytes = reader.getBuffer();
  let cursor = reader.getCursor();
  let length = 0;
  for (let i = 0; ; i++) {
    const byte = bytes[cursor++];
    if (byte === undefined || i === MAX_VARINT_BYTES)
      throw new LengthBeyondBytes("a length runs past the message's end");
    // Bits beyond the 32nd are dropped, as google-protobuf drops them.
    if (i < 5) length += (byte & 0x7f) * 2 ** (7 * i);
    if (byte < 0x80) break;
  }
  length %= 2 ** 32;
  if (length > bytes.length - cursor)
    throw new LengthBeyondBytes(`a field declares ${length} bytes where ${bytes.length - cursor} remain`);
}

/** The reads of a length-delimited field that google-protobuf does not bound (see the module's comment). */
const UNCHECKED_READS = (prototype: object): string[] =>
  Object.getOwnPropertyNames(prototype).filter(
    (name) => name === "readString" || name === "readMessage" || name.startsWith("readPacked"),
  );

/** Marks the prototype once wrapped, so that loading this module twice (two bundles, a test) wraps once. */
const GUARDED = Symbol.for("google-protobuf BinaryReader: every length checked");

/** Wraps google-protobuf's unchecked reads with {@link assertLengthFits}. */
function guardReads(): void {
  const prototype = googleProtobuf.BinaryReader.prototype as unknown as Record<string | symbol, unknown>;
  if (prototype[GUARDED] === true) return;
  for (const name of UNCHECKED_READS(prototype)) {
    const read = prototype[name];
    if (typeof read !== "function") continue;
    prototype[name] = function checkedRead(this: ReaderPosition, ...args: unknown[]): unknown {
      assertLengthFits(this);
      return read.apply(this, args);
    };
  }
  prototype[GUARDED] = true;
}

guardReads();

/**
 * Decodes a request with its generated message class, every declared length checked first (see the module's comment).
 *
 * @param type the generated class, e.g. `providerPb.CheckRequest`
 * @param bytes the request's encoded message
 * @returns the message
 * @throws GrpcStatusError INTERNAL {@link NOT_PROTOBUF} when the bytes are not a message of that type (a length beyond
 *   the bytes, a malformed field: whatever google-protobuf refuses)
 */
export function decodeMessage<Message>(
  type: { deserializeBinary(bytes: Uint8Array): Message },
  bytes: Uint8Array,
): Message {
  try {
    return type.deserializeBinary(bytes);
  } catch (error) {
    throw new GrpcStatusError(GRPC_STATUS.INTERNAL, NOT_PROTOBUF, { cause: error });
  }
}
