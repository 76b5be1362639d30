#!/usr/bin/env bash
# The README's main command (`npm run demo`): sets up the toolchain (cached), then runs the main job end to end on
# the bundled emulator: login through the OAuth exchange, `pulumi up`, list, `pulumi destroy`, list, stop.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
bash "$ROOT/scripts/setup.sh"
. "$ROOT/scripts/lib/env.sh"
cd "$ROOT"
exec node scripts/demo.ts "$@"
