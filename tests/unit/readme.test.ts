/**
 * The README's statements of a rule are the rule's: its generated blocks are what scripts/docs/readme.ts writes from
 * the homes (the settings table, their precedence), and the versions, the Node.js floor and the package's names it
 * (and each example's README) spells out are those of package.json, `kernel/node-support.ts` and `kernel/names.ts`;
 * CHANGELOG.md's newest section is package.json's version.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { precedencePhrase } from "../../cli/help.js";
import * as config from "../../kernel/config.js";
import * as names from "../../kernel/names.js";
import { NODE_FLOORS, SUPPORTED_NODE_TEXT } from "../../kernel/node-support.js";
import * as packageVersion from "../../kernel/package-version.js";
import * as settings from "../../kernel/settings.js";
import { buildSchema } from "../../provider/native/schema.js";
import { fillBlocks, readmeBlocks } from "../../scripts/docs/readme.ts";
import { pageSources } from "../support/doc-sources.js";
import { repoRoot } from "../support/package.js";

const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const version = packageVersion.packageVersion();

/** README.md and the README of every example, by path. */
const documents: [string, string][] = [
  ["README.md", readme],
  ...readdirSync(join(repoRoot, "examples"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const path = join("examples", entry.name, "README.md");
      try {
        return [[path, readFileSync(join(repoRoot, path), "utf8")] as [string, string]];
      } catch {
        return [];
      }
    }),
];

/** Every match of `pattern`'s first group in the documents, as `file: value`. */
function found(pattern: RegExp): string[] {
  return documents.flatMap(([file, text]) => [...text.matchAll(pattern)].map((match) => `${file}: ${match[1]}`));
}

describe("README.md states the rules as their homes do", () => {
  it("its generated blocks (the settings table, their precedence) are what scripts/docs/readme.ts writes", () => {
    const sources = { ...pageSources(), precedencePhrase };
    const blocks = readmeBlocks(sources);
    expect(blocks.settings).toContain("`HELPDESK_ACCESS_TOKEN`");
    expect(
      fillBlocks(readme, blocks),
      "README.md's generated blocks are stale: run `npm run build && node scripts/docs/readme.ts`",
    ).toBe(readme);
  });

  it("a change to the table's row or to the order changes the blocks (so the check above can fail)", () => {
    const base = { schema: buildSchema(), names, settings, config, packageVersion, clientFlags: {}, precedencePhrase };
    const reordered = readmeBlocks({
      ...base,
      precedencePhrase: (words) => [words.environment, words.config, words.explicit].join(", else "),
    });
    expect(reordered.precedence).not.toBe(readmeBlocks(base).precedence);
    const changed = {
      ...settings,
      SETTINGS: { ...settings.SETTINGS, maxRetries: { ...settings.SETTINGS.maxRetries, default: 11 } },
    } as unknown as typeof settings;
    expect(readmeBlocks({ ...base, settings: changed }).settings).not.toBe(readmeBlocks(base).settings);
  });

  it("every version of this package it names is package.json's", () => {
    const versions = found(
      /(?:-v|helpdesk-|helpdesk_|pulumi_helpdesk-|resource helpdesk |version: |helpdesk:|releases\/download\/v|pulumi-helpdesk |helpdesk@v)(\d+\.\d+\.\d+)\b/g,
    );
    expect(versions.length, "the README names the version in its install commands").toBeGreaterThan(5);
    expect(versions.filter((entry) => !entry.endsWith(`: ${version}`))).toEqual([]);
  });

  it("the Pulumi CLI it asks for is the one the tests run (package.json's @pulumi/pulumi, which scripts/setup.sh holds to the CLI's pin)", () => {
    const tested = (
      JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string> }
    ).devDependencies["@pulumi/pulumi"];
    const floors = found(/The Pulumi CLI \((\S+) or newer/g);
    expect(floors.length, "the READMEs name the Pulumi CLI they were run with").toBeGreaterThan(1);
    expect(floors.filter((entry) => !entry.endsWith(`: ${tested}`))).toEqual([]);
  });

  it("CHANGELOG.md's newest section is package.json's version, and no section is left unversioned", () => {
    const changelog = readFileSync(join(repoRoot, "CHANGELOG.md"), "utf8");
    const headings = [...changelog.matchAll(/^## (.+)$/gm)].map((match) => match[1]!);
    expect(headings[0], "the newest section names the version package.json ships").toBe(version);
    expect(
      headings.filter((heading) => !/^\d+\.\d+\.\d+$/.test(heading)),
      "every section is a version",
    ).toEqual([]);
  });

  it("the Node.js it asks for is the floor of kernel/node-support.ts, stated as the guard states it", () => {
    expect(readme).toContain(SUPPORTED_NODE_TEXT.replace(/^Node\.js /, ""));
    const named = found(/Node\.js (\d+\.\d+(?:\.\d+)?)/g).map((entry) => entry.split(": ")[1]!);
    expect(named.filter((stated) => !NODE_FLOORS.some((floor) => floor.startsWith(stated)))).toEqual([]);
  });

  it("the package names it spells are those of kernel/names.ts", () => {
    const expectations: [RegExp, string][] = [
      [/(@[\w-]+\/[\w-]+)(?=[`"' ]|$)/gm, names.nodejsSdkPackage()],
      [/\b(pulumi_[a-z]+)\b/g, names.PYTHON_PACKAGE],
      [/\b(github\.com\/[\w-]+\/[\w-]+\/sdk\/go)\b/g, names.goModulePath()],
      // Maven coordinates under either GitHub namespace: the one Central no longer grants is caught too.
      [/\b((?:com|io)\.github\.[\w-]+:[\w-]+)/g, names.mavenCoordinates()],
      [new RegExp(`<groupId>([\\w.-]+)</groupId><artifactId>${names.MAVEN_ARTIFACT_ID}<`, "g"), names.mavenGroupId()],
      [/\b(pulumi-resource-[a-z]+)\b/g, names.PLUGIN_EXECUTABLE],
      [/\b([a-z]+:index:Webhook)\b/g, names.WEBHOOK_TYPE],
    ];
    for (const [pattern, expected] of expectations) {
      const spelled = found(pattern).filter((entry) => !entry.includes("@pulumi/"));
      expect(spelled.length, `${pattern} is named at all`).toBeGreaterThan(0);
      expect(
        spelled.filter((entry) => !entry.endsWith(`: ${expected}`)),
        `${pattern} spelled as ${expected}`,
      ).toEqual([]);
    }
  });
});
