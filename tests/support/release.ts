/**
 * Test support: the release, built once per test run and shared by the suites that need it (tests/release,
 * tests/no-node). The first suite to ask runs `scripts/release.sh --no-npm-package` (all buildable targets, the
 * Python wheel and sdist; no `npm pack`, which would rebuild dist/ under the suites running beside it) into
 * `$HELPDESK_TEST_RUN/release`; the others wait for it. The run folder (tests/support/sandbox.ts) goes with the run.
 *
 * The executables are cached by their inputs (scripts/release/executable.ts), so a warm build takes ~10-20 s.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCommand, shown, waitFor } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { RUN_FOLDER } from "./sandbox.js";

/** How long a suite waits for another suite's build of the release. */
const WAIT_MS = 240_000;

/**
 * The release folder of this test run, built by the first caller of the run.
 *
 * @returns the folder's absolute path: the plugin archives, the npm tarballs but the repository's own, the wheels and
 *   sdists (the SDK's and the receiver kit's), SHA256SUMS
 * @throws Error with the build's output when it failed (in this suite or in the one that built it), or when
 *   `$HELPDESK_TEST_RUN` is not set
 */
export async function sharedRelease(): Promise<string> {
  const run = process.env[RUN_FOLDER];
  if (!run)
    throw new Error(
      `${RUN_FOLDER} is not set: run the tests with vitest.config.ts (its globalSetup makes the run folder)`,
    );
  const out = join(run, "release");
  const done = join(run, "release.done");
  const failed = join(run, "release.failed");
  let mine = true;
  try {
    mkdirSync(`${out}.lock`);
  } catch {
    mine = false;
  }
  if (mine) {
    const began = Date.now();
    // Fails (not skips) when a tool is missing: the build's own error names it.
    const ran = await runCommand("bash", [join(repoRoot, "scripts/release.sh"), "--out", out, "--no-npm-package"], {
      cwd: repoRoot,
      env: process.env,
    });
    if (ran.code !== 0) {
      writeFileSync(failed, shown("scripts/release.sh --no-npm-package", ran));
      throw new Error(readFileSync(failed, "utf8"));
    }
    writeFileSync(done, `${Date.now() - began} ms\n`);
    return out;
  }
  await waitFor(
    "the release another suite of this run builds",
    () => existsSync(done) || existsSync(failed),
    WAIT_MS,
    200,
  );
  if (existsSync(failed)) throw new Error(`the release build of this run failed:\n${readFileSync(failed, "utf8")}`);
  return out;
}
