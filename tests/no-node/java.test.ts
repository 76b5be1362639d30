/**
 * examples/java with no Node.js (see no-node-desks.ts): the program as it is (no `plugins:` section: the plugin comes
 * from the release). The Java SDK (sdk/java, installed with `mvn install` into the test's own Maven repository, as a user
 * installs a dependency) carries the plugin's name, version and download URL in its `plugin.json`, so the Java
 * language host names the plugin to the engine, which downloads it.
 *
 * Java and Maven need the machine's ordinary commands (`uname`, `readlink`, ...), so PATH also gets
 * `systemWithoutNode`: every command of /usr/bin and /bin except Node.js's.
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { copyExample } from "../support/examples.js";
import { mavenEnv, mvn } from "../support/maven.js";
import { describeDownloadedPlugin, systemWithoutNode } from "./no-node-desks.js";

describeDownloadedPlugin("examples/java with no Node.js: the plugin downloaded by Pulumi from the SDK's plugin.json", {
  hosts: ["pulumi-language-java"],
  project: "helpdesk-java",
  prepare: async (work, programDir) => {
    copyExample("java", programDir);
    // The SDK, installed as a user installs a dependency (this set-up step may use the machine's own PATH).
    const env = mavenEnv({ ...process.env }, join(work, "maven-repository"));
    const sdk = join(work, "sdk-java");
    cpSync(join(repoRoot, "sdk", "java"), sdk, {
      recursive: true,
      filter: (path) => !path.startsWith(join(repoRoot, "sdk", "java", "target")),
    });
    await mvn(["install"], sdk, env);
    return { pathDirs: [systemWithoutNode(join(work, "system"))], env: { MAVEN_OPTS: env.MAVEN_OPTS } };
  },
});
