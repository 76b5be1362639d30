#!/usr/bin/env bash
# `npm run lint:workflows`: checks the GitHub workflows:
#   1. actionlint ($HELPDESK_ACTIONLINT, built by scripts/setup.sh --test from the Go module proxy), with shellcheck
#      on PATH (setup.sh --test installs Debian's), which it runs on every `run:`; a missing shellcheck is an error;
#   2. every action pinned by a full commit SHA (`uses: owner/repo@<40 hex>`) and every container image by digest
#      (`image@sha256:<64 hex>`), which actionlint does not check;
#   3. every `run:` is one line `bash scripts/<path>.sh [ARG...]`, a script of the repository that exists, whose
#      arguments are plain words or "$VARIABLE": so each step can be run and tested outside GitHub, and no `${{ }}`
#      expression (a tag name, a commit message, anything an outsider can set) is ever pasted into a shell;
#   4. shellcheck on those scripts (scripts/ci/*.sh and any other a workflow runs).
# scripts/test.sh runs it.
#
#   scripts/lint-workflows.sh [FILE...]      (default: .github/workflows/*.yml)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
cd "$ROOT"
[ -x "$HELPDESK_ACTIONLINT" ] || die "actionlint v$ACTIONLINT_VERSION is missing at $HELPDESK_ACTIONLINT: run scripts/setup.sh --test"
command -v shellcheck >/dev/null || die "shellcheck is not on PATH (actionlint checks run: scripts with it): run scripts/setup.sh --test (Debian: apt-get install shellcheck)"
if [ "$#" -eq 0 ]; then set -- .github/workflows/*.yml; fi
status=0
"$HELPDESK_ACTIONLINT" -no-color "$@" || status=1

# flag LINES WHAT: prints each of the grep -Hn LINES with WHAT after it, and fails the lint.
flag() {
  while IFS= read -r line; do printf '%s  <- %s\n' "$line" "$2" >&2; done <<< "$1"
  status=1
}

# A local action (./path) or a docker:// image is not a tag that can move; anything else must be a commit.
if unpinned="$(grep -HnE '^[[:space:]-]*uses:[[:space:]]' "$@" | grep -vE 'uses:[[:space:]]+(\./|docker://)' | grep -vE '@[0-9a-f]{40}([[:space:]]|$)')"; then
  flag "$unpinned" "not pinned by a full commit SHA"
fi
if unpinned="$(grep -HnE '^[[:space:]]*(container|image):[[:space:]]*[^[:space:]{]' "$@" | grep -vE '@sha256:[0-9a-f]{64}([[:space:]]|$)')"; then
  flag "$unpinned" "an image not pinned by its digest (image@sha256:<64 hex>)"
fi

# The one form of a step's command; what it runs is collected for shellcheck.
run_form='^bash (scripts/[A-Za-z0-9_./-]+\.sh)( ([A-Za-z0-9_./:,=-]+|"\$[A-Z_][A-Z0-9_]*"))*$'
scripts=()
while IFS= read -r hit; do
  command="$(printf '%s' "$hit" | sed -E 's/^[^:]+:[0-9]+:[[:space:]-]*run:[[:space:]]*//')"
  if [[ ! "$command" =~ $run_form ]]; then
    # shellcheck disable=SC2016 # the message names a shell variable and an expression, literally
    flag "$hit" 'a run: must be one line, bash scripts/<path>.sh with plain words or "$VARIABLE" (values of ${{ }} go through env:)'
  elif [ ! -f "${BASH_REMATCH[1]}" ]; then
    flag "$hit" "${BASH_REMATCH[1]} does not exist"
  else
    scripts+=("${BASH_REMATCH[1]}")
  fi
done < <(grep -HnE '^[[:space:]-]*run:' "$@" || true)
if [ "${#scripts[@]}" -gt 0 ]; then
  # -x: follow what the scripts source (scripts/lib/env.sh) from the repository root.
  mapfile -t scripts < <(printf '%s\n' "${scripts[@]}" | sort -u)
  shellcheck -x -P SCRIPTDIR "${scripts[@]}" || status=1
fi
[ "$status" = 0 ] && echo "workflows: actionlint v$ACTIONLINT_VERSION with shellcheck clean, every action pinned by commit and image by digest, every run: a script (${#scripts[@]} scripts shellchecked) ($*)" >&2
exit "$status"
