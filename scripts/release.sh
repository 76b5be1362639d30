#!/usr/bin/env bash
# `npm run release`: writes the release artefacts into release/ (see scripts/release/release.ts): the plugin archives
# pulumi-resource-helpdesk-v<version>-{linux-amd64,linux-arm64,windows-amd64,darwin-amd64}.tar.gz, the npm package, the TypeScript SDK's npm package
# (@pulumi-helpdesk/helpdesk), the Python SDK's wheel and sdist
# (built with a pinned `build` in $HELPDESK_CACHE/python-build-venv: scripts/release/python.ts), the receiver kits'
# npm package (@pulumi-helpdesk/receiver) and wheel and sdist (pulumi-helpdesk-receiver: scripts/release/receiver.ts),
# SHA256SUMS. scripts/publish/packages.ts lists the packages per registry.
#
# The executables are Node.js single executable applications, which must be built by the very Node.js version whose
# binary they are made of: the project's Node ($NODE_VERSION, scripts/lib/env.sh), fetched into the cache if missing.
# Options go to release.ts: --out <dir>, --targets linux-x64,linux-arm64,win32-x64,darwin-x64, --no-python,
# --no-npm-package (then no set-up is run: node_modules must be installed, dist/ built, and quill built for darwin).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
case " $* " in
  *" --no-npm-package "*) ;;
  # npm ci and the SDK generator, which `npm pack` (prepack: build.sh) needs; quill, which signs the darwin executable
  *) bash "$ROOT/scripts/setup.sh" --release ;;
esac
if [ ! -x "$NODE_HOME/bin/node" ]; then
  step "Fetching Node $NODE_VERSION (the executables are built with it)"
  fetch_node "$NODE_VERSION" "$NODE_HOME"
fi
cd "$ROOT"
"$NODE_HOME/bin/node" -e 'require("esbuild"); require.resolve("postject/dist/cli.js")' 2>/dev/null ||
  die "esbuild or postject is missing from node_modules: run npm ci"
exec "$NODE_HOME/bin/node" scripts/release/release.ts "$@"
