/**
 * The package's names (kernel/names.ts): the Pulumi package name and what is named after it, derived from
 * package.json's `name`; the GitHub owner and name read out of package.json's `repository` in every form npm accepts,
 * and the Go SDK's module and import paths derived from them, which the schema carries. And the rule that gives them
 * one home: no other hand-written module spells one of them out.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  ANALYZER_EXECUTABLE,
  CLI_EXECUTABLE,
  DYNAMIC_WEBHOOK_TYPE,
  githubRepository,
  githubRepositoryOf,
  goImportPath,
  goModulePath,
  javaBasePackage,
  logoUrl,
  MAVEN_ARTIFACT_ID,
  mavenCoordinates,
  mavenGroupId,
  PLUGIN_EXECUTABLE,
  POLICY_PACK,
  PROVIDER_TYPE,
  PULUMI_PACKAGE,
  PYTHON_PACKAGE,
  pluginCacheFolder,
  pluginExecutableFile,
  releaseTag,
  repositoryUrl,
  WEBHOOK_EVENT_TYPE,
  WEBHOOK_TYPE,
} from "../../kernel/names.js";
import { buildSchema } from "../../provider/native/schema.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { SHIPPED_ROOMS } from "../../scripts/lib/rooms.cjs";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  name: string;
  bin: Record<string, string>;
  repository: { type: string; url: string };
};

describe("the package's names", () => {
  it("are derived from package.json's name by Pulumi's conventions", () => {
    expect(pkg.name).toBe("pulumi-helpdesk");
    expect(PULUMI_PACKAGE).toBe("helpdesk");
    expect(CLI_EXECUTABLE).toBe("pulumi-helpdesk");
    expect(PLUGIN_EXECUTABLE).toBe("pulumi-resource-helpdesk");
    expect([ANALYZER_EXECUTABLE, POLICY_PACK]).toEqual(["pulumi-analyzer-helpdesk", "helpdesk"]);
    expect(PYTHON_PACKAGE).toBe("pulumi_helpdesk");
    expect([WEBHOOK_TYPE, WEBHOOK_EVENT_TYPE, PROVIDER_TYPE, DYNAMIC_WEBHOOK_TYPE]).toEqual([
      "helpdesk:index:Webhook",
      "helpdesk:index:WebhookEvent",
      "pulumi:providers:helpdesk",
      "pulumi-nodejs:dynamic/helpdesk:Webhook",
    ]);
    expect(pluginCacheFolder("0.1.0")).toBe("resource-helpdesk-v0.1.0");
    expect([pluginExecutableFile("linux"), pluginExecutableFile("win32")]).toEqual([
      "pulumi-resource-helpdesk",
      "pulumi-resource-helpdesk.exe",
    ]);
  });

  it("are the ones package.json and the package's files go by", () => {
    expect(Object.keys(pkg.bin)).toEqual([CLI_EXECUTABLE]);
    expect(existsSync(join(repoRoot, "plugin", PLUGIN_EXECUTABLE))).toBe(true);
    const schema = buildSchema();
    expect(schema.name).toBe(PULUMI_PACKAGE);
    expect(Object.keys(schema.resources)).toEqual([WEBHOOK_TYPE]);
    expect(Object.keys(schema.types)).toEqual([WEBHOOK_EVENT_TYPE]);
    expect(schema.language.python).toMatchObject({ packageName: PYTHON_PACKAGE });
  });
});

describe("the repository", () => {
  it("is read from every way package.json may name a GitHub repository", () => {
    for (const repository of [
      { type: "git", url: "git+https://github.com/octo/helpdesk.git" },
      { url: "https://github.com/octo/helpdesk" },
      "https://github.com/octo/helpdesk.git",
      "git+ssh://git@github.com/octo/helpdesk.git",
      "git@github.com:octo/helpdesk.git",
      "github:octo/helpdesk",
      "octo/helpdesk",
    ]) {
      expect(githubRepositoryOf(repository), JSON.stringify(repository)).toEqual({ owner: "octo", name: "helpdesk" });
    }
  });

  it("refuses a missing repository and one not on GitHub, saying why", () => {
    expect(() => githubRepositoryOf(undefined)).toThrow(/has no repository/);
    expect(() => githubRepositoryOf({ type: "git" })).toThrow(/has no repository/);
    expect(() => githubRepositoryOf("gitlab:octo/helpdesk")).toThrow(/not a GitHub repository/);
    expect(() => githubRepositoryOf("https://git.example.com/octo/helpdesk.git")).toThrow(/not a GitHub repository/);
  });

  it("gives the Go SDK its module path (sdk/go) and import path (sdk/go/<package>)", () => {
    const octo = { owner: "octo", name: "helpdesk" };
    expect(goModulePath(octo)).toBe("github.com/octo/helpdesk/sdk/go");
    expect(goImportPath(octo)).toBe("github.com/octo/helpdesk/sdk/go/helpdesk");
  });

  it("gives the Java SDK the Maven groupId io.github.<owner> that Maven Central grants, apart from its com.github package", () => {
    const octo = { owner: "octo", name: "helpdesk" };
    expect(mavenGroupId(octo)).toBe("io.github.octo");
    expect(mavenGroupId({ owner: "Acme-Corp", name: "x" })).toBe("io.github.acme-corp");
    expect(mavenCoordinates(octo)).toBe("io.github.octo:helpdesk");
    expect(mavenGroupId(octo)).not.toBe(javaBasePackage(octo));
  });

  it("is the groupId and artifactId of the Java SDK's pom.xml that scripts/sdk/generate-java.sh writes", () => {
    // The project's own element before <dependencies>: the dependencies' groupIds are other projects'.
    const pom = readFileSync(join(repoRoot, "sdk", "java", "pom.xml"), "utf8");
    const project = pom.slice(0, pom.indexOf("<dependencies>"));
    expect(/<groupId>([^<]+)<\/groupId>/.exec(project)?.[1]).toBe(mavenGroupId());
    expect(/<artifactId>([^<]+)<\/artifactId>/.exec(project)?.[1]).toBe(MAVEN_ARTIFACT_ID);
  });

  it("gives the web addresses of the repository and of the logo at a release's tag", () => {
    const octo = { owner: "octo", name: "helpdesk" };
    expect(repositoryUrl(octo)).toBe("https://github.com/octo/helpdesk");
    expect(releaseTag("1.2.3")).toBe("v1.2.3");
    expect(logoUrl("1.2.3", octo)).toBe("https://raw.githubusercontent.com/octo/helpdesk/v1.2.3/docs/logo.svg");
  });

  it("is this package's own in the schema's language.go.importBasePath", () => {
    const own = githubRepositoryOf(pkg.repository);
    expect(githubRepository()).toEqual(own);
    expect(buildSchema().language.go).toMatchObject({
      importBasePath: `github.com/${own.owner}/${own.name}/sdk/go/${PULUMI_PACKAGE}`,
      respectSchemaVersion: true,
    });
  });
});

/** The hand-written rooms whose code must take the names from kernel/names.ts (tests may spell them: they check them). */
const ROOMS = [...SHIPPED_ROOMS, "scripts", "bench"];

