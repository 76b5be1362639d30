/**
 * How much of a server's response this package reads, defined once: the provider's HTTP client
 * (`provider/core/http.ts`, both providers), the OAuth client (`auth/oauth.ts`: `login`, `refresh`, the providers'
 * token refresh) and the emulator's inspection client read every response body through {@link readAtMost}, so a
 * hostile or broken server can neither grow a process's memory without bound nor crash it (a body over about
 * 512 MiB cannot even be decoded: `ERR_STRING_TOO_LONG`).
 * @home how much of a server's response is read (the provider, the OAuth client, the inspection client)
 */

/**
 * The most bytes read of one response of the help-desk API or its token endpoint: 1 MiB. Every response the API sends is
 * small (docs/helpdesk-api.md §2.1, §2.2: a webhook is four short fields, a URL at most 2048 characters; a token response
 * is a few hundred bytes, a JWT access token a few KiB), so 1 MiB is hundreds of times what any of them needs, and
 * reading it costs a provider process about 2 MiB at most.
 */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * A byte count for people: `1048576 bytes (1 MiB)`.
 *
 * @param bytes a whole number of bytes
 */
function bytesText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib >= 1 && Number.isInteger(mib) ? `${bytes} bytes (${mib} MiB)` : `${bytes} bytes`;
}

/**
 * The sentence every refused response is reported with: `the API sent a response of more than 1048576 bytes
 * (1 MiB), the most read of one response`.
 *
 * @param peer who responded, as a message names it (`the API`, `the token endpoint`, `the emulator`)
 * @param limit the limit that was passed, in bytes
 */
export function tooLargeText(peer: string, limit: number): string {
  return `${peer} sent a response of more than ${bytesText(limit)}, the most read of one response`;
}

/**
 * Reads a response body of at most `limit` bytes. A `Content-Length` above the limit is refused before a byte is
 * read; otherwise the bytes are counted as they arrive and the read stops at the first chunk past the limit. Either
 * way `discard` is called (the caller destroys the response, which closes its connection: the rest is never
 * received) and nothing is kept.
 *
 * @param body the body's chunks: a Node.js `IncomingMessage` or undici body, or a fetch `Response.body`
 * @param limit the most bytes to accept, e.g. {@link MAX_RESPONSE_BYTES}
 * @param contentLength the response's `Content-Length` header, if any (RFC 9110 §8.6; not trusted beyond refusing)
 * @param discard stops the response (`response.destroy()`, `body.cancel()`); must not throw
 * @returns the whole body, or `undefined` when it is longer than `limit` (report it with {@link tooLargeText})
 * @throws what reading `body` throws (a reset connection, an aborted request)
 */
export async function readAtMost(
  body: AsyncIterable<Uint8Array>,
  limit: number,
  contentLength: string | null | undefined,
  discard: () => void,
): Promise<Buffer | undefined> {
  if (contentLength != null && /^\s*\d+\s*$/.test(contentLength) && Number(contentLength) > limit) {
    discard();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > limit) {
      discard();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
