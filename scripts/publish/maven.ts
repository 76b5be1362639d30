/**
 * The Maven target of `npm run publish`: the Java SDK (sdk/java, generated with its pom.xml by
 * scripts/sdk/generate-java.sh) published to Maven Central through the Central Portal's Publisher API (Sonatype's
 * "Publishing By Using the Portal Publisher API"), the route the Portal documents for a client of its own:
 *
 * 1. Asked first: `GET <portal>/api/v1/publisher/published?namespace=<groupId>&name=<artifactId>&version=<version>`,
 *    which answers `{"published": true|false}`. Published is present and skipped: Maven Central never replaces a
 *    release, and a rebuilt jar never has the same bytes (jar entries carry their build time), so there is nothing
 *    to compare. Not published is sent.
 * 2. The bundle, built by Maven itself: `mvn -Prelease deploy` of a copy of sdk/java into a staging folder
 *    (`-DaltDeploymentRepository=staging::file://<folder>`), which writes the Maven repository layout the Portal
 *    reads: the jar, `-sources.jar`, `-javadoc.jar` and the POM, each with its `.asc` (the profile `release` signs
 *    with gpg), `.md5` and `.sha1`. `jar` (the JDK's) zips the version's folder.
 * 3. `POST <portal>/api/v1/publisher/upload?name=<artifactId>-<version>&publishingType=<type>`, the zip as the
 *    multipart field `bundle`, answers the deployment's id; then `POST <portal>/api/v1/publisher/status?id=<id>`
 *    until its `deploymentState` is PUBLISHED (VALIDATED with `USER_MANAGED`), at growing intervals for at most
 *    {@link WAIT_MINUTES} minutes. FAILED stops the run with the Portal's errors on one line.
 *
 * Settings, from the environment (the names: {@link CENTRAL_SETTINGS}): the Portal's address, and a Portal user
 * token (Account, "Generate User Token"; sent as `Authorization: Bearer base64(<username>:<password>)`, never
 * printed, never given to Maven); the signing key is gpg's own (the runner's keyring, `GNUPGHOME`), its passphrase
 * in `MAVEN_GPG_PASSPHRASE` (read by maven-gpg-plugin). `MAVEN_ARGS` adds arguments to every mvn run (e.g.
 * `-s <settings.xml>` naming a mirror), as Maven 3.9 reads it; given to mvn explicitly, so Maven 3.8 honours it too.
 *
 * No Maven run writes the account's Maven repository (`~/.m2/repository`: `deploy` runs the lifecycle through
 * `install`): each has a local repository of its own in a temporary folder (`-Dmaven.repo.local`), removed after.
 */

import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { required } from "../../kernel/required.ts";
import { PublishError, runTool, type Target, tail, toolNeed } from "./common.ts";

const NAME = "maven";

/** The elements of the POM Maven Central requires of a release, besides the coordinates. */
export const CENTRAL_POM_ELEMENTS = ["name", "description", "url", "licenses", "scm", "developers"] as const;

/** The environment variables of the target: the Portal's address and user token, and how it publishes. */
export const CENTRAL_SETTINGS = {
  /** the Central Portal's base URL (its address alone: no user name, password or query) */
  url: "MAVEN_CENTRAL_URL",
  /** the user name of a Portal user token */
  username: "MAVEN_CENTRAL_USERNAME",
  /** the password of that user token */
  password: "MAVEN_CENTRAL_PASSWORD",
  /** `AUTOMATIC` (default: published once validated) or `USER_MANAGED` (validated, then published in the Portal) */
  publishingType: "MAVEN_CENTRAL_PUBLISHING_TYPE",
} as const;

/** The Portal's publishing types (`publishingType` of the upload). */
export const PUBLISHING_TYPES = ["AUTOMATIC", "USER_MANAGED"] as const;

/** The Publisher API's paths, relative to the Portal's base URL. */
export const PUBLISHER_API = {
  upload: "api/v1/publisher/upload",
  status: "api/v1/publisher/status",
  published: "api/v1/publisher/published",
} as const;

/** How long a publish waits for the Portal to validate and publish a deployment, in minutes. */
export const WAIT_MINUTES = 30;

/** The longest pause between two status requests, in milliseconds (the first is 1 s, then doubled). */
const MAX_POLL_MS = 15_000;

/** The target's settings, read from the environment (see {@link CENTRAL_SETTINGS}). */
interface PortalSettings {
  /** the Portal's base URL, ending in `/`: safe to print (no credential) */
  base: string;
  /** base64(`<username>:<password>`), the bearer token: never printed */
  token: string;
  publishingType: (typeof PUBLISHING_TYPES)[number];
}

