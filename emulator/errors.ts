/**
 * The one place where the emulator's error responses are shaped. Route handlers throw one of these classes; the app's
 * `onError` turns it into the HTTP response with {@link errorResponse}.
 *
 * Three families, each following a standard:
 * - {@link OAuthErrorResponse}: RFC 6749 §5.2 token-endpoint errors, JSON `{ error, error_description }`.
 * - {@link BearerError}: RFC 6750 §3 protected-resource errors, `WWW-Authenticate: Bearer ...` plus JSON
 *   `{ error, error_description }`.
 * - {@link ApiError}: the `/v1` and `/_emulator` API errors, JSON `{ error, message, errors? }` with a fitting status.
 * - {@link PageError}: errors shown to a person in the browser (e.g. a bad `redirect_uri` at the authorize endpoint,
 *   which RFC 6749 §4.1.2.1 forbids redirecting), rendered as HTML.
 */
import { STATUS_CODES } from "node:http";
import { PulumiHelpdeskError } from "../kernel/errors.js";

/** What an {@link EmulatorHttpError} carries beside its code and message. */
export interface EmulatorHttpErrorOptions {
  /** The HTTP status of the response; each subclass has a default for its codes (the base class: 500). */
  status?: number;
  /** Extra response headers, e.g. `Allow`, `Retry-After`, `Connection`. */
  headers?: Record<string, string>;
  /** The error this one wraps. */
  cause?: unknown;
}

/**
 * Base class of the emulator's error responses: a stable machine `code` (the `error` field of the response), a message,
 * an HTTP status and extra response headers. Part of the package's error family (`kernel/errors.ts`), with its
 * constructor shape `(code, message, options)`.
 */
export abstract class EmulatorHttpError<Code extends string = string> extends PulumiHelpdeskError<Code> {
  /** The HTTP status of the response. */
  readonly status: number;
  /** Extra response headers. */
  readonly headers: Record<string, string>;

  /**
   * @param code the response's `error` code
   * @param message the response's description
   * @param options `status` (default 500), `headers`, `cause`
   */
  constructor(code: Code, message: string, options: EmulatorHttpErrorOptions = {}) {
    super(code, message, options);
    this.status = options.status ?? 500;
    this.headers = options.headers ?? {};
  }
  /** The JSON (or HTML) body of the response. */
  abstract body(): unknown;
}

/**
 * Error codes of the token endpoint: RFC 6749 §5.2's six, plus `server_error` and `temporarily_unavailable` (RFC 6749
 * §4.1.2.1, registered in the OAuth Extensions Error Registry, §11.4) for responses that are not about the request:
 * injected 500s, and 429/503.
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "server_error"
  | "temporarily_unavailable";

/**
 * A token-endpoint error (RFC 6749 §5.2): status 400, or 401 with `WWW-Authenticate: Basic realm="helpdesk"` for
 * `invalid_client` (RFC 6749 §5.2 permits 401 and requires the header when the client used HTTP authentication).
 * Body: `{ error, error_description }`. `options.status` overrides the status and `options.headers` adds headers, for
 * failures that keep their own HTTP status (405, 413, 415, 429, 500, 503; see {@link asTokenEndpointError}).
 */
