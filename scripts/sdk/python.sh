#!/usr/bin/env bash
# Regenerates the Python SDK of the native provider (package `pulumi_helpdesk`) that the repository keeps in
# sdk/python, from the build's dist/schema.json (run scripts/build.sh first), with helpdesk-codegen (Pulumi's
# codegen/python; scripts/setup.sh --test builds it). Nothing in sdk/python is edited by hand: run this after a change
# of the schema (provider/native/schema.ts, kernel/settings.ts, the events, package.json's version or repository);
# tests/sdk/python-sdk.test.ts fails while sdk/python differs from what this writes. The release builds the wheel and
# sdist from it (scripts/release/python.ts), so `npm run build`, the demo and `npm install` need no generator.
#
#   scripts/sdk/python.sh [OUT]      (default OUT: sdk/python; the test writes into a temporary folder)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
cd "$ROOT"
out="$(realpath -m "${1:-sdk/python}")"
require_codegen
version="$(node -p 'require("./package.json").version')"
"$HELPDESK_CODEGEN" --schema dist/schema.json --language python --out "$out" --version "$version"
echo "Python SDK: $out ($(node -p 'require("./dist/schema.json").language.python.packageName') $version)" >&2
