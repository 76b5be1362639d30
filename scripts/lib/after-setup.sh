#!/usr/bin/env bash
# after-setup.sh SCRIPT.ts [ARGS...]: sets up the toolchain (scripts/setup.sh: cached, seconds when warm), then runs
# SCRIPT.ts (a path from the repository root) with the project's Node.js, ARGS passed through. The one way the
# README's commands start a TypeScript driver: the demo (scripts/demo.sh) and the benchmark (bench/run.sh).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
bash "$ROOT/scripts/setup.sh"
. "$ROOT/scripts/lib/env.sh"   # pick up the Node that setup may have just installed
cd "$ROOT"
exec node "$@"
