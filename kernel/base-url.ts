/**
 * What a valid help-desk base URL is (docs/helpdesk-api.md §1 `{base_url}`), defined once: `login`, both providers,
 * the token refresh, `DiffConfig`, `trigger` and the emulator's inspection client parse a base URL here and nowhere
 * else, so they accept and refuse the same values.
 *
 * Allowed: an absolute `https` URL, or `http` to a loopback host (`kernel/loopback.ts`: a local help desk or the
 * emulator), optionally with a path (`https://h.example/helpdesk`), without a query, a fragment or user info
 * (`https://user:pass@...` would put a credential in plain config). Surrounding whitespace and trailing slashes are
 * dropped: `https://h.example/api/` and `https://h.example/api` are the same help desk.
 *
 * Plain http elsewhere is refused because every request to the base URL carries a credential: the bearer access
 * token (RFC 6750 §5.3: tokens only over TLS), the client secret and the refresh token (RFC 6749 §10.3, §10.4).
 */
import { isLoopbackHost, LOOPBACK_HOSTS } from "./loopback.js";

/** What {@link parseBaseUrl} returns: the URL, or why the text is none. */
export type BaseUrlParse = { readonly url: URL } | { readonly problem: string };

/** The example messages give. */
const EXAMPLE = "e.g. https://helpdesk.example.com";

/**
 * Parses a base URL.
 *
 * @param raw the text as a person or config gave it
 * @returns `{ url }` (path without trailing slashes; `url.pathname` is `/` for a bare origin) or `{ problem }`: a
 *   message for people that says what is wrong and what is allowed (it shows the value: a base URL is no secret, and
 *   user info is refused without being shown)
 */
export function parseBaseUrl(raw: string): BaseUrlParse {
  const text = raw.trim();
  const shown = JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
  if (text === "") return { problem: `the base URL is empty; expected an absolute http or https URL, ${EXAMPLE}` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: `base URL ${shown} is not an absolute URL; expected an absolute http or https URL, ${EXAMPLE}` };
  }
  if (url.username || url.password) {
    return {
      problem: `the base URL must not carry user info (name or password before "@"): credentials belong in the secret settings; ${EXAMPLE}`,
    };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { problem: `base URL ${shown} must use http or https, not ${url.protocol.replace(/:$/, "")}; ${EXAMPLE}` };
  }
  if (url.protocol === "http:" && !allowsPlainHttp(url)) {
    return {
      problem:
        `base URL ${shown} uses plain http to a host that is not this machine, so the access token would cross the network unencrypted: ` +
        `use https (${EXAMPLE}); plain http is allowed only to a loopback host (${LOOPBACK_HOSTS})`,
    };
  }
  if (text.includes("?") || text.includes("#")) {
    return {
      problem: `base URL ${shown} must not carry a query ("?") or fragment ("#"): the API's paths are appended to it; ${EXAMPLE}`,
    };
  }
  url.pathname = url.pathname.replace(/\/+$/, "") || "/";
  return { url };
}

/**
 * Whether requests to `url` may go over plain http, credentials and all: only when its host is a loopback host
 * (`kernel/loopback.ts`), where nothing crosses a network. The one rule for every sender of a token: {@link parseBaseUrl}
 * refuses other http base URLs (so `login`, CheckConfig and both providers refuse alike), and the OAuth client
 * (`auth/oauth.ts`) allows oauth4webapi's insecure requests only here.
 *
 * @param url an http(s) URL
 * @home what a valid base URL is; plain http only to a loopback host
 */
export function allowsPlainHttp(url: URL): boolean {
  return isLoopbackHost(url.hostname);
}

/**
 * A base URL as text, without a trailing slash: how it is shown and stored (`https://h.example/api`).
 *
 * @param url a URL from {@link parseBaseUrl}
 */
export function baseUrlText(url: URL): string {
  return url.href.replace(/\/+$/, "");
}

/**
 * The URL of an API path under a base URL: `endpointUrl(https://h.example/api, "/v1/webhooks")` is
 * `https://h.example/api/v1/webhooks` (the base's path is kept, unlike `new URL("/v1/...", base)`).
 *
 * @param base a URL from {@link parseBaseUrl}
 * @param path an absolute path, e.g. `/oauth/token`
 */
export function endpointUrl(base: URL, path: string): URL {
  return new URL(`${baseUrlText(base)}${path}`);
}
