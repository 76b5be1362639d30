#!/usr/bin/env bash
# scripts/ci/pypi-dist.sh RELEASE OUT: release.yml's `pypi` job, before pypa/gh-action-pypi-publish uploads OUT (with
# PyPI's trusted publishing and PEP 740 attestations): copies into OUT the Python SDK's wheel and sdist of the
# signed release RELEASE, each checked against its SHA256SUMS, and nothing else.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
[ "$#" = 2 ] || die "usage: scripts/ci/pypi-dist.sh RELEASE OUT"
release="$1" out="$2"
[ -f "$release/SHA256SUMS" ] || die "$release has no SHA256SUMS"
mkdir -p "$out"
# The Python SDK's files are named after its package, pulumi_<package> (kernel/names.ts PYTHON_PACKAGE: package.json's
# name with `_` for `-`): <it>-<version>-py3-none-any.whl and <it>-<version>.tar.gz.
sums="$(grep -E "  ${PACKAGE_NAME//-/_}-[^ ]+(-py3-none-any\.whl|\.tar\.gz)\$" "$release/SHA256SUMS" || true)"
[ "$(printf '%s' "$sums" | grep -c .)" = 2 ] ||
  die "pypi: $release/SHA256SUMS lists $(printf '%s' "$sums" | grep -c .) Python files, not a wheel and an sdist: the build job's release is incomplete"
printf '%s\n' "$sums" > "$out/.SHA256SUMS"
while read -r _ name; do cp "$release/$name" "$out/$name"; done < "$out/.SHA256SUMS"
(cd "$out" && sha256sum --check --strict --quiet .SHA256SUMS) || die "pypi: a Python file of $release does not match SHA256SUMS"
rm "$out/.SHA256SUMS"
ls "$out"
