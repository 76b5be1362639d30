#!/usr/bin/env bash
# Builds what the npm package ships into dist/ (run by `npm run build`, by `npm pack`/`npm publish` through
# `prepack`, and by scripts/setup.sh):
#   1. tsc: ES modules and their type declarations (dist/{sdk,provider,cli,emulator});
#   2. dist/cjs-types/: the same declarations seen as CommonJS, for programs that `require()` the package
#      (see scripts/build/cjs-types.ts for why).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rm -rf dist
node node_modules/typescript/bin/tsc -p tsconfig.json
node scripts/build/cjs-types.ts
