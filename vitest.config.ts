import { defineConfig } from "vitest/config";

// One runner for every suite. End-to-end tests drive the real Pulumi CLI (seconds per operation), so the timeouts
// are generous; they bound a hung run, they are not performance assertions.
export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Tests leave no trace: the run and each test file get a HOME, PULUMI_HOME, XDG_* and TMPDIR of their own, and
    // the run fails when it changed the real home folder (tests/support/sandbox.ts).
    globalSetup: ["tests/support/global-sandbox.ts"],
    setupFiles: ["tests/support/sandbox-setup.ts"],
    // Two files at a time, even on 2 cores (vitest's default there is one): most suites wait on child processes
    // (the Pulumi CLI, npm, Chromium, PostgreSQL), not on the CPU, so this halves the wall time of a CI run.
    maxWorkers: 2,
    reporters: ["default"],
  },
});
