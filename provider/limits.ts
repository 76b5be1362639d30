import { CONFIG_KEYS } from "../sdk/config.js";
import type { ConfigReader } from "./credentials.js";
import { HelpdeskError } from "./errors.js";

/** Bounds of the provider's HTTP behaviour, from stack config. */
export interface RequestLimits {
  /** Retries after the first attempt (0..50); default 10. */
  maxRetries: number;
  /** Timeout of one attempt in seconds (1..600); default 30. */
  requestTimeoutSeconds: number;
}

/** Defaults of {@link RequestLimits}: enough retries to ride out a rate-limited minute, a timeout well above latency. */
export const DEFAULT_LIMITS: RequestLimits = { maxRetries: 10, requestTimeoutSeconds: 30 };

/**
 * Reads `helpdesk:maxRetries` and `helpdesk:requestTimeout` (seconds).
 *
 * @throws HelpdeskError code `config` when a value is not a whole number in range (the message gives the range)
 */
export function resolveLimits(config: ConfigReader | undefined): RequestLimits {
  return {
    maxRetries: readInt(config, CONFIG_KEYS.maxRetries, 0, 50, DEFAULT_LIMITS.maxRetries),
    requestTimeoutSeconds: readInt(config, CONFIG_KEYS.requestTimeout, 1, 600, DEFAULT_LIMITS.requestTimeoutSeconds),
  };
}

function readInt(config: ConfigReader | undefined, key: string, min: number, max: number, fallback: number): number {
  const raw = config?.get(key);
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new HelpdeskError("config", `config ${key} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}
