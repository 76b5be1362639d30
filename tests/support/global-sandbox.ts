/**
 * vitest's global setup (vitest.config.ts): makes the run folder of tests/support/sandbox.ts, points the test
 * workers at it, and checks at the end that the run changed nothing in the real home folder.
 *
 * Runs in vitest's own process before any worker starts; workers inherit `process.env` as it is then. It sets:
 * - `$HELPDESK_TEST_RUN` (kept when scripts/test.sh made the folder, else a new one in the system temp folder,
 *   removed at the end);
 * - the shared caches of {@link sharedCaches}, by their explicit paths, computed from the real `HOME`;
 * - `HOME`, `PULUMI_HOME`, `XDG_*`, `TMPDIR` of the run (a worker's state until its file's sandbox replaces them:
 *   tests/support/sandbox-setup.ts).
 *
 * The check (teardown): the watched places of the real home folder ({@link watchedPlaces}: the token cache,
 * `~/.pulumi/workspaces`, `plugins`, `credentials.json`, and the names in `~`, `~/.pulumi`, `~/.cache`, `~/.config`,
 * `~/.local/*`) are listed before the first test file and after the last; any new, changed or removed entry fails the
 * run with the paths. A process outside the run that writes there meanwhile (a person's own `pulumi` on the same
 * account, a checkout of older code whose tests are not sandboxed) trips it too: the paths say which. Temp files are
 * checked where no other process writes: each test file's own `TMPDIR` (sandbox-setup.ts) and the run's
 * (scripts/test.sh), never the shared /tmp. `HELPDESK_TEST_TRACES=warn` turns the failure into a warning, for a
 * person who knows that another checkout's tests run on the same account at the same time.
 */
import { existsSync, mkdtempSync, readdirSync, rmdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import {
  findTraces,
  RUN_FOLDER,
  SANDBOX_PREFIX,
  SANDBOXED,
  sandboxEnv,
  sharedCaches,
  snapshotHome,
} from "./sandbox.js";

/**
 * The folder every JVM of the account makes for its performance data (`-XX:+UsePerfData`, on by default): always
 * under /tmp on Linux, whatever `TMPDIR` or `java.io.tmpdir` say, and left behind, empty, when the last JVM exits.
 * The Maven and Java suites start JVMs, so a run that found none removes the empty one it made.
 */
const JVM_PERF_DATA = join("/tmp", `hsperfdata_${userInfo().username}`);

export default function setup(): () => void {
  const realEnv = { ...process.env };
  const perfDataBefore = existsSync(JVM_PERF_DATA);
  const before = snapshotHome(realEnv);
  const given = process.env[RUN_FOLDER];
  const run = given ?? mkdtempSync(join(tmpdir(), "helpdesk-test-run-"));
  Object.assign(process.env, sharedCaches(realEnv), sandboxEnv(run), { [RUN_FOLDER]: run });
  delete process.env.HELPDESK_TOKEN_CACHE_DIR;

  return () => {
    for (const name of [...SANDBOXED, RUN_FOLDER, "HELPDESK_TOKEN_CACHE_DIR"]) {
      if (realEnv[name] === undefined) delete process.env[name];
      else process.env[name] = realEnv[name];
    }
    const traces = findTraces(before, snapshotHome(realEnv));
    // The run's HOME and the test files' sandboxes (each file removes its own; a file whose worker died does not).
    for (const name of readdirSync(run).filter((n) => n === "home" || n.startsWith(SANDBOX_PREFIX))) {
      rmSync(join(run, name), { recursive: true, force: true, maxRetries: 3 });
    }
    if (!given) rmSync(run, { recursive: true, force: true, maxRetries: 3 });
    // Only when empty: a JVM still running (outside the run) keeps its file there.
    if (!perfDataBefore && existsSync(JVM_PERF_DATA) && readdirSync(JVM_PERF_DATA).length === 0)
      rmdirSync(JVM_PERF_DATA);
    if (traces.length === 0) return;
    const message =
      `the test run changed the real home folder (tests must write only in their sandbox, tests/support/sandbox.ts; ` +
      `a process outside the run writing there at the same time would show here too):\n  ${traces.join("\n  ")}`;
    if (process.env.HELPDESK_TEST_TRACES === "warn") console.warn(`warning (HELPDESK_TEST_TRACES=warn): ${message}`);
    else throw new Error(message);
  };
}
