#!/usr/bin/env bash
# Builds the app (release, wasm-opt) and serves it on http://127.0.0.1:8080/
# with demo A showing. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --serve
export PATH="$PWD/.tools/node_modules/.bin:$PATH"
# Trunk's server sends files as they are: no .gz/.br (scripts/postbuild.mjs, D185).
# `scripts/trunk.sh build --release` makes them, for a real server.
export PEP_NO_PRECOMPRESS=1
exec ./scripts/trunk.sh serve --release "$@"
