#!/usr/bin/env bash
# scripts/ci/fast-suites.sh: ci.yml's `fast` job on macOS and Windows (Git Bash), with the Node.js of its matrix on
# PATH: npm ci, the build, then the suites that need neither the Pulumi CLI nor Debian: the kernel's, the repository
# guards, the emulator's, and the single-module suites of the other rooms (their other suites run a Pulumi CLI, a
# browser or Debian's tools).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
npm ci --no-audit --no-fund
bash scripts/build.sh
run_dir="$(mktemp -d)"
trap 'rm -rf "$run_dir"' EXIT
HELPDESK_TEST_RUN="$run_dir" node node_modules/vitest/vitest.mjs run tests/kernel tests/repo tests/emulator \
  tests/auth/redact.test.ts tests/cli/declarations.test.ts tests/cli/webhook-file.test.ts tests/provider/check.test.ts \
  tests/program/serialized-provider.test.ts
