/**
 * The one redaction registry: every text that may reach a person (error messages, warnings, CLI output, the
 * provider's diagnostics) passes through here, so no credential and no terminal escape sequence from a server reaches
 * a terminal, a CI log or Pulumi's output.
 *
 * What it removes, in order:
 * 1. every credential value registered with {@link registerSecret} (process-wide) or passed in, in the forms a
 *    server may echo it: raw, URL-encoded, form-encoded (`+` for spaces), JSON-escaped, base64 and base64url;
 * 2. `Bearer <token>` (RFC 6750 §2.1) and `Basic <credentials>` (RFC 7617 §2) authorization values;
 * 3. userinfo in URLs (`https://user:pass@host` → `https://[redacted]@host`);
 * 4. the values of token-bearing parameters and fields, matched by exact name only (so `status_code: 500` keeps its
 *    value): {@link SECRET_FIELD_NAMES} in query strings and forms (`name=value`), JSON (`"name": "value"`, also
 *    JSON inside JSON) and `name: value` text.
 *
 * Text a server wrote is untrusted: {@link serverText} also removes control characters and escape sequences (CSI,
 * OSC such as OSC 8 links, and the like), invisible format characters, the path, query and fragment of every url in
 * it, with its scheme or without (a help desk may echo a webhook url as `hooks.slack.com/services/T…/B…/<secret>`),
 * and shortens it.
 *
 * Nothing here throws on any string: a lone surrogate (a string that is not well-formed UTF-16) in a text or in a
 * credential is redacted like any other character, so that one odd value cannot turn every later message into
 * "URI malformed".
 */

/** The replacement of a removed credential. */
export const REDACTED = "[redacted]";

/**
 * Parameter and field names whose value is a credential (OAuth 2.0: RFC 6749 §4.1.2, §4.1.3, §5.1, §6; PKCE:
 * RFC 7636 §4.5; RFC 6750 §2.3 `access_token` query parameter; common API key names). Matched case-insensitively
 * and exactly.
 */
export const SECRET_FIELD_NAMES = [
  "access_token",
  "refresh_token",
  "id_token",
  "client_secret",
  "code",
  "code_verifier",
  "token",
  "password",
  "passwd",
  "secret",
  "api_key",
  "apikey",
  "assertion",
  "client_assertion",
  "accessToken",
  "refreshToken",
  "clientSecret",
] as const;

/** Shortest value treated as a credential: shorter ones would remove ordinary words from messages. */
const MIN_SECRET_LENGTH = 6;

/** The process-wide registry of credential values in use. */
const registered = new Set<string>();

/**
 * Registers a credential value (an access or refresh token, a client secret, an authorization code, a PKCE code
 * verifier, a secret webhook url) so that every later {@link redact} in this process removes it.
 *
 * @param value the credential; undefined and values shorter than 6 characters are ignored
 */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= MIN_SECRET_LENGTH) registered.add(value);
}

/**
 * The forms in which a server may echo `value`: raw, URL-, form- and JSON-encoded, base64 and base64url. A lone
 * surrogate travels as UTF-8 does (U+FFFD, `EF BF BD`), so the raw form is also taken well-formed, and the
 * URL-encoded form only so (`encodeURIComponent` throws on a lone surrogate).
 */
