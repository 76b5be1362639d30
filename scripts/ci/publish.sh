#!/usr/bin/env bash
# scripts/ci/publish.sh TARGET [OPTION...]: one publishing job of release.yml (github, npm, maven, go): `npm run
# publish -- --only TARGET --release release` (scripts/publish.sh) on the signed release the `sign` job made,
# downloaded into release/. The job has only its checkout, that folder, Node.js and the target's own tool: no
# node_modules, no build. The Go tag goes to the remote `origin` (the job's checkout of this repository); the
# options after TARGET are added (tests/workflows/ name their local registries' folders so).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"
[ "$#" -ge 1 ] || die "usage: scripts/ci/publish.sh github|npm|maven|go [OPTION...]"
target="$1"
shift
case "$target" in
  github | npm | maven) ;;
  go) set -- --go-remote origin "$@" ;;
  *) die "scripts/ci/publish.sh publishes github, npm, maven or go (PyPI: pypa/gh-action-pypi-publish after scripts/ci/pypi-dist.sh), not $target" ;;
esac
exec bash "$ROOT/scripts/publish.sh" --only "$target" --release "$ROOT/release" "$@"
