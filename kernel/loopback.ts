/**
 * What a loopback host is, defined once: the addresses that never leave this machine (RFC 8252 §7.3 for redirect
 * URIs; RFC 6890 for 127.0.0.0/8 and ::1), plus the name `localhost`, which resolves to them (RFC 6761 §6.3). Used
 * where plain `http` is acceptable because nothing crosses a network: a base URL and so the API and OAuth requests
 * to a local help desk (`kernel/base-url.ts` `allowsPlainHttp`), the redirect URI `login` listens on
 * (`cli/login/callback-server.ts`), the webhook url warning (`program/webhook.ts`); the emulator's guard against DNS
 * rebinding, which serves only a loopback `Host` (`emulator/app.ts`); and the engine addresses the native plugin
 * follows (`provider/native/engine-log.ts`).
 *
 * Because plain http (and so a bearer token in clear text) is allowed to `localhost` by name, the name is never
 * looked up: {@link localhostLookup} answers it with the loopback addresses themselves (RFC 6761 §6.3: "name
 * resolution APIs and libraries SHOULD recognize localhost names as special and SHOULD always return the IP loopback
 * address"), as browsers do. A system whose `/etc/hosts` lacks `localhost` and whose resolver has a `search` domain
 * would otherwise ask DNS, and send the token wherever the response points. Every client that sends the API's or the
 * emulator's requests connects through it: the provider (`provider/core/http.ts`), the OAuth client
 * (`auth/oauth.ts`) and the emulator's inspection client (`emulator-client/inspection-client.ts`).
 * @home what a loopback host is, and that `localhost` is never looked up (the callback server, the base URL, the webhook rule, the emulator's Host guard, every client)
 */
import dns from "node:dns";
import type { LookupFunction } from "node:net";
import { required } from "./required.js";

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
  return (
    octets.length === 4 &&
    octets[0] === "127" &&
    octets.every((octet) => /^\d{1,3}$/.test(octet) && Number(octet) <= 255)
  );
}

/**
 * @param hostname a host name as a connection gets it (no brackets)
 * @returns true for `localhost` in any case, with or without the trailing dot of a fully qualified name (RFC 6761 §6.3)
 */
export function isLocalhostName(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === "localhost" || host === "localhost.";
}

/** The addresses the name `localhost` stands for: 127.0.0.1 first, as `/etc/hosts` lists them, then ::1 (RFC 6890). */
const LOCALHOST_ADDRESSES: readonly dns.LookupAddress[] = [
  { address: "127.0.0.1", family: 4 },
  { address: "::1", family: 6 },
];

/**
 * A `lookup` for `net.connect` (and so for `node:http` requests and undici's `connect` option) that answers
 * `localhost` with the loopback addresses without asking any resolver (RFC 6761 §6.3), and passes every other name to
 * `dns.lookup` as Node.js would. It honours `family` (4, 6, `"IPv4"`, `"IPv6"`; 0 for both) and `all` (Node.js asks
 * for all addresses when it tries IPv4 and IPv6 in turn, `autoSelectFamily`).
 *
 * @param hostname the name to resolve; @param options `dns.lookup`'s options; @param callback `dns.lookup`'s callback
 */
export const localhostLookup: LookupFunction = (hostname, options, callback) => {
  if (!isLocalhostName(hostname)) {
    dns.lookup(hostname, options, callback);
    return;
  }
  const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : (options.family ?? 0);
  const addresses = LOCALHOST_ADDRESSES.filter((entry) => family === 0 || entry.family === family);
  process.nextTick(() => {
    if (options.all)
      return callback(
        null,
        addresses.map((entry) => ({ ...entry })),
      );
    const first = required(addresses[0], `a localhost address of family ${family}`);
    callback(null, first.address, first.family);
  });
};
