/**
 * The Maven target of `npm run publish`: the Java SDK (sdk/java, generated with its pom.xml by
 * scripts/sdk/generate-java.sh), built and deployed by `mvn deploy` from a copy of the folder: the jar, its
 * `-sources.jar` and `-javadoc.jar`, and the POM, as Maven Central requires them (CONTRIBUTING.md "Publishing").
 *
 * Where it goes is Maven's own setting: the deployment repository `-DaltDeploymentRepository=<id>::<url>` in
 * `MAVEN_ARGS` (the variable Maven 3.9 reads; given to mvn explicitly here, so an older Maven honours it too), whose
 * credentials are the `<server>` of that id in Maven's settings.xml. The release workflow adds its signing there.
 *
 * Asked first: `<url>/<group>/<artifact>/<version>/<artifact>-<version>.pom.sha1` (a file: URL is read as a
 * folder). The same SHA-1 as sdk/java/pom.xml's (deploy uploads the POM as it is) is present and skipped; anything
 * else is deployed, and a repository holding the release refuses it (Maven Central never replaces a release).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ask, digestOf, PublishError, runTool, tail, toolNeed, type Target } from "./common.ts";

const NAME = "maven";

/** The elements of the POM Maven Central requires of a release, besides the coordinates. */
export const CENTRAL_POM_ELEMENTS = ["name", "description", "url", "licenses", "scm", "developers"] as const;

/** The arguments of `MAVEN_ARGS`, split at white space (as Maven's launcher does). */
function mavenArgs(): string[] {
  return (process.env.MAVEN_ARGS ?? "").split(/\s+/).filter(Boolean);
}

/**
 * The deployment repository `MAVEN_ARGS` names.
 *
 * @throws PublishError when it names none
 */
function deploymentRepository(): { id: string; url: string } {
  const value = mavenArgs()
    .find((arg) => arg.startsWith("-DaltDeploymentRepository="))
    ?.slice("-DaltDeploymentRepository=".length);
  const match = value ? /^([^:]+)::(?:default::)?(.+)$/.exec(value) : null;
  if (!match)
    throw new PublishError(
      NAME,
      `no deployment repository: set MAVEN_ARGS to -DaltDeploymentRepository=<id>::<url> (its credentials: the <server> <id> in Maven's settings.xml)`,
    );
  return { id: match[1]!, url: match[2]!.replace(/\/?$/, "/") };
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

export const mavenTarget: Target = {
  name: NAME,
  needs() {
    return [toolNeed("mvn", "Apache Maven", "install Maven 3.9 or newer")];
  },
  async survey(context) {
    const pomFile = join(context.root, "sdk", "java", "pom.xml");
    if (!existsSync(pomFile))
      throw new PublishError(NAME, "there is no sdk/java/pom.xml: run scripts/sdk/generate-java.sh");
    const pom = readFileSync(pomFile, "utf8");
    const { group, artifact, version } = coordinates(pom);
    if (version !== context.version)
      throw new PublishError(
        NAME,
        `sdk/java is version ${version}, the release ${context.version}: run scripts/sdk/generate-java.sh`,
      );
    const lacking = CENTRAL_POM_ELEMENTS.filter((name) => !new RegExp(`<${name}>`).test(pom));
    for (const plugin of ["maven-source-plugin", "maven-javadoc-plugin"])
      if (!pom.includes(`<artifactId>${plugin}</artifactId>`)) lacking.push(plugin as never);
    if (lacking.length > 0)
      throw new PublishError(
        NAME,
        `sdk/java/pom.xml lacks what Maven Central requires: ${lacking.join(", ")} (scripts/sdk/generate-java.sh writes it)`,
      );
    const repository = deploymentRepository();
    const sha1Url = `${repository.url}${group.replace(/\./g, "/")}/${artifact}/${version}/${artifact}-${version}.pom.sha1`;
    let held = "";
    if (sha1Url.startsWith("file:")) {
      const file = fileURLToPath(sha1Url);
      held = existsSync(file) ? readFileSync(file, "utf8") : "";
    } else {
      const asked = await ask(sha1Url, NAME);
      if (asked.status !== 200 && asked.status !== 404)
        throw new PublishError(NAME, `${sha1Url} responded with ${asked.status}`);
      held = asked.status === 200 ? asked.text : "";
    }
    const what = `${group}:${artifact}:${version}`;
    return {
      where: repository.url,
      items: [{ what, state: held.trim().split(/\s/)[0] === digestOf(pomFile, "sha1") ? "present" : "missing" }],
    };
  },
  async send(context) {
    const repository = deploymentRepository();
    const copy = mkdtempSync(join(tmpdir(), "helpdesk-publish-maven-"));
    try {
      const sdk = join(context.root, "sdk", "java");
      cpSync(sdk, copy, { recursive: true, filter: (path) => !path.startsWith(join(sdk, "target")) });
      const ran = await runTool("mvn", ["-B", "--strict-checksums", "deploy", ...mavenArgs()], { cwd: copy });
      if (ran.code !== 0) {
        throw new PublishError(
          NAME,
          `${repository.url} refused the Java SDK (mvn deploy exited ${ran.code}; a repository never replaces a release, and needs the credentials of the <server> ${repository.id} in settings.xml):\n${tail(ran, 40)}`,
        );
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  },
};
