/**
 * The Python receiver kit's own tests (receiver/python/tests/, `python3 -m unittest`: pytest is not assumed), run by
 * `npm test`: on the machine's python3, and on Python 3.9, the kit's floor (pyproject.toml `requires-python`), when
 * one runs as `python3.9` or pyenv installed one (a missing one fails the suite on CI). Standard library only: the runs have nothing installed but the kit's folder on
 * PYTHONPATH.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
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

/**
 * A Python 3.9 that runs: `python3.9` on PATH, else the newest 3.9 that pyenv installed (`$PYENV_ROOT`, default
 * `~/.pyenv`: this project's machines have one, whose shim runs only the version selected), else `undefined`.
 */
function python39(): string | undefined {
  if (pythonRuns("python3.9")) return "python3.9";
  const versions = join(process.env.PYENV_ROOT ?? join(homedir(), ".pyenv"), "versions");
  const installed = existsSync(versions)
    ? readdirSync(versions)
        .filter((version) => /^3\.9\.\d+$/.test(version))
        .toSorted((a, b) => Number(a.split(".")[2]) - Number(b.split(".")[2]))
    : [];
  const newest = installed.at(-1);
  const python = newest === undefined ? undefined : join(versions, newest, "bin", "python3.9");
  return python !== undefined && pythonRuns(python) ? python : undefined;
}

describe.skipIf(!toolAvailable("python3", onPath("python3")))("the Python receiver kit's unittest suite", () => {
  it("passes on python3, running every test it holds", async () => {
    const printed = await unittest("python3");
    expect(printed).toMatch(/^Ran (\d+) tests? in /m);
    expect(Number(/^Ran (\d+) tests?/m.exec(printed)?.[1])).toBeGreaterThanOrEqual(18);
    expect(printed).toMatch(/^OK$/m);
  });

  const floor = python39();
  it.skipIf(!toolAvailable("Python 3.9 (python3.9, or pyenv's)", floor !== undefined))(
    "passes on Python 3.9, its floor",
    async () => {
      expect(await unittest(floor ?? "python3.9")).toMatch(/^OK$/m);
    },
  );
});
