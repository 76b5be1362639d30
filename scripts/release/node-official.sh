#!/usr/bin/env bash
# Fetches Node.js's official build of one platform and verifies it as Node.js's release docs say ("Verifying
# binaries"): the release's SHASUMS256.txt is checked against its detached signature SHASUMS256.txt.sig with the
# Node.js release keys kept in scripts/release/nodejs-release-keys (gpgv, no trust database, no key server), then
# the download's SHA-256 against its line there. Only then is it unpacked into DEST and its binary recorded in
# $NODE_VERIFIED (scripts/lib/env.sh), which `check_node_binary` trusts as it trusts a pin: no hash written by hand.
#
#   scripts/release/node-official.sh <version> <platform> <dest>
#
#   <version>   e.g. 24.21.0 (no leading v)
#   <platform>  one of $NODE_OFFICIAL_PLATFORMS (Node.js's names): darwin-arm64, darwin-x64, linux-x64,
#               linux-arm64 (node-v<version>-<platform>.tar.gz), win-x64 (win-x64/node.exe, which SHASUMS256.txt
#               lists as such)
#   <dest>      a folder that does not exist or is empty; it receives the tarball's contents (bin/node, lib/, ...),
#               for win-x64 bin/node.exe
#
# Environment: HELPDESK_NODE_DIST_URL, where the releases are (default $NODE_DIST_URL, Node.js's own; a mirror with
# the same layout, v<version>/SHASUMS256.txt...); HELPDESK_NODE_RELEASE_KEYS, a folder of armored keys used instead
# of the repository's (the tests' own key); HELPDESK_CACHE, where the record is (scripts/lib/env.sh).
# Exit status: 0 verified, unpacked and recorded; 1 a download was refused or a check failed (nothing is unpacked or
# recorded); 2 bad arguments, a DEST that is not empty, or a missing tool. Every failure is one line on stderr naming
# the platform. Runs on Linux and macOS: bash, curl, gpg and gpgv, tar, and sha256sum or shasum.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/env.sh"

# Node.js's names of the platforms it publishes builds of, as in its tarballs' names.
NODE_OFFICIAL_PLATFORMS="darwin-arm64 darwin-x64 linux-x64 linux-arm64 win-x64"
# Where Node.js publishes its releases (v<version>/SHASUMS256.txt, its .sig, the tarballs).
NODE_DIST_URL="https://nodejs.org/dist"

# shown_url URL: URL as it may be printed: without a user or password (scheme://user:password@host) or a query.
shown_url() { printf '%s' "$1" | sed -e 's|^\([a-zA-Z][a-zA-Z0-9+.-]*://\)[^/@]*@|\1|' -e 's|[?#].*$||'; }

# record_verified_node KEY SHA256 WHAT: sets the line of KEY (`node-<platform>@<version>/<binary>`, the pins' format)
# in $NODE_VERIFIED to SHA256, after a comment line `# KEY: WHAT`; an earlier line of KEY and its comment go. Written
# whole to a temporary file and renamed, so a reader never sees half of it.
record_verified_node() {
  local tmp
  mkdir -p "$(dirname "$NODE_VERIFIED")"
  tmp="$(mktemp "$NODE_VERIFIED.XXXXXX")"
  {
    if [ -f "$NODE_VERIFIED" ]; then
      awk -v key="$1" '!($1 == "#" && $2 == key ":") && !($1 != "#" && $2 == key)' "$NODE_VERIFIED"
    else
      printf '# Node.js binaries verified by scripts/release/node-official.sh against the signed SHASUMS256.txt of their\n'
      printf '# release; scripts/lib/env.sh check_node_binary trusts these lines as it trusts the pins of\n'
      printf '# scripts/lib/node-binaries.sha256 (same format).\n'
    fi
    printf '# %s: %s\n%s  %s\n' "$1" "$3" "$2" "$1"
  } >"$tmp"
  mv "$tmp" "$NODE_VERIFIED"
}

