#!/usr/bin/env bash
# scripts/ci/fast-suites.sh: ci.yml's `fast` job on macOS and Windows (Git Bash), with the Node.js of its matrix on
# PATH: npm ci, the build, then the unit and emulator suites, which need neither the Pulumi CLI nor Debian.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
npm ci --no-audit --no-fund
bash scripts/build.sh
run_dir="$(mktemp -d)"
trap 'rm -rf "$run_dir"' EXIT
HELPDESK_TEST_RUN="$run_dir" node node_modules/vitest/vitest.mjs run tests/unit tests/emulator
