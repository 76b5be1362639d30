/**
 * Removes credentials from text that may reach a person: error messages, logs, body excerpts.
 *
 * Three passes, because a server may echo a credential in ways we cannot predict:
 * 1. every known secret value (length >= 6) is replaced wherever it appears;
 * 2. `Bearer <token>` (RFC 6750 §2.1 syntax) loses its token;
 * 3. JSON or form fields named `access_token`, `refresh_token`, `client_secret`, `code`, `code_verifier` lose their value.
 *
 * @param text any text
 * @param secrets the credential values currently in use (undefined and short values are ignored)
 * @returns the text with each credential replaced by `[redacted]`
 */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 6) out = out.split(secret).join("[redacted]");
  }
  out = out.replace(/\b(Bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi, "$1 [redacted]");
  out = out.replace(
    /("?(?:access_token|refresh_token|client_secret|code_verifier|code)"?\s*[:=]\s*"?)([^"&\s,}]+)/gi,
    "$1[redacted]",
  );
  return out;
}

/**
 * Shortens a response body for an error message: whitespace collapsed, at most `max` characters, credentials removed.
 *
 * @param body the raw response body (may be empty)
 * @param secrets credential values to remove (see {@link redact})
 * @param max maximum length in characters (default 300)
 */
export function excerpt(body: string, secrets: readonly (string | undefined)[] = [], max = 300): string {
  const flat = redact(body, secrets).replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
