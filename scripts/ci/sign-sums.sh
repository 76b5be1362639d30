#!/usr/bin/env bash
# scripts/ci/sign-sums.sh RELEASE: release.yml's `sign` job: signs RELEASE/SHA256SUMS keylessly with cosign (the
# job's OIDC identity: the release workflow at its tag), writing the bundle RELEASE/SHA256SUMS.sigstore.json that
# the GitHub release publishes beside it (kernel/names.ts SUMS_SIGNATURE), then verifies the bundle as a
# user does (README, "Checking what you downloaded").
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
[ "$#" = 1 ] || die "usage: scripts/ci/sign-sums.sh RELEASE"
release="$1"
command -v cosign >/dev/null || die "cosign is not on PATH: the job installs it with sigstore/cosign-installer"
[ -f "$release/SHA256SUMS" ] || die "$release has no SHA256SUMS"
for variable in GITHUB_SERVER_URL GITHUB_REPOSITORY GITHUB_REF; do
  [ -n "${!variable:-}" ] || die "$variable is not set: keyless signing runs in the release workflow only"
done
cosign sign-blob --yes --bundle "$release/SHA256SUMS.sigstore.json" "$release/SHA256SUMS"
cosign verify-blob --bundle "$release/SHA256SUMS.sigstore.json" \
  --certificate-identity "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/.github/workflows/release.yml@$GITHUB_REF" \
  --certificate-oidc-issuer https://token.actions.githubusercontent.com "$release/SHA256SUMS"
