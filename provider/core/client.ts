import type { Grant } from "../../auth/grant.js";
import { OAUTH_ERROR_CODES, OAuthError } from "../../auth/oauth.js";
import { displayUrl, excerpt, serverText } from "../../auth/redact.js";
import { TokenCacheError } from "../../auth/token-cache.js";
import { baseUrlText, endpointUrl } from "../../kernel/base-url.js";
import { type SignInPlace, signInAgain, stackCommand } from "../../kernel/commands.js";
import { PACKAGE_NAME } from "../../kernel/package-version.js";
import type { RequestLimits } from "../../kernel/settings.js";
import { webhookIdPath, webhookIdProblem } from "../../kernel/webhook-rules.js";
import { HELPDESK_ERROR_CODES, HelpdeskError } from "./errors.js";
import { exchange, HTTP_EXCHANGE_ERROR_CODES, HttpExchangeError, type HttpResponse } from "./http.js";
import { type AttemptOutcome, mayHaveCreated, retryDelay } from "./retry.js";
import type { SettingsPlace } from "./target.js";
import type { RegisteredWebhook, WebhookRegistration } from "./webhook-types.js";

/**
 * The webhook of a create response (docs/helpdesk-api.md §4.3: `{webhook: {event, url, state, ...}}`). The id field is not shown in
 * the spec (docs/helpdesk-api.md §2.1), so `id` and `href` are optional; unknown fields are ignored.
 */
interface CreatedWebhook {
  id?: string | number;
  href?: string;
  event?: string;
  url?: string;
  state?: string;
}

/**
 * Reads the webhook out of a create response body, or undefined when the body is not that shape. Checked by hand, not
 * with a zod schema like the rest of the project: this runs inside Pulumi's provider process, where loading zod costs
 * about 13 MiB of peak memory (see auth/token-cache.ts for the measurement), for five optional fields.
 */
function createdWebhook(body: string): CreatedWebhook | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const webhook = (json as { webhook?: unknown } | null)?.webhook;
  if (typeof webhook !== "object" || webhook === null || Array.isArray(webhook)) return undefined;
  const fields = webhook as Record<string, unknown>;
  const optional = (name: string, ...types: string[]): boolean =>
    fields[name] === undefined || types.includes(typeof fields[name]);
  const fits =
    optional("id", "string", "number") && ["href", "event", "url", "state"].every((name) => optional(name, "string"));
  return fits ? (fields as CreatedWebhook) : undefined;
}

/** Options of {@link HelpdeskClient}. */
export interface HelpdeskClientOptions {
  /** API base URL (docs/helpdesk-api.md §1), as `kernel/base-url.ts` parsed it. */
  baseUrl: URL;
  /** How a person sets a setting (e.g. `config helpdesk:baseUrl`): hints name the base URL and the retries. */
  describe: SettingsPlace["describe"];
  /** The OAuth grant whose bearer tokens are presented (RFC 6750 §2.1), refreshed on expiry or 401 (`auth/grant.ts`). */
  grant: Pick<Grant, "accessToken" | "rejected" | "secrets" | "stack" | "namespace">;
  /** Retry and timeout bounds. */
  limits: RequestLimits;
}

/**
 * A small client of the help-desk API's webhook endpoints (docs/helpdesk-api.md §4.3, §4.4), over `node:http` (see http.ts for why)
 * with a keep-alive pool, bounded retries (see `retry.ts`) and a timeout per attempt. Every failure becomes a {@link HelpdeskError}
 * whose message names the operation, method, path, status and a redacted body excerpt.
 */
export class HelpdeskClient {
  private readonly options: HelpdeskClientOptions;

  /** @param options base URL, token source and limits */
  constructor(options: HelpdeskClientOptions) {
    this.options = options;
  }