/**
 * Reads the settings.
 *
 * @throws PublishError naming the variables that are missing, a URL that is not one or that carries a credential
 *   (the URL is not printed then), or an unknown publishing type
 */
function portalSettings(): PortalSettings {
  const env = process.env;
  const missing = [CENTRAL_SETTINGS.url, CENTRAL_SETTINGS.username, CENTRAL_SETTINGS.password].filter(
    (name) => !env[name],
  );
  if (missing.length > 0)
    throw new PublishError(
      NAME,
      `${missing.join(", ")} not set: ${CENTRAL_SETTINGS.url} is the Central Portal's address, ${CENTRAL_SETTINGS.username} and ${CENTRAL_SETTINGS.password} a Portal user token (Account, Generate User Token)`,
    );
  const given = required(env[CENTRAL_SETTINGS.url], CENTRAL_SETTINGS.url);
  let url: URL;
  try {
    url = new URL(given);
  } catch (error) {
    throw new PublishError(NAME, `${CENTRAL_SETTINGS.url} is not a URL (the Central Portal's address)`, {
      cause: error,
    });
  }
  // The URL is printed in every line of the target: it must carry no credential. Said without printing it.
  if (url.username || url.password || url.search || !/^https?:$/.test(url.protocol))
    throw new PublishError(
      NAME,
      `${CENTRAL_SETTINGS.url} must be the Central Portal's http(s) address alone, without a user name, password or query: the user token goes in ${CENTRAL_SETTINGS.username} and ${CENTRAL_SETTINGS.password}`,
    );
  const type = env[CENTRAL_SETTINGS.publishingType] || "AUTOMATIC";
  if (!(PUBLISHING_TYPES as readonly string[]).includes(type))
    throw new PublishError(
      NAME,
      `${CENTRAL_SETTINGS.publishingType} is ${type} (allowed: ${PUBLISHING_TYPES.join(", ")})`,
    );
  return {
    base: `${url.origin}${url.pathname.replace(/\/?$/, "/")}`,
    token: Buffer.from(`${env[CENTRAL_SETTINGS.username]}:${env[CENTRAL_SETTINGS.password]}`).toString("base64"),
    publishingType: type as PortalSettings["publishingType"],
  };
}

/**
 * What the Portal said in a refusal, on one line: a JSON body's `error.message` or `message`, else the text without
 * its markup, at most 300 characters.
 */
function portalMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown };
    const message = body.error?.message ?? body.message;
    if (typeof message === "string" && message) return message;
  } catch {
    // not JSON: the text itself
  }
  const plain = text
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return plain.length > 300 ? `${plain.slice(0, 300)}...` : plain || "no reason given";
}

/**
 * One request to the Publisher API, authenticated with the user token.
 *
 * @param path one of {@link PUBLISHER_API}
 * @param query the query's parameters
 * @param what what the request is about, for a refusal's message (e.g. the coordinates)
 * @returns the response's text (2xx only)
 * @throws PublishError when the Portal cannot be reached, refuses the token (401, 403), or answers anything else
 *   than 2xx: one line with its status and message, never the token
 */
