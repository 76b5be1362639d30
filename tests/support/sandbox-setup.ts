/**
 * vitest's setup file (vitest.config.ts `setupFiles`): runs in the worker before each test file is imported, so the
 * file and everything it starts see its own sandbox (tests/support/sandbox.ts) from the first line. Its `afterAll`
 * runs after the file's own (hooks run in reverse order of registration) and removes the sandbox; it fails the file
 * when the file left anything in its `TMPDIR`: a test removes the temporary files and folders it makes (what tools
 * leave there by design is named in tests/support/sandbox.ts and not counted).
 */
import { afterAll, expect } from "vitest";
import { enterSandbox } from "./sandbox.js";

const sandbox = enterSandbox(expect.getState().testPath ?? "unknown");

afterAll(() => {
  const left = sandbox.leftInTmp();
  sandbox.remove();
  if (left.length > 0) {
    throw new Error(
      `the test file left in its temporary folder ${sandbox.env.TMPDIR} (now removed): ${left.join(", ")}`,
    );
  }
});
