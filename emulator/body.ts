/**
 * Request body parsing for the emulator: JSON objects and `application/x-www-form-urlencoded` forms (the spec shows no
 * content type, docs/helpdesk-api.md §4.5; docs/design.md "Decisions the service leaves open": JSON, with forms also accepted). The body size limit is enforced earlier by
 * the app's body-limit middleware; JSON nesting and value counts are bounded here ({@link JSON_LIMITS}), before
 * anything walks the parsed value.
 */
import type { Context } from "hono";
import type { EmulatorHttpError } from "./errors.js";
import { ApiError } from "./errors.js";

/** Parsed body parameters. Form values are strings; JSON values keep their JSON type. */
export interface BodyParams {
  kind: "json" | "form";
  params: Record<string, unknown>;
  /** Form parameter names that occur more than once (RFC 6749 §3.2 forbids repeats in OAuth requests). */
  repeated: string[];
}

/** Builds the error thrown for a body problem; lets the OAuth endpoint respond with RFC 6749 §5.2 errors instead. */
export type BodyErrorFactory = (status: 400 | 415, message: string) => EmulatorHttpError;

const apiErrors: BodyErrorFactory = (status, message) =>
  new ApiError(status === 415 ? "unsupported_media_type" : "invalid_request", message);

/**
 * Bounds of every JSON body the emulator reads (docs/helpdesk-api.md §8 shows no limits; these are the emulator's own): arrays and
 * objects nest at most `maxDepth` levels (32: the deepest real input, a delivery record's `links.*.href`, is 3), and
 * one body holds at most `maxValues` values (10,000). Together with the byte limit they keep every later walk of the
 * value (schema checks, `JSON.stringify`, deliveries) short and free of stack overflows.
 */
export const JSON_LIMITS = Object.freeze({ maxDepth: 32, maxValues: 10_000 });

/** Which of {@link JSON_LIMITS} a JSON text passed: its nesting depth, or its count of values. */
export type JsonLimitCode = "json_too_deep" | "json_too_many_values";

/**
 * A JSON text beyond {@link JSON_LIMITS}; `message` says which limit, e.g. "JSON nests deeper than 32 levels". A
 * `RangeError` (a value out of the allowed range), never sent as it is: readBodyParams turns it into a 400.
 */
export class JsonLimitError extends RangeError {
  /** Which limit was passed. */
  readonly code: JsonLimitCode;

  /**
   * @param code which limit
   * @param message e.g. "JSON nests deeper than 32 levels"
   * @param options `cause`
   */
  constructor(code: JsonLimitCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "JsonLimitError";
    this.code = code;
  }
}

/**
 * Checks JSON text against {@link JSON_LIMITS} in one iterative pass (no recursion, so any depth is safe to check),
 * then parses it (RFC 8259). Values are counted as members and elements at every level (opening brackets, commas,
 * plus the top value), an upper bound of the true count.
 *
 * @param text the JSON text
 * @param limits `{ maxDepth, maxValues }`, default {@link JSON_LIMITS}
 * @returns the parsed value
 * @throws {JsonLimitError} when the text nests deeper than `maxDepth` or holds more than `maxValues` values
 * @throws {SyntaxError} when the text is not JSON (from `JSON.parse`)
 */
export function parseJsonBounded(text: string, limits: { maxDepth: number; maxValues: number } = JSON_LIMITS): unknown {
  let depth = 0;
  let values = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
      continue;
    }
    if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limits.maxDepth)
        throw new JsonLimitError("json_too_deep", `JSON nests deeper than ${limits.maxDepth} levels`);
      values++;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
    else if (ch === 0x2c) values++;
    if (values > limits.maxValues)
      throw new JsonLimitError("json_too_many_values", `JSON holds more than ${limits.maxValues} values`);
  }
  return JSON.parse(text);
}

/** The media type of a `Content-Type` header, lower case, without parameters (`""` when absent). */
export function mediaType(header: string | undefined): string {
  const [type = ""] = (header ?? "").split(";");
  return type.trim().toLowerCase();
}

/**
 * Reads the request body as JSON (`application/json` or any `+json` type) or as a URL-encoded form.
 *
 * @returns `{ kind, params, repeated }`
 * @throws (from `onError`) 415 for any other or missing content type; 400 for malformed JSON, JSON beyond
 *   {@link JSON_LIMITS} (nesting or value count), a JSON body that is not an object, or bytes that are not UTF-8
 */
export async function readBodyParams(c: Context, onError: BodyErrorFactory = apiErrors): Promise<BodyParams> {
  const type = mediaType(c.req.header("content-type"));
  const isJson = type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
  const isForm = type === "application/x-www-form-urlencoded";
  if (!isJson && !isForm) {
    throw onError(
      415,
      type === ""
        ? "Missing Content-Type; send application/json or application/x-www-form-urlencoded"
        : `Unsupported Content-Type ${JSON.stringify(type.slice(0, 100))}; send application/json or application/x-www-form-urlencoded`,
    );
  }
  let text: string;
  try {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw onError(400, "Request body is not valid UTF-8");
  }
  if (isForm) {
    const params = Object.create(null) as Record<string, unknown>; // no prototype: "__proto__" is a plain key
    const repeated = new Set<string>();
    for (const [key, value] of new URLSearchParams(text)) {
      if (Object.hasOwn(params, key)) repeated.add(key);
      else params[key] = value;
    }
    return { kind: "form", params, repeated: [...repeated] };
  }
  let value: unknown;
  try {
    value = parseJsonBounded(text);
  } catch (error) {
    if (error instanceof JsonLimitError) throw onError(400, `Request body refused: ${error.message}`);
    throw onError(
      400,
      text.trim() === "" ? "Request body is empty; expected a JSON object" : "Request body is not valid JSON",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw onError(400, "Request body must be a JSON object");
  }
  return { kind: "json", params: value as Record<string, unknown>, repeated: [] };
}
