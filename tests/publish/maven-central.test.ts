/**
 * `npm run publish -- --only maven` through the Central Portal's Publisher API, against the local stand-in of the
 * Portal (tests/support/central-portal.ts), which validates the bundle as the Portal does (each file signed by a key
 * it knows, checksums, the POM's elements) and publishes into a Maven repository served over HTTP. The Java SDK is
 * built, signed with a gpg key made for the test, and zipped by the real mvn, gpg and jar.
 *
 * 1. `--dry-run` asks whether the version is published, and sends nothing;
 * 2. the publish uploads the bundle, follows the deployment to PUBLISHED, and the repository then serves the jar,
 *    sources, javadoc and POM with their signatures and checksums; a second run finds it published and sends nothing;
 * 3. a bundle the Portal refuses (signed by a key it does not know) stops the run with one line naming the target
 *    and the Portal's reasons; `USER_MANAGED` stops at VALIDATED; a refused user token (401) is one line too, and
 *    none prints a credential;
 * 4. none of these runs writes the account's Maven repository (`~/.m2/repository`), which `mvn deploy` would
 *    (its lifecycle runs `install`): Maven reads settings here that name no local repository of their own.
 */

import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAVEN_ARTIFACT_ID, mavenCoordinates, mavenGroupId } from "../../kernel/names.js";
import { type Ran, runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { CENTRAL_SETTINGS, PUBLISHER_API } from "../../scripts/publish/maven.ts";
import { type CentralPortal, makeSigningKey, type SigningKey, startCentralPortal } from "../support/central-portal.js";
import { freePort } from "../support/cli.js";
import { mavenSettingsFile } from "../support/maven.js";
import { findTraces, type Listing, listTree } from "../support/sandbox.js";

/** The release's version (package.json's). */
const VERSION = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
/** The Java SDK as the target names it. */
const WHAT = `${mavenCoordinates()}:${VERSION}`;
/** Its folder in a Maven repository. */
const FOLDER = [...mavenGroupId().split("."), MAVEN_ARTIFACT_ID, VERSION].join("/");
/** The Portal account of the test: a user token, and the namespace it holds. */
const ACCOUNT = { username: "helpdesk-publisher", password: "portal-user-token-password", namespace: mavenGroupId() };
/** The passphrase of the test's signing key. */
const PASSPHRASE = "signing-key-passphrase";
/** The project's folder in the account's Maven repository, which no run may touch. */
const ACCOUNT_REPOSITORY = join(userInfo().homedir, ".m2", "repository", ...mavenGroupId().split("."));

let work: string;
let release: string;
let key: SigningKey;
let otherKey: SigningKey;
let portal: CentralPortal;
let env: NodeJS.ProcessEnv;
let accountBefore: Listing;
let runs: Record<"dryRun" | "first" | "second", Ran>;
let logs: Record<"afterDryRun" | "afterFirst", string>;

/** `npm run publish -- --only maven` of the test's release folder, with `env` and `extra` on top. */
function publish(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return runCommand("npm", ["run", "--silent", "publish", "--", "--only", "maven", "--release", release, ...args], {
    cwd: repoRoot,
    env: { ...env, ...extra },
  });
}

/** The requests the Portal received after the first `before` characters of its log. */
function requestsAfter(before: string, log = portal.log()): string[] {
  return log.slice(before.length).split("\n").filter(Boolean);
}

beforeAll(async () => {
  accountBefore = listTree(ACCOUNT_REPOSITORY);
  work = mkdtempSync(join(tmpdir(), "helpdesk-maven-central-"));
  // The Maven target builds from sdk/java and reads no file of the release folder: one file and its SHA256SUMS.
  release = join(work, "release");
  mkdirSync(release);
  writeFileSync(join(release, "NOTE.txt"), "the Maven target builds sdk/java\n");
  const sum = createHash("sha256")
    .update(readFileSync(join(release, "NOTE.txt")))
    .digest("hex");
  writeFileSync(join(release, "SHA256SUMS"), `${sum}  NOTE.txt\n`);
  // A key with a passphrase, given as the release job gives it (setup-java: MAVEN_GPG_PASSPHRASE).
  key = await makeSigningKey(join(work, "gnupg"), "pulumi-helpdesk release <release@example.invalid>", PASSPHRASE);
  otherKey = await makeSigningKey(join(work, "gnupg-other"), "someone else <else@example.invalid>");
  portal = await startCentralPortal(join(work, "portal"), { ...ACCOUNT, publicKeys: key.publicKey });
  const base = { ...process.env };
  // The JVM's user.home is the account's home: with no MAVEN_OPTS naming another and settings that name no local
  // repository, Maven's own would be the account's ~/.m2/repository. Only the target's runs can keep it clean.
  delete base.MAVEN_OPTS;
  env = {
    ...base,
    GNUPGHOME: key.home,
    MAVEN_GPG_PASSPHRASE: PASSPHRASE,
    MAVEN_ARGS: `-s ${mavenSettingsFile(join(work, "settings.xml"))}`,
    [CENTRAL_SETTINGS.url]: portal.url,
    [CENTRAL_SETTINGS.username]: ACCOUNT.username,
    [CENTRAL_SETTINGS.password]: ACCOUNT.password,
  };
  const dryRun = await publish(["--dry-run"]);
  const afterDryRun = portal.log();
  const first = await publish([]);
  const afterFirst = portal.log();
  runs = { dryRun, first, second: await publish([]) };
  logs = { afterDryRun, afterFirst };
}, 600_000);

afterAll(async () => {
  await portal?.close();
  await key?.close();
  await otherKey?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("npm run publish -- --only maven through the Central Portal's Publisher API", () => {
  it("--dry-run asks the Portal whether the version is published, and sends nothing", () => {
    expect(runs.dryRun.code, shown("npm run publish -- --dry-run", runs.dryRun)).toBe(0);
    expect(runs.dryRun.stdout).toBe(`maven: ${WHAT} -> ${portal.url}: would publish\n`);
    const [group, artifact] = [mavenGroupId(), MAVEN_ARTIFACT_ID];
    expect(requestsAfter("", logs.afterDryRun)).toEqual([
      `GET /${PUBLISHER_API.published}?namespace=${group}&name=${artifact}&version=${VERSION}`,
    ]);
  });

  it("uploads the bundle, follows the deployment to PUBLISHED, and the repository serves the signed files", async () => {
    expect(runs.first.code, shown("npm run publish", runs.first)).toBe(0);
    expect(runs.first.stdout).toBe(`maven: ${WHAT} -> ${portal.url}: published\n`);
    const requests = requestsAfter(logs.afterDryRun, logs.afterFirst);
    expect(requests[0]).toMatch(new RegExp(`^GET /${PUBLISHER_API.published}\\?`));
    expect(requests[1]).toBe(
      `POST /${PUBLISHER_API.upload}?name=${MAVEN_ARTIFACT_ID}-${VERSION}&publishingType=AUTOMATIC`,
    );
    // PENDING, VALIDATING, VALIDATED, PUBLISHING, PUBLISHED: asked until published, not once more.
    expect(requests.slice(2)).toHaveLength(5);
    for (const request of requests.slice(2))
      expect(request).toMatch(new RegExp(`^POST /${PUBLISHER_API.status}\\?id=`));
    const files = [".jar", "-sources.jar", "-javadoc.jar", ".pom"].map(
      (suffix) => `${MAVEN_ARTIFACT_ID}-${VERSION}${suffix}`,
    );
    expect(readdirSync(join(portal.repositoryDir, FOLDER)).sort()).toEqual(
      files.flatMap((file) => [file, `${file}.asc`, `${file}.md5`, `${file}.sha1`]).sort(),
    );
    const jar = await fetch(`${portal.repository.url}${FOLDER}/${MAVEN_ARTIFACT_ID}-${VERSION}.jar`);
    expect(jar.status).toBe(200);
    expect(Buffer.from(await jar.arrayBuffer())).toEqual(
      readFileSync(join(portal.repositoryDir, FOLDER, `${MAVEN_ARTIFACT_ID}-${VERSION}.jar`)),
    );
  });

  it("a second run finds the version published and sends nothing", () => {
    expect(runs.second.code, shown("npm run publish (again)", runs.second)).toBe(0);
    expect(runs.second.stdout).toBe(`maven: ${WHAT} -> ${portal.url}: present, skipped\n`);
    const requests = requestsAfter(logs.afterFirst);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatch(new RegExp(`^GET /${PUBLISHER_API.published}\\?`));
  });

  it("a bundle the Portal refuses (signed by a key it does not know) stops the run with one line naming the target and the Portal's reasons", async () => {
    const other = await startCentralPortal(join(work, "portal-refusing"), { ...ACCOUNT, publicKeys: key.publicKey });
    try {
      const ran = await publish([], { GNUPGHOME: otherKey.home, [CENTRAL_SETTINGS.url]: other.url });
      expect(ran.code, shown("npm run publish (an unknown key)", ran)).toBe(1);
      expect(ran.stdout).toBe("");
      const lines = ran.stderr.trim().split("\n");
      expect(lines, ran.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^error: maven: ${other.url} refused ${WHAT} \\(deployment [0-9a-f-]+ FAILED\\): pkg:maven/${mavenGroupId()}/${MAVEN_ARTIFACT_ID}@${VERSION}: `,
        ),
      );
      for (const suffix of [".jar", "-sources.jar", "-javadoc.jar", ".pom"])
        expect(lines[0]).toContain(`Invalid signature for file: ${MAVEN_ARTIFACT_ID}-${VERSION}${suffix}.asc`);
      expect(readdirSync(other.repositoryDir)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("USER_MANAGED leaves the deployment VALIDATED, for a maintainer to publish in the Portal, and says so", async () => {
    const managed = await startCentralPortal(join(work, "portal-managed"), { ...ACCOUNT, publicKeys: key.publicKey });
    try {
      const ran = await publish([], {
        [CENTRAL_SETTINGS.url]: managed.url,
        [CENTRAL_SETTINGS.publishingType]: "USER_MANAGED",
      });
      expect(ran.code, shown("npm run publish (USER_MANAGED)", ran)).toBe(0);
      expect(ran.stderr).toMatch(
        new RegExp(`^maven: deployment [0-9a-f-]+ of ${WHAT} is VALIDATED: publish it in the Portal's Deployments`),
      );
      const requests = requestsAfter("", managed.log());
      expect(requests[1]).toBe(
        `POST /${PUBLISHER_API.upload}?name=${MAVEN_ARTIFACT_ID}-${VERSION}&publishingType=USER_MANAGED`,
      );
      // PENDING, VALIDATING, VALIDATED: not published, so not in the repository.
      expect(requests.slice(2)).toHaveLength(3);
      expect(readdirSync(managed.repositoryDir)).toEqual([]);
    } finally {
      await managed.close();
    }
  });

  it("a refused user token (401) stops the run before anything is built, on one line without a credential", async () => {
    const before = portal.log();
    const password = "a-wrong-password-that-must-not-show";
    const ran = await publish([], { [CENTRAL_SETTINGS.password]: password });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      `error: maven: ${portal.url} refused the user token (401): ${CENTRAL_SETTINGS.username} and ${CENTRAL_SETTINGS.password} must be a Portal user token whose account holds the namespace of ${WHAT}\n`,
    );
    const output = ran.stdout + ran.stderr;
    expect(output).not.toContain(password);
    expect(output).not.toContain(Buffer.from(`${ACCOUNT.username}:${password}`).toString("base64"));
    expect(requestsAfter(before)).toHaveLength(1);
  });

  it("missing settings (named before anything is asked), a Portal URL carrying a credential, or a Portal out of reach: one line each, no credential", async () => {
    const before = portal.log().length;
    const unset = await publish(["--dry-run"], { [CENTRAL_SETTINGS.url]: "", [CENTRAL_SETTINGS.password]: "" });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toBe(
      [
        "error: publish: nothing was sent; the chosen targets need what is missing:",
        `  maven: the setting ${CENTRAL_SETTINGS.url}: set it to the Central Portal's address`,
        `  maven: the setting ${CENTRAL_SETTINGS.password}: set it from a Portal user token`,
        "",
      ].join("\n"),
    );
    expect(portal.log().length).toBe(before);
    const withUser = portal.url.replace("http://", "http://someone:url-secret@");
    const carried = await publish(["--dry-run"], { [CENTRAL_SETTINGS.url]: withUser });
    expect(carried.code).toBe(1);
    expect(carried.stderr).toMatch(/^error: maven: MAVEN_CENTRAL_URL must be the Central Portal's [^\n]+\n$/);
    expect(carried.stdout + carried.stderr).not.toContain("url-secret");
    const nobody = `http://127.0.0.1:${await freePort()}/`;
    const away = await publish(["--dry-run"], { [CENTRAL_SETTINGS.url]: nobody });
    expect(away.code).toBe(1);
    expect(away.stderr).toMatch(new RegExp(`^error: maven: cannot reach ${nobody}: [^\n]*ECONNREFUSED[^\n]*\n$`));
  });

  it("no run wrote the account's Maven repository (~/.m2/repository)", () => {
    expect(findTraces(accountBefore, listTree(ACCOUNT_REPOSITORY))).toEqual([]);
  });
});
