#!/usr/bin/env bash
# scripts/ci/pypi-dist.sh RELEASE OUT: release.yml's `pypi` job, before pypa/gh-action-pypi-publish uploads OUT (with
# PyPI's trusted publishing and PEP 740 attestations): copies into OUT the Python files of the signed release
# RELEASE, each checked against its SHA256SUMS, and nothing else. They are the release's wheels and, beside each, its
# sdist: per distribution of scripts/publish/packages.ts `releasePythonDistributions` (the Python SDK, the receiver
# kit), <distribution>-<version>-py3-none-any.whl and <distribution>-<version>.tar.gz. Which distributions the release
# holds is the build's (scripts/release/release.ts) and `npm run publish`'s to say: this job reads them off SHA256SUMS.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
[ "$#" = 2 ] || die "usage: scripts/ci/pypi-dist.sh RELEASE OUT"
release="$1" out="$2"
[ -f "$release/SHA256SUMS" ] || die "$release has no SHA256SUMS"
mkdir -p "$out"
wheels="$(sed -n 's/^[0-9a-f]\{64\}  \([A-Za-z0-9_.]*-[^ -]*\)-py3-none-any\.whl$/\1/p' "$release/SHA256SUMS")"
[ -n "$wheels" ] ||
  die "pypi: $release/SHA256SUMS lists 0 Python files, not a wheel and an sdist: the build job's release is incomplete"
: > "$out/.SHA256SUMS"
for base in $wheels; do
  for name in "$base-py3-none-any.whl" "$base.tar.gz"; do
    line="$(awk -v name="$name" 'substr($0, 67) == name' "$release/SHA256SUMS")"
    [ -n "$line" ] ||
      die "pypi: $release/SHA256SUMS lists ${base}'s wheel without its sdist $name: the build job's release is incomplete"
    printf '%s\n' "$line" >> "$out/.SHA256SUMS"
  done
done
while read -r _ name; do cp "$release/$name" "$out/$name"; done < "$out/.SHA256SUMS"
(cd "$out" && sha256sum --check --strict --quiet .SHA256SUMS) || die "pypi: a Python file of $release does not match SHA256SUMS"
rm "$out/.SHA256SUMS"
ls "$out"
