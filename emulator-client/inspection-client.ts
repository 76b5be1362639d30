/**
 * The one typed client of a running emulator's inspection routes (`/_emulator/*`, outside `/v1`, no auth), for the
 * CLI (`pulumi-helpdesk trigger`), the demo, the benchmark and the tests. The routes are the emulator's own (the real
 * help-desk service has none); they are served by inspect.ts, and every response type here is one of types.ts, which the
 * server's modules use too. This module is the client side: nothing the running emulator loads imports it (the
 * server and its clients meet in types.ts only).
 *
 * HTTP over undici, like the rest of the CLI and the emulator, connecting `localhost` to the loopback addresses
 * without a lookup (kernel/loopback.ts). A process that started the emulator itself reads it through
 * `RunningEmulator` instead (no HTTP request to itself).
 */

import { Agent, Client, type Dispatcher, request } from "undici";
import type {
  DeliveryLogEntry,
  EmulatorState,
  FaultOptions,
  LoginLink,
  StatsSnapshot,
  StoredWebhook,
  TriggeredEvent,
} from "../emulator/types.js";
import { baseUrlText, parseBaseUrl } from "../kernel/base-url.js";
import { messageOf, PulumiHelpdeskError } from "../kernel/errors.js";
import type { WebhookEvent } from "../kernel/events.js";
import { localhostLookup } from "../kernel/loopback.js";
import { CLI_EXECUTABLE } from "../kernel/names.js";
import { readAtMost, tooLargeText } from "../kernel/response-limit.js";

/**
 * The most bytes read of one inspection response: 64 MiB. The largest responses list every webhook or delivery-log entry
 * (each well under 3 KiB: a url is at most 2048 characters; the log keeps 1000 entries per account), so a benchmark's
 * few hundred webhooks need a few MiB; the bound only stops a wrong URL that serves something else without end.
 */
const MAX_INSPECTION_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The deadline of one inspection call, in milliseconds: 30 s for connecting, sending and reading the whole response.
 * The emulator responds in milliseconds; the deadline ends a call to a wrong URL that responds one byte at a time.
 * @home how long one inspection call may take (30 s)
 */
export const INSPECTION_DEADLINE_MS = 30_000;

/** The keep-alive pool the calls share (unless `connectionPerCall`): undici's Agent, `localhost` resolved as loopback. */
const sharedDispatcher = new Agent({ connect: { lookup: localhostLookup } });

/**
 * Why an inspection call failed: `unreachable` (no response: not running, wrong URL, or no whole response within
 * {@link INSPECTION_DEADLINE_MS}) or `refused` (a non-2xx response, or one longer than 64 MiB).
 */
export type EmulatorInspectionErrorCode = "unreachable" | "refused";

/**
 * A failed inspection call. The message names the method, the path, the base URL and, for `refused`, the status and
 * the start of the response (the inspection routes carry no credential).
 */
export class EmulatorInspectionError extends PulumiHelpdeskError<EmulatorInspectionErrorCode> {
  /** The HTTP status for `refused`, else undefined. */
  readonly status: number | undefined;

  /**
   * @param code failure kind
   * @param message the whole message
   * @param options `status`: the HTTP status, for `refused`; `cause`: the network error, for `unreachable`
   */
  constructor(code: EmulatorInspectionErrorCode, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(code, message, options);
    this.status = options.status;
  }
}

/** Options of {@link EmulatorInspectionClient}. */
export interface EmulatorInspectionClientOptions {
  /**
   * Open a new TCP connection for every call and close it after the response (default false: a shared keep-alive
   * pool). The benchmark sets it, so the emulator's connection counter sees exactly one connection per call.
   */
  connectionPerCall?: boolean;
  /** The deadline of each call (connect, send, the whole response), in milliseconds; default {@link INSPECTION_DEADLINE_MS}. */
  deadlineMs?: number;
}

/**
 * A client of one emulator's `/_emulator/*` routes.
 *
 * @example
 * const emulator = new EmulatorInspectionClient("http://127.0.0.1:8080");
 * const { deliveries } = await emulator.trigger("ticket_opened");
 */
export class EmulatorInspectionClient {
  /** Base URL, `http://127.0.0.1:PORT`, no trailing slash. */
  readonly baseUrl: string;
  private readonly connectionPerCall: boolean;
  private readonly deadlineMs: number;

  /**
   * @param baseUrl the emulator's base URL (`RunningEmulator.url`, or what `pulumi-helpdesk emulator` printed), as text
   *   or as `kernel/base-url.ts` parsed it; trailing slashes are ignored
   * @param options see {@link EmulatorInspectionClientOptions}
   * @throws TypeError when `baseUrl` is no base URL (the message says why: `kernel/base-url.ts`)
   */
  constructor(baseUrl: string | URL, options: EmulatorInspectionClientOptions = {}) {
    const parsed = typeof baseUrl === "string" ? parseBaseUrl(baseUrl) : { url: baseUrl };
    if ("problem" in parsed) throw new TypeError(parsed.problem);
    this.baseUrl = baseUrlText(parsed.url);
    this.connectionPerCall = options.connectionPerCall ?? false;
    this.deadlineMs = options.deadlineMs ?? INSPECTION_DEADLINE_MS;
  }

