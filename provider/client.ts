import { Agent, request, type Dispatcher } from "undici";
import { z } from "zod";
import { HelpdeskError } from "./errors.js";
import { displayUrl, excerpt, serverText } from "../auth/redact.js";
import type { RequestLimits } from "./limits.js";
import { retryDelay, type AttemptOutcome } from "./retry.js";
import type { TokenSource } from "./tokens.js";
import type { WebhookInputs, WebhookOutputs } from "../sdk/provider-contract.js";

/**
 * The keep-alive connection pool of this provider process. One per process: every Webhook operation reuses its
 * connections, so `pulumi up` of N webhooks opens a handful of TCP connections, not N.
 */
let sharedDispatcher: Dispatcher | undefined;

/** Returns the process-wide undici Agent (created on first use). */
export function dispatcher(): Dispatcher {
  sharedDispatcher ??= new Agent({ keepAliveTimeout: 10_000, connections: 16 });
  return sharedDispatcher;
}

/**
 * The create response of spec §4.3: `{webhook: {event, url, state, ...}}`. The id field is not shown in the spec
 * (§2.1), so `id` and `href` are optional and unknown fields are kept.
 */
const CreateResponse = z.object({
  webhook: z.looseObject({
    id: z.union([z.string(), z.number()]).optional(),
    href: z.string().optional(),
    event: z.string().optional(),
    url: z.string().optional(),
    state: z.string().optional(),
  }),
});

/** Options of {@link HelpdeskClient}. */
export interface HelpdeskClientOptions {
  /** API base URL without trailing slash (spec §1). */
  baseUrl: string;
  /** Where bearer tokens come from (RFC 6750 §2.1), renewed on expiry or 401. */
  tokens: TokenSource;
  /** Retry and timeout bounds. */
  limits: RequestLimits;
}

/** A webhook as registered: the id of spec §4.4's `:id` plus the outputs. */
export interface RegisteredWebhook extends WebhookOutputs {
  /** The service's identifier of the webhook. */
  id: string;
}

/**
 * A small client of the help-desk API's webhook endpoints (spec §4.3, §4.4), over undici with a shared keep-alive
 * pool, bounded retries (see `retry.ts`) and a timeout per attempt. Every failure becomes a {@link HelpdeskError}
 * whose message names the operation, method, path, status and a redacted body excerpt.
 */
export class HelpdeskClient {
  private readonly options: HelpdeskClientOptions;

  /** @param options base URL, token source and limits */
  constructor(options: HelpdeskClientOptions) {
    this.options = options;
  }

  /**
   * Registers a webhook: `POST /v1/webhooks` with JSON `{event, url}` (spec §4.3; JSON body per DESIGN.md).
   *
   * The id is taken from `webhook.id`, else the last path segment of `webhook.href`, else of the `Location` header.
   *
   * @returns the registered webhook (`state` defaults to `"active"` when the service omits it, spec §2.1)
   * @throws HelpdeskError `http` on a non-201/200 status, `network` when no answer came, `protocol` when the answer
   *   has no usable id (the message then says a webhook may exist and how to remove it)
   */
  async createWebhook(inputs: WebhookInputs): Promise<RegisteredWebhook> {
    const path = "/v1/webhooks";
    const { status, headers, body } = await this.send("create webhook", "POST", path, JSON.stringify(inputs));
    if (status !== 201 && status !== 200) throw this.httpError("create webhook", "POST", path, status, body);
    let parsed: z.infer<typeof CreateResponse>;
    try {
      parsed = CreateResponse.parse(JSON.parse(body));
    } catch {
      throw this.orphanError(inputs, status, `its body is not the {"webhook": {...}} object of spec §4.3: ${excerpt(body, this.secrets())}`);
    }
    const { webhook } = parsed;
    const location = typeof headers.location === "string" ? headers.location : undefined;
    const id =
      (webhook.id !== undefined && String(webhook.id) !== "" ? String(webhook.id) : undefined) ??
      lastPathSegment(webhook.href) ??
      lastPathSegment(location);
    if (!id) throw this.orphanError(inputs, status, "it carries no webhook id (no webhook.id, webhook.href or Location header)");
    return {
      id,
      event: (webhook.event ?? inputs.event) as WebhookInputs["event"],
      url: webhook.url ?? inputs.url,
      state: webhook.state ?? "active",
    };
  }

  /**
   * Removes a webhook: `DELETE /v1/webhooks/:id` (spec §4.4).
   *
   * @returns `"deleted"` on 204 (or any 2xx), `"not_found"` on 404 (already gone: removed in the web UI, say)
   * @throws HelpdeskError `http` on any other status, `network` when no answer came
   */
  async deleteWebhook(id: string): Promise<"deleted" | "not_found"> {
    const path = `/v1/webhooks/${encodeURIComponent(id)}`;
    const { status, body } = await this.send("delete webhook", "DELETE", path);
    if (status >= 200 && status < 300) return "deleted";
    if (status === 404) return "not_found";
    throw this.httpError("delete webhook", "DELETE", path, status, body);
  }

