/**
 * examples/java with no Node.js (see no-node-desks.ts): the program as a person writes it once the plugin comes from
 * the release, i.e. examples/java without the `plugins:` section of its Pulumi.yaml (which points at this repository's
 * launcher). The Java SDK (sdk/java, installed with `mvn install` into the test's own Maven repository, as a user
 * installs a dependency) carries the plugin's name, version and download URL in its `plugin.json`, so the Java
 * language host names the plugin to the engine, which downloads it.
 *
 * Java and Maven need the machine's ordinary commands (`uname`, `readlink`, ...), so PATH also gets
 * `systemWithoutNode`: every command of /usr/bin and /bin except Node.js's.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mavenEnv, mvn } from "../support/maven.js";
import { repoRoot } from "../support/package.js";
import { describeDownloadedPlugin, systemWithoutNode, withoutPluginsSection } from "./no-node-desks.js";

describeDownloadedPlugin("examples/java with no Node.js: the plugin downloaded by Pulumi from the SDK's plugin.json", {
  hosts: ["pulumi-language-java"],
  project: "helpdesk-java",
  prepare: async (work, programDir) => {
    const example = join(repoRoot, "examples", "java");
    cpSync(example, programDir, { recursive: true, filter: (path) => !path.startsWith(join(example, "target")) && !/Pulumi\.[^/]+\.yaml$/.test(path) });
    writeFileSync(join(programDir, "Pulumi.yaml"), withoutPluginsSection(readFileSync(join(example, "Pulumi.yaml"), "utf8"), "examples/java/Pulumi.yaml"));
    // The SDK, installed as a user installs a dependency (this set-up step may use the machine's own PATH).
    const env = mavenEnv({ ...process.env }, join(work, "maven-repository"));
    const sdk = join(work, "sdk-java");
    cpSync(join(repoRoot, "sdk", "java"), sdk, { recursive: true, filter: (path) => !path.startsWith(join(repoRoot, "sdk", "java", "target")) });
    await mvn(["install"], sdk, env);
    return { pathDirs: [systemWithoutNode(join(work, "system"))], env: { MAVEN_OPTS: env.MAVEN_OPTS } };
  },
});
