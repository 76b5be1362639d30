#!/usr/bin/env bash
# Builds what the npm package ships into dist/ (run by `npm run build`, by `npm pack`/`npm publish` through
# `prepack`, and by scripts/setup.sh):
#   1. tsc: ES modules and their type declarations (dist/{sdk,provider,cli,emulator});
#   2. dist/cjs-types/: the same declarations seen as CommonJS, for programs that `require()` the package
#      (see scripts/build/cjs-types.ts for why);
#   3. dist/schema.json: the native provider's Pulumi package schema (scripts/build/schema.ts);
#   4. dist/python/: the Python SDK `pulumi_helpdesk` (pip-installable, package.json's version), generated from
#      dist/schema.json by helpdesk-codegen, which scripts/setup.sh builds (scripts/pulumi-build/README.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rm -rf dist
node node_modules/typescript/bin/tsc -p tsconfig.json
node scripts/build/cjs-types.ts
node scripts/build/schema.ts
. scripts/lib/env.sh
[ -x "$HELPDESK_CODEGEN" ] || die "missing the SDK generator $HELPDESK_CODEGEN: run scripts/setup.sh (it builds it with Go)"
[ "$(cat "$HELPDESK_CODEGEN.sources-hash" 2>/dev/null)" = "$(codegen_sources_hash)" ] ||
  die "$HELPDESK_CODEGEN was built from other sources than scripts/pulumi-build/cli: run scripts/setup.sh to rebuild it"
"$HELPDESK_CODEGEN" --schema dist/schema.json --language python --out dist/python \
  --version "$(node -p 'require("./package.json").version')"