function encodedForms(value: string): string[] {
  const wellFormed = value.toWellFormed();
  const base64 = Buffer.from(value, "utf8").toString("base64");
  const forms = [
    value,
    wellFormed,
    encodeURIComponent(wellFormed),
    new URLSearchParams({ v: value }).toString().slice(2),
    JSON.stringify(value).slice(1, -1),
    base64,
    base64.replace(/=+$/, ""),
    Buffer.from(value, "utf8").toString("base64url"),
  ];
  // Longest first, so a longer form is not half-replaced by a shorter one it contains.
  return [...new Set(forms)].filter((form) => form.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const NAMES = SECRET_FIELD_NAMES.map(escapeRegExp).join("|");
/** `"name": "value"`, with JSON inside JSON (`\"name\":\"value\"`) too. */
const JSON_FIELD = new RegExp(`((?<![\\w-])\\\\*"(?:${NAMES})\\\\*"\\s*:\\s*\\\\*")((?:[^"\\\\]|\\\\(?!"))*)`, "gi");
/** `name=value` in a query string, a form body or a log line. */
const FORM_FIELD = new RegExp(`((?<![\\w.-])(?:${NAMES})=)([^&\\s"',;)<>]*)`, "gi");
/**
 * `name: value` in free text (not JSON: a quoted name is handled above), for the unambiguous names only: `code`,
 * `token` and `secret` are ordinary words there (`exit code: 1`).
 */
const TEXT_NAMES = SECRET_FIELD_NAMES.filter((name) => !["code", "token", "secret"].includes(name))
  .map(escapeRegExp)
  .join("|");
const TEXT_FIELD = new RegExp(`((?<![\\w"\\\\-])(?:${TEXT_NAMES}):\\s*)([^\\s,;"'}]+)`, "gi");
const BEARER = /\b(Bearer)(\s+)[A-Za-z0-9\-._~+/]+=*/gi;
const BASIC = /\b(Basic)(\s+)[A-Za-z0-9+/]+=*/gi;

/** An RFC 3986 §3.1 scheme and its `:` (`https:`): where a url with a scheme starts. */
const URL_SCHEME = "[a-z][a-z0-9+.-]*:";
/** `/`, or `\/` as JSON may write it (PHP's `json_encode` does by default). */
const URL_SLASH = String.raw`\\?/`;
/** A url's userinfo (`https://user:pass@host`): group 1 the scheme and `//`, then the userinfo and `@`. */
const USERINFO = new RegExp(String.raw`\b(${URL_SCHEME}//)[^/\s@?#]+@`, "gi");
/**
 * A url in text, with its scheme or without: group 1 where it points, kept; group 2 its path, query or fragment,
 * which may carry a credential (a secret path, a `?token=`). What counts as a url:
 * - a scheme, `//` and an authority (`https://hooks.example.com:8443`), then a `/`, `?` or `#` and the rest;
 * - without a scheme, a host name of two or more dot-separated labels whose last is letters, as a name under a
 *   top-level domain is (`hooks.slack.com`, not `v1.2` or `file.1`), or an IPv4 address, with an optional port,
 *   then a `/` and at least one more character (`hooks.slack.com/services/...`; a bare `example.com` is no url here).
 * The rest runs to white space or a quote or angle bracket (the url's end in JSON, HTML and prose).
 */
const URL_IN_TEXT = new RegExp(
  String.raw`(\b${URL_SCHEME}${URL_SLASH}${URL_SLASH}[^\s/\\?#"'<>]+` +
    String.raw`|(?<![\w./\\-])(?:(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}|(?:\d{1,3}\.){3}\d{1,3})` +
    String.raw`(?::\d{1,5})?(?=${URL_SLASH}[^\s"'<>]))((?:${URL_SLASH}|[?#])[^\s"'<>]*)`,
  "gi",
);

/**
 * Removes the path, query and fragment of every url in a text (see {@link URL_IN_TEXT} for what counts as one).
 *
 * @returns the text with each url cut to where it points, then `/[redacted]` (or `?[redacted]`, `#[redacted]`)
 */
function withoutUrlPaths(text: string): string {
  return text.replace(URL_IN_TEXT, (_url, kept: string, rest: string) => {
    const separator = rest.startsWith("\\") ? "\\/" : rest.charAt(0);
    return `${kept}${separator}${REDACTED}`;
  });
}

/**
 * Removes credentials from a text (see the module doc for what is removed).
 *
 * @param text any text
 * @param secrets further credential values to remove (besides the registered ones); undefined and short ones ignored
 * @returns the text with each credential replaced by `[redacted]`
 */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  const values = new Set(registered);
  for (const secret of secrets) if (secret && secret.length >= MIN_SECRET_LENGTH) values.add(secret);
  const forms = [...values].flatMap(encodedForms).sort((a, b) => b.length - a.length);
  for (const form of forms) out = out.split(form).join(REDACTED);
  return out
    .replace(BEARER, `$1$2${REDACTED}`)
    .replace(BASIC, `$1$2${REDACTED}`)
    .replace(USERINFO, `$1${REDACTED}@`)
    .replace(JSON_FIELD, `$1${REDACTED}`)
    .replace(FORM_FIELD, `$1${REDACTED}`)
    .replace(TEXT_FIELD, `$1${REDACTED}`);
}

/**
 * ECMA-48 escape sequences (CSI `ESC [ ... final`, OSC `ESC ] ... BEL|ST`, DCS/SOS/PM/APC strings, two-byte
 * escapes), their 8-bit C1 forms, then any other C0/C1 control character and invisible format character (bidi
 * overrides, zero-width characters).
 */
const ESCAPE_SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences to remove begin with ESC, CSI, OSC, ...
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|[\u001b\u009d\u0090\u0098\u009e\u009f][\]PX^_]?[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|\u001b[@-Z\\-_]|\u001b/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters to remove
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}]/gu;

/**
 * Removes terminal escape sequences and control characters; keeps newlines and tabs (for our own multi-line
 * messages).
 *
 * @param text any text
 * @returns the text without escape sequences, control characters (except `\n`, `\t`) or invisible format characters
 */
export function stripControl(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, "").replace(CONTROL, "");
}

/**
 * Makes text a server wrote fit to show: escape sequences and control characters removed, whitespace collapsed to
 * single spaces, credentials removed, every url's path, query and fragment removed (with its scheme or without), at
 * most `max` characters.
 *
 * @param text untrusted text (a response body, an `error_description`)
 * @param secrets further credential values to remove
 * @param max maximum length in characters (default 300); longer text ends with `…`
 */
export function serverText(text: string, secrets: readonly (string | undefined)[] = [], max = 300): string {
  const flat = withoutUrlPaths(redact(stripControl(text).replace(/\s+/g, " ").trim(), secrets));
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/**
 * A response body shortened for an error message: {@link serverText} under the name callers know.
 *
 * @param body the raw response body (may be empty)
 * @param secrets credential values to remove
 * @param max maximum length in characters (default 300)
 */
export function excerpt(body: string, secrets: readonly (string | undefined)[] = [], max = 300): string {
  return serverText(body, secrets, max);
}

/**
 * A webhook url as it may be shown to a person: scheme and host only, with `/…` standing for a path, query or
 * fragment, and without userinfo, because webhook urls often carry a credential (Slack-style secret paths, `?token=`
 * queries, `user:pass@`).
 *
 * @param url the url (any string)
 * @returns e.g. `https://hooks.example.com/…`, `https://hooks.example.com/` for a bare host, or `(an unparsable url)`
 */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(an unparsable url)";
  }
  const hidden = parsed.username || parsed.password || parsed.pathname.length > 1 || parsed.search || parsed.hash;
  return `${parsed.protocol}//${parsed.host}/${hidden ? "…" : ""}`;
}

/**
 * The last step before a text reaches a person (a CLI line, a provider error or warning): escape sequences and
 * control characters removed (newlines kept), credentials removed.
 *
 * @param text a message, possibly holding server text
 * @param secrets further credential values to remove
 */
export function forPerson(text: string, secrets: readonly (string | undefined)[] = []): string {
  return redact(stripControl(text), secrets);
}
