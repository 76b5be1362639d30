/**
 * The emulator's error classes share the shape of the package's error family (kernel/errors.ts): `(code, message,
 * options?)`, the wrapped error kept as `cause`, extra fields from `options`, the class's own name; the responses'
 * statuses, headers and bodies follow from the code (errors.ts).
 */
import { describe, expect, it } from "vitest";
import { JsonLimitError } from "../../emulator/body.js";
import { ApiError, asTokenEndpointError, BearerError, OAuthErrorResponse, PageError } from "../../emulator/errors.js";
import { DataFileError, EmulatorOptionError, StoreError } from "../../emulator/index.js";
import { SchemaError } from "../../emulator/store/schema.js";
import { EmulatorInspectionError } from "../../emulator-client/index.js";
import { PulumiHelpdeskError } from "../../kernel/errors.js";

describe("the emulator's error classes", () => {
  const cause = new Error("underneath");

  it("every one is (code, message, options) with options.cause, named after its class", () => {
    const members: Array<[Error & { code: string }, string, string]> = [
      [new OAuthErrorResponse("invalid_grant", "m", { cause }), "OAuthErrorResponse", "invalid_grant"],
      [new BearerError("invalid_token", "m", { cause }), "BearerError", "invalid_token"],
      [new ApiError("not_found", "m", { cause }), "ApiError", "not_found"],
      [new PageError("forbidden", "m", { cause }), "PageError", "forbidden"],
      [new StoreError("busy", "m", { cause }), "StoreError", "busy"],
      [
        new DataFileError("data_file_refused", "m", { file: "/f", reason: "r", cause }),
        "DataFileError",
        "data_file_refused",
      ],
      [
        new EmulatorOptionError("invalid_option", "m", { option: "port", cause }),
        "EmulatorOptionError",
        "invalid_option",
      ],
      [new EmulatorInspectionError("refused", "m", { status: 500, cause }), "EmulatorInspectionError", "refused"],
      [new SchemaError("newer_schema", "m", { cause }), "SchemaError", "newer_schema"],
      [new JsonLimitError("json_too_deep", "m", { cause }), "JsonLimitError", "json_too_deep"],
    ];
    for (const [error, name, code] of members) {
      expect([error.name, error.code, error.message, error.cause], name).toEqual([name, code, "m", cause]);
      expect(error instanceof PulumiHelpdeskError || error instanceof RangeError, name).toBe(true);
    }
    expect(members[5]?.[0]).toMatchObject({ file: "/f", reason: "r" });
    expect(members[6]?.[0]).toMatchObject({ option: "port" });
    expect(members[7]?.[0]).toMatchObject({ status: 500 });
  });

  it("statuses, headers and bodies follow from the code", () => {
    expect(
      new ApiError("validation_failed", "bad", { errors: [{ field: "url", message: "url is bad" }] }),
    ).toMatchObject({ status: 422, headers: {} });
    expect(new ApiError("invalid_request", "too", { status: 408 }).status).toBe(408);
    expect(new ApiError("not_found", "gone").body()).toEqual({ error: "not_found", message: "gone" });
    expect(new OAuthErrorResponse("invalid_client", "who")).toMatchObject({
      status: 401,
      headers: { "WWW-Authenticate": 'Basic realm="helpdesk"' },
    });
    expect(new OAuthErrorResponse("invalid_grant", "no").body()).toEqual({
      error: "invalid_grant",
      error_description: "no",
    });
    expect(new BearerError("unauthorized", "none")).toMatchObject({
      status: 401,
      headers: { "WWW-Authenticate": 'Bearer realm="helpdesk"' },
    });
    expect(new BearerError("invalid_request", 'a "b"')).toMatchObject({
      status: 400,
      headers: { "WWW-Authenticate": `Bearer realm="helpdesk", error="invalid_request", error_description="a 'b'"` },
    });
    expect(new PageError("unauthorized", "Sign in again.", { title: "Signed out" })).toMatchObject({
      status: 401,
      title: "Signed out",
    });
    const limited = asTokenEndpointError(new ApiError("rate_limited", "later", { headers: { "Retry-After": "1" } }));
    expect(limited).toMatchObject({ code: "temporarily_unavailable", status: 429, headers: { "Retry-After": "1" } });
  });
});
