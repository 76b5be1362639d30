/**
 * Whether a process lives (kernel/processes.ts), asked of real processes: this one, a child that has ended, and ids
 * that name no single process.
 */

import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { processExists } from "../../kernel/processes.js";
import { required } from "../../kernel/required.js";

describe("processExists", () => {
  it("is true for a live process and false once it has ended and been reaped", () => {
    expect(processExists(process.pid)).toBe(true);
    const ended = required(spawnSync(process.execPath, ["-e", ""]).pid, "the pid of a process that ran");
    expect(processExists(ended)).toBe(false); // ESRCH (the pid is not reused that fast)
  });

  it.runIf(process.platform !== "win32")(
    "is true for init (pid 1), which only root may signal: others get EPERM",
    () => {
      expect(processExists(1)).toBe(true);
    },
  );

  it("is false for ids that name no single process (kill would signal a process group)", () => {
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(processExists(pid), String(pid)).toBe(false);
  });
});
