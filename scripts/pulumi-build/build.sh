#!/usr/bin/env bash
# Builds the Pulumi CLI and the Node.js language host with `go`, from the Go module proxy, into DEST.
# Usage: build.sh DEST VERSION. Go's module and build caches make a second build take seconds.
set -euo pipefail
dest="$1"; version="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$dest"
export GOFLAGS="-mod=readonly -trimpath"

grep -q "github.com/pulumi/pulumi/pkg/v3 v$version" "$here/cli/go.mod" ||
  { echo "scripts/pulumi-build/cli/go.mod does not pin pkg/v3 v$version" >&2; exit 1; }

(cd "$here/cli" && go build -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version" \
  -o "$dest/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi)
(cd "$here/langhost" && go build -ldflags "-s -w" \
  -o "$dest/pulumi-language-nodejs" github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs)
