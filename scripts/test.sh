#!/usr/bin/env bash
# The README's test command (`npm test`): sets up the toolchain (cached), then runs every vitest suite:
# unit, emulator contract and fuzz, provider, CLI, end-to-end with the real Pulumi CLI, and browser tests, after the
# type-check and the lint.
# Extra arguments go to vitest, e.g. `npm test -- tests/kernel`.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
bash "$ROOT/scripts/setup.sh" --test
. "$ROOT/scripts/lib/env.sh"   # pick up the Node that setup may have just installed
cd "$ROOT"
export HELPDESK_TEST_OLD_NODE="$OLD_NODE_HOME/bin/node"
export HELPDESK_TEST_FLOOR_NODES="$FLOOR_NODES"
step "Type-checking everything (tests and scripts included)"
node node_modules/typescript/bin/tsc -p tsconfig.check.json || die "type errors (see above)"
step "Linting: format, lint rules and the rooms' import boundaries (npm run lint)"
npm run --silent lint || die "lint failed (see above; \`npm run format\` rewrites the format)"
step "Checking the GitHub workflows (npm run lint:workflows)"
bash "$ROOT/scripts/lint-workflows.sh" || die "the workflows have errors (see above)"
mkdir -p test-results
# The run's own folder (tests/support/sandbox.ts): the sandboxes of the test files, and the TMPDIR of vitest and of
# all it starts. Its tmp/ must be empty when vitest has ended (vitest removes its own temp files, each test file's
# sandbox removes itself): anything there is a temp file some process of the run left. The shared /tmp is not
# compared: other processes on the machine write there at any time, so a new entry there could not be blamed on
# the run, while no process outside the run knows this folder.
run_dir="$(mktemp -d "${TMPDIR:-/tmp}/helpdesk-test-run.XXXXXX")"
trap 'rm -rf "$run_dir"' EXIT
mkdir -p "$run_dir/tmp"
status=0
HELPDESK_TEST_RUN="$run_dir" TMPDIR="$run_dir/tmp" \
  node node_modules/vitest/vitest.mjs run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@" || status=$?
left="$(find "$run_dir/tmp" -mindepth 1 -maxdepth 1 | sort)"
if [ -n "$left" ]; then
  printf 'error: the test run left temporary files (removed now):\n%s\n' "$left" >&2
  status=1
fi
# A plain closing line, the same in every environment: "N passed, N failed, N skipped".
# shellcheck disable=SC2016 # JavaScript, not shell
node -e '
  const r = JSON.parse(require("fs").readFileSync("test-results/vitest.json", "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' || true
exit "$status"
