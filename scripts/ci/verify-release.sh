#!/usr/bin/env bash
# scripts/ci/verify-release.sh: release.yml's `verify` job, with no privilege, after every registry's job: npm ci
# and the build (the project's names come from dist/), then scripts/ci/verify-release.ts installs each package of
# package.json's version by name, in a fresh folder of its own, from the registries each tool is configured with,
# and runs it. Each tool's own settings name another registry (tests/workflows/ point them at local ones).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
cd "$ROOT"
npm ci --no-audit --no-fund --loglevel=error
bash scripts/build.sh
exec node scripts/ci/verify-release.ts "$@"