  private secrets(): string[] {
    return this.options.tokens.secrets();
  }

  /**
   * Sends one request with retries: see `retry.ts` for which outcomes are retried. A 401 renews the access token
   * once (refresh grant) and resends without counting as a retry.
   */
  private async send(
    operation: string,
    method: "POST" | "DELETE",
    path: string,
    json?: string,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
    const { limits, tokens } = this.options;
    const timeoutMs = limits.requestTimeoutSeconds * 1000;
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      const token = await tokens.current();
      let outcome: AttemptOutcome;
      let answer: { status: number; headers: Record<string, string | string[] | undefined>; body: string } | undefined;
      let failure: unknown;
      try {
        const response = await request(`${this.options.baseUrl}${path}`, {
          method,
          dispatcher: dispatcher(),
          headers: {
            authorization: `Bearer ${token}`,
            accept: "application/json",
            "user-agent": "pulumi-helpdesk",
            ...(json === undefined ? {} : { "content-type": "application/json" }),
          },
          body: json,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        answer = { status: response.statusCode, headers: response.headers, body: await response.body.text() };
        const retryAfter = response.headers["retry-after"];
        outcome = { kind: "response", status: answer.status, retryAfter: typeof retryAfter === "string" ? retryAfter : undefined };
      } catch (error) {
        failure = error;
        outcome = { kind: "error", code: errorCode(error) };
      }
      if (answer?.status === 401 && !renewed) {
        renewed = true;
        if ((await tokens.renew(token)) !== undefined) {
          attempt--; // a renewal is not a retry
          continue;
        }
      }
      const delay = attempt < limits.maxRetries ? retryDelay(method, outcome, attempt) : undefined;
      if (delay === undefined) {
        if (answer) return answer;
        throw this.networkError(operation, method, path, failure, attempt + 1);
      }
      await sleep(delay);
    }
  }

  private networkError(operation: string, method: string, path: string, error: unknown, attempts: number): HelpdeskError {
    const code = errorCode(error);
    const reason = error instanceof Error ? `${code ?? error.name}: ${error.message}` : String(error);
    const mayExist =
      method === "POST" && code !== "ECONNREFUSED"
        ? " The request may have reached the API: a webhook may have been created without Pulumi knowing; check the help desk's webhook page."
        : "";
    return new HelpdeskError(
      "network",
      `${operation} failed: ${method} ${path} got no answer from ${this.options.baseUrl} after ${attempts} attempt(s) ` +
        `(${serverText(reason, this.secrets())}).${mayExist} Check that the API is reachable and helpdesk:baseUrl is right.`,
    );
  }

  private httpError(operation: string, method: string, path: string, status: number, body: string): HelpdeskError {
    return new HelpdeskError(
      "http",
      `${operation} failed: ${method} ${path} answered ${status}: ${excerpt(body, this.secrets()) || "(empty body)"}. ${hintFor(status)}`,
      status,
    );
  }

  private orphanError(inputs: WebhookInputs, status: number, why: string): HelpdeskError {
    return new HelpdeskError(
      "protocol",
      `create webhook: POST /v1/webhooks answered ${status} but ${why}. A webhook for event ${JSON.stringify(inputs.event)} ` +
        `and url ${displayUrl(inputs.url)} may have been created and is not in Pulumi state: ` +
        "find it in the help desk's webhook page and delete it there, then run `pulumi up` again.",
      status,
    );
  }
}

/** What a person should do about an HTTP status from the API. */
function hintFor(status: number): string {
  if (status === 401) return "The access token was rejected or expired: run `pulumi-helpdesk login` (or `pulumi-helpdesk refresh`).";
  if (status === 403) return "The signed-in account may not manage webhooks: sign in with an account that can.";
  if (status === 404) return "The API has no such resource: check helpdesk:baseUrl.";
  if (status === 422 || status === 400) return "The API rejected the webhook's fields: fix event or url in the program.";
  if (status === 429) return "The API is rate-limiting requests: wait and run again, or raise helpdesk:maxRetries.";
  if (status >= 500) return "The help-desk API failed: try again later.";
  return "Unexpected answer from the help-desk API.";
}

/** The error code of an undici or Node network error (`ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`, ...). */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Last non-empty path segment of an absolute or relative URL, or undefined. */
function lastPathSegment(href: string | undefined): string | undefined {
  if (!href) return undefined;
  let pathname: string;
  try {
    pathname = new URL(href, "http://base.invalid").pathname;
  } catch {
    return undefined;
  }
  const segment = pathname.split("/").filter(Boolean).pop();
  return segment ? decodeURIComponent(segment) : undefined;
}
