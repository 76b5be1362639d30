#!/usr/bin/env bash
# The README's test command (`npm test`): sets up the toolchain (cached), then runs every vitest suite:
# unit, emulator contract and fuzz, provider, CLI, end-to-end with the real Pulumi CLI, and browser tests.
# Extra arguments go to vitest, e.g. `npm test -- tests/unit`.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
bash "$ROOT/scripts/setup.sh" --browser
. "$ROOT/scripts/lib/env.sh"   # pick up the Node that setup may have just installed
cd "$ROOT"
step "Type-checking everything (tests and scripts included)"
node node_modules/typescript/bin/tsc -p tsconfig.check.json || die "type errors (see above)"
exec node node_modules/vitest/vitest.mjs run "$@"
