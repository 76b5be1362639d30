/**
 * The documents the code cites are in the repository, and say what is cited.
 *
 * Scans the repository's own source and documentation files (what git lists, tracked or new and not ignored; not
 * node_modules, dist, tests/fixtures or package-lock.json) line by line for:
 *
 * (a) citations of a document under docs/: `docs/<file>.md §<n>` (also a range `§2.3–2.6` and a chain
 *     `§4.1, §4.2`) and `docs/<file>.md "<heading>"`. The file must exist and the section number, or the heading, must
 *     be a heading of it (`### 4.3 POST /v1/webhooks` answers §4.3; `## Settings precedence` answers that quote).
 * (b) citations of documents that are not in the repository: the external API spec cited as a bare "spec" plus a
 *     section sign, its file name, and the design notes' old file name in capitals. Each must name docs/ instead.
 * (c) paths of this repository's files: a path that starts with one of the top folders (sdk, provider, auth, cli,
 *     emulator, bench, examples, tests, scripts, docs, plugin) and ends in .ts, .md, .sh, .json, .yaml or .py must
 *     exist. Not checked: a path preceded by `/`, `.`, `@`, `:` or a word character, which is a package subpath
 *     (`@pulumi/pulumi/...`, `pulumi-helpdesk/provider`), part of a URL or of a longer path (`dist/program/index.d.ts`,
 *     `./x`, `../x`); paths of other extensions (`.go`, `.js`, `.mod`: Pulumi's own repository, built files); and the
 *     few citations of other repositories' files in {@link EXTERNAL_PATHS}.
 *
 * Every failure names file:line and what is missing, so the fix is one look away.
 */

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { required } from "../../kernel/required.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { SHIPPED_ROOMS } from "../../scripts/lib/rooms.cjs";

/** The top folders of this repository: a path starting with one of them names one of our files. */
const TOP_FOLDERS = [...SHIPPED_ROOMS, "sdk", "bench", "examples", "tests", "scripts", "docs", "plugin"];

/** Extensions of the files whose paths are checked under (c). */
const CHECKED_PATH_EXTENSIONS = ["ts", "md", "sh", "json", "yaml", "py"];

/**
 * Paths under (c)'s pattern that name another repository's files, never ours (exact text as cited, with why).
 * Empty today: keep an entry here only with the repository it belongs to.
 */
const EXTERNAL_PATHS: ReadonlyMap<string, string> = new Map<string, string>([]);

/** Extensions of the files scanned; files without an extension are scanned too when they are scripts (plugin/). */
const SCANNED_EXTENSIONS = new Set([".ts", ".mts", ".mjs", ".cjs", ".go", ".py", ".sh", ".md", ".yaml", ".yml"]);

/** The section sign, kept out of this file's own text as a bare citation. */
const SECTION = "\u00a7";

/** One finding: where and what. */
interface Finding {
  where: string;
  problem: string;
}

/** The repository's own source and documentation files, relative to the root, that exist in the working tree. */
function scannedFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoRoot,
    encoding: "utf8",
  })
    .split("\0")
    .filter(Boolean);
  return [...new Set(listed)].filter((file) => {
    const parts = file.split("/");
    if (parts.some((part) => part === "node_modules" || part === "dist" || part.startsWith("."))) return false;
    if (file.startsWith("tests/fixtures/") || file.endsWith("package-lock.json")) return false;
    const extension = extname(file);
    const scanned = SCANNED_EXTENSIONS.has(extension) || (extension === "" && parts[0] === "plugin");
    return scanned && existsSync(join(repoRoot, file)) && statSync(join(repoRoot, file)).isFile();
  });
}

/** The headings of a markdown document: their text, and the section number each starts with (`4.3`, `5`), if any. */
function headingsOf(file: string): { texts: Set<string>; numbers: Set<string> } {
  const texts = new Set<string>();
  const numbers = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = required(heading[1], "a heading's text");
    texts.add(text);
    const [, number, title] = /^(\d+(?:\.\d+)*)\.?\s+(.*)$/.exec(text) ?? [];
    if (number !== undefined && title !== undefined) {
      numbers.add(number);
      texts.add(title);
    }
  }
  return { texts, numbers };
}

