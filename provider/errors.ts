/**
 * Stable error codes of the provider, for programs and tests that want to branch on a failure kind.
 *
 * - `credentials`: no usable base URL or access token (run `pulumi-helpdesk login`).
 * - `http`: the API answered with a non-success status.
 * - `network`: no answer (connection refused, reset, timeout).
 * - `protocol`: the API answered 2xx with a body this provider cannot use (e.g. no webhook id, spec §2.1).
 */
export type HelpdeskErrorCode = "credentials" | "http" | "network" | "protocol";

/**
 * An error the person running Pulumi can act on. Pulumi shows only `message`, so the message carries everything:
 * the operation, the HTTP method and path, the status, a short body excerpt and what to do. It never contains a token
 * or secret (callers pass text through `redact` first).
 */
export class HelpdeskError extends Error {
  /** A stable code for the failure kind. */
  readonly code: HelpdeskErrorCode;
  /** The HTTP status when the API answered, else undefined. */
  readonly status: number | undefined;

  /**
   * @param code failure kind
   * @param message the full, already-redacted, human-readable message
   * @param status HTTP status when there was a response
   */
  constructor(code: HelpdeskErrorCode, message: string, status?: number) {
    super(message);
    this.name = "HelpdeskError";
    this.code = code;
    this.status = status;
  }
}
