/**
 * Test support: a local stand-in of Maven Central's Portal Publisher API (the Portal cannot be reached here), on
 * 127.0.0.1, recording every request, for `npm run publish`'s Maven target (scripts/publish/maven.ts). It answers as
 * Sonatype's "Publishing By Using the Portal Publisher API" documents:
 *
 * - every request needs `Authorization: Bearer base64(<username>:<password>)` of its one user token, else 401;
 * - `POST upload?publishingType=AUTOMATIC|USER_MANAGED&name=` with the multipart field `bundle` (a zip in the Maven
 *   repository layout) answers 201 and a deployment id; the bundle is validated as the Portal validates it: for each
 *   component (a folder with a POM) the POM's coordinates match its folder and lie in the account's namespace, the
 *   POM has {@link CENTRAL_POM_ELEMENTS}, the jar, `-sources.jar`, `-javadoc.jar` and POM are there, each with an
 *   `.asc` that gpg verifies against the public keys the Portal knows (a key server's, here the test's key) and an
 *   `.md5` and `.sha1` that match, and the version is not published yet;
 * - `POST status?id=` answers `{deploymentId, deploymentName, deploymentState, purls, errors?}`, one step further at
 *   each request: PENDING, VALIDATING, then FAILED (with the errors, keyed by `pkg:maven/<g>/<a>@<v>` or `common`)
 *   or VALIDATED; an AUTOMATIC deployment goes on to PUBLISHING and PUBLISHED, and is then copied into
 *   `<dir>/repository`, the Maven repository that {@link CentralPortal.repository} serves over HTTP (as Maven
 *   Central serves what the Portal published);
 * - `GET published?namespace=&name=&version=` answers `{"published": true|false}`.
 *
 * Written here because no library plays the Portal; the zip is read with the JDK's `jar` and the multipart body with
 * Node's own parser (`Response.formData`).
 */

import { execFile } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { required } from "../../kernel/required.ts";
import { CENTRAL_POM_ELEMENTS, PUBLISHER_API, PUBLISHING_TYPES } from "../../scripts/publish/maven.ts";
import { type LocalServer, serveFolder } from "./registries.js";

const run = promisify(execFile);

/** The running stand-in. */
export interface CentralPortal extends LocalServer {
  /** the Maven repository of what it published, served over HTTP (what `mvn` reads by name) */
  repository: LocalServer;
  /** the folder of that repository */
  repositoryDir: string;
}

/** One deployment: its answers, one per status request, and what it publishes at the end. */
interface Deployment {
  name: string;
  states: string[];
  polls: number;
  purls: string[];
  errors: Record<string, string[]>;
  /** the unzipped bundle, copied into the repository when PUBLISHED */
  files: string;
}

/** Every file below `dir`, as paths relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

/** The project's own element `name` of a POM (before its dependencies, as a parent's would differ). */
function pomElement(pom: string, name: string): string | undefined {
  const head = pom.includes("<dependencies>") ? pom.slice(0, pom.indexOf("<dependencies>")) : pom;
  return new RegExp(`<${name}>([^<]+)</${name}>`).exec(head)?.[1]?.trim();
}

/**
 * Validates an unzipped bundle as the Portal does (see the module doc).
 *
 * @param files the bundle's folder
 * @param keyring the public keys the Portal knows: the folder of gpgv's `--homedir` and its keyring file
 * @param namespace the namespace the user token's account holds
 * @param repository the published repository (a version there is refused)
 * @returns the components' package URLs and the errors, by component (`common`: the bundle's own)
 */
