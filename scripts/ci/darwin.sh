#!/usr/bin/env bash
# scripts/ci/darwin.sh arm64|amd64: release.yml's `darwin` job, on a macOS runner of that architecture.
#
# - arm64: the executable is made of Node.js's official darwin-arm64 build (the npm registry has none of the
#   project's Node.js), taken from its release tarball and verified as Node.js's release docs say, against
#   SHASUMS256.txt and its signature by a release key kept in the repository (scripts/release/node-official.sh);
#   then, on the Mac, npm ci, the build and scripts/release/release.ts --targets darwin-arm64 write the archive and its
#   SHA256SUMS line into release-darwin-arm64/ (the job's artifact), signed ad hoc by codesign.
# - amd64: the archive is the build job's (release/, made on Linux and signed ad hoc by quill).
#
# Then Apple's codesign verifies the archive's executable, and it runs. On another system the script does what
# needs no Mac and stops with one line naming the platform and the step that needs macOS: the release waits for it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
cd "$ROOT"
arch="${1:-}"
case "$arch" in
  arm64 | amd64) ;;
  *) die "usage: scripts/ci/darwin.sh arm64|amd64 (got: ${arch:-nothing})" ;;
esac
platform="darwin-$arch"
version="$(sed -n 's/^  "version": "\([^"]*\)",$/\1/p' package.json)"
# The plugin archive of the platform (scripts/release/release.ts names it: <plugin>-v<version>-<platform>.tar.gz).
archive_name="pulumi-resource-${PACKAGE_NAME#pulumi-}-v$version-$platform.tar.gz"
on_mac() { [ "$(uname -s)" = Darwin ] && case "$arch-$(uname -m)" in arm64-arm64 | amd64-x86_64) true ;; *) false ;; esac; }
needs_mac() { die "$platform: $1 needs a macOS $arch runner (this machine: $(uname -s) $(uname -m)); the release waits for this platform"; }

if [ "$arch" = arm64 ]; then
  # Into the project's Node.js folder ($NODE_HOME): the release build checks the Node.js it runs on against the
  # record node-official.sh writes.
  step "$platform: Node.js $NODE_VERSION's official tarball, verified against its signed SHASUMS256.txt"
  bash scripts/release/node-official.sh "$NODE_VERSION" darwin-arm64 "$NODE_HOME" ||
    die "$platform: Node.js $NODE_VERSION's official tarball did not verify (above); the release waits for this platform"
  on_mac || needs_mac "building the executable with that Node.js"
  export PATH="$NODE_HOME/bin:$PATH"
  # The archives are written with GNU tar's options (reproducible bytes: scripts/release/release.ts); macOS's tar is
  # bsdtar, so Homebrew's GNU tar comes first on PATH.
  brew list gnu-tar >/dev/null 2>&1 || brew install gnu-tar
  gnu_tar="$(brew --prefix gnu-tar)"
  export PATH="$gnu_tar/libexec/gnubin:$PATH"
  npm ci --no-audit --no-fund
  bash scripts/build.sh
  node scripts/release/release.ts --targets darwin-arm64 --no-npm-package --no-python --out release-darwin-arm64
  archive="release-darwin-arm64/$archive_name"
else
  archive="release/$archive_name"
  [ -f "$archive" ] || die "$platform: the build job's release/ has no $archive_name"
  on_mac || needs_mac "codesign --verify of $archive_name"
fi

step "$platform: codesign verifies the executable, and it runs"
installed="$(mktemp -d)"
trap 'rm -rf "$installed"' EXIT
tar -xzf "$archive" -C "$installed"
codesign --verify --strict --verbose=2 "$installed/pulumi-resource-${PACKAGE_NAME#pulumi-}"
# The CLI (package.json's name and bin) is a link to the plugin's executable in the archive.
[ "$("$installed/$PACKAGE_NAME" --version)" = "$version" ] || die "$platform: $archive_name's $PACKAGE_NAME --version is not $version"
