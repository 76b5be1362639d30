/**
 * Test support: a stand-in help desk on 127.0.0.1 whose answers a test scripts, for answers the emulator never gives
 * (a hostile or broken server): it counts every request and connection, and can stream a body of any length
 * without holding it in memory.
 */

import { writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/** One request the server received. */
export interface SeenRequest {
  method: string;
  path: string;
  /** Its `Authorization` header, if any. */
  authorization: string | undefined;
}

/** How the server responds to a request; the default responds with 500. */
export type Responder = (request: IncomingMessage, response: ServerResponse) => void;

/** A running response server. */
export interface ResponseServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** Every request so far, in order. */
  requests: SeenRequest[];
  /** How many TCP connections were opened to it so far. */
  connections(): number;
  /** Sets how the server responds to the next requests. */
  respondWith(responder: Responder): void;
  /** Stops listening and ends every connection. */
  close(): Promise<void>;
}

/** Starts a response server on 127.0.0.1 at a free port. */
export async function startResponseServer(): Promise<ResponseServer> {
  let responder: Responder = (_request, response) => response.writeHead(500).end();
  const requests: SeenRequest[] = [];
  let connections = 0;
  const server: Server = createServer((request, response) => {
    requests.push({
      method: request.method ?? "",
      path: request.url ?? "",
      authorization: request.headers.authorization,
    });
    response.on("error", () => undefined); // a client that hangs up mid-response is what some tests want
    request.resume();
    request.on("end", () => responder(request, response));
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    respondWith: (next) => {
      responder = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers with `status` and `body` as JSON. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Responder {
  return (_request, response) =>
    response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

/** What {@link hugeBody} has sent so far. */
export interface HugeBodyLog {
  /** Bytes handed to the connection, over every response so far. */
  sentBytes: number;
  /** Answers that ended because the client closed the connection before the whole body was sent. */
  cutOff: number;
}

/** 64 KiB of a JSON-looking body: the start of a webhook, then padding. */
const CHUNK = Buffer.from(
  `{"webhook":{"id":"wh_huge","event":"ticket_opened","pad":"${"x".repeat(64 * 1024)}`,
).subarray(0, 64 * 1024);

/**
 * Answers `status` with a body of `bytes` bytes, generated chunk by chunk as the connection takes them (1 GiB costs
 * the test no memory), and stops as soon as the client closes the connection.
 *
 * @param status the status; @param bytes the body's length
 * @param declare true: send `Content-Length: bytes`; false: stream it chunked, length unknown until the end
 * @param log counts what was sent
 */
export function hugeBody(status: number, bytes: number, declare: boolean, log: HugeBodyLog): Responder {
  return (_request, response) => {
    response.writeHead(status, {
      "content-type": "application/json",
      ...(declare && { "content-length": String(bytes) }),
    });
    let sent = 0;
    response.on("close", () => {
      if (sent < bytes) log.cutOff++;
    });
    const pump = (): void => {
      while (!response.destroyed && sent < bytes) {
        const size = Math.min(CHUNK.length, bytes - sent);
        sent += size;
        log.sentBytes += size;
        if (!response.write(size === CHUNK.length ? CHUNK : CHUNK.subarray(0, size))) {
          response.once("drain", pump);
          return;
        }
      }
      if (sent >= bytes) response.end();
    };
    pump();
  };
}

/** The access token the providers are configured with. */
export const ACCESS_TOKEN = "at-hostile-test-access-token";
/** The webhook every create asks for, and its recorded outputs. */
export const SPEC = { event: "ticket_opened", url: "https://hooks.example.test/hostile" } as const;
export const RECORDED = { ...SPEC, state: "active" };
/** An ordinary create response, for the request after a hostile one. */
export const OK_RESPONSE = json(201, { webhook: { id: "wh_ok", event: SPEC.event, url: SPEC.url, state: "active" } });
/**
 * A generous ceiling on a process's peak RSS while it meets huge answers, in MiB: a process that kept a 1 GiB answer
 * (or decoded a 10 MiB one a few times) goes past it.
 */
export const PEAK_RSS_CEILING_MIB = 400;

/**
 * Webhook ids that break the id rule (kernel/webhook-rules.ts), one of each kind: dot-segments, a path, empty, and
 * 10 KiB long.
 */
export const BAD_IDS: readonly string[] = [".", "..", "a/b", "", "x".repeat(10 * 1024)];

/**
 * Create answers (201) whose id is unusable, by every way an id arrives (`webhook.id`, `webhook.href`, `Location`);
 * each must end in the "may have been created" message. The hrefs are read as written: `/v1/webhooks/..` must not
 * become the id `v1`; `%E0%A4%A` is a malformed escape (L5 of the d785ad2 audit).
 */
export const BAD_ID_RESPONSES: ReadonlyArray<{ what: string; body: unknown; headers?: Record<string, string> }> = [
  ...BAD_IDS.map((id) => ({
    what: `webhook.id ${JSON.stringify(id.slice(0, 12))}${id.length > 12 ? "…" : ""}`,
    body: { webhook: { id, event: "ticket_opened", state: "active" } },
  })),
  ...[
    "/v1/webhooks/..",
    "/v1/webhooks/%2e%2e",
    "https://h.example/v1/webhooks/.",
    "/v1/webhooks/a%2Fb",
    "/v1/webhooks/%E0%A4%A",
  ].map((href) => ({
    what: `webhook.href ${href}`,
    body: { webhook: { href, event: "ticket_opened" } },
  })),
  {
    what: "Location /v1/webhooks/..",
    body: { webhook: { event: "ticket_opened" } },
    headers: { location: "/v1/webhooks/.." },
  },
  {
    what: "Location /v1/webhooks/%E0%A4%A",
    body: { webhook: { event: "ticket_opened" } },
    headers: { location: "/v1/webhooks/%E0%A4%A" },
  },
];

/** The words of the create's "may have been created" message (provider/core/client.ts `orphanError`). */
export const ORPHAN_MESSAGE =
  /may have been created and is not in Pulumi state: find it in the help desk's webhook page and delete it there/;

/** The sizes of the huge answers: one declared in `Content-Length`, one streamed without a length. */
export const HUGE_RESPONSES = [
  { what: "10 MiB, Content-Length declared", bytes: 10 * 1024 * 1024, declare: true },
  { what: "1 GiB, streamed chunked", bytes: 1024 * 1024 * 1024, declare: false },
] as const;

/** A host name that is not loopback by the base URL rule (kernel/base-url.ts), for {@link resolveToLoopback}. */
export const REMOTE_NAME = "helpdesk.example.test";

/**
 * Writes a module that, `--require`d (or `require`d) into a Node.js process, makes `dns.lookup` resolve
 * {@link REMOTE_NAME} to 127.0.0.1, so a request to `http://helpdesk.example.test:PORT` would reach a local answer
 * server: a count of zero connections there then proves that nothing was sent, not that the name did not resolve.
 *
 * @param folder where to write it (the caller removes it)
 * @returns the module's path
 */
export function resolveToLoopback(folder: string): string {
  const file = join(folder, "resolve-to-loopback.cjs");
  writeFileSync(
    file,
    `const dns = require("node:dns");
const lookup = dns.lookup;
dns.lookup = function (hostname, options, callback) {
  if (hostname !== ${JSON.stringify(REMOTE_NAME)}) return lookup.apply(this, arguments);
  const done = typeof options === "function" ? options : callback;
  const all = typeof options === "object" && options !== null && options.all;
  process.nextTick(() => (all ? done(null, [{ address: "127.0.0.1", family: 4 }]) : done(null, "127.0.0.1", 4)));
};
`,
  );
  return file;
}