/** The files that must spell a name, and why. */
const SPELLING_ALLOWED: Readonly<Record<string, string>> = {
  "kernel/package-version.ts": "the home of the npm name, PACKAGE_NAME, from which kernel/names.ts derives the others",
  "program/webhook.ts":
    "the serialized shim's text, stored in every Webhook's state, captures nothing (docs/design.md \"The serialized shim\")",
};

/**
 * A name spelled out: the Pulumi package name alone, a type token, the executables' names, the npm names (the
 * package's, which is the CLI's, and the TypeScript SDK's `@pulumi-helpdesk/helpdesk`), the Python package's and the
 * Java package's (`pulumi_helpdesk`).
 */
const SPELLED_NAME =
  /^helpdesk$|helpdesk:index|providers:helpdesk|resource-helpdesk|analyzer-helpdesk|pulumi_helpdesk|pulumi-helpdesk/;

/** Every file below `dir` whose name ends in `extension`, as paths relative to the repository. */
function filesIn(dir: string, extension: string): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension) && !entry.parentPath.includes("node_modules"))
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)));
}

/** The texts of a TypeScript source's string and template literals (comments are not code). */
function literalsIn(fileName: string, text: string): string[] {
  const texts: string[] = [];
  const visit = (node: ts.Node): void => {
    // A module specifier (`import ... from "pulumi-helpdesk/emulator"`, `import("./pulumi-helpdesk.js")`) imports a
    // module; it states no name.
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) return;
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) return;
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) texts.push(node.text);
    node.forEachChild(visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false));
  return texts;
}

/** The lines of a shell script, comments aside, that spell a name out: the package name quoted, or a name made from it. */
function spelledInShell(text: string): string[] {
  return text
    .split("\n")
    .filter(
      (line) =>
        !/^\s*#/.test(line) &&
        /"helpdesk"|helpdesk:index|providers:helpdesk|resource-helpdesk|analyzer-helpdesk|pulumi_helpdesk|pulumi-helpdesk/.test(
          line,
        ),
    )
    .map((line) => line.trim());
}

describe("one home for the names", () => {
  it("the check finds a name spelled out in a literal, and not in a comment", () => {
    const texts = literalsIn(
      "x.ts",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a planted source text whose template literal the check reads
      '// helpdesk:index:Webhook\nconst a = "helpdesk"; const b = `x ${a} pulumi-resource-helpdesk`;',
    );
    expect(texts.filter((text) => SPELLED_NAME.test(text))).toEqual(["helpdesk", " pulumi-resource-helpdesk"]);
    expect(spelledInShell('# pulumi-resource-helpdesk\n  echo "pulumi_helpdesk"\necho helpdesk')).toEqual([
      'echo "pulumi_helpdesk"',
    ]);
  });

  it("no hand-written module spells a name out (kernel/names.ts derives them), nor a shell script outside its comments", () => {
    const spelled: string[] = [];
    for (const room of ROOMS) {
      for (const path of filesIn(room, ".ts").filter((path) => !Object.hasOwn(SPELLING_ALLOWED, path))) {
        for (const text of literalsIn(path, readFileSync(join(repoRoot, path), "utf8")))
          if (SPELLED_NAME.test(text)) spelled.push(`${path}: ${JSON.stringify(text)}`);
      }
      for (const path of filesIn(room, ".sh")) {
        for (const line of spelledInShell(readFileSync(join(repoRoot, path), "utf8"))) spelled.push(`${path}: ${line}`);
      }
    }
    expect(spelled).toEqual([]);
  });
});
