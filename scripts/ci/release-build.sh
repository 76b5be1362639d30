#!/usr/bin/env bash
# scripts/ci/release-build.sh: release.yml's `build` job, with no privilege: the pushed tag must be package.json's
# version (`v<version>`, GITHUB_REF_NAME), then `npm run release` writes release/ (every target a Linux machine
# builds, the npm tarballs, the wheel and sdist, SHA256SUMS) from the clone alone: it sets up its own Node.js, npm ci
# and quill in empty caches.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
cd "$ROOT"
version="$(sed -n 's/^  "version": "\([^"]*\)",$/\1/p' package.json)"
[ -n "${GITHUB_REF_NAME:-}" ] || die "GITHUB_REF_NAME is not set: the job runs for a pushed tag v<version>"
[ "$GITHUB_REF_NAME" = "v$version" ] ||
  die "the tag $GITHUB_REF_NAME is not package.json's version v$version: tag the commit whose package.json says the version"
step "Releasing $version from the tag $GITHUB_REF_NAME"
bash scripts/release.sh