export class OAuthErrorResponse extends EmulatorHttpError<OAuthErrorCode> {
  /**
   * @param code the RFC 6749 §5.2 `error`
   * @param message the `error_description`
   * @param options `status` (default 401 for `invalid_client`, else 400), `headers`, `cause`
   */
  constructor(code: OAuthErrorCode, message: string, options: EmulatorHttpErrorOptions = {}) {
    const unauthorized = code === "invalid_client";
    super(code, message, {
      ...options,
      status: options.status ?? (unauthorized ? 401 : 400),
      headers: { ...(unauthorized && { "WWW-Authenticate": 'Basic realm="helpdesk"' }), ...options.headers },
    });
  }
  body(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}

/**
 * Any error returned by the token endpoint, in RFC 6749 §5.2's shape `{ error, error_description }`, keeping its
 * status, message and headers (`Allow`, `Retry-After`, `Connection`): 429 and 503 → `temporarily_unavailable`, other
 * 5xx → `server_error`, any other status → `invalid_request`. An {@link OAuthErrorResponse} is returned as it is.
 *
 * @param error an error thrown while serving `POST /oauth/token` (405, 413, 415, injected faults, ...)
 * @returns the error to render
 */
export function asTokenEndpointError(error: EmulatorHttpError): OAuthErrorResponse {
  if (error instanceof OAuthErrorResponse) return error;
  const { status } = error;
  const code: OAuthErrorCode =
    status === 429 || status === 503 ? "temporarily_unavailable" : status >= 500 ? "server_error" : "invalid_request";
  return new OAuthErrorResponse(code, error.message, { status, headers: error.headers, cause: error });
}

/**
 * Codes of a {@link BearerError} (RFC 6750 §3.1): `unauthorized` for a request without credentials (the response then
 * carries no error code in its challenge), `invalid_request` for a malformed `Authorization` header, `invalid_token`
 * for an unknown, expired or revoked token.
 */
export type BearerErrorCode = "unauthorized" | "invalid_request" | "invalid_token";

/**
 * A bearer-token error of a protected resource (RFC 6750 §3, §3.1).
 *
 * - `unauthorized`: no credentials at all → 401, `WWW-Authenticate: Bearer realm="helpdesk"` with no error code (§3.1).
 * - `invalid_request`: a malformed `Authorization` header → 400 with `error="invalid_request"`.
 * - `invalid_token`: unknown, expired or revoked token → 401 with `error="invalid_token"` and `error_description`.
 *
 * Body: `{ error, error_description }`.
 */
export class BearerError extends EmulatorHttpError<BearerErrorCode> {
  /**
   * @param code see {@link BearerErrorCode}
   * @param message the `error_description` (quotes and backslashes become `'` in the challenge)
   * @param options `cause`
   */
  constructor(code: BearerErrorCode, message: string, options: { cause?: unknown } = {}) {
    const quoted = message.replace(/["\\]/g, "'");
    const challenge =
      code === "unauthorized"
        ? 'Bearer realm="helpdesk"'
        : `Bearer realm="helpdesk", error="${code}", error_description="${quoted}"`;
    super(code, message, {
      ...options,
      status: code === "invalid_request" ? 400 : 401,
      headers: { "WWW-Authenticate": challenge },
    });
  }
  body(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.message };
  }
}

/** One field error of a 422 response: `{ field, message, allowed? }` (`allowed` lists the accepted values). */
export interface FieldError {
  field: string;
  message: string;
  allowed?: readonly string[];
}

/** The status each {@link ApiError} code is sent with, unless `options.status` says otherwise. */
const API_ERROR_STATUS = {
  invalid_request: 400,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

/** The codes of an {@link ApiError}, each with its status (see {@link API_ERROR_STATUS}). */
export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

/**
 * An API error of `/v1` and `/_emulator` (and of any route for failures before one is chosen): JSON
 * `{ error, message, errors? }`. Statuses: `invalid_request` 400, `forbidden` 403, `not_found` 404,
 * `method_not_allowed` 405, `payload_too_large` 413, `unsupported_media_type` 415, `validation_failed` 422 (with
 * `errors`), `rate_limited` 429, `internal_error` 500, `service_unavailable` 503.
 */
export class ApiError extends EmulatorHttpError<ApiErrorCode> {
  /** The field errors of a 422 response. */
  readonly errors: FieldError[] | undefined;

  /**
   * @param code see {@link ApiErrorCode}
   * @param message the response's `message`
   * @param options `errors` (field errors), `status` (default: the code's), `headers`, `cause`
   */
  constructor(code: ApiErrorCode, message: string, options: EmulatorHttpErrorOptions & { errors?: FieldError[] } = {}) {
    super(code, message, { ...options, status: options.status ?? API_ERROR_STATUS[code] });
    this.errors = options.errors;
  }
  body(): { error: string; message: string; errors?: FieldError[] } {
    return this.errors
      ? { error: this.code, message: this.message, errors: this.errors }
      : { error: this.code, message: this.message };
  }
}

/** The codes of a {@link PageError} and their statuses: 400, 401 (signed out), 403 (a refused form). */
const PAGE_ERROR_STATUS = { invalid_request: 400, unauthorized: 401, forbidden: 403 } as const;

/** The codes of a {@link PageError}. */
export type PageErrorCode = keyof typeof PAGE_ERROR_STATUS;

/**
 * An error page for a person in a browser (HTML, rendered by pages/layout.ts `errorPage`): a short heading (`title`)
 * and the explanation (`message`). Status by code: `invalid_request` 400, `unauthorized` 401, `forbidden` 403.
 */
export class PageError extends EmulatorHttpError<PageErrorCode> {
  /** The page's heading. */
  readonly title: string;

  /**
   * @param code see {@link PageErrorCode}
   * @param message the explanation shown
   * @param options `title`: the heading (default "Request refused"); `cause`
   */
  constructor(code: PageErrorCode, message: string, options: { title?: string; cause?: unknown } = {}) {
    super(code, message, { ...options, status: PAGE_ERROR_STATUS[code] });
    this.title = options.title ?? "Request refused";
  }
  body(): { title: string; message: string } {
    return { title: this.title, message: this.message };
  }
}

/** 404 `not_found` for an unknown path or resource. */
export const notFound = (message = "Not found"): ApiError => new ApiError("not_found", message);

/** 405 `method_not_allowed` with the `Allow` header (RFC 9110 §15.5.6). */
export const methodNotAllowed = (allow: string[]): ApiError =>
  new ApiError("method_not_allowed", `Method not allowed; allowed: ${allow.join(", ")}`, {
    headers: { Allow: allow.join(", ") },
  });

/**
 * 413 `payload_too_large` (RFC 9110 §15.5.14) with `Connection: close`: the rest of the body is not read, so the
 * connection cannot carry another request (RFC 9112 §9.6).
 * @param limitBytes the limit, named in the message
 */
export const payloadTooLarge = (limitBytes: number): ApiError =>
  new ApiError("payload_too_large", `Request body exceeds ${limitBytes} bytes`, { headers: { Connection: "close" } });

/**
 * The header every response of the emulator carries, so browsers never guess a content type (Fetch §3.5): the server
 * sets it on every response before the app runs (server.ts), and {@link transportError} on the responses written where
 * there is no such response.
 */
export const NO_SNIFF = { name: "X-Content-Type-Options", value: "nosniff" } as const;

/**
 * A response to a request that never reached the app (refused by Node's HTTP parser or by the HTTP adapter): JSON
 * `{ error, error_description, message }`, both the API's error shape and RFC 6749 §5.2's (the route of such a request
 * is not known), with `Cache-Control: no-store`, `X-Content-Type-Options: nosniff` and `Connection: close`.
 * @param status the HTTP status, e.g. 400, 408, 417, 431
 * @param error the stable error code, e.g. `invalid_request`
 * @param message a sentence for people
 * @param extraHeaders further headers, e.g. `Allow`
 */
export function transportError(
  status: number,
  error: string,
  message: string,
  extraHeaders: Record<string, string> = {},
): { status: number; headers: Record<string, string>; body: string } {
  const body = JSON.stringify({ error, error_description: message, message });
  return {
    status,
    headers: {
      "Content-Type": "application/json",
      "Content-Length": String(Buffer.byteLength(body)),
      "Cache-Control": "no-store",
      [NO_SNIFF.name]: NO_SNIFF.value,
      Connection: "close",
      ...extraHeaders,
    },
    body,
  };
}

/** A {@link transportError} as the bytes of an HTTP/1.1 response message, to write on a raw socket. */
export function rawResponse({ status, headers, body }: ReturnType<typeof transportError>): string {
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n${head}\r\n${body}`;
}

/**
 * The raw response to a request Node's HTTP parser refused, or that timed out, before the app saw it (Node's
 * `clientError`): 408 `request_timeout` (RFC 9110 §15.5.9), 431 `headers_too_large` (RFC 6585 §5), else 400
 * `invalid_request`; see {@link transportError}.
 * @param code Node's error code, e.g. `ERR_HTTP_REQUEST_TIMEOUT`, `HPE_HEADER_OVERFLOW`, `HPE_INVALID_METHOD`
 * @returns the whole HTTP/1.1 response message
 */
export function clientErrorResponse(code: string | undefined): string {
  return rawResponse(
    code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? transportError(408, "request_timeout", "The request was not received in time")
      : code === "HPE_HEADER_OVERFLOW"
        ? transportError(431, "headers_too_large", "The request's header section is too large")
        : transportError(400, "invalid_request", "Malformed HTTP request"),
  );
}

/**
 * The response to a request the HTTP adapter could not turn into a `Request` (no `Host` in HTTP/1.1, RFC 9112 §3.2; a
 * malformed target): 400 `invalid_request`; see {@link transportError}.
 */
export function malformedRequestResponse(): Response {
  const { status, headers, body } = transportError(
    400,
    "invalid_request",
    "Malformed HTTP request (a Host header and a valid target are required)",
  );
  return new Response(body, { status, headers });
}
