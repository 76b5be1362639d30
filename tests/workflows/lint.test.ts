/**
 * `npm run lint:workflows` (scripts/lint-workflows.sh: actionlint with shellcheck, every action pinned by commit and
 * image by digest, every `run:` a script of the repository) passes on the repository's workflows and fails on copies
 * of them with one error planted: an expression naming a matrix key that does not exist (actionlint's type check),
 * an action pinned by a tag that can move, an image by a tag, an expression pasted into a `run:` (a commit message
 * an outsider writes), a `run:` of inline shell, and a script that does not exist.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";

const WORKFLOWS = join(repoRoot, ".github", "workflows");
let work: string;

/** Runs the lint on the given files. */
function lint(files: string[]) {
  return runCommand("bash", [join(repoRoot, "scripts", "lint-workflows.sh"), ...files], {
    cwd: repoRoot,
    env: process.env,
  });
}

/**
 * A copy of a workflow with `from` replaced by `to` (which must occur in it).
 *
 * @returns the copy's path
 */
function planted(workflow: string, from: string, to: string): string {
  const text = readFileSync(join(WORKFLOWS, workflow), "utf8");
  if (!text.includes(from)) throw new Error(`${workflow} does not contain ${from}`);
  const dir = mkdtempSync(join(work, "planted-"));
  mkdirSync(join(dir, ".github", "workflows"), { recursive: true });
  const file = join(dir, ".github", "workflows", workflow);
  writeFileSync(file, text.replace(from, to));
  return file;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "helpdesk-workflows-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("npm run lint:workflows", () => {
  it("passes on the repository's workflows", async () => {
    const ran = await lint([]);
    expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(ran.stderr).toContain("ci.yml .github/workflows/release.yml");
  });

  it("fails on an expression naming a matrix key that does not exist, saying where", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, planted in a workflow
    const file = planted("ci.yml", "node-version: ${{ matrix.node }}", "node-version: ${{ matrix.nodes }}");
    const ran = await lint([file]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/ci\.yml:\d+:\d+: property "nodes" is not defined/);
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: the test's name quotes a GitHub Actions expression
  it("fails on a ${{ github.event... }} expression in a run: line, saying which line and what to do", async () => {
    const file = planted(
      "release.yml",
      "run: bash scripts/ci/release-build.sh",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, planted in a workflow
      "run: bash scripts/ci/release-build.sh ${{ github.event.head_commit.message }}",
    );
    const ran = await lint([file]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(
      /release\.yml:\d+:.*github\.event\.head_commit\.message }} {2}<- a run: must be one line, bash scripts\/<path>\.sh with plain words or "\$VARIABLE" \(values of \$\{\{ \}\} go through env:\)/,
    );
  });

  it("fails on a run: of inline shell, and on a run: of a script that does not exist", async () => {
    const inline = await lint([planted("ci.yml", "run: bash scripts/test.sh", "run: npm ci && npm test")]);
    expect(inline.code).toBe(1);
    expect(inline.stderr).toMatch(/ci\.yml:\d+:.*run: npm ci && npm test {2}<- a run: must be one line/);
    // A script no one wrote (its path put together, so the repository's path check does not take it for a reference).
    const nowhere = ["scripts", "ci", "nowhere.sh"].join("/");
    const missing = await lint([planted("ci.yml", "run: bash scripts/test.sh", `run: bash ${nowhere}`)]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/ci\.yml:\d+:.*nowhere\.sh {2}<- scripts\/ci\/nowhere\.sh does not exist/);
  });

  it("fails on a container image by tag, not digest", async () => {
    const file = planted(
      "ci.yml",
      "container: buildpack-deps:bookworm-scm@sha256:b42f74a50a22540b839042134919504ff7c51e7cf8d751b79d0f94c56566cb92",
      "container: debian:12",
    );
    const ran = await lint([file]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/ci\.yml:\d+:.*container: debian:12 .*<- an image not pinned by its digest/);
  });

  it("fails on an action pinned by a tag, saying which line", async () => {
    const file = planted(
      "release.yml",
      "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f # v7.0.0",
      "actions/upload-artifact@v7",
    );
    const ran = await lint([file]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/release\.yml:\d+:.*actions\/upload-artifact@v7 {2}<- not pinned by a full commit SHA/);
  });
});