  /** Every webhook the emulator holds, or one account's (`GET /_emulator/webhooks`). */
  async webhooks(filter: { account?: string } = {}): Promise<StoredWebhook[]> {
    const query = filter.account === undefined ? "" : `?account=${encodeURIComponent(filter.account)}`;
    return (await this.call<{ webhooks: StoredWebhook[] }>("GET", `/_emulator/webhooks${query}`)).webhooks;
  }

  /** Request and connection counters since start or the last {@link resetStats} (`GET /_emulator/stats`). */
  async stats(): Promise<StatsSnapshot> {
    return this.call<StatsSnapshot>("GET", "/_emulator/stats");
  }

  /** Sets the counters to zero (`POST /_emulator/reset-stats`). */
  async resetStats(): Promise<void> {
    await this.call("POST", "/_emulator/reset-stats");
  }

  /** The live state without secrets (`GET /_emulator/state`), as `RunningEmulator.state()` gives it in-process. */
  async state(): Promise<EmulatorState> {
    return this.call<EmulatorState>("GET", "/_emulator/state");
  }

  /** A one-time sign-in link to the web page, for `account` or the first account (`GET /_emulator/login-link`). */
  async loginLink(account?: string): Promise<LoginLink> {
    const query = account === undefined ? "" : `?account=${encodeURIComponent(account)}`;
    return this.call<LoginLink>("GET", `/_emulator/login-link${query}`);
  }

  /**
   * Delivers `event` to every webhook of `account` (default: the first account) registered for it
   * (`POST /_emulator/events`, docs/helpdesk-api.md §6 deliveries).
   *
   * @throws EmulatorInspectionError `refused` with status 422 for an event name or `data` the emulator refuses
   */
  async trigger(
    event: WebhookEvent,
    options: { account?: string; data?: Record<string, unknown> } = {},
  ): Promise<TriggeredEvent> {
    return this.call<TriggeredEvent>("POST", "/_emulator/events", { event, ...options });
  }

  /** The delivery log, newest last, optionally of one account or webhook (`GET /_emulator/deliveries`). */
  async deliveries(filter: { account?: string; webhookId?: string } = {}): Promise<DeliveryLogEntry[]> {
    const query = new URLSearchParams(
      Object.entries(filter).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ).toString();
    return (
      await this.call<{ deliveries: DeliveryLogEntry[] }>("GET", `/_emulator/deliveries${query ? `?${query}` : ""}`)
    ).deliveries;
  }

  /** The fault settings in force (`GET /_emulator/faults`). */
  async faults(): Promise<Required<FaultOptions>> {
    return this.call<Required<FaultOptions>>("GET", "/_emulator/faults");
  }

  /**
   * Replaces the fault settings; a field left out is off (`PUT /_emulator/faults`).
   * @returns the settings now in force
   * @throws EmulatorInspectionError `refused` with status 422 naming each bad field
   */
  async setFaults(faults: FaultOptions): Promise<Required<FaultOptions>> {
    return this.call<Required<FaultOptions>>("PUT", "/_emulator/faults", faults);
  }

  /**
   * One request, JSON in and out, within the deadline.
   * @throws EmulatorInspectionError `unreachable` when no whole response came within the deadline, `refused` for a
   *   non-2xx response
   */
  private async call<T>(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<T> {
    const dispatcher: Dispatcher = this.connectionPerCall
      ? new Client(this.baseUrl, { connect: { lookup: localhostLookup } })
      : sharedDispatcher;
    const signal = AbortSignal.timeout(this.deadlineMs);
    const unreachable = (error: unknown): EmulatorInspectionError => {
      const why = signal.aborted ? `no whole response within ${this.deadlineMs / 1000} s` : messageOf(error);
      return new EmulatorInspectionError(
        "unreachable",
        `cannot reach the emulator at ${this.baseUrl} (${method} ${path}: ${why}); start it with \`${CLI_EXECUTABLE} emulator\``,
        {
          cause: error,
        },
      );
    };
    try {
      let response: Dispatcher.ResponseData;
      let bytes: Buffer | undefined;
      try {
        response = await request(`${this.baseUrl}${path}`, {
          method,
          dispatcher,
          signal,
          ...(body !== undefined && { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
        });
        const received = response;
        bytes = await readAtMost(
          received.body,
          MAX_INSPECTION_RESPONSE_BYTES,
          headerText(received.headers["content-length"]),
          () => received.body.destroy(),
        );
      } catch (error) {
        throw unreachable(error);
      }
      if (bytes === undefined) {
        throw new EmulatorInspectionError(
          "refused",
          `${method} ${path}: ${tooLargeText(`the emulator at ${this.baseUrl}`, MAX_INSPECTION_RESPONSE_BYTES)}`,
          { status: response.statusCode },
        );
      }
      const text = bytes.toString("utf8");
      if (response.statusCode < 200 || response.statusCode >= 300) {
        throw new EmulatorInspectionError(
          "refused",
          `the emulator at ${this.baseUrl} responded to ${method} ${path} with ${response.statusCode}: ${text.slice(0, 300)}`,
          { status: response.statusCode },
        );
      }
      return (text ? JSON.parse(text) : undefined) as T;
    } finally {
      if (dispatcher !== sharedDispatcher) await dispatcher.close();
    }
  }
}

/** A header's value as one string (undici gives repeated headers as an array). */
function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
