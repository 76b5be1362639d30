#!/usr/bin/env bash
# Regenerates the Go SDK of the native provider (package `helpdesk`) that the repository keeps in sdk/go, from the
# build's dist/schema.json (run scripts/build.sh first). Nothing in sdk/go is edited by hand: run this after a change
# of the schema (provider/native/schema.ts, kernel/settings.ts, the events, package.json's version or repository);
# tests/sdk/go-sdk.test.ts fails while sdk/go differs from what this writes.
#
#   scripts/sdk/generate.sh [OUT]      (default OUT: sdk/go; the test writes into a temporary folder)
#
# What it writes, all by tools:
#   1. OUT/helpdesk/...: the Go package, by helpdesk-codegen --language go (Pulumi's codegen/go). The schema's
#      language.go.importBasePath (from package.json's repository, kernel/names.ts) is its import path;
#      respectSchemaVersion writes the plugin's version into its default resource options and pulumi-plugin.json;
#   2. OUT/go.mod: `go mod init` with the module path, the parent of the import path (.../sdk/go), requiring
#      github.com/pulumi/pulumi/sdk/v3 at the version of the Pulumi CLI and SDK pinned in scripts/lib/env.sh (the
#      generator's own go.mod names v3.256.0; the SDK is tested with $PULUMI_VERSION), `go` 1.25 as the generator
#      writes it (raised by `go mod tidy` when a dependency needs more);
#   3. OUT/go.sum: `go mod tidy` (modules from Go's module cache, else the Go module proxy).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
cd "$ROOT"
out="$(realpath -m "${1:-sdk/go}")"

command -v go >/dev/null || die "the Go SDK's go.mod and go.sum are written with go: install Go >= 1.25"
require_codegen

version="$(node -p 'require("./package.json").version')"
module="$(node -p 'require("node:path").posix.dirname(require("./dist/schema.json").language.go.importBasePath)')"
name="$(node -p 'require("./dist/schema.json").name')"

"$HELPDESK_CODEGEN" --schema dist/schema.json --language go --out "$out" --version "$version"
cd "$out"
# The module is ours alone: GOFLAGS and GOWORK of the caller must not turn `tidy` into something else.
export GOFLAGS=-buildvcs=false GOWORK=off GOTOOLCHAIN=local
go mod init "$module" 2>/dev/null
go mod edit -go=1.25 -require="github.com/pulumi/pulumi/sdk/v3@v$PULUMI_VERSION"
go mod tidy
echo "Go SDK: $out (module $module, plugin $name v$version)" >&2
