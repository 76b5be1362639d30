/**
 * The one fsync rule (kernel/fsync.ts), on real files: a failed sync is thrown (nothing is acknowledged that a crash
 * can undo), except the response of a file system that has no directory sync at all.
 */
import { closeSync, fsyncSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { syncDirectory, syncFile } from "../../kernel/fsync.js";
import { testTempDir } from "../support/temp.js";

/** The `code` of what `run` threw (fails the test when it threw nothing). */
function thrownCode(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
  throw new Error("expected an error");
}

describe("kernel/fsync.ts", () => {
  it("syncs a file and the directory that names it", () => {
    const dir = testTempDir("helpdesk-fsync-");
    const file = join(dir, "entry.json");
    // Read-only: syncFile needs no write access on POSIX (not enforced for root, as CI runs; for anyone else it is).
    writeFileSync(file, "{}\n", { mode: 0o400 });
    expect(() => syncFile(file)).not.toThrow();
    expect(() => syncDirectory(dir)).not.toThrow();
  });

  it("throws when the directory cannot be synced, rather than passing over it", () => {
    const missing = join(testTempDir("helpdesk-fsync-"), "gone");
    expect(thrownCode(() => syncDirectory(missing))).toBe("ENOENT");
    expect(thrownCode(() => syncFile(missing))).toBe("ENOENT");
  });

  it.runIf(process.platform === "linux")(
    "passes over EINVAL, the response of a file system without directory sync (procfs here)",
    () => {
      const fd = openSync("/proc", "r");
      try {
        expect(thrownCode(() => fsyncSync(fd))).toBe("EINVAL"); // what syncDirectory is given to pass over
      } finally {
        closeSync(fd);
      }
      expect(() => syncDirectory("/proc")).not.toThrow();
    },
  );
});
