#!/usr/bin/env bash
# Builds Pulumi's Java tools with `go`, from the Go module proxy, through this wrapper module (go.mod, go.sum):
#   HOST_DEST/pulumi-language-java  the language host of `runtime: java` projects (beside the CLI, on PATH);
#   GEN_DEST/pulumi-java-gen        the Java SDK generator (scripts/sdk/generate.sh runs it).
# Both come from github.com/pulumi/pulumi-java/pkg at the version go.mod requires (v1.16.0). The checksum database has
# no entry for that module: go.sum pins its hash (and every other), so a build never asks the database and a changed
# module fails. Usage: build.sh HOST_DEST GEN_DEST. Go's module and build caches make a second build take seconds.
set -euo pipefail
host_dest="$1" gen_dest="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$host_dest" "$gen_dest"
export GOFLAGS="-mod=readonly -trimpath" GOWORK=off GOTOOLCHAIN=local

version="$(awk '$1 == "require" && $2 == "github.com/pulumi/pulumi-java/pkg" { print $3 }' "$here/go.mod")"
[ -n "$version" ] || { echo "scripts/pulumi-build/java/go.mod does not require github.com/pulumi/pulumi-java/pkg" >&2; exit 1; }
ldflags="-s -w -X github.com/pulumi/pulumi-java/pkg/version.Version=$version"
cd "$here"
go build -ldflags "$ldflags" -o "$host_dest/pulumi-language-java" github.com/pulumi/pulumi-java/pkg/cmd/pulumi-language-java
go build -ldflags "$ldflags" -o "$gen_dest/pulumi-java-gen" github.com/pulumi/pulumi-java/pkg/cmd/pulumi-java-gen
