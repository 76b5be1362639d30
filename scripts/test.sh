#!/usr/bin/env bash
# The README's test command (`npm test`): sets up the toolchain (cached), then runs every vitest suite:
# unit, emulator contract and fuzz, provider, CLI, end-to-end with the real Pulumi CLI, and browser tests.
# Extra arguments go to vitest, e.g. `npm test -- tests/unit`.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
bash "$ROOT/scripts/setup.sh" --test
. "$ROOT/scripts/lib/env.sh"   # pick up the Node that setup may have just installed
cd "$ROOT"
export HELPDESK_TEST_OLD_NODE="$OLD_NODE_HOME/bin/node"
step "Type-checking everything (tests and scripts included)"
node node_modules/typescript/bin/tsc -p tsconfig.check.json || die "type errors (see above)"
mkdir -p test-results
status=0
node node_modules/vitest/vitest.mjs run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json "$@" || status=$?
# A plain closing line, the same in every environment: "N passed, N failed, N skipped".
node -e '
  const r = JSON.parse(require("fs").readFileSync("test-results/vitest.json", "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
' || true
exit "$status"
