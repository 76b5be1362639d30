/**
 * The Java SDK kept in the repository (sdk/java, Maven artifact `io.github.<owner>:helpdesk`, Java package
 * `com.github.<owner>.helpdesk`): it is exactly what scripts/sdk/generate-java.sh writes from the build's
 * dist/schema.json (never edited by hand, never stale), it compiles with Maven against Pulumi's Java SDK its pom.xml
 * pins, and it carries the plugin's name, version and download URL where Pulumi's Java SDK looks for them.
 */
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { javaBasePackage, MAVEN_ARTIFACT_ID, mavenGroupId } from "../../kernel/names.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import {
  machineMavenRepository,
  mavenEnv,
  mvn,
  PULUMI_JAVA_VERSION,
  pulumiJavaSdkDownloaded,
} from "../support/maven.js";
import { testTempDir } from "../support/temp.js";
import { onPath, toolAvailable } from "../support/tools.js";
import { expectSdkFresh } from "../support/tree.js";

const sdk = join(repoRoot, "sdk", "java");
const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string };
const javaGen = join(
  process.env.HELPDESK_CACHE ?? join(process.env.HOME ?? "", ".cache", "pulumi-helpdesk"),
  "bin",
  "pulumi-java-gen",
);
const base = javaBasePackage();
const packageDir = `${base.replaceAll(".", "/")}/helpdesk`;

/** The files of a Java SDK folder, without Maven's build output. */

describe("the Java base package (the schema's language.java.basePackage)", () => {
  it("is com.github.<owner>, the owner made a Java package name part (JLS §6.1)", () => {
    expect(javaBasePackage({ owner: "pulumi-helpdesk", name: "pulumi-helpdesk" })).toBe("com.github.pulumi_helpdesk");
    expect(javaBasePackage({ owner: "Acme.Corp", name: "x" })).toBe("com.github.acme_corp");
    expect(javaBasePackage({ owner: "42labs", name: "x" })).toBe("com.github._42labs");
    expect(javaBasePackage({ owner: "int", name: "x" })).toBe("com.github._int");
  });
});

describe.skipIf(
  !(
    toolAvailable("the Java SDK generator pulumi-java-gen (scripts/setup.sh --test)", existsSync(javaGen)) &&
    toolAvailable("the build's dist/schema.json (scripts/build.sh)", existsSync(join(repoRoot, "dist", "schema.json")))
  ),
)("the Java SDK sdk/java", () => {
  it("is what scripts/sdk/generate-java.sh writes from the schema, file for file", async () => {
    await expectSdkFresh("generate-java.sh", "java", (path) => path.startsWith("target/"));
  });

  it("is the Maven artifact io.github.<owner>:helpdesk at the package's version, for the plugin helpdesk", () => {
    const pom = readFileSync(join(sdk, "pom.xml"), "utf8");
    expect(pom).toContain(
      `<groupId>${mavenGroupId()}</groupId>\n  <artifactId>${MAVEN_ARTIFACT_ID}</artifactId>\n  <version>${pkg.version}</version>`,
    );
    expect(pom).toMatch(
      new RegExp(`<artifactId>pulumi</artifactId>\\s*<version>${PULUMI_JAVA_VERSION.replaceAll(".", "\\.")}</version>`),
    );
    // Pulumi's Java SDK (com.pulumi:pulumi 1.16.0, PulumiPlugins) finds plugin.json only under com/<namespace>/<name>/.
    expect(packageDir).toMatch(/^com\/.+\/.+$/);
    expect(
      JSON.parse(readFileSync(join(sdk, "src", "main", "resources", packageDir, "plugin.json"), "utf8")),
    ).toMatchObject({ resource: true, name: "helpdesk", version: pkg.version });
    expect(readFileSync(join(sdk, "src", "main", "resources", packageDir, "version.txt"), "utf8")).toBe(pkg.version);
    expect(readFileSync(join(sdk, "src", "main", "java", packageDir, "Webhook.java"), "utf8")).toContain(
      `package ${base}.helpdesk;`,
    );
  });
});

describe.skipIf(
  !(
    toolAvailable("java (Java >= 11)", onPath("java")) &&
    toolAvailable("mvn (Maven)", onPath("mvn")) &&
    toolAvailable(
      `Pulumi's Java SDK in the Maven repository ${machineMavenRepository} (scripts/setup.sh --test)`,
      pulumiJavaSdkDownloaded(),
    )
  ),
)("the Java SDK sdk/java with Maven", () => {
  it("compiles against Pulumi's Java SDK", async () => {
    const work = testTempDir("helpdesk-java-sdk-build-");
    const copy = join(work, "sdk");
    cpSync(sdk, copy, { recursive: true, filter: (path) => path !== join(sdk, "target") });
    await mvn(["compile"], copy, mavenEnv(process.env, join(work, "maven-repository")));
    expect(existsSync(join(copy, "target", "classes", packageDir, "Webhook.class"))).toBe(true);
    expect(existsSync(join(copy, "target", "classes", packageDir, "plugin.json"))).toBe(true);
  });
});
