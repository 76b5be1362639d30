/**
 * The README's statements of a rule are the rule's: its generated blocks are what scripts/docs/readme.ts writes from
 * the homes (the settings table, their precedence), and the versions, the Node.js floor and the package's names it
 * (and each example's README) spells out are those of package.json, `kernel/node-support.ts` and `kernel/names.ts`;
 * what they say is published is `kernel/published.ts`'s (the README's and the examples' generated blocks),
 * CHANGELOG.md's one unreleased section is package.json's version, and the policies its "Governance" table lists, with
 * their default levels, are those of `policy/policies.ts`.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { precedencePhrase } from "../../cli/shared/help.js";
import * as names from "../../kernel/names.js";
import { NODE_FLOORS, SUPPORTED_NODE_TEXT } from "../../kernel/node-support.js";
import * as packageVersion from "../../kernel/package-version.js";
import * as published from "../../kernel/published.js";
import { required } from "../../kernel/required.ts";
import * as settings from "../../kernel/settings.js";
import { POLICIES } from "../../policy/policies.js";
import { RELEASE_WORKFLOW, unreleasedHeading } from "../../scripts/docs/published.ts";
import {
  exampleBlocks,
  exampleReadmes,
  fillBlocks,
  publishedFactsOf,
  readmeBlocks,
} from "../../scripts/docs/readme.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { pageSources } from "../support/doc-sources.js";

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
    const base = { ...pageSources(), clientFlags: {}, precedencePhrase };
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

  it("each example's README says what is published as scripts/docs/readme.ts writes it", () => {
    const readmes = exampleReadmes();
    expect(readmes.length, "the examples have READMEs").toBeGreaterThan(5);
    const blocks = exampleBlocks(pageSources());
    for (const example of readmes) {
      const text = readFileSync(join(repoRoot, example), "utf8");
      expect(
        fillBlocks(text, blocks),
        `${example}'s generated block is stale: run \`npm run build && node scripts/docs/readme.ts\``,
      ).toBe(text);
    }
  });

  it("what the docs say is published follows kernel/published.ts (so the checks above can fail)", () => {
    const base = { ...pageSources(), precedencePhrase };
    const at = (version: string | undefined) => ({ ...base, published: { PUBLISHED_VERSION: version } });
    const none = readmeBlocks(at(undefined));
    const current = readmeBlocks(at(version));
    const older = readmeBlocks(at("0.0.1"));
    expect(none.published).toContain("Not published yet");
    expect(none.install).toContain("(once published)");
    expect(current.published).toContain(`Version ${version} is published`);
    expect(current.install).not.toContain("once published");
    expect(older.published).toContain("The registries hold 0.0.1");
    expect(exampleBlocks(at(version)).published).not.toBe(exampleBlocks(at(undefined)).published);
    expect(readmeBlocks(base).published).toBe(
      published.PUBLISHED_VERSION === version ? current.published : none.published,
    );
  });

  it("the verify commands name the release workflow, which signs SHA256SUMS into that bundle and attests the files", () => {
    const { verify } = readmeBlocks({ ...pageSources(), precedencePhrase });
    const { owner, name } = names.githubRepository();
    expect(verify).toContain(
      `--certificate-identity 'https://github.com/${owner}/${name}/${RELEASE_WORKFLOW}@refs/tags/${names.releaseTag(version)}'`,
    );
    expect(verify).toContain(
      `gh attestation verify pulumi-resource-helpdesk-v${version}-linux-amd64.tar.gz --repo ${owner}/${name}`,
    );
    const workflow = readFileSync(join(repoRoot, RELEASE_WORKFLOW), "utf8");
    // The workflow's sign job runs scripts/ci/sign-sums.sh, which signs with cosign and checks the identity above.
    expect(workflow, `${RELEASE_WORKFLOW} signs SHA256SUMS`).toContain("run: bash scripts/ci/sign-sums.sh release");
    const signing = readFileSync(join(repoRoot, "scripts/ci/sign-sums.sh"), "utf8");
    expect(signing, "scripts/ci/sign-sums.sh signs SHA256SUMS with cosign").toMatch(
      new RegExp(
        `cosign sign-blob [^\n]*--bundle [^\n]*${names.SUMS_SIGNATURE.replace(/\./g, "\\.")}[^\n]* \\S*SHA256SUMS`,
      ),
    );
    expect(signing, "scripts/ci/sign-sums.sh checks the identity the README names").toContain(
      `/${RELEASE_WORKFLOW}@$GITHUB_REF`,
    );
    expect(workflow, `${RELEASE_WORKFLOW} attests the files`).toContain("actions/attest-build-provenance@");
    expect(workflow, `${RELEASE_WORKFLOW} runs for the tags v<version>`).toMatch(
      /tags:\s*(\[\s*["']?v|\n\s*-\s*["']?v)/,
    );
  });

  it("CHANGELOG.md has one unreleased section, package.json's version, on top; the others are published versions", () => {
    const changelog = readFileSync(join(repoRoot, "CHANGELOG.md"), "utf8");
    const headings = [...changelog.matchAll(/^## (.+)$/gm)].map(([, heading]) => required(heading, "a heading"));
    const facts = publishedFactsOf(pageSources());
    expect(headings[0], "the newest section names the version package.json ships").toBe(unreleasedHeading(facts));
    const newest = facts.published?.split(".").map(Number);
    const publishedBefore = (heading: string): boolean => {
      const parts = /^(\d+)\.(\d+)\.(\d+)$/.exec(heading)?.slice(1).map(Number);
      if (!parts || !newest) return false;
      const order =
        parts.map((part, index) => part - (newest[index] ?? Number.NaN)).find((difference) => difference !== 0) ?? 0;
      return order <= 0;
    };
    expect(
      headings.slice(1).filter((heading) => !publishedBefore(heading)),
      "below the top section, only versions published (kernel/published.ts) have a section",
    ).toEqual([]);
  });

  it("the Node.js it asks for is the floor of kernel/node-support.ts, stated as the guard states it", () => {
    expect(readme).toContain(SUPPORTED_NODE_TEXT.replace(/^Node\.js /, ""));
    const named = found(/Node\.js (\d+\.\d+(?:\.\d+)?)/g).map((entry) =>
      required(entry.split(": ")[1], `the version in ${entry}`),
    );
    expect(named.filter((stated) => !NODE_FLOORS.some((floor) => floor.startsWith(stated)))).toEqual([]);
  });

  it("its Governance table lists the policy pack's policies, in order, each with the level it states for itself", () => {
    // A row: | `<policy name>` | what it asks | <default level>... |
    const rows = [...readme.matchAll(/^\| `(webhook-[a-z-]+)` \|.*\| (advisory|mandatory|disabled)\b[^|]*\|$/gm)];
    expect(rows.map(([, name, level]) => [name, level])).toEqual(
      POLICIES.map(({ name, enforcementLevel }) => [name, enforcementLevel]),
    );
  });

  it("the package names it spells are those of kernel/names.ts", () => {
    // The receiver kit's npm package is the one other scoped name the README spells (its section "Receiving deliveries").
    const expectations: [RegExp, string][] = [
      [/(@[\w-]+\/(?!receiver\b)[\w-]+)(?=[`"' ]|$)/gm, names.nodejsSdkPackage()],
      [/(@[\w-]+\/receiver)(?=[`"' ,]|$)/gm, names.receiverNpmPackage()],
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
