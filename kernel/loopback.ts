/**
 * What a loopback host is, defined once: the addresses that never leave this machine (RFC 8252 §7.3 for redirect
 * URIs; RFC 6890 for 127.0.0.0/8 and ::1), plus the name `localhost`, which resolves to them (RFC 6761 §6.3). Used
 * where plain `http` is acceptable because nothing crosses a network: a base URL and so the API and OAuth requests
 * to a local help desk (`kernel/base-url.ts` `allowsPlainHttp`), the redirect URI `login` listens on
 * (`cli/login/callback-server.ts`), the webhook url warning (`program/webhook.ts`); the emulator's guard against DNS
 * rebinding, which serves only a loopback `Host` (`emulator/app.ts`); and the engine addresses the native plugin
 * follows (`provider/native/engine-log.ts`).
 * @home what a loopback host is (the callback server, the base URL, the webhook rule, the emulator's Host guard)
 */

/** The loopback hosts, for people (what a message says is allowed); {@link isLoopbackHost} decides. */
export const LOOPBACK_HOSTS = "localhost, 127.0.0.1 (any 127.x.y.z) or [::1]";

/**
 * @param hostname a URL's `hostname` (IPv6 in brackets, as `URL` gives it: `[::1]`)
 * @returns true for `localhost`, any address of 127.0.0.0/8 in dotted form, and `::1`
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host === "[::1]" || host === "::1") return true;
  const octets = host.split(".");
  return octets.length === 4 && octets[0] === "127" && octets.every((octet) => /^\d{1,3}$/.test(octet) && Number(octet) <= 255);
}