async function validate(
  files: string,
  keyring: { home: string; file: string },
  namespace: string,
  repository: string,
): Promise<{ purls: string[]; errors: Record<string, string[]> }> {
  const errors: Record<string, string[]> = {};
  const purls: string[] = [];
  const all = filesBelow(files);
  const poms = all.filter((path) => path.endsWith(".pom"));
  if (poms.length === 0) errors.common = ["The bundle holds no POM file"];
  for (const pomPath of poms) {
    const pom = readFileSync(join(files, pomPath), "utf8");
    const [group, artifact, version] = ["groupId", "artifactId", "version"].map((name) => pomElement(pom, name));
    const purl = `pkg:maven/${group}/${artifact}@${version}`;
    purls.push(purl);
    const wrong: string[] = [];
    if (!group || !artifact || !version) {
      errors[purl] = [`${pomPath} has no groupId, artifactId or version`];
      continue;
    }
    const folder = [...group.split("."), artifact, version].join("/");
    if (dirname(pomPath) !== folder) wrong.push(`File path '${dirname(pomPath)}' does not match the POM's ${folder}`);
    if (group !== namespace && !group.startsWith(`${namespace}.`)) wrong.push(`Namespace '${group}' is not allowed`);
    if (existsSync(join(repository, folder, `${artifact}-${version}.pom`)))
      wrong.push(`Component with package url: '${purl}' already exists`);
    for (const element of CENTRAL_POM_ELEMENTS)
      if (!new RegExp(`<${element}>`).test(pom)) wrong.push(`Project ${element} is missing`);
    for (const suffix of [".jar", "-sources.jar", "-javadoc.jar", ".pom"]) {
      const name = `${artifact}-${version}${suffix}`;
      const file = join(files, folder, name);
      if (!existsSync(file)) {
        wrong.push(`Missing file: ${name}`);
        continue;
      }
      const bytes = readFileSync(file);
      for (const algorithm of ["md5", "sha1"] as const) {
        const sum = `${file}.${algorithm}`;
        if (!existsSync(sum)) wrong.push(`Missing ${algorithm} checksum for file: ${name}`);
        else if (readFileSync(sum, "utf8").trim().split(/\s/)[0] !== createHash(algorithm).update(bytes).digest("hex"))
          wrong.push(`Invalid ${algorithm} checksum for file: ${name}`);
      }
      if (!existsSync(`${file}.asc`)) wrong.push(`Missing signature for file: ${name}`);
      else {
        const verify = ["--homedir", keyring.home, "--keyring", keyring.file, `${file}.asc`, file];
        const verified = await run("gpgv", verify).then(
          () => true,
          () => false,
        );
        if (!verified) wrong.push(`Invalid signature for file: ${name}.asc - Failed to verify the PGP signature`);
      }
    }
    if (wrong.length > 0) errors[purl] = wrong;
  }
  return { purls, errors };
}

/** Reads a request's body. */
async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Starts the stand-in.
 *
 * @param dir a folder of the test: the Portal's keyring, its deployments, `repository/`
 * @param account the user token (`username`, `password`), the namespace its account holds, and the armored public
 *   keys the Portal verifies signatures with
 */
