#!/usr/bin/env bash
# `npm run bench`: sets up the toolchain (cached), then runs the benchmark driver (bench/bench.ts).
# Options pass through: `npm run bench -- --quick` runs N=10 and N=100 once each (a smoke check).
# The table goes to stdout, progress to stderr, the JSON to bench-results/bench.json.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/after-setup.sh" bench/bench.ts "$@"
