/**
 * Request body parsing for the emulator: JSON objects and `application/x-www-form-urlencoded` forms (the spec shows no
 * content type, spec §4.5; DESIGN.md: JSON, with forms also accepted). The body size limit is enforced earlier by
 * the app's body-limit middleware.
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

/** Builds the error thrown for a body problem; lets the OAuth endpoint answer RFC 6749 §5.2 errors instead. */
export type BodyErrorFactory = (status: 400 | 415, message: string) => EmulatorHttpError;

const apiErrors: BodyErrorFactory = (status, message) =>
  new ApiError(status, status === 415 ? "unsupported_media_type" : "invalid_request", message);

/** The media type of a `Content-Type` header, lower case, without parameters (`""` when absent). */
export function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * Reads the request body as JSON (`application/json` or any `+json` type) or as a URL-encoded form.
 *
 * @returns `{ kind, params, repeated }`
 * @throws (from `onError`) 415 for any other or missing content type; 400 for malformed JSON, a JSON body that is not
 *   an object, or bytes that are not UTF-8
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
    value = JSON.parse(text);
  } catch {
    throw onError(400, text.trim() === "" ? "Request body is empty; expected a JSON object" : "Request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw onError(400, "Request body must be a JSON object");
  }
  return { kind: "json", params: value as Record<string, unknown>, repeated: [] };
}
