/**
 * The consent page of `GET /oauth/authorize` (docs/helpdesk-api.md §4.1; RFC 6749 §4.1.1): the user signs in (unless a session
 * exists) and approves or denies the application. The form POSTs to `/oauth/authorize` with the pending request id
 * and a CSRF token as hidden fields.
 */
import { html } from "./html.js";
import { layout } from "./layout.js";

/** What the consent page shows. `account` is the signed-in account, if any; `error` a sign-in error. */
export interface ConsentView {
  appName: string;
  clientId: string;
  redirectUri: string;
  account?: string;
  requestId: string;
  csrf: string;
  error?: string;
  /** Pre-filled username after a failed sign-in. */
  username?: string;
}

/** Renders the consent page HTML. */
export function consentPage(view: ConsentView): string {
  let redirectHost = view.redirectUri;
  try {
    redirectHost = new URL(view.redirectUri).host;
  } catch {
    // shown as given
  }
  const signIn = view.account
    ? html`<p>Signed in as <strong>${view.account}</strong>.</p>`
    : html`<p class="muted">Sign in to your help desk account to approve.</p>
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" value="${view.username ?? ""}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password">`;
  return layout(
    "Authorize application",
    html`<div class="card narrow">
<h1>Authorize <span id="app-name">${view.appName}</span></h1>
<p><strong>${view.appName}</strong> (<code>${view.clientId}</code>) asks for access to your help desk account:
it will be able to create and delete webhooks. You will be sent back to <code>${redirectHost}</code>.</p>
${view.error ? html`<div class="error" role="alert">${view.error}</div>` : ""}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="request" value="${view.requestId}">
<input type="hidden" name="csrf" value="${view.csrf}">
${signIn}
<div class="actions">
<button type="submit" name="decision" value="approve" id="approve">Approve</button>
<button type="submit" name="decision" value="deny" id="deny" class="secondary">Deny</button>
</div>
</form>
</div>`,
  );
}
