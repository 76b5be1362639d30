/**
 * The root of pulumi-helpdesk's error family (exported from `pulumi-helpdesk`): every error the package throws for a caller to handle is one of its
 * subclasses, one class per meaning, each with a stable string `code` to branch on (after oauth4webapi's errors):
 *
 * | class | module | codes |
 * |---|---|---|
 * | `HelpdeskError` | `pulumi-helpdesk/provider` | `credentials`, `http`, `network`, `protocol`, `operation` (`HELPDESK_ERROR_CODES`) |
 * | `OAuthError` | auth (CLI, provider) | RFC 6749 §4.1.2.1 and §5.2, RFC 6750 §3.1 `error` values, `state_mismatch`, `bad_response`, `network`, `unknown_error` (`OAUTH_ERROR_CODES`) |
 * | `HttpExchangeError` | the provider's HTTP client (internal) | Node.js's network error codes, `TIMEOUT`, `TOO_LARGE`, `NETWORK` (`HTTP_EXCHANGE_ERROR_CODES`) |
 * | `SettingError` | every settings reader | `config` |
 * | `TokenCacheError` | auth | `cache_damaged`, `cache_inaccessible`, `lock_timeout`, `refresh_interrupted`, `refresh_in_progress` |
 * | `UnsupportedNodeError` | every entry point | `unsupported_node` |
 * | `DeliveryParseError` | `pulumi-helpdesk/records` | `invalid_delivery` |
 * | `EmulatorHttpError` subclasses (`OAuthErrorResponse`, `BearerError`, `ApiError`, `PageError`) | the emulator's responses | the response's `error` |
 * | `EmulatorOptionError`, `StoreError`, `DataFileError`, `EmulatorInspectionError` | `pulumi-helpdesk/emulator` | `invalid_option`; `busy`, `commit`; `data_file_refused`; `unreachable`, `refused` |
 * | `CliError` | the CLI | `usage`, `failed` |
 * | `ConfigNamespaceError` | `pulumi-helpdesk` (`configKeysFor`) | `invalid_namespace` |
 *
 * A wrapping error keeps what it wraps as `cause` (ES2022 error cause). Messages are written for people and never
 * hold a credential.
 * @home the error family and its constructor shape `(code, message, options)`; the message of anything thrown
 */
export class PulumiHelpdeskError<Code extends string = string> extends Error {
  /** A stable code for the failure kind; see the table above. */
  readonly code: Code;

  /**
   * @param code the failure kind
   * @param message what went wrong and what to do, free of credentials
   * @param options `cause`: the error this one wraps
   */
  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * The message of anything thrown, for a log line or a message that quotes it: an `Error`'s `message`, else the value
 * as a string (JavaScript can throw any value).
 *
 * @param error what a `catch` caught
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
