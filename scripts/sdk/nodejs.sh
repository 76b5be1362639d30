#!/usr/bin/env bash
# Regenerates the TypeScript SDK of the native provider (npm package `@pulumi-helpdesk/helpdesk`, the schema's
# language.nodejs.packageName) that the repository keeps in sdk/nodejs, from the build's dist/schema.json (run
# scripts/build.sh first), with helpdesk-codegen (Pulumi's codegen/nodejs; scripts/setup.sh --test builds it). Nothing
# in sdk/nodejs is edited by hand: run this after a change of the schema (provider/native/schema.ts, kernel/settings.ts,
# the events, package.json's version or repository); tests/sdk/nodejs-sdk.test.ts fails while sdk/nodejs differs from
# what this writes. scripts/build.sh compiles it (into dist/native, `pulumi-helpdesk/native`) and the release
# packs it as its own npm package (scripts/release/nodejs-sdk.ts), so `npm run build` needs no generator.
#
#   scripts/sdk/nodejs.sh [OUT]      (default OUT: sdk/nodejs; the test writes into a temporary folder)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
cd "$ROOT"
out="$(realpath -m "${1:-sdk/nodejs}")"
require_codegen
version="$(node -p 'require("./package.json").version')"
"$HELPDESK_CODEGEN" --schema dist/schema.json --language nodejs --out "$out" --version "$version"
echo "TypeScript SDK: $out ($(node -p "require('$out/package.json').name") $version)" >&2
