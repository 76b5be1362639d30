#!/usr/bin/env bash
# scripts/ci/debian-packages.sh JOB [--check]: installs with apt-get the Debian 12 packages a workflow job needs
# beyond its image (buildpack-deps:bookworm-scm: git, curl, CA certificates, gnupg), the one list of each job:
#
#   test            ci.yml `test`: what `npm test` expects of the machine (CONTRIBUTING.md, "The two commands")
#   release-build   release.yml `build`: what `npm run release` needs (Go and Node.js come from their actions)
#   verify          release.yml `verify`: what installing each package by name needs (Python, Java, Maven)
#
# With --check it installs nothing: it prints the packages of JOB that are not installed and exits 1 when there
# are any (tests/workflows/release-jobs.test.ts checks so that this machine has what each job it plays installs).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"

case "${1:-}" in
  test)
    packages=(xz-utils zip unzip build-essential python3 python3-venv openjdk-17-jdk-headless maven chromium
      postgresql shellcheck) ;;
  release-build) packages=(xz-utils build-essential python3 python3-venv) ;;
  verify) packages=(python3 python3-venv openjdk-17-jdk-headless maven) ;;
  *) die "usage: scripts/ci/debian-packages.sh test|release-build|verify [--check] (got: ${1:-nothing})" ;;
esac

if [ "${2:-}" = --check ]; then
  missing=()
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  [ "${#missing[@]}" = 0 ] || die "the job $1 installs ${missing[*]}, which this machine lacks"
  echo "the job $1's Debian packages are installed: ${packages[*]}"
  exit 0
fi
[ "$#" = 1 ] || die "usage: scripts/ci/debian-packages.sh test|release-build|verify [--check]"
[ "$(id -u)" = 0 ] || die "apt-get needs root (the job's container runs as root)"
export DEBIAN_FRONTEND=noninteractive
step "Installing the Debian packages of the job $1: ${packages[*]}"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}"
