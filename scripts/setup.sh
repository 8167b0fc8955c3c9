#!/usr/bin/env bash
# Installs what building and testing need, once; later runs skip what is
# already at the pinned version. Everything comes from the package registries
# (crates.io, npm, PyPI); nothing is fetched by Trunk itself.
#
#   scripts/setup.sh           everything: building, serving and testing
#   scripts/setup.sh --serve   what building and serving need (scripts/serve.sh):
#                              not the Python packages, which only tests read
set -euo pipefail
cd "$(dirname "$0")/.."
serve_only=0
[ "${1:-}" = "--serve" ] && serve_only=1

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130   # must equal wasm-bindgen in Cargo.lock
BINARYEN_VERSION=132           # Debian's binaryen 108 breaks the module; npm's 132 works

say() { printf '\033[1m[setup]\033[0m %s\n' "$*" >&2; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# The standard library's sources: release builds compile std with the app
# (scripts/trunk.sh, -Zbuild-std).
if ! rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
  say "adding the rust-src component"
  rustup component add rust-src
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  say "Node.js and npm are needed (for wasm-opt and the browser tests): apt-get install nodejs npm"
  exit 1
fi

if [ "$serve_only" = 0 ] && { ! command -v python3 >/dev/null || ! python3 -m pip --version >/dev/null 2>&1; }; then
  say "Python 3 with pip is needed (for the Gemini and Bedrock exports' type check against google-genai and botocore): apt-get install python3 python3-pip"
  exit 1
fi

# The two build tools are compiled from crates.io. They are tools, not the
# product, so they are built with a light profile: no optimisation, many
# codegen units, no LTO, no debug info (D178: the install's compile is most of
# a fresh machine's set-up, and an unoptimised Trunk serves and stages this
# site as quickly as an optimised one). Trunk is built without its default
# features (TLS and the update check: Trunk downloads nothing here, the tools
# come from PATH), and with panic=unwind, not its own profile's abort: a panic
# in one of its threads (its file watcher's, D189) then ends that thread, not
# the server. The crates that do wasm-bindgen's own work on the app's
# module (parsing, rewriting and writing it) keep opt-level 1 (WB_HOT): an
# unoptimised walrus would add seconds to every release build. The two
# installs and the npm install run side by side; each one's log is kept in
# target/setup-*.log and shown if it fails.
export CARGO_PROFILE_RELEASE_LTO=false
export CARGO_PROFILE_RELEASE_OPT_LEVEL=0
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256
export CARGO_PROFILE_RELEASE_DEBUG=false
export CARGO_PROFILE_RELEASE_INCREMENTAL=false
export CARGO_PROFILE_RELEASE_PANIC=unwind
WB_HOT=()
for c in walrus wasmparser wasm-encoder wasm-bindgen-cli-support wasm-bindgen-shared leb128fmt id-arena hashbrown indexmap; do
  WB_HOT+=(--config "profile.release.package.$c.opt-level=1")
done
mkdir -p target
pids=()
names=()
run_bg() { # name, command…
  local name=$1; shift
  ( "$@" >"target/setup-$name.log" 2>&1 ) &
  pids+=($!); names+=("$name")
}

if [ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (no default features, light profile)"
  run_bg trunk cargo install --locked --no-default-features "trunk@$TRUNK_VERSION"
fi

if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (light profile; its module work at opt-level 1)"
  # Not --locked: its lockfile wants a webpki-roots the registry lacks.
  run_bg wasm-bindgen cargo install "${WB_HOT[@]}" --force "wasm-bindgen-cli@$WASM_BINDGEN_VERSION"
fi

# Node packages (binaryen's wasm-opt, esbuild for the release build's
# minified JS and CSS, playwright-core for the end-to-end
# tests, typescript and @anthropic-ai/sdk for the Anthropic export's type
# check in crates/envelope/tests/provider_types.rs) live in .tools/, pinned
# by .tools/package-lock.json.
# npm ci runs again whenever package-lock.json changed since the last install
# (a copy of it is kept in node_modules/ as the stamp) or a tool is missing.
if [ ! -x .tools/node_modules/.bin/wasm-opt ] \
   || ! .tools/node_modules/.bin/wasm-opt --version 2>/dev/null | grep -q "version $BINARYEN_VERSION" \
   || ! cmp -s .tools/package-lock.json .tools/node_modules/.pep-installed-lock.json; then
  say "installing npm packages into .tools/"
  run_bg npm sh -c 'cd .tools && npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.pep-installed-lock.json'
fi

# Python packages (botocore and google-genai: the Gemini and Bedrock Converse
# exports are checked against their request types in
# crates/envelope/tests/provider_types_gemini_bedrock.rs, D172) live in
# .tools/python/, pinned exactly by .tools/requirements.txt (the two SDKs and
# every package pip resolved for them). The tests only read them, with
# PYTHONPATH=.tools/python; they never install. pip runs again whenever
# requirements.txt changed since the last install (a copy of it is kept in
# .tools/python/ as the stamp); a changed list starts from an empty directory.
if [ "$serve_only" = 0 ] && ! cmp -s .tools/requirements.txt .tools/python/.pep-installed-requirements.txt; then
  say "installing Python packages into .tools/python/"
  run_bg python sh -c 'rm -rf .tools/python && python3 -m pip install --target .tools/python --no-compile --disable-pip-version-check -q -r .tools/requirements.txt && cp .tools/requirements.txt .tools/python/.pep-installed-requirements.txt'
fi

# While they run: each one's end as it comes, and every 30 s what each is
# doing (a fresh machine's installs take minutes with nothing else on screen).
started=$SECONDS
failed=0
finished=()
tick=0
while :; do
  running=0
  for i in "${!pids[@]}"; do
    [ -n "${finished[$i]:-}" ] && continue
    if kill -0 "${pids[$i]}" 2>/dev/null; then
      running=$((running + 1))
      continue
    fi
    finished[$i]=1
    if wait "${pids[$i]}"; then
      say "${names[$i]} installed ($((SECONDS - started)) s)"
    else
      say "installing ${names[$i]} failed; its log (target/setup-${names[$i]}.log) ends:"
      tail -n 40 "target/setup-${names[$i]}.log" >&2
      failed=1
    fi
  done
  [ "$running" = 0 ] && break
  sleep 1
  tick=$((tick + 1))
  [ $((tick % 30)) = 0 ] || continue
  for i in "${!pids[@]}"; do
    [ -n "${finished[$i]:-}" ] && continue
    last=$(grep -a 'Compiling' "target/setup-${names[$i]}.log" 2>/dev/null | tail -n 1 | sed 's/^ *//' || true)
    say "${names[$i]}: still installing after $((SECONDS - started)) s${last:+ (${last})}"
  done
done
[ "$failed" = 0 ] || exit 1