  /**
   * Registers a webhook: `POST /v1/webhooks` with JSON `{event, url}` (docs/helpdesk-api.md §4.3; JSON body per docs/design.md "Decisions the service leaves open").
   *
   * The id is taken from `webhook.id`, else the last path segment of `webhook.href`, else of the `Location` header,
   * and must pass the id rule (`kernel/webhook-rules.ts` `webhookIdProblem`).
   *
   * @returns the registered webhook (`state` defaults to `"active"` when the service omits it, docs/helpdesk-api.md §2.1)
   * @throws HelpdeskError `http` on a non-201/200 status, `network` when no response came, `protocol` when the response
   *   has no usable id or a body longer than kernel/response-limit.ts reads (the message then says a webhook may exist
   *   and how to remove it)
   */
  async createWebhook(inputs: WebhookRegistration): Promise<RegisteredWebhook> {
    const path = "/v1/webhooks";
    const unread = (failure: HttpExchangeError): HelpdeskError =>
      this.orphanError(inputs, failure.status ?? 0, `its body was not read: ${failure.message}`, failure);
    const { status, headers, body } = await this.send(
      "create webhook",
      "POST",
      path,
      JSON.stringify({ event: inputs.event, url: inputs.url }),
      unread,
    );
    if (status !== 201 && status !== 200) throw this.httpError("create webhook", "POST", path, status, body);
    const webhook = createdWebhook(body);
    if (!webhook)
      throw this.orphanError(
        inputs,
        status,
        `its body is not the {"webhook": {...}} object of docs/helpdesk-api.md §4.3: ${excerpt(body, this.secrets())}`,
      );
    const location = headers.location;
    const id =
      (webhook.id !== undefined && String(webhook.id) !== "" ? String(webhook.id) : undefined) ??
      lastPathSegment(webhook.href) ??
      lastPathSegment(location);
    if (!id)
      throw this.orphanError(
        inputs,
        status,
        "it carries no webhook id (no webhook.id, webhook.href or Location header)",
      );
    const problem = webhookIdProblem(id);
    if (problem !== undefined)
      throw this.orphanError(inputs, status, `its webhook ${serverText(problem, this.secrets())}`);
    return {
      id,
      event: (webhook.event ?? inputs.event) as WebhookRegistration["event"],
      url: webhook.url ?? inputs.url,
      state: webhook.state ?? "active",
    };
  }

  /**
   * Removes a webhook: `DELETE /v1/webhooks/:id` (docs/helpdesk-api.md §4.4).
   *
   * @param id a webhook id that passes the id rule (`kernel/webhook-rules.ts`; the provider core checks it first and
   *   says what to do, this is the last guard)
   * @returns `"deleted"` on 204 (or any 2xx), `"not_found"` on 404 (already gone: removed in the web UI, say)
   * @throws HelpdeskError `http` on any other status, `network` when no response came, `protocol` when the response's
   *   body is longer than kernel/response-limit.ts reads; Error from `webhookIdPath` for an id that breaks the rule,
   *   before any request
   */
  async deleteWebhook(id: string): Promise<"deleted" | "not_found"> {
    const path = webhookIdPath(id);
    const { status, body } = await this.send(
      "delete webhook",
      "DELETE",
      path,
      undefined,
      (failure) =>
        new HelpdeskError(
          HELPDESK_ERROR_CODES.PROTOCOL,
          `delete webhook failed: DELETE ${path} responded with ${failure.status} but its body was not read: ${failure.message}. ` +
            "Whether the webhook was deleted is unknown: run the command again (a webhook already gone counts as deleted).",
          { status: failure.status, cause: failure },
        ),
    );
    if (status >= 200 && status < 300) return "deleted";
    if (status === 404) return "not_found";
    throw this.httpError("delete webhook", "DELETE", path, status, body);
  }

  private secrets(): string[] {
    return this.options.grant.secrets();
  }

