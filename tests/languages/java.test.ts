/**
 * examples/java, a Pulumi program in Java (`runtime: java`, a Maven project), run by the real `pulumi` with
 * pulumi-language-java (built by scripts/setup.sh --test from pulumi-java v1.16.0), which runs it with
 * `mvn compile exec:java`, against two emulators: see two-helpdesks.ts (a copy of the example, with a `plugins:`
 * section naming the repository's plugin/ folder).
 *
 * The program depends on the Java SDK `io.github.pulumi-helpdesk:helpdesk` as a user's program does (a Maven
 * dependency); the test installs the repository's sdk/java (a copy: a build in place would leave target/ there) with
 * `mvn install` into a Maven repository of its own, reading everything else from the machine's (tests/support/maven.ts).
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { machineMavenRepository, mavenEnv, mvn, pulumiJavaSdkDownloaded } from "../support/maven.js";
import { onPath, toolAvailable } from "../support/tools.js";
import { describeTwoHelpdesks, pluginBuilt } from "./two-helpdesks.js";

const sdk = join(repoRoot, "sdk", "java");

describeTwoHelpdesks("a Java program with two help desks (examples/java)", {
  example: "java",
  ready: () =>
    toolAvailable("the Pulumi CLI", onPath("pulumi")) &&
    toolAvailable("pulumi-language-java (scripts/setup.sh --test)", onPath("pulumi-language-java")) &&
    toolAvailable("java (Java >= 11)", onPath("java")) &&
    toolAvailable("mvn (Maven)", onPath("mvn")) &&
    toolAvailable(
      `Pulumi's Java SDK in the Maven repository ${machineMavenRepository} (scripts/setup.sh --test)`,
      pulumiJavaSdkDownloaded(),
    ) &&
    toolAvailable(
      "the provider plugin (plugin/pulumi-resource-helpdesk and the build's dist/provider/native/)",
      pluginBuilt(),
    ),
  prepare: async (env, workDir) => {
    const javaEnv = mavenEnv(env, join(workDir, "maven-repository"));
    const copy = join(workDir, "sdk-java");
    cpSync(sdk, copy, { recursive: true, filter: (path) => path !== join(sdk, "target") });
    const started = Date.now();
    await mvn(["install"], copy, javaEnv);
    console.info(`examples/java: mvn install of sdk/java took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return javaEnv;
  },
});
