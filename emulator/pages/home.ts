/**
 * The web page at `/`: a sign-in form, or (signed in) the account's webhooks with add/delete forms, a form to send a
 * test event, and the delivery log. Server-rendered; every value escaped; every form carries the CSRF token.
 */
import { EVENTS } from "../../kernel/events.js";
import type { FieldError } from "../errors.js";
import type { DeliveryLogEntry, StoredWebhook } from "../types.js";
import type { SafeHtml } from "./html.js";
import { html } from "./html.js";
import { layout } from "./layout.js";

/** What the sign-in page shows. */
export interface SignInView {
  csrf: string;
  error?: string;
  username?: string;
}

/** Renders the sign-in page. */
export function signInPage(view: SignInView): string {
  return layout(
    "Sign in",
    html`<div class="card narrow">
<h1>Sign in</h1>
${view.error ? html`<div class="error" role="alert">${view.error}</div>` : ""}
<form method="post" action="/signin">
<input type="hidden" name="csrf" value="${view.csrf}">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" value="${view.username ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password">
<div class="actions"><button type="submit" id="signin">Sign in</button></div>
</form>
<p class="muted">Tools can get a one-time sign-in link from <code>GET /_emulator/login-link?account=NAME</code>.</p>
</div>`,
  );
}

/** What the webhooks page shows. `errors`/`draft` come from a rejected add-webhook form. */
export interface HomeView {
  account: string;
  csrf: string;
  webhooks: StoredWebhook[];
  deliveries: DeliveryLogEntry[];
  errors?: FieldError[];
  draft?: { event?: string; url?: string };
  notice?: string;
}

function eventOptions(selected: string | undefined): SafeHtml[] {
  return EVENTS.map(
    (name) => html`<option value="${name}"${name === selected ? html` selected` : ""}>${name}</option>`,
  );
}

function deliveryStatus(d: DeliveryLogEntry): SafeHtml {
  if (!d.done) return html`<span class="pending">pending</span>`;
  return d.ok
    ? html`<span class="ok">${d.status ?? ""} ok</span>`
    : html`<span class="bad">${d.status ?? "failed"}</span>`;
}

/** Renders the signed-in page. */
export function homePage(view: HomeView): string {
  const last = new Map<string, DeliveryLogEntry>();
  for (const d of view.deliveries) last.set(d.webhookId, d);
  const rows = view.webhooks.map((w) => {
    const d = last.get(w.id);
    return html`<tr data-webhook-id="${w.id}">
<td><code>${w.event}</code></td><td>${w.url}</td><td><span class="pill">${w.state}</span></td>
<td>${d ? html`${deliveryStatus(d)} <span class="muted">${d.time}</span>` : html`<span class="muted">never</span>`}</td>
<td><form method="post" action="/webhooks/${encodeURIComponent(w.id)}/delete">
<input type="hidden" name="csrf" value="${view.csrf}">
<button type="submit" class="danger small" aria-label="Delete webhook ${w.id}">Delete</button></form></td>
</tr>`;
  });
  const log = [...view.deliveries].reverse().map(
    (d) => html`<tr data-delivery-id="${d.id}">
<td>${d.time}</td><td><code>${d.event}</code></td><td>${d.url}</td><td>${deliveryStatus(d)}</td><td>${d.attempts}</td>
<td>${d.error ?? ""}</td></tr>`,
  );
  const fieldError = (field: string) => view.errors?.find((e) => e.field === field)?.message;
  const header = html`<span class="muted" style="color:#d6e0ee">Signed in as <strong id="account">${view.account}</strong></span>
<form method="post" action="/signout" style="display:inline;margin-left:12px"><input type="hidden" name="csrf" value="${view.csrf}">
<button type="submit" class="secondary small">Sign out</button></form>`;
  return layout(
    "Webhooks",
    html`${view.notice ? html`<div class="card" role="status">${view.notice}</div>` : ""}
<div class="card">
<h1>Webhooks</h1>
<table id="webhooks"><thead><tr><th>Event</th><th>URL</th><th>State</th><th>Last delivery</th><th></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5" class="muted">No webhooks yet.</td></tr>`}</tbody></table>
</div>
<div class="card">
<h2>Add a webhook</h2>
${view.errors?.length ? html`<div class="error" role="alert">${view.errors.map((e) => html`<div>${e.message}</div>`)}</div>` : ""}
<form method="post" action="/webhooks" class="row" id="add-webhook">
<input type="hidden" name="csrf" value="${view.csrf}">
<div class="fit"><label for="event">Event</label><select id="event" name="event">${eventOptions(view.draft?.event)}</select></div>
<div><label for="url">URL</label><input id="url" name="url" type="text" placeholder="https://example.test/hook" value="${view.draft?.url ?? ""}"
${fieldError("url") ? html` aria-invalid="true"` : ""}></div>
<div class="fit"><button type="submit" id="add">Add webhook</button></div>
</form>
</div>
<div class="card">
<h2>Send a test event</h2>
<p class="muted">Posts a sample record to every webhook of this account registered for the event.</p>
<form method="post" action="/events" class="row" id="send-event">
<input type="hidden" name="csrf" value="${view.csrf}">
<div class="fit"><label for="trigger-event">Event</label><select id="trigger-event" name="event">${eventOptions(undefined)}</select></div>
<div class="fit"><button type="submit" id="send">Send event</button></div>
</form>
</div>
<div class="card">
<h2>Delivery log</h2>
<table id="deliveries"><thead><tr><th>Time</th><th>Event</th><th>URL</th><th>Status</th><th>Attempts</th><th>Error</th></tr></thead>
<tbody>${log.length ? log : html`<tr><td colspan="6" class="muted">No deliveries yet.</td></tr>`}</tbody></table>
</div>`,
    header,
  );
}
