/**
 * The loopback redirect receiver of `pulumi-helpdesk login` (RFC 8252 §7.3: loopback interface redirection).
 *
 * Listens on exactly the host, port and path of the registered `redirect_uri` (spec §5.3 requires an exact match),
 * answers the browser with a small page, and hands the full callback URL to the OAuth code exchange.
 */
import { createServer, type Server } from "node:http";
import { CliError } from "./output.js";

/** A listening receiver: `callback` settles with the URL the browser was sent to. */
export interface CallbackReceiver {
  /** Settles with the redirect's full URL (query included), or rejects on timeout. */
  callback: Promise<URL>;
  /** Stops listening (idempotent). */
  close(): Promise<void>;
}

/**
 * Tells whether a redirect URI points at this machine (`127.0.0.1`, `::1` or `localhost`, over http).
 */
export function isLoopbackRedirect(redirectUri: URL): boolean {
  return redirectUri.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(redirectUri.hostname);
}

/**
 * Starts listening for the OAuth redirect.
 *
 * @param redirectUri the registered redirect URI (loopback, http, with an explicit port)
 * @param timeoutSeconds how long to wait for the browser, in seconds
 * @throws CliError when the port is taken (the message names it) or cannot be bound
 */
export async function listenForCallback(redirectUri: URL, timeoutSeconds: number): Promise<CallbackReceiver> {
  const port = Number(redirectUri.port || 80);
  const host = redirectUri.hostname === "localhost" ? "127.0.0.1" : redirectUri.hostname.replace(/^\[|\]$/g, "");
  let settle: { resolve(url: URL): void; reject(error: Error): void } | undefined;
  const callback = new Promise<URL>((resolve, reject) => (settle = { resolve, reject }));
  callback.catch(() => undefined); // a rejection nobody awaits (after close) is not an unhandled error

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", redirectUri);
    if (req.method !== "GET" || url.pathname !== redirectUri.pathname) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not the pulumi-helpdesk login callback.\n");
      return;
    }
    const failed = url.searchParams.has("error");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", connection: "close" });
    res.end(resultPage(failed ? `Sign-in failed: ${url.searchParams.get("error")}` : "You are signed in", failed));
    settle?.resolve(url);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        new CliError(
          error.code === "EADDRINUSE"
            ? `cannot receive the sign-in redirect: ${host}:${port} is already in use. Stop what listens there, or register a different redirect URI.`
            : `cannot listen on ${host}:${port} for the sign-in redirect: ${error.message}`,
        ),
      );
    });
    server.listen(port, host, resolve);
  });

  const timer = setTimeout(
    () => settle?.reject(new CliError(`timed out after ${timeoutSeconds} s waiting for the browser to come back to ${redirectUri.href}`)),
    timeoutSeconds * 1000,
  );
  let closed = false;
  return {
    callback,
    close: async () => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function resultPage(title: string, failed: boolean): string {
  const color = failed ? "#b42318" : "#027a48";
  const next = failed ? "Return to the terminal for details." : "You can close this tab and return to the terminal.";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>pulumi-helpdesk login</title>
<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;height:100vh;margin:0;background:#f8fafc}
main{background:#fff;padding:2rem 3rem;border-radius:12px;box-shadow:0 1px 4px #0002;text-align:center}
h1{color:${color};font-size:1.4rem}</style></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${next}</p></main></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
