/**
 * The examples as users write them, checked without running them (tests/examples/readmes.test.ts runs them):
 * - every example folder has a README whose marked blocks readmes.test.ts follows, with no step it cannot give a
 *   value to, and no command that reaches back into this repository;
 * - no program names a plugin path (`plugins:` in Pulumi.yaml): the SDK, or the YAML program's resource options,
 *   names the plugin and where Pulumi downloads it;
 * - every version an example writes down (release file names, dependency ranges, the YAML options, go.mod, pom.xml,
 *   requirements.txt) is the package's, and the YAML download URL is the schema's;
 * - the Pulumi CLI each README asks for is the one the tests run.
 */

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { goModulePath, MAVEN_ARTIFACT_ID, mavenGroupId, pluginDownloadUrlFor } from "../../kernel/names.js";
import { required } from "../../kernel/required.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { nodejsSdkTarball } from "../../scripts/release/nodejs-sdk.ts";
import { archiveName } from "../../scripts/release/release.ts";
import { EXAMPLES_DIR } from "../support/examples.js";
import { EXAMPLE_SPECS, SUPPLIED_VARIABLES } from "./example-specs.js";
import { readmeSteps, shellWords, TESTED_MARKER } from "./readme-steps.js";

const PACKAGE = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  devDependencies: Record<string, string>;
};
const VERSION = PACKAGE.version;
/**
 * The Pulumi CLI the tests run: scripts/lib/env.sh pins it, and scripts/setup.sh refuses to run unless the
 * `@pulumi/pulumi` of package.json's devDependencies is that same version.
 */
const TESTED_PULUMI_CLI = required(PACKAGE.devDependencies["@pulumi/pulumi"], "the devDependency @pulumi/pulumi");
/**
 * The examples that are not a user's Pulumi project: examples/fleet is the team tests' Automation API module and its
 * program; examples/receivers holds services that receive deliveries, run by tests/e2e/receiving.test.ts.
 */
const NOT_USER_EXAMPLES = new Set(["fleet", "receivers"]);
const folders = readdirSync(EXAMPLES_DIR).filter(
  (name) => statSync(join(EXAMPLES_DIR, name)).isDirectory() && !NOT_USER_EXAMPLES.has(name),
);
const read = (example: string, file: string): string => readFileSync(join(EXAMPLES_DIR, example, file), "utf8");

