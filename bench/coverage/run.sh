#!/bin/bash
# Which functions of the app's main WebAssembly module run while `/` and
# `/demo/f` open, before and after the first segment is painted, and which
# never run there (issue 11: what could leave the first load).
#
# How: binaryen's `--log-execution` instruments a copy of the main module
# (names kept, `wasm-opt -Oz -g` of the split step's bindgen output); a copy
# of dist/ serves it; headless Chromium records each log point reached
# (bench/coverage/coverage.mjs); bench/coverage/coverage.py maps them back to
# functions and sizes (demangled with c++filt).
#
# Usage (after `scripts/trunk.sh build --release`):  bench/coverage/run.sh
#   OUT=target/coverage PORT=8799
# Writes in OUT: hit_dem.txt / unhit_dem.txt / afterpaint_dem.txt (bytes and
# function, largest first) and *_groups.txt (by crate::module::item).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/target/coverage}
PORT=${PORT:-8799}
export ROOT OUT PORT PATH="$ROOT/.tools/node_modules/.bin:$PATH"
mkdir -p "$OUT"; cd "$OUT"
BG=$(ls "$ROOT"/target/split/release/bindgen/*_bg.wasm)
wasm-opt -Oz -g "$BG" -o named.wasm
wasm-opt -g --log-execution=env named.wasm -o inst.wasm
wasm-dis inst.wasm -o inst.wat
rm -rf dist && cp -r "$ROOT/dist" dist && rm -f dist/*.gz dist/*.br dist/sw.js
W=$(ls dist | grep -E '^pep-app-[0-9a-f]+_bg.wasm$'); cp inst.wasm "dist/$W"
sed -i 's/ integrity="[^"]*"//g' dist/index.html
node "$ROOT/bench/coverage/coverage.mjs" / /demo/f
python3 "$ROOT/bench/coverage/coverage.py"
