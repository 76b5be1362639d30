/**
 * Test support: local copies of the registries `npm run publish` sends to (tests/publish/registries.test.ts), each
 * on 127.0.0.1 with its log kept, so a test can tell an upload from a read:
 *
 * - Verdaccio (npm), installed by scripts/setup.sh --test into `$HELPDESK_CACHE/verdaccio`. The project's two
 *   packages are its own (anyone may publish them); every other package comes through its uplink from the registry
 *   npm is configured with here (`npm config get registry`), so `npm install <name>` resolves the dependencies too.
 * - pypiserver (PyPI), from the virtualenv `$HELPDESK_PYPISERVER_VENV` (setup.sh --test): anyone may upload, a file
 *   name is never replaced (409), no fallback to another index.
 * - {@link serveFolder}: a static HTTP server of a folder (the Go module proxy, the plugin mirror, the Maven
 *   repository that the stand-in of Maven Central's Portal publishes into: tests/support/central-portal.ts).
 */
import { createReadStream, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join, normalize, sep } from "node:path";
import { freePort } from "./cli.js";
import { startProcess, waitFor } from "./processes.js";
import { helpdeskCache } from "./python.js";

/** A running local registry or file server. */
export interface LocalServer {
  /** its base URL, ending in `/` */
  url: string;
  /** what it logged so far (Verdaccio, pypiserver) or the requests it served, as `METHOD /path` lines */
  log(): string;
  close(): Promise<void>;
}

/** A server process on a port, stopped by `close`. */
async function startServer(
  what: string,
  command: string,
  args: string[],
  port: number,
  env: NodeJS.ProcessEnv,
): Promise<LocalServer> {
  if (!existsSync(command)) throw new Error(`${what} is missing (${command}): run scripts/setup.sh --test`);
  const started = startProcess(command, args, { env });
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(
    `${what} listening on ${url}`,
    async () => {
      if (started.child.exitCode !== null)
        throw new Error(`${what} exited with ${started.child.exitCode}:\n${started.output()}`);
      return fetch(url).then(
        () => true,
        () => false,
      );
    },
    60_000,
    200,
  );
  return { url, log: started.output, close: () => started.stop() };
}

/**
 * Starts Verdaccio with its storage in `dir`.
 *
 * @param dir a folder of the test (its config, storage)
 * @param upstream the registry it proxies every other package from
 * @param packages the names published to it (only these are its own)
 */
export async function startVerdaccio(dir: string, upstream: string, packages: string[]): Promise<LocalServer> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const own = packages.map((name) => `  '${name}':\n    access: $all\n    publish: $all\n`).join("");
  writeFileSync(
    join(dir, "config.yaml"),
    `storage: ${join(dir, "storage")}\nuplinks:\n  upstream:\n    url: ${upstream}\npackages:\n${own}  '**':\n    access: $all\n    proxy: upstream\nlog: { type: stdout, format: pretty, level: http }\n`,
  );
  return startServer(
    "Verdaccio",
    join(helpdeskCache, "verdaccio", "node_modules", ".bin", "verdaccio"),
    ["--config", join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`],
    port,
    process.env,
  );
}

/**
 * Starts pypiserver serving and storing the packages of `dir`.
 *
 * @param dir the packages folder (created)
 */
export async function startPypiserver(dir: string): Promise<LocalServer> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const venv = process.env.HELPDESK_PYPISERVER_VENV || join(helpdeskCache, "pypiserver-venv");
  return startServer(
    "pypiserver",
    join(venv, "bin", "pypi-server"),
    ["run", "-i", "127.0.0.1", "-p", String(port), "-a", ".", "-P", ".", "--disable-fallback", "-v", dir],
    port,
    process.env,
  );
}

/**
 * Serves the files under `dir` (GET, HEAD; 404 for anything else) and records every request.
 *
 * @param dir the folder
 */
export async function serveFolder(dir: string): Promise<LocalServer> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const path = decodeURIComponent((request.url ?? "/").split("?")[0]!);
    const file = normalize(join(dir, path));
    if (!file.startsWith(dir + sep)) {
      response.writeHead(400).end();
      return;
    }
    if ((request.method !== "GET" && request.method !== "HEAD") || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": "application/octet-stream", "content-length": statSync(file).size });
    if (request.method === "HEAD") response.end();
    else createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    log: () => requests.join("\n"),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
