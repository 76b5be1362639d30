#!/usr/bin/env bash
# `npm run lint:workflows`: checks the GitHub workflows with actionlint ($HELPDESK_ACTIONLINT, built by
# scripts/setup.sh --test from the Go module proxy; it also runs shellcheck on `run:` scripts when shellcheck is on
# PATH), and that every action is pinned by a full commit SHA (`uses: owner/repo@<40 hex>`), which actionlint does not
# check. scripts/test.sh runs it.
#
#   scripts/lint-workflows.sh [FILE...]      (default: .github/workflows/*.yml)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
cd "$ROOT"
[ -x "$HELPDESK_ACTIONLINT" ] || die "actionlint v$ACTIONLINT_VERSION is missing at $HELPDESK_ACTIONLINT: run scripts/setup.sh --test"
if [ "$#" -eq 0 ]; then set -- .github/workflows/*.yml; fi
status=0
"$HELPDESK_ACTIONLINT" -no-color "$@" || status=1
# A local action (./path) or a docker:// image is not a tag that can move; anything else must be a commit.
if unpinned="$(grep -HnE '^[[:space:]-]*uses:[[:space:]]' "$@" | grep -vE 'uses:[[:space:]]+(\./|docker://)' | grep -vE '@[0-9a-f]{40}([[:space:]]|$)')"; then
  printf '%s\n' "$unpinned" | sed 's/$/  <- not pinned by a full commit SHA/' >&2
  status=1
fi
[ "$status" = 0 ] && echo "workflows: actionlint v$ACTIONLINT_VERSION clean, every action pinned by commit ($*)" >&2
exit "$status"