  /**
   * Asks the grant for a token; what stops it (an expired token nothing can refresh, a refresh the server refused, a
   * token cache that stops it) becomes a {@link HelpdeskError} `credentials` that says to sign in again.
   */
  private async token<Token extends string | undefined>(ask: () => Promise<Token>): Promise<Token> {
    try {
      return await ask();
    } catch (error) {
      throw refreshFailure(error, this.options.grant);
    }
  }

  /**
   * Sends one request with retries: see `retry.ts` for which outcomes are retried. A 401 refreshes the access token
   * (the grant's reaction to a rejected token, once per request) and resends at once; that resend is part of the same
   * attempt, not a retry.
   *
   * A response whose body is longer than kernel/response-limit.ts reads is not retried: `unread` makes its error.
   *
   * @param unread the error for a response whose body was not read (the `TOO_LARGE` failure of http.ts, with the status)
   * @returns the last response, whatever its status
   * @throws HelpdeskError `network` when the last attempt got no response; `credentials` when the grant gives no token;
   *   what `unread` returns
   */
  private async send(
    operation: string,
    method: "POST" | "DELETE",
    path: string,
    json: string | undefined,
    unread: (failure: HttpExchangeError) => HelpdeskError,
  ): Promise<HttpResponse> {
    const { limits, grant } = this.options;
    let mayRefresh = true;
    for (let retry = 0; ; retry++) {
      const token = await this.token(() => grant.accessToken());
      let result = await this.attempt(method, path, json, token);
      if (mayRefresh && result.kind === "response" && result.response.status === 401) {
        mayRefresh = false;
        const refreshed = await this.token(() => grant.rejected(token));
        if (refreshed !== undefined) result = await this.attempt(method, path, json, refreshed);
      }
      if (
        result.kind === "failure" &&
        result.error instanceof HttpExchangeError &&
        result.error.code === HTTP_EXCHANGE_ERROR_CODES.TOO_LARGE
      ) {
        throw unread(result.error);
      }
      const delay = retry < limits.maxRetries ? retryDelay(method, outcomeOf(result), retry) : undefined;
      if (delay === undefined) {
        if (result.kind === "response") return result.response;
        throw this.networkError(operation, method, path, result.error, retry + 1);
      }
      await sleep(delay);
    }
  }

