/**
 * Test support: temporary folders that remove themselves, in the test file's own `TMPDIR` (tests/support/sandbox.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";

/**
 * A new temporary folder, removed when the current test has finished: after its `afterEach` hooks, so after the
 * processes and servers they stop. Call it inside a test (not in `beforeAll` or at module level).
 *
 * @param prefix the start of the folder's name, e.g. `helpdesk-durability-`
 */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
  return dir;
}
