/**
 * Test support: running Maven on the repository's Java projects (the generated SDK sdk/java, the program
 * examples/java) without writing into the machine's Maven repository.
 *
 * A run gets a Maven repository of its own as Maven's local one; everything already downloaded comes from the
 * machine's repository (`~/.m2/repository` of the user account, where scripts/setup.sh --test downloaded it, or
 * `$HELPDESK_MAVEN_REPO`), declared as a `file://` repository ahead of Maven Central, which serves only what it lacks
 * (into the run's repository). So the SDK a run installs is seen by that run alone. Maven reads these settings from
 * `<user.home>/.m2/settings.xml`; the JVM takes `user.home` from the user account, not from `$HOME`, so the
 * environment passes the sandbox's home folder to it in `MAVEN_OPTS` (which also reaches the program that
 * `mvn exec:java` runs in the same JVM).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Ran, runCommand, shown } from "../../scripts/lib/processes.ts";

/** The machine's Maven repository, which scripts/setup.sh --test fills; tests only read it. */
export const machineMavenRepository = process.env.HELPDESK_MAVEN_REPO ?? join(userInfo().homedir, ".m2", "repository");

/** The version of Pulumi's Java SDK (com.pulumi:pulumi) that sdk/java and examples/java compile against. */
export const PULUMI_JAVA_VERSION = "1.16.0";

/** @returns whether the machine's Maven repository holds Pulumi's Java SDK (scripts/setup.sh --test downloads it) */
export function pulumiJavaSdkDownloaded(): boolean {
  return existsSync(
    join(machineMavenRepository, "com", "pulumi", "pulumi", PULUMI_JAVA_VERSION, `pulumi-${PULUMI_JAVA_VERSION}.pom`),
  );
}

/**
 * Maven settings: `localRepository` the run's own (when given), the machine's repository a remote one read first,
 * whose files must match their checksums (`checksumPolicy` fail; Maven's default only warns). This holds for every
 * Maven the run starts, the Java language host's included, which no command-line flag reaches.
 */
function settings(localRepository: string | undefined, remotes: string[]): string {
  const one = (element: string, id: string, url: string): string =>
    `<${element}><id>${id}</id><url>${url}</url>` +
    `<releases><enabled>true</enabled><checksumPolicy>fail</checksumPolicy></releases><snapshots><enabled>false</enabled></snapshots></${element}>`;
  const repository = (element: string): string =>
    [
      ...remotes.map((url, at) => one(element, `remote-${at}`, url)),
      one(element, "machine", pathToFileURL(machineMavenRepository).href),
    ].join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">
${localRepository ? `  <localRepository>${localRepository}</localRepository>\n` : ""}  <profiles>
    <profile>
      <id>machine-repository</id>
      <repositories>${repository("repository")}</repositories>
      <pluginRepositories>${repository("pluginRepository")}</pluginRepositories>
    </profile>
  </profiles>
  <activeProfiles><activeProfile>machine-repository</activeProfile></activeProfiles>
</settings>
`;
}

/**
 * The environment of Maven runs with a repository of their own (see the module doc): writes the Maven settings into
 * `env.HOME` (the sandbox's home folder) and names that folder to the JVM.
 *
 * @param env the base environment; its `HOME` must be the test's own (the sandbox's)
 * @param localRepository the folder of the run's own repository
 * @param remotes URLs of repositories read before the machine's, in order (e.g. one `npm run publish` deployed to)
 * @returns `env` with `MAVEN_OPTS`
 */
export function mavenEnv(env: NodeJS.ProcessEnv, localRepository: string, remotes: string[] = []): NodeJS.ProcessEnv {
  const home = env.HOME;
  if (!home) throw new Error("mavenEnv needs HOME (the sandbox's home folder)");
  mkdirSync(join(home, ".m2"), { recursive: true });
  writeFileSync(join(home, ".m2", "settings.xml"), settings(localRepository, remotes));
  return { ...env, MAVEN_OPTS: `-Duser.home=${home}` };
}

/**
 * Writes Maven settings that name no local repository (so Maven's is the account's `~/.m2/repository`, unless the
 * run names another) and read the machine's repository ahead of Maven Central, for `mvn -s <file>`: how a test
 * proves that a tool keeps its Maven runs out of the account's repository.
 *
 * @param file the settings file to write
 * @param remotes URLs of repositories read before the machine's, in order
 * @returns `file`
 */
export function mavenSettingsFile(file: string, remotes: string[] = []): string {
  writeFileSync(file, settings(undefined, remotes));
  return file;
}

/**
 * Runs `mvn -B -q --strict-checksums <args>` in `cwd` (a download from any repository whose checksum does not match
 * fails) and throws with its output when it fails.
 *
 * @param args Maven's arguments, e.g. `["install"]`
 * @param cwd the project's folder (its pom.xml)
 * @param env the environment ({@link mavenEnv})
 * @throws Error naming the command, its exit code and its output, when it exits non-zero
 */
export async function mvn(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const ran = await runCommand("mvn", ["-B", "-q", "--strict-checksums", ...args], { cwd, env });
  if (ran.code !== 0) throw new Error(shown(`mvn ${args.join(" ")} (in ${cwd})`, ran));
  return ran;
}