async function portalRequest(
  settings: PortalSettings,
  method: "GET" | "POST",
  path: string,
  query: Record<string, string>,
  what: string,
  body?: FormData,
): Promise<string> {
  const url = new URL(path, settings.base);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${settings.token}`, accept: "application/json, text/plain" },
      ...(body ? { body } : {}),
    });
  } catch (error) {
    const cause = (error as Error).cause ?? (error as Error).message;
    throw new PublishError(NAME, `cannot reach ${settings.base}: ${String(cause)}`, { cause: error });
  }
  const text = await response.text();
  if (response.status === 401 || response.status === 403)
    throw new PublishError(
      NAME,
      `${settings.base} refused the user token (${response.status}): ${CENTRAL_SETTINGS.username} and ${CENTRAL_SETTINGS.password} must be a Portal user token whose account holds the namespace of ${what}`,
    );
  if (!response.ok)
    throw new PublishError(
      NAME,
      `${settings.base} refused ${what} (${method} ${path}: ${response.status}): ${portalMessage(text)}`,
    );
  return text;
}

/** The Java SDK's coordinates, from its POM (the project's own elements, before <dependencies>). */
function coordinates(pom: string): { group: string; artifact: string; version: string } {
  const head = pom.slice(0, pom.indexOf("<dependencies>"));
  const element = (name: string) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(head)?.[1];
  const [group, artifact, version] = [element("groupId"), element("artifactId"), element("version")];
  if (!group || !artifact || !version)
    throw new PublishError(
      NAME,
      "sdk/java/pom.xml has no groupId, artifactId or version: run scripts/sdk/generate-java.sh",
    );
  return { group, artifact, version };
}

/**
 * Reads sdk/java/pom.xml and checks what Maven Central requires of it.
 *
 * @throws PublishError when it is missing, of another version than the release, or lacks a required element, the
 *   sources or javadoc jar, or the signing profile `release`
 */
function javaSdk(root: string, version: string): { group: string; artifact: string; what: string } {
  const pomFile = join(root, "sdk", "java", "pom.xml");
  if (!existsSync(pomFile))
    throw new PublishError(NAME, "there is no sdk/java/pom.xml: run scripts/sdk/generate-java.sh");
  const pom = readFileSync(pomFile, "utf8");
  const found = coordinates(pom);
  if (found.version !== version)
    throw new PublishError(
      NAME,
      `sdk/java is version ${found.version}, the release ${version}: run scripts/sdk/generate-java.sh`,
    );
  const lacking: string[] = CENTRAL_POM_ELEMENTS.filter((name) => !new RegExp(`<${name}>`).test(pom));
  for (const plugin of ["maven-source-plugin", "maven-javadoc-plugin", "maven-gpg-plugin"])
    if (!pom.includes(`<artifactId>${plugin}</artifactId>`)) lacking.push(plugin);
  if (!pom.includes("<id>release</id>")) lacking.push("the profile release");
  if (lacking.length > 0)
    throw new PublishError(
      NAME,
      `sdk/java/pom.xml lacks what Maven Central requires: ${lacking.join(", ")} (scripts/sdk/generate-java.sh writes it)`,
    );
  return { group: found.group, artifact: found.artifact, what: `${found.group}:${found.artifact}:${version}` };
}

/** The arguments of `MAVEN_ARGS`, split at white space (as Maven's launcher does). */
function mavenArgs(): string[] {
  return (process.env.MAVEN_ARGS ?? "").split(/\s+/).filter(Boolean);
}

/**
 * Builds the bundle the Portal takes (see the module doc, 2.) in `work`.
 *
 * @param work a temporary folder of the send (the copy of sdk/java, Maven's repository, the staging folder)
 * @returns the zip's path
 * @throws PublishError with the end of Maven's output when the build or the signing fails
 */
async function bundle(
  root: string,
  work: string,
  sdk: { group: string; artifact: string },
  version: string,
): Promise<string> {
  const project = join(work, "project");
  const source = join(root, "sdk", "java");
  cpSync(source, project, { recursive: true, filter: (path) => !path.startsWith(join(source, "target")) });
  const staging = join(work, "staging");
  // Maven gets no Portal credential: it runs the build's plugins, and never talks to the Portal.
  const env = { ...process.env };
  delete env[CENTRAL_SETTINGS.username];
  delete env[CENTRAL_SETTINGS.password];
  const built = await runTool(
    "mvn",
    [
      "-B",
      "--strict-checksums",
      ...mavenArgs(),
      "-Prelease",
      `-Dmaven.repo.local=${join(work, "repository")}`,
      `-DaltDeploymentRepository=staging::${pathToFileURL(staging).href}`,
      "deploy",
    ],
    { cwd: project, env },
  );
  if (built.code !== 0)
    throw new PublishError(
      NAME,
      `mvn -Prelease deploy of the Java SDK into the bundle's folder exited ${built.code} (signing needs gpg's key and MAVEN_GPG_PASSPHRASE):\n${tail(built, 40)}`,
    );
  const folder = [...sdk.group.split("."), sdk.artifact, version].join("/");
  const zip = join(work, `${sdk.artifact}-${version}-bundle.zip`);
  const zipped = await runTool("jar", ["--create", "--no-manifest", "--file", zip, "-C", staging, folder]);
  if (zipped.code !== 0) throw new PublishError(NAME, `jar could not zip the bundle:\n${tail(zipped)}`);
  return zip;
}

/** The Portal's `errors` of a FAILED deployment on one line: `<component>: <message>, <message>; ...`. */
function deploymentErrors(errors: unknown): string {
  if (errors && typeof errors === "object" && !Array.isArray(errors)) {
    const lines = Object.entries(errors).map(
      ([where, messages]) => `${where}: ${(Array.isArray(messages) ? messages : [messages]).map(String).join(", ")}`,
    );
    if (lines.length > 0) return lines.join("; ");
  }
  if (Array.isArray(errors) && errors.length > 0) return errors.map((error) => JSON.stringify(error)).join("; ");
  return "the Portal gave no reason";
}

/**
 * Asks the deployment's state until it reaches `goal` (see the module doc, 3.).
 *
 * @throws PublishError when it FAILED (the Portal's errors) or is still on its way after {@link WAIT_MINUTES}
 */
async function awaitDeployment(settings: PortalSettings, id: string, what: string): Promise<void> {
  const goal = settings.publishingType === "AUTOMATIC" ? "PUBLISHED" : "VALIDATED";
  const deadline = Date.now() + WAIT_MINUTES * 60_000;
  for (let pause = 1000; ; pause = Math.min(pause * 2, MAX_POLL_MS)) {
    const text = await portalRequest(settings, "POST", PUBLISHER_API.status, { id }, what);
    let status: { deploymentState?: unknown; errors?: unknown };
    try {
      status = JSON.parse(text) as typeof status;
    } catch (error) {
      throw new PublishError(NAME, `${settings.base} answered the status of deployment ${id} with no JSON`, {
        cause: error,
      });
    }
    const state = String(status.deploymentState);
    if (state === "FAILED")
      throw new PublishError(
        NAME,
        `${settings.base} refused ${what} (deployment ${id} FAILED): ${deploymentErrors(status.errors)}`,
      );
    if (state === goal) {
      if (goal === "VALIDATED")
        process.stderr.write(
          `${NAME}: deployment ${id} of ${what} is VALIDATED: publish it in the Portal's Deployments (${CENTRAL_SETTINGS.publishingType}=USER_MANAGED)\n`,
        );
      return;
    }
    if (Date.now() + pause > deadline)
      throw new PublishError(
        NAME,
        `deployment ${id} of ${what} is still ${state} after ${WAIT_MINUTES} minutes: see it in the Portal's Deployments (a rerun skips it once published)`,
      );
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * The Maven target (see the module doc): `survey` asks the Portal whether the release's version is published,
 * `send` builds, signs and uploads the bundle and follows the deployment. Both throw PublishError on missing or bad
 * settings, a POM that lacks what Maven Central requires, or the Portal's refusal (one line, no credential).
 */
