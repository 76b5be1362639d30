/**
 * `npm run lint:workflows` (scripts/lint-workflows.sh: actionlint, and every action pinned by commit) passes on the
 * repository's workflows and fails on copies of them with one error planted: an expression naming a matrix key that
 * does not exist (actionlint's type check), and an action pinned by a tag that can move (the pin check).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../support/package.js";
import { runCommand } from "../support/processes.js";

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
    const file = planted("ci.yml", "node-version: ${{ matrix.node }}", "node-version: ${{ matrix.nodes }}");
    const ran = await lint([file]);
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/ci\.yml:\d+:\d+: property "nodes" is not defined/);
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
