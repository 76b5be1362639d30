/**
 * What a valid help-desk base URL is (docs/helpdesk-api.md §1 `{base_url}`), defined once: `login`, both providers,
 * the token refresh, `DiffConfig`, `trigger` and the emulator's inspection client parse a base URL here and nowhere
 * else, so they accept and refuse the same values.
 *
 * Allowed: an absolute `http` or `https` URL, optionally with a path (`https://h.example/helpdesk`), without a query,
 * a fragment or user info (`https://user:pass@...` would put a credential in plain config). Surrounding whitespace
 * and trailing slashes are dropped: `https://h.example/api/` and `https://h.example/api` are the same help desk.
 */

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
    return { problem: `the base URL must not carry user info (name or password before "@"): credentials belong in the secret settings; ${EXAMPLE}` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { problem: `base URL ${shown} must use http or https, not ${url.protocol.replace(/:$/, "")}; ${EXAMPLE}` };
  }
  if (text.includes("?") || text.includes("#")) {
    return { problem: `base URL ${shown} must not carry a query ("?") or fragment ("#"): the API's paths are appended to it; ${EXAMPLE}` };
  }
  url.pathname = url.pathname.replace(/\/+$/, "") || "/";
  return { url };
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
