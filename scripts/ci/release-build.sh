#!/usr/bin/env bash
# scripts/ci/release-build.sh: release.yml's `build` job, with no privilege: the pushed tag must be package.json's
# version (`v<version>`, GITHUB_REF_NAME) of a form every registry takes (a release, or a prerelease -alpha.N, -beta.N
# or -rc.N), then `npm run release` writes release/ (every target a Linux machine
# builds, the npm tarballs, the wheels and sdists, SHA256SUMS) from the clone alone: it sets up its own Node.js, npm ci
# and quill in empty caches.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
cd "$ROOT"
version="$(sed -n 's/^  "version": "\([^"]*\)",$/\1/p' package.json)"
[ -n "${GITHUB_REF_NAME:-}" ] || die "GITHUB_REF_NAME is not set: the job runs for a pushed tag v<version>"
[ "$GITHUB_REF_NAME" = "v$version" ] ||
  die "the tag $GITHUB_REF_NAME is not package.json's version v$version: tag the commit whose package.json says the version"
# A version of a form the registries cannot all take (scripts/publish/prerelease.ts, the rule's home) stops here,
# before anything is built, not in a publishing job after the GitHub release.
dist_tag="$(node scripts/publish/prerelease.ts "$version")" || die "the tag $GITHUB_REF_NAME cannot be released (above)"
step "Releasing $version from the tag $GITHUB_REF_NAME (npm dist-tag: $dist_tag)"
bash scripts/release.sh