const headingCache = new Map<string, ReturnType<typeof headingsOf>>();
function headings(doc: string): ReturnType<typeof headingsOf> {
  let found = headingCache.get(doc);
  if (!found) {
    found = headingsOf(join(repoRoot, doc));
    headingCache.set(doc, found);
  }
  return found;
}

const S = SECTION;
/** `docs/<file>.md §4.3`, with a range (`§2.3–2.6`) or a chain (`, §4.2`, ` and §4.4`, `/§5`) after it. */
const SECTION_CITATION = new RegExp(
  `\\b(docs/[\\w.-]+\\.md)\\s*${S}(\\d+(?:\\.\\d+)*(?:[–-]\\d+(?:\\.\\d+)*)?)((?:\\s*(?:,|and|/)\\s*${S}\\d+(?:\\.\\d+)*)*)`,
  "g",
);
/** `docs/<file>.md "Heading"`. */
const HEADING_CITATION = /\b(docs\/[\w.-]+\.md),?\s+"([^"\n]+)"/g;
/** Citations of documents that are not in the repository. */
const BARE_CITATIONS: ReadonlyArray<{ pattern: RegExp; what: string }> = [
  { pattern: new RegExp(`\\bspec\\s*${S}`, "g"), what: `bare "spec ${S}" citation: cite docs/helpdesk-api.md ${S}<n>` },
  {
    pattern: new RegExp(`\\bthe spec(?: \\w+)? \\(${S}`, "g"),
    what: `bare "the spec (${S}" citation: cite docs/helpdesk-api.md ${S}<n>`,
  },
  {
    pattern: /helpdesk-api-spec\.md/g,
    what: "the external spec file is not in the repository: cite docs/helpdesk-api.md",
  },
  {
    pattern: new RegExp(`\\b${"DESIGN"}\\.md\\b`, "g"),
    what: "the design notes are docs/design.md: cite it with a quoted heading of it",
  },
];
/** A path of this repository's files; see (c) in the header for what is left out. */
const REPO_PATH = new RegExp(
  `(?<![\\w@./:-])((?:${TOP_FOLDERS.join("|")})/[\\w./-]*\\.(?:${CHECKED_PATH_EXTENSIONS.join("|")}))(?![\\w-]|\\.\\w)`,
  "g",
);

/** Splits `2.3–2.6` and the chain `, §4.2 and §4.4` into the section numbers cited. */
function sectionsCited(first: string, chain: string): string[] {
  const sections = first.split(/[–-]/);
  for (const [, section] of chain.matchAll(new RegExp(`${S}(\\d+(?:\\.\\d+)*)`, "g")))
    sections.push(required(section, "a section number"));
  return sections;
}

