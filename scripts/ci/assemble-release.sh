#!/usr/bin/env bash
# scripts/ci/assemble-release.sh RELEASE DARWIN: release.yml's `sign` job, first step: the darwin-arm64 archive (the
# `darwin` job's artifact, in the folder DARWIN with its SHA256SUMS line) joins the build's release folder RELEASE,
# its line joins RELEASE/SHA256SUMS, and every file SHA256SUMS lists must match it. Stops, naming the platform, when
# the archive is missing or the release already has one (nothing is signed then).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
[ "$#" = 2 ] || die "usage: scripts/ci/assemble-release.sh RELEASE DARWIN (the build's folder, the darwin-arm64 job's)"
release="$1" darwin="$2"
[ -f "$release/SHA256SUMS" ] || die "$release has no SHA256SUMS: it is not the build job's release"
shopt -s nullglob
archives=("$darwin"/*-darwin-arm64.tar.gz)
[ "${#archives[@]}" = 1 ] ||
  die "darwin-arm64: $darwin holds ${#archives[@]} archives, not 1: the darwin-arm64 job's artifact is missing; the release waits for this platform"
name="$(basename "${archives[0]}")"
[ ! -e "$release/$name" ] || die "darwin-arm64: $release already has $name"
line="$(grep -F "  $name" "$darwin/SHA256SUMS" || true)"
[ -n "$line" ] || die "darwin-arm64: $darwin/SHA256SUMS has no line for $name"
cp "${archives[0]}" "$release/$name"
printf '%s\n' "$line" >> "$release/SHA256SUMS"
(cd "$release" && sha256sum --check --strict --quiet SHA256SUMS) || die "a file of $release does not match SHA256SUMS"
echo "the release: $(wc -l < "$release/SHA256SUMS") files, each matching SHA256SUMS"
