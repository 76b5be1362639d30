/**
 * The checks of `startEmulator`'s options (types.ts `EmulatorOptions`), made before anything starts, and the error
 * they throw.
 */
import { PulumiHelpdeskError } from "../sdk/errors.js";
import type { EmulatorOptions } from "./types.js";

/**
 * An option of `startEmulator` that is not allowed (code `invalid_option`). `option` names it (`port`,
 * `accessTokenTtlSeconds`, `clients`, `faults`, ...); the message says what was given and what is allowed, and starts
 * with `startEmulator: `.
 */
export class EmulatorOptionError extends PulumiHelpdeskError<"invalid_option"> {
  /** The option's name in {@link EmulatorOptions} (for nested ones, the field: `headersMs`, `rate429`, ...). */
  readonly option: string;

  /**
   * @param option the option's name
   * @param problem what is wrong with it and what is allowed
   * @param options `cause`: the error that revealed it
   */
  constructor(option: string, problem: string, options?: { cause?: unknown }) {
    super("invalid_option", `startEmulator: ${problem}`, options);
    this.option = option;
  }
}

/**
 * Checks every option whose value is not allowed, before the emulator starts.
 *
 * @throws EmulatorOptionError for the first option not allowed
 */
export function checkOptions(options: EmulatorOptions): void {
  const { port, accessTokenTtlSeconds: ttl, webhookIdShape: shape, bodyLimitBytes, deliveryLogLimit, synchronous } = options;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new EmulatorOptionError("port", `port must be an integer 0..65535, got ${String(port)}`);
  }
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1)) {
    throw new EmulatorOptionError("accessTokenTtlSeconds", `accessTokenTtlSeconds must be a positive integer (seconds), got ${String(ttl)}`);
  }
  if (shape !== undefined && !["id", "href", "location", "none"].includes(shape)) {
    throw new EmulatorOptionError("webhookIdShape", `webhookIdShape must be "id", "href", "location" or "none", got ${String(shape)}`);
  }
  if (bodyLimitBytes !== undefined && (!Number.isInteger(bodyLimitBytes) || bodyLimitBytes < 1)) {
    throw new EmulatorOptionError("bodyLimitBytes", `bodyLimitBytes must be a positive integer, got ${String(bodyLimitBytes)}`);
  }
  if (deliveryLogLimit !== undefined && (!Number.isInteger(deliveryLogLimit) || deliveryLogLimit < 1)) {
    throw new EmulatorOptionError("deliveryLogLimit", `deliveryLogLimit must be a positive integer, got ${String(deliveryLogLimit)}`);
  }
  if (synchronous !== undefined && synchronous !== "full" && synchronous !== "normal") {
    throw new EmulatorOptionError("synchronous", `synchronous must be "full" or "normal", got ${String(synchronous)}`);
  }
  for (const [name, value] of Object.entries({ ...options.httpTimeouts, ...options.deliveryRetry })) {
    if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value < 0)) {
      throw new EmulatorOptionError(name, `${name} must be a number >= 0, got ${String(value)}`);
    }
  }
  for (const client of options.clients ?? []) {
    if (!client.clientId || !client.clientSecret) throw new EmulatorOptionError("clients", "every client needs clientId and clientSecret");
    try {
      new URL(client.redirectUri);
    } catch {
      throw new EmulatorOptionError("clients", `client ${client.clientId} has a redirectUri that is not an absolute URL`);
    }
  }
  for (const account of options.accounts ?? []) {
    if (!account.username) throw new EmulatorOptionError("accounts", "every account needs a username");
  }
}