/** Runs the three checks over every scanned file. */
function scan(): {
  citations: Finding[];
  bare: Finding[];
  paths: Finding[];
  counts: { files: number; citations: number; paths: number };
} {
  const citations: Finding[] = [];
  const bare: Finding[] = [];
  const paths: Finding[] = [];
  const counts = { files: 0, citations: 0, paths: 0 };
  for (const file of scannedFiles()) {
    counts.files++;
    const lines = readFileSync(join(repoRoot, file), "utf8").split("\n");
    lines.forEach((line, index) => {
      const where = `${file}:${index + 1}`;
      for (const match of line.matchAll(SECTION_CITATION)) {
        counts.citations++;
        const doc = required(match[1], "the cited document");
        if (!existsSync(join(repoRoot, doc))) {
          citations.push({ where, problem: `cites ${doc}, which does not exist` });
          continue;
        }
        for (const section of sectionsCited(required(match[2], "the cited section"), match[3] ?? "")) {
          if (!headings(doc).numbers.has(section))
            citations.push({ where, problem: `cites ${doc} ${S}${section}, which is no heading of it` });
        }
      }
      // A citation the line wraps: `docs/design.md` at the end of this line, the quoted heading on the next (after its
      // comment mark); matches that end on this line alone are read below.
      const next = (lines[index + 1] ?? "").replace(/^\s*(?:\*|\/\/|#)?\s*/, "");
      const headingCitations = [
        ...line.matchAll(HEADING_CITATION),
        ...[...`${line} ${next}`.matchAll(HEADING_CITATION)].filter(
          (match) => match.index + match[0].length > line.length + 1 && match.index < line.length,
        ),
      ];
      for (const match of headingCitations) {
        counts.citations++;
        const doc = required(match[1], "the cited document");
        if (!existsSync(join(repoRoot, doc))) citations.push({ where, problem: `cites ${doc}, which does not exist` });
        else if (!headings(doc).texts.has(required(match[2], "the cited heading")))
          citations.push({ where, problem: `cites ${doc} "${match[2]}", which is no heading of it` });
      }
      for (const { pattern, what } of BARE_CITATIONS) {
        for (const match of line.matchAll(pattern))
          bare.push({ where, problem: `${what} (found ${JSON.stringify(match[0])})` });
      }
      for (const match of line.matchAll(REPO_PATH)) {
        counts.paths++;
        const path = required(match[1], "the named path");
        if (EXTERNAL_PATHS.has(path)) continue;
        if (!existsSync(join(repoRoot, path))) paths.push({ where, problem: `names ${path}, which does not exist` });
      }
    });
  }
  return { citations, bare, paths, counts };
}

const report = (findings: Finding[]): string[] => findings.map(({ where, problem }) => `${where}: ${problem}`);

describe("citations and file references", () => {
  const result = scan();

  it("scans the repository's sources and docs", () => {
    expect(result.counts.files).toBeGreaterThan(100);
    expect(result.counts.paths).toBeGreaterThan(50);
  });

  it("every docs/<file>.md citation names a file that exists and a section or heading it has", () => {
    expect(report(result.citations)).toEqual([]);
  });

  it("no citation of a document outside the repository is left", () => {
    expect(report(result.bare)).toEqual([]);
  });

  it("every path of this repository's files that a comment or document names exists", () => {
    expect(report(result.paths)).toEqual([]);
  });

  it("the checks catch what they are for", () => {
    const doc = "docs/helpdesk-api.md";
    expect(sectionsCited("2.3–2.6", `, ${S}6 and ${S}4.4`)).toEqual(["2.3", "2.6", "6", "4.4"]);
    expect(
      [...`see ${doc} ${S}4.1, ${S}4.2 and ${S}9.`.matchAll(SECTION_CITATION)].map((m) =>
        sectionsCited(required(m[2], "the cited section"), m[3] ?? ""),
      ),
    ).toEqual([["4.1", "4.2", "9"]]);
    const paths = (text: string): string[] =>
      [...text.matchAll(REPO_PATH)].map(([, path]) => required(path, "the named path"));
    expect(paths("see `provider/native/config.ts` and kernel/webhook-rules.ts.")).toEqual([
      "provider/native/config.ts",
      "kernel/webhook-rules.ts",
    ]);
    expect(paths("sdk/a.ts.bak")).toEqual([]);
    expect(
      paths(
        "`pulumi-helpdesk/provider`, @pulumi/pulumi/proto/x.ts, https://h.example/docs/a.md, dist/program/index.d.ts, ./sdk/x.ts",
      ),
    ).toEqual([]);
    expect(paths("pulumi/pulumi `sdk/go/common/resource/plugin/plugin.go`, `provider/server.js`")).toEqual([]);
    expect(BARE_CITATIONS.some(({ pattern }) => new RegExp(pattern.source).test(`the spec (${S}2.1)`))).toBe(true);
  });
});
