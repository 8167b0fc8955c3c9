#!/usr/bin/env bash
# Builds the app (release, wasm-opt) and serves it on http://127.0.0.1:8080/
# with demo A showing. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --serve
export PATH="$PWD/.tools/node_modules/.bin:$PATH"
exec ./scripts/trunk.sh serve --release "$@"