usage() {
  printf 'error: %s\nusage: scripts/release/node-official.sh <version> <platform> <dest> (platform: %s)\n' \
    "$1" "$NODE_OFFICIAL_PLATFORMS" >&2
  exit 2
}
[ $# -eq 3 ] || usage "expected 3 arguments, got $#"
VERSION="$1" PLATFORM="$2" DEST="$3"
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || usage "the version '$VERSION' is not <major>.<minor>.<patch>, e.g. $NODE_VERSION"
case " $NODE_OFFICIAL_PLATFORMS " in *" $PLATFORM "*) ;; *) usage "the platform '$PLATFORM' is not one of $NODE_OFFICIAL_PLATFORMS" ;; esac

# fail WHAT: the one line of a failed verification; nothing was unpacked or recorded.
fail() { printf 'error: Node.js v%s for %s: %s; nothing was unpacked or recorded\n' "$VERSION" "$PLATFORM" "$*" >&2; exit 1; }
# stop WHAT: the one line of a verification that could not start (exit 2).
stop() { printf 'error: Node.js v%s for %s: %s\n' "$VERSION" "$PLATFORM" "$*" >&2; exit 2; }

for tool in curl gpg gpgv tar; do command -v "$tool" >/dev/null || stop "missing the tool $tool (needed to verify Node.js's signed release)"; done
command -v sha256sum >/dev/null || command -v shasum >/dev/null || stop "missing sha256sum or shasum"
if [ -e "$DEST" ] && [ -n "$(ls -A "$DEST")" ]; then stop "$DEST is not empty: remove it, or name another folder"; fi
KEYS="${HELPDESK_NODE_RELEASE_KEYS:-$ROOT/scripts/release/nodejs-release-keys}"
# What the record says of the keys: the override is named, so a binary verified with other keys is plain to see.
KEYS_NOTE="a Node.js release key"
[ -z "${HELPDESK_NODE_RELEASE_KEYS:-}" ] || KEYS_NOTE="a key of HELPDESK_NODE_RELEASE_KEYS=$KEYS, not the repository's release keys"
compgen -G "$KEYS/*.asc" >/dev/null || stop "no release keys (*.asc) in $KEYS"

BASE="${HELPDESK_NODE_DIST_URL:-$NODE_DIST_URL}"
BASE="${BASE%/}/v$VERSION"
SHOWN="$(shown_url "$BASE")"
if [ "$PLATFORM" = win-x64 ]; then FILE="win-x64/node.exe" BINARY="bin/node.exe"; else FILE="node-v$VERSION-$PLATFORM.tar.gz" BINARY="bin/node"; fi
KEY="node-$PLATFORM@$VERSION/$BINARY"

WORK="$(mktemp -d)"
STAGE=""
cleanup() { rm -rf "$WORK" ${STAGE:+"$STAGE"}; }
trap cleanup EXIT

# download NAME: fetches $BASE/NAME into $WORK/<its base name>, or fails naming the URL (without credentials) and
# what the server or curl said.
download() {
  local code
  code="$(curl --silent --show-error --location --fail --retry 2 --output "$WORK/${1##*/}" --write-out '%{http_code}' \
    "$BASE/$1" 2>"$WORK/curl.err")" || {
    local why="HTTP $code"
    [ "$code" = 000 ] && why="$(sed -n 's/^curl: ([0-9]*) //p' "$WORK/curl.err" | head -1)"
    fail "download refused: $SHOWN/$1 ($why)"
  }
}