  /** One exchange with `token` as the bearer credential (RFC 6750 §2.1); never throws. */
  private async attempt(
    method: "POST" | "DELETE",
    path: string,
    json: string | undefined,
    token: string,
  ): Promise<Attempt> {
    try {
      const response = await exchange({
        method,
        url: endpointUrl(this.options.baseUrl, path),
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          "user-agent": PACKAGE_NAME,
          ...(json === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(json !== undefined && { body: json }),
        timeoutMs: this.options.limits.requestTimeoutSeconds * 1000,
      });
      return { kind: "response", response };
    } catch (error) {
      return { kind: "failure", error };
    }
  }

  private networkError(
    operation: string,
    method: "POST" | "DELETE",
    path: string,
    error: unknown,
    attempts: number,
  ): HelpdeskError {
    const reason = error instanceof Error ? `${errorCode(error) ?? error.name}: ${error.message}` : String(error);
    const mayExist = mayHaveCreated(method, error)
      ? " The request may have reached the API: a webhook may have been created without Pulumi knowing; check the help desk's webhook page."
      : "";
    return new HelpdeskError(
      HELPDESK_ERROR_CODES.NETWORK,
      `${operation} failed: ${method} ${path} got no response from ${baseUrlText(this.options.baseUrl)} after ${attempts} attempt(s) ` +
        `(${serverText(reason, this.secrets())}).${mayExist} Check that the API is reachable and ${this.options.describe("baseUrl")} is right.`,
      { cause: error },
    );
  }

  private httpError(operation: string, method: string, path: string, status: number, body: string): HelpdeskError {
    return new HelpdeskError(
      HELPDESK_ERROR_CODES.HTTP,
      `${operation} failed: ${method} ${path} responded with ${status}: ${excerpt(body, this.secrets()) || "(empty body)"}. ${hintFor(status, this.options.describe, this.options.grant)}`,
      { status },
    );
  }

  private orphanError(inputs: WebhookRegistration, status: number, why: string, cause?: unknown): HelpdeskError {
    return new HelpdeskError(
      HELPDESK_ERROR_CODES.PROTOCOL,
      `create webhook: POST /v1/webhooks responded with ${status} but ${why}. A webhook for event ${JSON.stringify(inputs.event)} ` +
        `and url ${displayUrl(inputs.url)} may have been created and is not in Pulumi state: ` +
        "find it in the help desk's webhook page and delete it there, then run `pulumi up` again.",
      { status, cause },
    );
  }
}

/** The error a person sees when the grant cannot give a token: what happened and that `login` fixes it. */
function refreshFailure(error: unknown, grant: Pick<Grant, "stack" | "namespace">): unknown {
  if (error instanceof HelpdeskError) return error;
  if (error instanceof TokenCacheError)
    return new HelpdeskError(HELPDESK_ERROR_CODES.CREDENTIALS, error.message, { cause: error });
  if (error instanceof OAuthError && error.code === OAUTH_ERROR_CODES.INVALID_TOKEN)
    return new HelpdeskError(HELPDESK_ERROR_CODES.CREDENTIALS, error.message, { cause: error });
  const why = error instanceof OAuthError ? error.message : String(error);
  return new HelpdeskError(
    HELPDESK_ERROR_CODES.CREDENTIALS,
    `the access token expired and refreshing it failed (${why}): ${signInAgain(grant)}.`,
    { cause: error },
  );
}

/** What a person should do about an HTTP status from the API. */
function hintFor(status: number, describe: SettingsPlace["describe"], place: SignInPlace): string {
  if (status === 401)
    return `The access token was rejected or expired: ${signInAgain(place)} (or run ${stackCommand("refresh", place)}).`;
  if (status === 403) return "The signed-in account may not manage webhooks: sign in with an account that can.";
  if (status === 404) return `The API has no such resource: check ${describe("baseUrl")}.`;
  if (status === 422 || status === 400)
    return "The API rejected the webhook's fields: fix event or url in the program.";
  if (status === 429)
    return `The API is rate-limiting requests: wait and run again, or raise ${describe("maxRetries")}.`;
  if (status >= 500) return "The help-desk API failed: try again later.";
  return "Unexpected response from the help-desk API.";
}

/** What one attempt produced: a response (any status), or no response. */
type Attempt = { kind: "response"; response: HttpResponse } | { kind: "failure"; error: unknown };

/** The retry policy's view of an attempt (retry.ts). */
function outcomeOf(result: Attempt): AttemptOutcome {
  return result.kind === "response"
    ? { kind: "response", status: result.response.status, retryAfter: result.response.headers["retry-after"] }
    : { kind: "error", error: result.error };
}

/** The network error code of a failed exchange (`ECONNREFUSED`, `TIMEOUT`, ...; see http.ts). */
function errorCode(error: unknown): string | undefined {
  return error instanceof HttpExchangeError ? error.code : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The last non-empty path segment of an absolute or relative URL (RFC 3986 §3.3), percent-decoded, or undefined.
 * Read from the text as written, without URL resolution: resolving would remove dot-segments, so that
 * `/v1/webhooks/..` (or `%2e%2e`) named the id `v1` instead of being refused by the id rule. A malformed escape
 * (`%E0%A4%A`) gives undefined, so the create's "may have been created" message still applies.
 */
function lastPathSegment(href: string | undefined): string | undefined {
  if (!href) return undefined;
  const path = href
    .replace(/[?#][\s\S]*$/, "") // query and fragment
    .replace(/^[A-Za-z][A-Za-z0-9+.-]*:/, "") // scheme
    .replace(/^\/\/[^/]*/, ""); // authority
  const segment = path.split("/").filter(Boolean).pop();
  if (!segment) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined; // URIError: not a percent-encoded segment
  }
}
