/**
 * The one place where the emulator's error answers are shaped. Route handlers throw one of these classes; the app's
 * `onError` turns it into the HTTP response with {@link errorResponse}.
 *
 * Three families, each following a standard:
 * - {@link OAuthError}: RFC 6749 §5.2 token-endpoint errors, JSON `{ error, error_description }`.
 * - {@link BearerError}: RFC 6750 §3 protected-resource errors, `WWW-Authenticate: Bearer ...` plus JSON
 *   `{ error, error_description }`.
 * - {@link ApiError}: the `/v1` and `/_emulator` API errors, JSON `{ error, message, errors? }` with a fitting status.
 * - {@link PageError}: errors shown to a person in the browser (e.g. a bad `redirect_uri` at the authorize endpoint,
 *   which RFC 6749 §4.1.2.1 forbids redirecting), rendered as HTML.
 */

/** Base class: an HTTP status, a stable machine `code`, extra response headers. */
export abstract class EmulatorHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  /** The JSON (or HTML) body of the answer. */
  abstract body(): unknown;
}

/** RFC 6749 §5.2 error codes of the token endpoint. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope";

/**
 * A token-endpoint error (RFC 6749 §5.2): status 400, or 401 with `WWW-Authenticate: Basic realm="helpdesk"` for
 * `invalid_client` (RFC 6749 §5.2 permits 401 and requires the header when the client used HTTP authentication).
 * Body: `{ error, error_description }`.
 */
export class OAuthError extends EmulatorHttpError {
  constructor(code: OAuthErrorCode, description: string) {
    const unauthorized = code === "invalid_client";
    super(
      unauthorized ? 401 : 400,
      code,
      description,
      unauthorized ? { "WWW-Authenticate": 'Basic realm="helpdesk"' } : {},
    );
  }
  body(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}

/**
 * A bearer-token error of a protected resource (RFC 6750 §3, §3.1).
 *
 * - `missing`: no credentials at all → 401, `WWW-Authenticate: Bearer realm="helpdesk"` with no error code (§3.1).
 * - `invalid_request`: a malformed `Authorization` header → 400 with `error="invalid_request"`.
 * - `invalid_token`: unknown, expired or revoked token → 401 with `error="invalid_token"` and `error_description`.
 *
 * Body: `{ error, error_description }` (`error` is `"unauthorized"` for `missing`).
 */
export class BearerError extends EmulatorHttpError {
  constructor(kind: "missing" | "invalid_request" | "invalid_token", description: string) {
    const quoted = description.replace(/["\\]/g, "'");
    const challenge =
      kind === "missing"
        ? 'Bearer realm="helpdesk"'
        : `Bearer realm="helpdesk", error="${kind}", error_description="${quoted}"`;
    super(kind === "invalid_request" ? 400 : 401, kind === "missing" ? "unauthorized" : kind, description, {
      "WWW-Authenticate": challenge,
    });
  }
  body(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}

/** One field error of a 422 answer: `{ field, message, allowed? }` (`allowed` lists the accepted values). */
export interface FieldError {
  field: string;
  message: string;
  allowed?: readonly string[];
}

/**
 * An API error: JSON `{ error, message, errors? }`.
 * Common codes: `invalid_request` (400), `not_found` (404), `method_not_allowed` (405), `payload_too_large` (413),
 * `unsupported_media_type` (415), `validation_failed` (422, with `errors`), `rate_limited` (429),
 * `internal_error` (500), `service_unavailable` (503), `forbidden` (403).
 */
export class ApiError extends EmulatorHttpError {
  constructor(
    status: number,
    code: string,
    message: string,
    readonly errors?: FieldError[],
    headers: Record<string, string> = {},
  ) {
    super(status, code, message, headers);
  }
  body(): { error: string; message: string; errors?: FieldError[] } {
    return this.errors ? { error: this.code, message: this.message, errors: this.errors } : { error: this.code, message: this.message };
  }
}

/** An error page for a person in a browser (HTML). `title` is a short heading, `message` the explanation. */
export class PageError extends EmulatorHttpError {
  constructor(
    status: number,
    readonly title: string,
    message: string,
  ) {
    super(status, "page_error", message);
  }
  body(): { title: string; message: string } {
    return { title: this.title, message: this.message };
  }
}

/** 404 `not_found` for an unknown path or resource. */
export const notFound = (message = "Not found"): ApiError => new ApiError(404, "not_found", message);

/** 405 `method_not_allowed` with the `Allow` header (RFC 9110 §15.5.6). */
export const methodNotAllowed = (allow: string[]): ApiError =>
  new ApiError(405, "method_not_allowed", `Method not allowed; allowed: ${allow.join(", ")}`, undefined, {
    Allow: allow.join(", "),
  });

/** 413 `payload_too_large` (RFC 9110 §15.5.14). */
export const payloadTooLarge = (limitBytes: number): ApiError =>
  new ApiError(413, "payload_too_large", `Request body exceeds ${limitBytes} bytes`);
