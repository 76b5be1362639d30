/**
 * The Python receiver kit's own tests (receiver/python/tests/, `python3 -m unittest`: pytest is not assumed), run by
 * `npm test`: on the machine's python3, and on Python 3.9, the kit's floor (pyproject.toml `requires-python`), when
 * one is on PATH as `python3.9`. Standard library only: the runs have nothing installed but the kit's folder on
 * PYTHONPATH.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { onPath, toolAvailable } from "../support/tools.js";

const kit = join(repoRoot, "receiver", "python");

/** Runs the kit's unittest suite with a Python; returns what unittest printed. */
async function unittest(python: string): Promise<string> {
  // -E -s: no PYTHON* variables, no user site-packages: the standard library and the kit's folder (the current one).
  const ran = await runCommand(
    python,
    ["-E", "-s", "-B", "-m", "unittest", "discover", "-v", "-s", "tests", "-t", "tests"],
    {
      cwd: kit,
      env: process.env,
    },
  );
  expect(ran.code, shown(`${python} -m unittest`, ran)).toBe(0);
  return ran.stderr;
}

/** Whether a Python runs (a pyenv shim of a version not selected is on PATH, yet exits 127). */
function pythonRuns(python: string): boolean {
  try {
    execFileSync(python, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!toolAvailable("python3", onPath("python3")))("the Python receiver kit's unittest suite", () => {
  it("passes on python3, running every test it holds", async () => {
    const printed = await unittest("python3");
    expect(printed).toMatch(/^Ran (\d+) tests? in /m);
    expect(Number(/^Ran (\d+) tests?/m.exec(printed)?.[1])).toBeGreaterThanOrEqual(18);
    expect(printed).toMatch(/^OK$/m);
  });

  it.skipIf(!pythonRuns("python3.9"))("passes on Python 3.9, its floor", async () => {
    expect(await unittest("python3.9")).toMatch(/^OK$/m);
  });
});