describe("the examples as users write them", () => {
  it("every example folder has a README that tests/examples/readmes.test.ts follows", () => {
    expect(EXAMPLE_SPECS.map((spec) => spec.name).sort()).toEqual([...folders].sort());
    for (const example of folders)
      expect(existsSync(join(EXAMPLES_DIR, example, "README.md")), `examples/${example}/README.md`).toBe(true);
  });

  describe.each(folders)("examples/%s/README.md", (example) => {
    const text = read(example, "README.md");
    const { steps } = readmeSteps(text, `examples/${example}/README.md`);

    it("has marked blocks that sign in, deploy and clean up, and starts the emulator", () => {
      expect(text).toContain(TESTED_MARKER);
      const run = steps.flatMap((step) => (step.kind === "run" ? [step.commands] : [])).join("\n");
      expect(run).toMatch(/pulumi-helpdesk login --stack dev/);
      expect(run).toMatch(/^(pulumi up|go run \. -stack dev up)$/m);
      expect(run).toMatch(/^(pulumi destroy|go run \. -stack dev destroy)$/m);
      expect(steps.some((step) => step.kind === "emulator")).toBe(true);
    });

    it("names in earlier steps every value the test gives, and no other", () => {
      for (const step of steps) {
        if (step.kind === "export")
          for (const name of step.values.keys())
            expect(SUPPLIED_VARIABLES.has(name), `${name} (line ${step.line})`).toBe(true);
      }
      // A tested block uses no variable that is neither set by the README nor one of the shell's own.
      const exported = new Set(steps.flatMap((step) => (step.kind === "export" ? [...step.values.keys()] : [])));
      for (const step of steps) {
        if (step.kind !== "run") continue;
        for (const [, name = ""] of step.commands.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
          expect(
            exported.has(name) || ["HOME", "PATH"].includes(name),
            `$${name} in the block of line ${step.line}`,
          ).toBe(true);
        }
      }
    });

    it("serves the release folder it named, when Pulumi downloads the plugin: its mirror line, which readmes.test.ts runs", () => {
      const mirrors = steps.flatMap((step) => (step.kind === "mirror" ? [step.command] : []));
      const plugin = required(
        EXAMPLE_SPECS.find((spec) => spec.name === example),
        `the spec of example ${example}`,
      ).plugin;
      expect(mirrors).toEqual(
        plugin ? [`python3 -m http.server 8000 --bind 127.0.0.1 --directory "$HELPDESK_RELEASE"`] : [],
      );
    });

    it("its commands work from a copy of the folder: none reaches into this repository", () => {
      for (const step of steps)
        if (step.kind === "run")
          expect(step.commands, `the block of line ${step.line}`).not.toMatch(/\.\.\/|dist\/|scripts\//);
    });

    it("writes the release's file names and versions as the release makes them", () => {
      const words = steps.flatMap((step) =>
        step.kind === "run" ? step.commands.split("\n").flatMap((line) => shellWords(line)) : [],
      );
      const files = words.flatMap((word) => /\$HELPDESK_RELEASE\/(.+)$/.exec(word)?.slice(1) ?? []);
      const known = [
        archiveName(VERSION, { os: "linux", arch: "x64" }),
        nodejsSdkTarball(VERSION),
        `pulumi-helpdesk-${VERSION}.tgz`,
      ];
      for (const file of files) expect(known, `$HELPDESK_RELEASE/${file}`).toContain(file);
      for (const [, version] of text.matchAll(/pulumi-helpdesk-(\d+\.\d+\.\d+)\b/g)) expect(version).toBe(VERSION);
      for (const [, version] of text.matchAll(/pulumi-resource-helpdesk-v(\d+\.\d+\.\d+)-/g))
        expect(version).toBe(VERSION);
      for (const [, version] of text.matchAll(/resource helpdesk (\d+\.\d+\.\d+)/g)) expect(version).toBe(VERSION);
    });

    it("asks for the Pulumi CLI these steps were run with, no older one", () => {
      const floors = [...text.matchAll(/The Pulumi CLI \((\S+) or newer/g)].map((match) => match[1]);
      expect(floors).toEqual([TESTED_PULUMI_CLI]);
    });
  });

  it("no program names a plugin path: Pulumi downloads the plugin the SDK or the program names", () => {
    const projects = [...folders, "fleet/program"].map((example) => join(example, "Pulumi.yaml"));
    for (const project of projects)
      expect(readFileSync(join(EXAMPLES_DIR, project), "utf8"), project).not.toMatch(/^plugins:/m);
  });

  it("the dependencies are the package's version", () => {
    const dependencies = (example: string): Record<string, string> =>
      (JSON.parse(read(example, "package.json")) as { dependencies: Record<string, string> }).dependencies;
    expect(dependencies("basic")["pulumi-helpdesk"]).toBe(`^${VERSION}`);
    expect(dependencies("typescript")["@pulumi-helpdesk/helpdesk"]).toBe(`^${VERSION}`);
    for (const example of ["python", "python-basic"])
      expect(read(example, "requirements.txt")).toMatch(
        new RegExp(`^pulumi_helpdesk~=${VERSION.replaceAll(".", "\\.")}$`, "m"),
      );
    expect(read("go", "go.mod")).toMatch(new RegExp(`^\\s+${goModulePath()} v${VERSION.replaceAll(".", "\\.")}$`, "m"));
    expect(read("go", "go.mod")).not.toMatch(/^replace /m);
    expect(read("java", "pom.xml")).toContain(
      `<groupId>${mavenGroupId()}</groupId>\n      <artifactId>${MAVEN_ARTIFACT_ID}</artifactId>\n      <version>${VERSION}</version>`,
    );
  });

  it("the YAML program gives the plugin's version and the release's download URL on each resource that needs it", () => {
    const program = read("yaml", "Pulumi.yaml");
    const options = `    options:\n      version: ${VERSION}\n      pluginDownloadURL: ${pluginDownloadUrlFor(VERSION)}\n`;
    expect(program).toContain(`  ticketsOpened:\n    type: helpdesk:index:Webhook\n${options}`);
    expect(program).toContain(`  euHelpdesk:\n    type: pulumi:providers:helpdesk\n${options}`);
  });
});
