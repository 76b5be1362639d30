/**
 * Test support: local copies of the registries `npm run publish` sends to (tests/publish/registries.test.ts), each
 * on 127.0.0.1 with its log kept, so a test can tell an upload from a read:
 *
 * - Verdaccio (npm), installed by scripts/setup.sh --test into `$HELPDESK_CACHE/verdaccio`. The project's packages
 *   are its own: anyone may read them, only an authenticated user may publish them (`publish: $authenticated`, its
 *   htpasswd), and {@link startVerdaccio} makes that user and gives its token, as a registry's automation token is
 *   given to the publish, so a test proves the token is used. Every other package comes through its uplink from the
 *   registry npm is configured with here (`npm config get registry`), so `npm install <name>` resolves the
 *   dependencies too.
 * - pypiserver (PyPI), from the virtualenv `$HELPDESK_PYPISERVER_VENV` (setup.sh --test): anyone may upload, a file
 *   name is never replaced (409), no fallback to another index.
 * - {@link serveFolder}: a static HTTP server of a folder (the Go module proxy, the plugin mirror, the Maven
 *   repository that the stand-in of Maven Central's Portal publishes into: tests/support/central-portal.ts).
 */
import { execFileSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, normalize, sep } from "node:path";
import { PLUGIN_EXECUTABLE } from "../../kernel/names.js";
import { type Ran, runCommand, startProcess, waitFor } from "../../scripts/lib/processes.ts";
import { freePort } from "./cli.js";
import { workingTreeCopy } from "./package.js";
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

/** A running Verdaccio and the token of its one user, who may publish. */
export interface Verdaccio extends LocalServer {
  /** the user's token (what `NODE_AUTH_TOKEN` carries to npm) */
  token: string;
}

/**
 * Starts Verdaccio with its storage in `dir`, and makes the user who may publish through Verdaccio's own API (`PUT
 * /-/user/org.couchdb.user:<name>`, what `npm adduser` sends), which answers with the user's token.
 *
 * @param dir a folder of the test (its config, storage, htpasswd)
 * @param upstream the registry it proxies every other package from; none: it serves only its own
 * @param packages the names published to it (only these are its own)
 * @throws Error when Verdaccio does not start or does not make the user
 */
export async function startVerdaccio(
  dir: string,
  upstream: string | undefined,
  packages: string[],
): Promise<Verdaccio> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const own = packages.map((name) => `  '${name}':\n    access: $all\n    publish: $authenticated\n`).join("");
  const others = upstream ? `  '**':\n    access: $all\n    proxy: upstream\n` : "";
  writeFileSync(
    join(dir, "config.yaml"),
    [
      `storage: ${join(dir, "storage")}`,
      `auth:\n  htpasswd:\n    file: ${join(dir, "htpasswd")}\n    max_users: 1`,
      upstream ? `uplinks:\n  upstream:\n    url: ${upstream}` : "uplinks: {}",
      `packages:\n${own}${others}`,
      "log: { type: stdout, format: pretty, level: http }\n",
    ].join("\n"),
  );
  const server = await startServer(
    "Verdaccio",
    join(helpdeskCache, "verdaccio", "node_modules", ".bin", "verdaccio"),
    ["--config", join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`],
    port,
    process.env,
  );
  const name = "publisher";
  const response = await fetch(`${server.url}-/user/org.couchdb.user:${name}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ _id: `org.couchdb.user:${name}`, name, password: randomUUID(), type: "user", roles: [] }),
  });
  const answer = (await response.json()) as { token?: string };
  if (!response.ok || !answer.token) {
    await server.close();
    throw new Error(`Verdaccio did not make the user ${name}: ${response.status} ${JSON.stringify(answer)}`);
  }
  return { ...server, token: answer.token };
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
    const [path = ""] = (request.url ?? "/").split("?");
    const file = normalize(join(dir, decodeURIComponent(path)));
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

/**
 * A checkout as the release workflow's publish job has it: a copy of the working tree ({@link workingTreeCopy}: no
 * node_modules, no dist/), made a git repository of one commit (the Go target tags HEAD), with package.json's version
 * set to `version` when given (a prerelease's checkout).
 *
 * @param dir the folder to make
 * @param version package.json's version in the copy (default: the working tree's)
 * @returns `dir`
 */
