#!/usr/bin/env bash
# `npm run publish`: publishes release/ (made by `npm run release`) to every registry: the GitHub release, npm, PyPI,
# Maven, Go (scripts/publish/publish.ts; each target's settings in scripts/publish/<target>.ts). Options go to
# publish.ts: --only github,npm,pypi,maven,go, --dry-run, --release <dir>, --go-proxy <folder>,
# --github-release-folder <folder>. Runs with the project's Node.js, as the release is built; no set-up is run
# (dist/ must be built: npm run release builds it).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
# `npm publish` run in the repository would call this script as its `publish` lifecycle hook: refuse that.
[ "${npm_command:-}" != publish ] || die "npm publish of the repository is not how it is published: run npm run publish (it publishes release/)"
[ -f "$ROOT/dist/kernel/names.js" ] || die "dist/ is not built: run npm run release (or npm run build) first"
cd "$ROOT"
exec "$NODE_HOME/bin/node" scripts/publish/publish.ts "$@"
