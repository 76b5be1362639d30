#!/usr/bin/env bash
# The README's main command (`npm run demo`): sets up the toolchain (cached), then runs the main job end to end on
# the bundled emulator: login through the OAuth exchange, `pulumi up`, list, `pulumi destroy`, list, stop.
exec bash "$(dirname "${BASH_SOURCE[0]}")/lib/after-setup.sh" scripts/demo.ts "$@"