export function publishCheckout(dir: string, version?: string): string {
  workingTreeCopy(dir);
  if (version) {
    const file = join(dir, "package.json");
    const pkg = JSON.parse(readFileSync(file, "utf8")) as { version: string };
    writeFileSync(file, `${JSON.stringify({ ...pkg, version }, null, 2)}\n`);
  }
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", dir, "-c", "user.name=test", "-c", "user.email=test@127.0.0.1", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
  git("init", "--quiet", "--initial-branch=main");
  git("add", "--all");
  git("commit", "--quiet", "--no-gpg-sign", "--message=the release");
  return dir;
}

/**
 * A folder of links to the tools a run may use, to be its whole PATH: `node` is the Node.js running the tests, the
 * others are the test's own PATH's.
 *
 * @param dir the folder to make
 * @param tools the names, e.g. `["bash", "sed", "dirname"]` (what scripts/publish.sh itself runs)
 * @returns `dir`
 * @throws Error when a tool is not on the test's PATH
 */
export function toolsFolder(dir: string, tools: readonly string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const tool of tools) {
    const found =
      tool === "node"
        ? process.execPath
        : (process.env.PATH ?? "")
            .split(":")
            .map((folder) => join(folder, tool))
            .find((file) => existsSync(file));
    if (!found) throw new Error(`${tool} is not on PATH`);
    symlinkSync(found, join(dir, tool));
  }
  return dir;
}

/** What scripts/publish.sh runs itself (bash and what scripts/lib/env.sh uses). */
export const PUBLISH_SCRIPT_TOOLS = ["bash", "sed", "dirname"] as const;

/**
 * Runs `scripts/publish.sh` of a checkout ({@link publishCheckout}) as the publish job does: in an environment of
 * only `env` (a HOME of the test's, so npm's logs and settings stay there), no HELPDESK_CACHE but the one given;
 * `bash` is looked up on `env.PATH`, as npm would.
 *
 * @param checkout the checkout
 * @param args publish.ts's options
 * @param env the whole environment (PATH included)
 */
export function runPublish(checkout: string, args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return runCommand("bash", [join(checkout, "scripts", "publish.sh"), ...args], { cwd: checkout, env });
}

/**
 * A small release folder for the targets that only move files: fake plugin archives of `version` (GitHub), npm
 * tarballs of the project's two packages with a README each (npm), and SHA256SUMS.
 *
 * @param dir the folder to make
 * @param version the release's version
 * @param packages the npm packages' names (none: no tarballs)
 * @returns `dir`
 */
export function smallRelease(dir: string, version: string, packages: readonly string[] = []): string {
  mkdirSync(dir, { recursive: true });
  for (const platform of ["linux-amd64", "darwin-arm64"])
    writeFileSync(join(dir, `${PLUGIN_EXECUTABLE}-v${version}-${platform}.tar.gz`), `${platform}\n`);
  for (const name of packages) npmTarball(dir, name, version);
  const names = readdirSync(dir).filter((name) => name !== "SHA256SUMS");
  writeFileSync(
    join(dir, "SHA256SUMS"),
    names
      .map(
        (name) =>
          `${createHash("sha256")
            .update(readFileSync(join(dir, name)))
            .digest("hex")}  ${name}\n`,
      )
      .join(""),
  );
  return dir;
}

/**
 * Writes an npm tarball of a package with only a package.json and a README into `dir`, named as `npm pack` names it.
 *
 * @param readme the README's text (other text: other bytes of the same version)
 * @returns the tarball's path
 */
export function npmTarball(dir: string, name: string, version: string, readme = `${name}\n`): string {
  const source = mkdtempSync(join(tmpdir(), "helpdesk-tarball-"));
  try {
    mkdirSync(join(source, "package"));
    writeFileSync(join(source, "package", "package.json"), JSON.stringify({ name, version, license: "Apache-2.0" }));
    writeFileSync(join(source, "package", "README.md"), readme);
    const file = join(dir, `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`);
    execFileSync("tar", ["-czf", file, "-C", source, "package"]);
    return file;
  } finally {
    rmSync(source, { recursive: true, force: true });
  }
}
