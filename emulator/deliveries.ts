/**
 * Event deliveries (docs/helpdesk-api.md §6): the emulator POSTs the event's record (docs/helpdesk-api.md §2.3–2.6) as JSON to every webhook of the
 * account registered for the event, with `X-Helpdesk-Event: <event>`, `X-Helpdesk-Delivery: <delivery id>` and
 * `User-Agent: helpdesk-emulator`. A network error or a non-2xx response is retried with exponential backoff (docs/helpdesk-api.md §6
 * leaves retries open; defaults: 4 attempts, 0.5 s × 2^(n-1) before retry n). Each attempt has a timeout (default
 * 10 s) and each delivery a total deadline (default 60 s), see {@link DeliveryRetryOptions}. Redirects are not
 * followed.
 */
import { Agent, request } from "undici";
import type { WebhookEvent } from "../kernel/events.js";
import type { FieldError } from "./errors.js";
import { buildRecord } from "./samples.js";
import { randomId } from "./secrets.js";
import type { Store } from "./store/index.js";
import type { DeliveryLogEntry, DeliveryRetryOptions } from "./types.js";

/** Result of {@link DeliveryEngine.trigger}: the queued delivery ids (one per matching webhook), or field errors. */
export type TriggerResult = { ok: true; deliveries: string[] } | { ok: false; errors: FieldError[] };

/** Sends deliveries and records them in the store's delivery log. */
export class DeliveryEngine {
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly timeoutMs: number;
  private readonly deadlineMs: number;
  private readonly agent: Agent;
  private readonly waiting = new Map<NodeJS.Timeout, DeliveryLogEntry>();
  private readonly inflight = new Set<AbortController>();
  private readonly idle = new Set<() => void>();
  private active = 0;
  private seq = 0;
  private closed = false;

  /**
   * @param store where deliveries are logged and webhooks looked up
   * @param baseUrl the emulator's `{base_url}` (for record links)
   * @param retry attempts, backoff base (ms), per-attempt timeout (ms) and total deadline per delivery (ms)
   */
  constructor(
    private readonly store: Pick<Store, "now" | "webhooks" | "deliveries">,
    private readonly baseUrl: () => string,
    retry: DeliveryRetryOptions = {},
  ) {
    this.attempts = Math.max(1, Math.floor(retry.attempts ?? 4));
    this.baseDelayMs = Math.max(0, retry.baseDelayMs ?? 500);
    this.timeoutMs = Math.max(1, retry.timeoutMs ?? 10_000);
    this.deadlineMs = Math.max(1, retry.deadlineMs ?? 60_000);
    this.agent = new Agent({
      connect: { timeout: this.timeoutMs },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
  }

  /**
   * Makes `event` happen for `account`: builds its record (with `data` shallow-merged over the sample) and queues one
   * delivery per webhook of that account registered for the event. Returns at once; attempts run in the background.
   * @returns the delivery ids (possibly none), or field errors when `data` breaks the record's schema
   */
  trigger(event: WebhookEvent, account: string, data?: Record<string, unknown>): TriggerResult {
    const seq = ++this.seq;
    const time = new Date(this.store.now()).toISOString();
    const built = buildRecord(event, { baseUrl: this.baseUrl(), seq, time }, data);
    if (!built.ok) return { ok: false, errors: built.errors };
    const body = JSON.stringify(built.record);
    const entries = this.store.webhooks.list({ account, event }).map(
      (webhook): DeliveryLogEntry => ({
        id: randomId("dlv_"),
        time,
        webhookId: webhook.id,
        event,
        url: webhook.url,
        account,
        status: null,
        attempts: 0,
        ok: false,
        done: false,
      }),
    );
    // Logged (all or none) before any attempt starts, so a delivery that runs is always in the log.
    this.store.deliveries.add(entries);
    for (const entry of entries) {
      this.active++;
      void this.attempt(entry, body, performance.now() + this.deadlineMs);
    }
    const ids = entries.map((entry) => entry.id);
    return { ok: true, deliveries: ids };
  }

  /** Resolves when no delivery is pending (used by tests and `close()`). */
  whenIdle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.add(resolve));
  }

