/**
 * The checks of `startEmulator`'s options (types.ts `EmulatorOptions`), made before anything starts, and the error
 * they throw.
 */
import { PulumiHelpdeskError } from "../kernel/errors.js";
import type { EmulatorOptions } from "./types.js";

/**
 * An option of `startEmulator` that is not allowed (code `invalid_option`). `option` names it (`port`,
 * `accessTokenTtlSeconds`, `clients`, `faults`, ...); the message says what was given and what is allowed, and starts
 * with `startEmulator: ` (see {@link invalidOption}).
 */
export class EmulatorOptionError extends PulumiHelpdeskError<"invalid_option"> {
  /** The option's name in {@link EmulatorOptions} (for nested ones, the field: `headersMs`, `rate429`, ...). */
  readonly option: string;

  /**
   * @param code `invalid_option`
   * @param message what is wrong and what is allowed
   * @param options `option`: the option's name; `cause`: the error that revealed it
   */
  constructor(code: "invalid_option", message: string, options: { option: string; cause?: unknown }) {
    super(code, message, options);
    this.option = options.option;
  }
}

/**
 * The {@link EmulatorOptionError} for `option`, its message `startEmulator: <problem>`.
 * @param option the option's name
 * @param problem what is wrong with it and what is allowed
 */
export function invalidOption(option: string, problem: string): EmulatorOptionError {
  return new EmulatorOptionError("invalid_option", `startEmulator: ${problem}`, { option });
}

/**
 * Checks every option whose value is not allowed, before the emulator starts.
 *
 * @throws EmulatorOptionError for the first option not allowed (see {@link invalidOption})
 */
export function checkOptions(options: EmulatorOptions): void {
  const {
    port,
    accessTokenTtlSeconds: ttl,
    webhookIdShape: shape,
    bodyLimitBytes,
    deliveryLogLimit,
    synchronous,
  } = options;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw invalidOption("port", `port must be an integer 0..65535, got ${String(port)}`);
  }
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1)) {
    throw invalidOption(
      "accessTokenTtlSeconds",
      `accessTokenTtlSeconds must be a positive integer (seconds), got ${String(ttl)}`,
    );
  }
  if (shape !== undefined && !["id", "href", "location", "none"].includes(shape)) {
    throw invalidOption(
      "webhookIdShape",
      `webhookIdShape must be "id", "href", "location" or "none", got ${String(shape)}`,
    );
  }
  if (bodyLimitBytes !== undefined && (!Number.isInteger(bodyLimitBytes) || bodyLimitBytes < 1)) {
    throw invalidOption("bodyLimitBytes", `bodyLimitBytes must be a positive integer, got ${String(bodyLimitBytes)}`);
  }
  if (deliveryLogLimit !== undefined && (!Number.isInteger(deliveryLogLimit) || deliveryLogLimit < 1)) {
    throw invalidOption(
      "deliveryLogLimit",
      `deliveryLogLimit must be a positive integer, got ${String(deliveryLogLimit)}`,
    );
  }
  if (synchronous !== undefined && synchronous !== "full" && synchronous !== "normal") {
    throw invalidOption("synchronous", `synchronous must be "full" or "normal", got ${String(synchronous)}`);
  }
  for (const [name, value] of Object.entries({ ...options.httpTimeouts, ...options.deliveryRetry })) {
    if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value < 0)) {
      throw invalidOption(name, `${name} must be a number >= 0, got ${String(value)}`);
    }
  }
  for (const client of options.clients ?? []) {
    if (!client.clientId || !client.clientSecret)
      throw invalidOption("clients", "every client needs clientId and clientSecret");
    try {
      new URL(client.redirectUri);
    } catch {
      throw invalidOption("clients", `client ${client.clientId} has a redirectUri that is not an absolute URL`);
    }
  }
  for (const account of options.accounts ?? []) {
    if (!account.username) throw invalidOption("accounts", "every account needs a username");
  }
}
