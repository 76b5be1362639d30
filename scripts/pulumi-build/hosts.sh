#!/usr/bin/env bash
# Builds the YAML and Python language hosts with `go`, from the Go module proxy, into DEST (beside the CLI):
#   pulumi-language-yaml        from github.com/pulumi/pulumi-yaml v1.19.1 (wrapper module yaml/);
#   pulumi-language-python      from github.com/pulumi/pulumi/sdk/v3 v3.68.0 (wrapper module langhost/), and
#   pulumi-language-python-exec the script that host runs programs with, copied from the same sdk/v3 module source.
# Usage: hosts.sh DEST. Go's module and build caches make a second build take seconds.
set -euo pipefail
dest="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$dest"
export GOFLAGS="-mod=readonly -trimpath"

yaml_version="$(awk '$1 == "require" && $2 == "github.com/pulumi/pulumi-yaml" { print $3 }' "$here/yaml/go.mod")"
[ -n "$yaml_version" ] || { echo "scripts/pulumi-build/yaml/go.mod does not require github.com/pulumi/pulumi-yaml" >&2; exit 1; }
(cd "$here/yaml" && go build -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=$yaml_version" \
  -o "$dest/pulumi-language-yaml" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml)

(cd "$here/langhost" && go build -ldflags "-s -w" \
  -o "$dest/pulumi-language-python" github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python)
# The exec script is not Go: it sits in the module's source tree, which `go list` finds in the module cache.
sdk_dir="$(cd "$here/langhost" && go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)"
[ -f "$sdk_dir/python/cmd/pulumi-language-python-exec" ] ||
  { echo "no python/cmd/pulumi-language-python-exec in $sdk_dir" >&2; exit 1; }
install -m 0755 "$sdk_dir/python/cmd/pulumi-language-python-exec" "$dest/pulumi-language-python-exec"