export async function startCentralPortal(
  dir: string,
  account: { username: string; password: string; namespace: string; publicKeys: string },
): Promise<CentralPortal> {
  // gpgv (gpg's verify-only tool) with a keyring file: no keyring folder to import into, no gpg-agent to start.
  const keyring = { home: join(dir, "gnupg"), file: join(dir, "gnupg", "portal-keys.gpg") };
  const repositoryDir = join(dir, "repository");
  mkdirSync(keyring.home, { recursive: true, mode: 0o700 });
  mkdirSync(repositoryDir, { recursive: true });
  writeFileSync(join(dir, "public-keys.asc"), account.publicKeys);
  await run("gpg", [
    "--homedir",
    keyring.home,
    "--batch",
    "--dearmor",
    "--output",
    keyring.file,
    join(dir, "public-keys.asc"),
  ]);
  const token = Buffer.from(`${account.username}:${account.password}`).toString("base64");
  const deployments = new Map<string, Deployment>();
  const requests: string[] = [];

  const answer = (response: ServerResponse, status: number, body: unknown): void => {
    const json = typeof body !== "string";
    response
      .writeHead(status, { "content-type": json ? "application/json" : "text/plain" })
      .end(json ? JSON.stringify(body) : body);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const path = url.pathname.slice(1);
    if (request.headers.authorization !== `Bearer ${token}`) {
      request.resume();
      return answer(response, 401, { error: { message: "Invalid token" } });
    }
    if (request.method === "GET" && path === PUBLISHER_API.published) {
      const [namespace, name, version] = ["namespace", "name", "version"].map((key) => url.searchParams.get(key));
      if (!namespace || !name || !version)
        return answer(response, 400, { error: { message: "namespace, name and version are required" } });
      const pom = join(repositoryDir, ...namespace.split("."), name, version, `${name}-${version}.pom`);
      return answer(response, 200, { published: existsSync(pom) });
    }
    if (request.method === "POST" && path === PUBLISHER_API.upload) {
      const type = url.searchParams.get("publishingType") ?? "USER_MANAGED";
      if (!(PUBLISHING_TYPES as readonly string[]).includes(type))
        return answer(response, 400, { error: { message: `Unknown publishingType ${type}` } });
      const form = await new Response(await bodyOf(request), {
        headers: { "content-type": request.headers["content-type"] ?? "" },
      })
        .formData()
        .catch(() => undefined);
      const bundle = form?.get("bundle");
      if (!bundle || typeof bundle === "string")
        return answer(response, 400, { error: { message: "the multipart field bundle is required" } });
      const id = randomUUID();
      const files = join(dir, "deployments", id);
      mkdirSync(files, { recursive: true });
      writeFileSync(join(dir, "deployments", `${id}.zip`), Buffer.from(await bundle.arrayBuffer()));
      const unzipped = await run("jar", ["--extract", "--file", join(dir, "deployments", `${id}.zip`)], {
        cwd: files,
      }).then(
        () => true,
        () => false,
      );
      const { purls, errors } = unzipped
        ? await validate(files, keyring, account.namespace, repositoryDir)
        : { purls: [], errors: { common: ["The bundle is not a zip file"] } };
      const failed = Object.keys(errors).length > 0;
      const states = ["PENDING", "VALIDATING", failed ? "FAILED" : "VALIDATED"];
      if (!failed && type === "AUTOMATIC") states.push("PUBLISHING", "PUBLISHED");
      deployments.set(id, {
        name: url.searchParams.get("name") ?? bundle.name,
        states,
        polls: 0,
        purls,
        errors,
        files,
      });
      return answer(response, 201, id);
    }
    if (request.method === "POST" && path === PUBLISHER_API.status) {
      const id = url.searchParams.get("id") ?? "";
      const deployment = deployments.get(id);
      if (!deployment) return answer(response, 404, { error: { message: `No deployment ${id}` } });
      const state = required(
        deployment.states[Math.min(deployment.polls++, deployment.states.length - 1)],
        `a state of deployment ${id}`,
      );
      if (state === "PUBLISHED" && deployment.polls === deployment.states.length)
        cpSync(deployment.files, repositoryDir, { recursive: true });
      return answer(response, 200, {
        deploymentId: id,
        deploymentName: deployment.name,
        deploymentState: state,
        purls: deployment.purls,
        ...(state === "FAILED" ? { errors: deployment.errors } : {}),
      });
    }
    request.resume();
    return answer(response, 404, { error: { message: "Not found" } });
  };

  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    handle(request, response).catch((error: unknown) => answer(response, 500, String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const repository = await serveFolder(repositoryDir);
  return {
    url: `http://127.0.0.1:${port}/`,
    log: () => requests.join("\n"),
    repository,
    repositoryDir,
    close: async () => {
      await repository.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A gpg signing key in a keyring of its own, as the release job's runner holds it. */
export interface SigningKey {
  /** the keyring's folder: `GNUPGHOME` of whoever signs */
  home: string;
  /** the armored public key */
  publicKey: string;
  /** stops the gpg-agent that signing started in the keyring */
  close(): Promise<void>;
}

/**
 * Makes a signing key (`gpg --quick-gen-key`, ed25519) in `home`, and stops the gpg-agent that made it, so that no
 * passphrase stays cached: a signer must give it (maven-gpg-plugin reads `MAVEN_GPG_PASSPHRASE`).
 *
 * @param home a folder of the test (created)
 * @param name the key's user id
 * @param passphrase the key's passphrase (default: none)
 */
export async function makeSigningKey(home: string, name: string, passphrase = ""): Promise<SigningKey> {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const gpg = (args: string[]) => run("gpg", ["--homedir", home, "--batch", ...args]);
  const kill = async () => {
    await run("gpgconf", ["--homedir", home, "--kill", "all"]);
  };
  await gpg([
    "--pinentry-mode",
    "loopback",
    "--passphrase",
    passphrase,
    "--quick-gen-key",
    name,
    "ed25519",
    "sign",
    "never",
  ]);
  await kill();
  const { stdout } = await gpg(["--armor", "--export"]);
  return { home, publicKey: stdout, close: kill };
}