export const mavenTarget: Target = {
  name: NAME,
  needs() {
    return [
      toolNeed("mvn", "Apache Maven", "install Maven 3.9 or newer"),
      toolNeed(
        "gpg",
        "GnuPG, which signs the bundle",
        "install it; the signing key goes in its keyring (setup-java's gpg-private-key)",
      ),
      toolNeed("jar", "the JDK's jar, which zips the bundle", "install a JDK (actions/setup-java)"),
      ...[CENTRAL_SETTINGS.url, CENTRAL_SETTINGS.username, CENTRAL_SETTINGS.password].map((name) => ({
        what: `the setting ${name}`,
        remedy:
          name === CENTRAL_SETTINGS.url ? "set it to the Central Portal's address" : "set it from a Portal user token",
        present: Boolean(process.env[name]),
      })),
    ];
  },
  async survey(context) {
    const sdk = javaSdk(context.root, context.version);
    const settings = portalSettings();
    const text = await portalRequest(
      settings,
      "GET",
      PUBLISHER_API.published,
      { namespace: sdk.group, name: sdk.artifact, version: context.version },
      sdk.what,
    );
    let published: unknown;
    try {
      published = (JSON.parse(text) as { published?: unknown }).published;
    } catch {
      published = undefined;
    }
    if (typeof published !== "boolean")
      throw new PublishError(NAME, `${settings.base} did not say whether ${sdk.what} is published (no "published")`);
    return { where: settings.base, items: [{ what: sdk.what, state: published ? "present" : "missing" }] };
  },
  async send(context) {
    const sdk = javaSdk(context.root, context.version);
    const settings = portalSettings();
    const work = mkdtempSync(join(tmpdir(), "helpdesk-publish-maven-"));
    try {
      const zip = await bundle(context.root, work, sdk, context.version);
      const form = new FormData();
      form.append("bundle", new Blob([readFileSync(zip)], { type: "application/octet-stream" }), "bundle.zip");
      const id = (
        await portalRequest(
          settings,
          "POST",
          PUBLISHER_API.upload,
          { name: `${sdk.artifact}-${context.version}`, publishingType: settings.publishingType },
          sdk.what,
          form,
        )
      ).trim();
      if (!id) throw new PublishError(NAME, `${settings.base} took ${sdk.what} but answered no deployment id`);
      await awaitDeployment(settings, id, sdk.what);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
};