  /**
   * One attempt of a delivery, then its retry or its end. `deadline` is the delivery's total deadline on the
   * `performance.now()` clock (milliseconds).
   */
  private async attempt(entry: DeliveryLogEntry, body: string, deadline: number): Promise<void> {
    if (this.closed) return this.finish(entry, false, "emulator closed before the delivery finished");
    const remaining = deadline - performance.now();
    if (remaining <= 0) return this.finish(entry, false, `${entry.error ?? "not delivered"}; ${this.deadlinePassed()}`);
    entry.attempts++;
    const abort = new AbortController();
    this.inflight.add(abort);
    // The attempt's whole budget: its own timeout, or what is left of the delivery's deadline when that is less.
    const budget = Math.min(this.timeoutMs, remaining);
    let cut: string | undefined;
    const timer = setTimeout(() => {
      cut = budget < this.timeoutMs ? this.deadlinePassed() : `attempt timed out after ${this.timeoutMs} ms`;
      abort.abort();
    }, budget);
    let error: string | undefined;
    try {
      const response = await request(entry.url, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "user-agent": "helpdesk-emulator",
          "x-helpdesk-event": entry.event,
          "x-helpdesk-delivery": entry.id,
        },
        dispatcher: this.agent,
        signal: abort.signal,
      });
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      entry.status = response.statusCode;
      if (response.statusCode >= 200 && response.statusCode < 300) {
        delete entry.error;
        return this.finish(entry, true);
      }
      error = `receiver responded with HTTP ${response.statusCode}`;
    } catch (e) {
      entry.status = null;
      error = cut ?? describeNetworkError(e);
    } finally {
      clearTimeout(timer);
      this.inflight.delete(abort);
    }
    entry.error = error;
    if (entry.attempts >= this.attempts || this.closed) return this.finish(entry, false, error);
    const delay = this.baseDelayMs * 2 ** (entry.attempts - 1);
    if (performance.now() + delay >= deadline) {
      return this.finish(
        entry,
        false,
        `${error}; not retried: the delivery deadline of ${this.deadlineMs} ms would pass first`,
      );
    }
    this.store.deliveries.update(entry);
    const retry = setTimeout(() => {
      this.waiting.delete(retry);
      void this.attempt(entry, body, deadline);
    }, delay);
    this.waiting.set(retry, entry);
  }

  /** The error text of a delivery stopped by its total deadline. */
  private deadlinePassed(): string {
    return `the delivery deadline of ${this.deadlineMs} ms passed`;
  }

  private finish(entry: DeliveryLogEntry, ok: boolean, error?: string): void {
    entry.ok = ok;
    entry.done = true;
    if (error !== undefined) entry.error = error;
    this.store.deliveries.update(entry);
    this.active--;
    if (this.active === 0) {
      for (const resolve of this.idle) resolve();
      this.idle.clear();
    }
  }

  /** Cancels pending retries and in-flight attempts (they are logged as failed) and closes connections. */
  async close(): Promise<void> {
    this.closed = true;
    // Entries waiting for a retry never run again: close them here. In-flight attempts are aborted and close
    // themselves (their catch sees `closed`).
    for (const [timer, entry] of this.waiting) {
      clearTimeout(timer);
      this.finish(entry, false, `${entry.error ?? "failed"}; emulator closed before the next retry`);
    }
    this.waiting.clear();
    for (const abort of this.inflight) abort.abort();
    await Promise.race([this.whenIdle(), new Promise((resolve) => setTimeout(resolve, 1000))]);
    await this.agent.destroy().catch(() => undefined);
  }
}

function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const code = (error as { code?: string }).code ?? (cause as { code?: string } | undefined)?.code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
