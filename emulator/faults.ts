/**
 * Fault injection for `/v1/*` and `/oauth/token`: added latency, 429, 500, 503 and dropped connections. Each fault is
 * decided before the request is processed (nothing happens for a faulted request), so clients can retry any method.
 */

import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import type { AppEnv } from "./app-env.js";
import { ApiError } from "./errors.js";
import { invalidOption } from "./options.js";
import type { FaultOptions } from "./types.js";

/** Schema of a fault configuration (`PUT /_emulator/faults` body and `startEmulator({ faults })`). */
export const FaultOptionsSchema = z.strictObject({
  latencyMs: z.number().int().min(0).max(60_000).optional(),
  rate429: z.number().min(0).max(1).optional(),
  retryAfterSeconds: z.number().int().min(0).max(86_400).optional(),
  rate500: z.number().min(0).max(1).optional(),
  rate503: z.number().min(0).max(1).optional(),
  dropRate: z.number().min(0).max(1).optional(),
});

/** The fault a request gets: `undefined` for none. */
export type FaultDecision = "drop" | "429" | "500" | "503" | undefined;

/** Holds the current fault configuration and draws decisions from the injected random source. */
export class FaultController {
  private config: Required<FaultOptions>;

  /**
   * @param initial starting configuration (validated)
   * @param random random source in [0, 1)
   * @throws Error when `initial` is out of range (e.g. a rate above 1)
   */
  constructor(
    initial: FaultOptions | undefined,
    private readonly random: () => number,
  ) {
    this.config = FaultController.complete(FaultController.validate(initial ?? {}));
  }

  /**
   * Validates a configuration.
   * @throws EmulatorOptionError (`option` `faults`) naming the bad field and what is allowed
   */
  static validate(value: unknown): FaultOptions {
    const result = FaultOptionsSchema.safeParse(value);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw invalidOption(
        "faults",
        `invalid fault options: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
      );
    }
    return result.data;
  }

  private static complete(options: FaultOptions): Required<FaultOptions> {
    return {
      latencyMs: options.latencyMs ?? 0,
      rate429: options.rate429 ?? 0,
      retryAfterSeconds: options.retryAfterSeconds ?? 1,
      rate500: options.rate500 ?? 0,
      rate503: options.rate503 ?? 0,
      dropRate: options.dropRate ?? 0,
    };
  }

  /** The current configuration with every default filled in. */
  get(): Required<FaultOptions> {
    return { ...this.config };
  }

  /** Replaces the whole configuration (absent fields return to their defaults: no faults). */
  set(options: FaultOptions): Required<FaultOptions> {
    this.config = FaultController.complete(options);
    return this.get();
  }

  /** Draws the fault for one request: one random number against the cumulative shares drop, 429, 500, 503. */
  decide(): FaultDecision {
    const { dropRate, rate429, rate500, rate503 } = this.config;
    if (dropRate + rate429 + rate500 + rate503 === 0) return undefined;
    const r = this.random();
    let edge = 0;
    for (const [fault, rate] of [
      ["drop", dropRate],
      ["429", rate429],
      ["500", rate500],
      ["503", rate503],
    ] as const) {
      edge += rate;
      if (r < edge) return fault;
    }
    return undefined;
  }
}

/**
 * Hono middleware applying the controller's faults: waits `latencyMs`, then either destroys the socket (drop),
 * throws a 429/500/503 {@link ApiError} (with `Retry-After` in seconds on 429 and 503, RFC 9110 §10.2.3), or passes.
 */
export function faultMiddleware(faults: FaultController): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const config = faults.get();
    if (config.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, config.latencyMs));
    const decision = faults.decide();
    const retryAfter = { "Retry-After": String(config.retryAfterSeconds) };
    switch (decision) {
      case "drop":
        c.env.incoming.socket.destroy();
        return new Response(null, { status: 499 }); // never sent: the socket is gone
      case "429":
        throw new ApiError("rate_limited", "Too many requests (injected fault); retry later", { headers: retryAfter });
      case "500":
        throw new ApiError("internal_error", "Internal error (injected fault)");
      case "503":
        throw new ApiError("service_unavailable", "Service unavailable (injected fault); retry later", {
          headers: retryAfter,
        });
      default:
        await next();
    }
  };
}
