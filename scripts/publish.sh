#!/usr/bin/env bash
# `npm run publish`: publishes release/ (made by `npm run release`) to every registry: the GitHub release, npm, PyPI,
# Maven, Go (scripts/publish/publish.ts says how; each target's settings in scripts/publish/<target>.ts). Options go to
# publish.ts: --only github,npm,pypi,maven,go, --dry-run, --release <dir>, --go-remote <remote> | --go-proxy <folder>,
# --github-release-folder <folder>.
#
# It needs what a publish job has: this repository's files, the release folder, a supported Node.js and each chosen
# target's own tool (publish.ts checks those). No `npm ci`, no build, no set-up: the publish code imports only Node.js
# and the project's own sources (scripts/lib/source-imports.ts lets Node.js load them). The Node.js is the `node` on
# PATH when package.json's engines.node admits it (kernel/node-support.ts is the rule's home), else the project's
# ($HELPDESK_CACHE/node-v<version>, from scripts/setup.sh), else it stops saying what is missing.
set -euo pipefail
path_node="$(command -v node || true)"
. "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
if [ -n "$path_node" ] && "$path_node" "$ROOT/scripts/lib/node-supported.cjs" 2>/dev/null; then
  node="$path_node"
elif [ -x "$NODE_HOME/bin/node" ]; then
  node="$NODE_HOME/bin/node"
else
  die "npm run publish needs Node.js $(sed -n 's/^    "node": "\([^"]*\)"$/\1/p' "$ROOT/package.json") on PATH (found: ${path_node:+$path_node, }$("${path_node:-false}" --version 2>/dev/null || echo none)) or in $NODE_HOME (scripts/setup.sh puts it there)"
fi
exec "$node" --import "$ROOT/scripts/lib/source-imports.ts" "$ROOT/scripts/publish/publish.ts" "$@"
