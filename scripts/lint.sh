#!/usr/bin/env bash
# `npm run lint`: the format and lint rules (Biome), the rooms' import boundaries and the packages shipped code may
# load (dependency-cruiser, .dependency-cruiser.cjs), and no unused `dependencies` entry (knip, knip.jsonc). Run with
# the project's Node.js: dependency-cruiser refuses the machine's older one, so a bare `npm run lint` on a fresh
# machine sets up first (scripts/setup.sh: cached, seconds when warm).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
bash "$ROOT/scripts/setup.sh" >&2
. "$ROOT/scripts/lib/env.sh"   # pick up the Node that setup may have just installed
cd "$ROOT"
node node_modules/@biomejs/biome/bin/biome ci --error-on-warnings .
# Every room (scripts/lib/rooms.cjs, their one list) and the test runner's configuration.
mapfile -t rooms < <(node -e 'const r = require("./scripts/lib/rooms.cjs"); for (const x of [...r.SHIPPED_ROOMS, ...r.DEVELOPMENT_ROOMS]) console.log(x)')
node node_modules/dependency-cruiser/bin/dependency-cruiser.mjs --config .dependency-cruiser.cjs --output-type err \
  "${rooms[@]}" vitest.config.ts
npm run --silent lint:dependencies