# 1. The signed sums, and their signature by a release key. gpg runs only to dearmor the keys, in a home of its own.
download SHASUMS256.txt
download SHASUMS256.txt.sig
mkdir -m 700 "$WORK/gnupg"
for key in "$KEYS"/*.asc; do
  gpg --homedir "$WORK/gnupg" --batch --quiet --dearmor <"$key" >>"$WORK/release-keys.gpg" 2>/dev/null ||
    stop "$key is not an armored OpenPGP key"
done
if ! GNUPGHOME="$WORK/gnupg" gpgv --keyring "$WORK/release-keys.gpg" --status-fd 3 \
  "$WORK/SHASUMS256.txt.sig" "$WORK/SHASUMS256.txt" 3>"$WORK/status" 2>/dev/null; then
  # ERRSIG <key id> <algo> <hash> <class> <time> <rc> [<fingerprint>]: the key the signature names.
  signer="$(awk '$2 == "ERRSIG" { print ($9 != "" && $9 != "-") ? $9 : $3 }' "$WORK/status" | head -1)"
  if grep -q '^\[GNUPG:\] BADSIG' "$WORK/status"; then
    fail "SHASUMS256.txt does not match its signature SHASUMS256.txt.sig ($SHOWN): it was changed after it was signed"
  elif [ -n "$signer" ]; then
    fail "SHASUMS256.txt.sig ($SHOWN) is signed by the key $signer, which is not a Node.js release key in $KEYS"
  else
    fail "SHASUMS256.txt.sig ($SHOWN) is not a valid signature of SHASUMS256.txt"
  fi
fi
# VALIDSIG's last field is the primary key's fingerprint (the signature may be by a subkey).
SIGNER="$(awk '$2 == "VALIDSIG" { print $NF }' "$WORK/status")"

# 2. The file's line in the signed sums, and its bytes against it.
LISTED="$(awk -v file="$FILE" '$2 == file && $1 ~ /^[0-9a-f]+$/ && length($1) == 64 { print $1 }' "$WORK/SHASUMS256.txt")"
[ -n "$LISTED" ] || fail "SHASUMS256.txt ($SHOWN, signed by $SIGNER) has no line for $FILE"
[ "$(printf '%s\n' "$LISTED" | wc -l)" -eq 1 ] || fail "SHASUMS256.txt ($SHOWN) has more than one line for $FILE"
download "$FILE"
ACTUAL="$(sha256_of "$WORK/${FILE##*/}")"
[ "$ACTUAL" = "$LISTED" ] ||
  fail "$FILE ($SHOWN) has SHA-256 $ACTUAL, not the $LISTED that the signed SHASUMS256.txt lists for it"

# 3. Unpacked beside DEST, then moved there; the binary recorded as verified.
mkdir -p "$(dirname "$DEST")"
STAGE="$(mktemp -d "$(dirname "$DEST")/.node-official.XXXXXX")"
chmod 755 "$STAGE"
if [ "$PLATFORM" = win-x64 ]; then
  mkdir "$STAGE/bin" && cp "$WORK/node.exe" "$STAGE/bin/node.exe"
else
  tar -xzf "$WORK/$FILE" -C "$STAGE" --strip-components=1 || fail "$FILE ($SHOWN) could not be unpacked"
fi
[ -f "$STAGE/$BINARY" ] || fail "$FILE ($SHOWN) has no $BINARY"
BINARY_SHA256="$(sha256_of "$STAGE/$BINARY")"
[ ! -e "$DEST" ] || rmdir "$DEST"
mv "$STAGE" "$DEST"
STAGE=""
record_verified_node "$KEY" "$BINARY_SHA256" \
  "$BINARY of $FILE (SHA-256 $ACTUAL) from $SHOWN, listed in its SHASUMS256.txt (SHA-256 $(sha256_of "$WORK/SHASUMS256.txt")) signed by $SIGNER ($KEYS_NOTE); verified $(date -u +%Y-%m-%dT%H:%M:%SZ) by scripts/release/node-official.sh"
step "Node.js v$VERSION for $PLATFORM: verified (SHASUMS256.txt signed by $SIGNER), unpacked into $DEST, $BINARY recorded in $NODE_VERIFIED"
