/**
 * Requests decoded with every declared length checked (rpc/protobuf.ts; audit L1): google-protobuf's generated messages
 * of the plugin and the analyzer decode as before, strings that look like messages included, while a length beyond the
 * bytes there are, at the top level or inside an embedded message or a map's key, is refused (INTERNAL) by the check
 * before google-protobuf reads it: 11 bytes used to keep it busy for half a minute.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzerPb } from "../../policy/proto.js";
import { providerPb, structPb } from "../../provider/native/proto.js";
import { decodeMessage, LengthBeyondBytes, NOT_PROTOBUF } from "../../rpc/protobuf.js";
import { GRPC_STATUS, GrpcStatusError } from "../../rpc/wire.js";

/** The error `decodeMessage` throws for `hex` as a message of `type`. */
function refusal(type: { deserializeBinary(bytes: Uint8Array): unknown }, hex: string): GrpcStatusError {
  try {
    decodeMessage(type, Buffer.from(hex, "hex"));
  } catch (error) {
    if (error instanceof GrpcStatusError) return error;
    throw error;
  }
  throw new Error(`${hex} decoded`);
}

/** A varint's bytes, in hex. */
function varint(value: number): string {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes).toString("hex");
}

/** A length-delimited field (wire type 2) holding `hex`, in hex. */
const delimited = (field: number, hex: string): string => varint((field << 3) | 2) + varint(hex.length / 2) + hex;

/** 4 GiB - 1 as a varint: the length of the audit's request. */
const HUGE = varint(0xffffffff);

describe("decoding a request with every length checked", () => {
  it("decodes the messages the engine sends as google-protobuf does, strings that look like messages included", () => {
    const check = new providerPb.CheckRequest()
      .setUrn("\nabc")
      .setType("helpdesk:index:Webhook")
      .setNews(structPb.Struct.fromJavaScript({ url: "\n\u00e9\u4e2d", events: ["a", "b"], nested: { n: 1.5 } }));
    expect(decodeMessage(providerPb.CheckRequest, check.serializeBinary()).toObject()).toEqual(check.toObject());
    const analyze = new analyzerPb.AnalyzeRequest()
      .setType("t")
      .setUrn("urn")
      .setProperties(structPb.Struct.fromJavaScript({ "\nkey": { deep: [true, null, "x"] } }));
    expect(decodeMessage(analyzerPb.AnalyzeRequest, analyze.serializeBinary()).toObject()).toEqual(analyze.toObject());
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (properties, urn) => {
        const request = new providerPb.CreateRequest()
          .setUrn(urn)
          .setProperties(structPb.Struct.fromJavaScript(JSON.parse(JSON.stringify(properties))));
        expect(decodeMessage(providerPb.CreateRequest, request.serializeBinary()).toObject()).toEqual(
          request.toObject(),
        );
      }),
      { numRuns: 200 },
    );
  });

  it("refuses the audit's 11 bytes, a string of 4 GiB, to every method it spun, before google-protobuf reads them", () => {
    for (const type of [
      providerPb.CheckRequest,
      providerPb.ConfigureRequest,
      providerPb.CreateRequest,
      analyzerPb.AnalyzeRequest,
    ]) {
      const error = refusal(type, `0a${HUGE}`);
      expect(error).toMatchObject({ code: GRPC_STATUS.INTERNAL, message: NOT_PROTOBUF });
      expect(error.cause).toBeInstanceOf(LengthBeyondBytes);
      expect((error.cause as Error).message).toBe("a field declares 4294967295 bytes where 0 remain");
    }
  });

  it("refuses a length beyond the bytes inside an embedded message and a map's key, where a walk of the top level sees none", () => {
    // CheckRequest.news (field 3, a Struct) whose fields map (field 1) holds an entry whose key declares 4 GiB: every
    // length at the top level fits.
    const keyOfMap = delimited(3, delimited(1, `0a${HUGE}`));
    // AnalyzeRequest.properties (field 2, a Struct): an entry's value (a Value, field 2) whose string declares 4 GiB.
    const stringInValue = delimited(2, delimited(1, `0a0161${delimited(2, `1a${HUGE}`)}`));
    // An embedded message (CheckRequest.olds, field 2, a Struct) declared longer than the request.
    const message = `12${varint(0x10000000)}`;
    for (const [type, hex] of [
      [providerPb.CheckRequest, keyOfMap],
      [analyzerPb.AnalyzeRequest, stringInValue],
      [providerPb.CheckRequest, message],
    ] as const) {
      const error = refusal(type, hex);
      expect(error).toMatchObject({ code: GRPC_STATUS.INTERNAL, message: NOT_PROTOBUF });
      expect(error.cause, hex).toBeInstanceOf(LengthBeyondBytes);
    }
  });

  it("refuses what google-protobuf itself refuses with the same status: a varint or fixed field cut short", () => {
    for (const hex of ["08ff", "0901", "0d0102", "0a"])
      expect(refusal(providerPb.CheckRequest, hex)).toMatchObject({
        code: GRPC_STATUS.INTERNAL,
        message: NOT_PROTOBUF,
      });
  });
});
