import { PulumiHelpdeskError } from "../../kernel/errors.js";

/**
 * The stable codes of {@link HelpdeskError}, for programs and tests that branch on a failure kind (exported as
 * constants, as oauth4webapi exports its codes; compare `error.code === HELPDESK_ERROR_CODES.CREDENTIALS`):
 *
 * - `credentials`: no access token, or no base URL, or a token that expired and could not be refreshed (run
 *   `pulumi-helpdesk login`).
 * - `http`: the API responded with a non-success status.
 * - `network`: no response (connection refused, reset, timeout).
 * - `protocol`: the API responded 2xx with a body this provider cannot use (e.g. no webhook id, or one that breaks the
 *   id rule, docs/helpdesk-api.md §2.1), or a response longer than the provider reads (kernel/response-limit.ts).
 * - `operation`: Pulumi asked for something the API cannot do (`pulumi import` of a webhook: there is no read
 *   endpoint; an in-place update: there is no update endpoint), or for an id that breaks the id rule
 *   (kernel/webhook-rules.ts: an import's id, a recorded id to delete).
 *
 * A setting whose value is not allowed is no `HelpdeskError`: it is a `SettingError` (`kernel/settings.ts`, code
 * `config`), which names the key and the allowed values.
 */
export const HELPDESK_ERROR_CODES = Object.freeze({
  CREDENTIALS: "credentials",
  HTTP: "http",
  NETWORK: "network",
  PROTOCOL: "protocol",
  OPERATION: "operation",
} as const);

/** A code of {@link HELPDESK_ERROR_CODES}. */
export type HelpdeskErrorCode = (typeof HELPDESK_ERROR_CODES)[keyof typeof HELPDESK_ERROR_CODES];

/**
 * An error the person running Pulumi can act on. Pulumi shows only `message`, so the message carries everything:
 * the operation, the HTTP method and path, the status, a short body excerpt and what to do. It never contains a token
 * or secret (callers pass text through `redact` first).
 */
export class HelpdeskError extends PulumiHelpdeskError<HelpdeskErrorCode> {
  /** The HTTP status when the API responded, else undefined. */
  readonly status: number | undefined;

  /**
   * @param code failure kind
   * @param message the full, already-redacted, human-readable message
   * @param options `status`: the HTTP status when there was a response; `cause`: the error this one wraps
   */
  constructor(code: HelpdeskErrorCode, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(code, message, options);
    this.status = options.status;
  }
}
