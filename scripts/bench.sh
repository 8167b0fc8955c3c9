#!/usr/bin/env bash
# Runs the benchmarks and prints one line per figure against its budget
# (PASS/FAIL/INFO), then a table; writes target/bench/results.json.
# Reports only: exits 0 even when budgets are missed (non-zero only when the
# bench itself cannot run). Assumes ./scripts/setup.sh has been run; builds
# dist/ only when it is missing. Takes about 5 minutes on 2 cores, plus 4–5
# for the side by side with the React stand-in (section sbs: its table is
# printed last; the stand-in is built once into target/react-standin).
#
# Usage: scripts/bench.sh [--only size,sbs,load,budget-tab,tokenizer,big,huge,opening,replan,hostile]
#        scripts/bench.sh --profile   # also: CPU profiles by Rust function of
#          opening the big envelope and of a Budget-tab limit change (builds
#          pep-app with function names into target/bench-prof: ~3 more minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/node_modules/.bin:$PATH"

step() { printf '\n\033[1;34m== %s\033[0m\n' "$*" >&2; }
out=target/bench
mkdir -p "$out"
printf 'load average at start: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

for tool in node npm cargo; do
  command -v "$tool" >/dev/null || { echo "missing $tool (see scripts/setup.sh)" >&2; exit 1; }
done
[ -x /usr/bin/chromium ] || [ -n "${CHROMIUM:-}" ] || { echo "missing chromium: apt-get install chromium" >&2; exit 1; }
[ -d .tools/node_modules/playwright-core ] || { echo "missing .tools/node_modules: run ./scripts/setup.sh" >&2; exit 1; }

if [ ! -f dist/index.html ]; then
  step "release build (dist/ is missing)"
  ./scripts/trunk.sh build --release
fi

# The baseline tokenizer, pinned by bench/package-lock.json.
if [ ! -f bench/node_modules/gpt-tokenizer/package.json ]; then
  step "npm ci in bench/ (gpt-tokenizer)"
  (cd bench && npm ci --no-audit --no-fund --loglevel=error)
fi

# The React stand-in (issue 11's yardstick: the seed's stack), built once into
# target/react-standin from ../shared/anchors/react-standin (npm registry only),
# with its scale files at 20,000 and 100,000 segments and their Prompt Envelope
# conversions (../shared/anchors/side-by-side/to_pep.py, Python's stdlib only).
standin=target/react-standin
if [ ! -f "$standin/dist/index.html" ] || [ ! -f "$standin/scale/scale-100k.pep.json" ]; then
  src="${REACT_STANDIN_SRC:-}"
  for d in ../shared/anchors ../../shared/anchors; do
    [ -z "$src" ] && [ -d "$d/react-standin" ] && src="$d/react-standin"
  done
  if [ -z "$src" ]; then
    echo "no React stand-in sources (../shared/anchors/react-standin; or set REACT_STANDIN_SRC): the side-by-side section will say so" >&2
  else
    step "React stand-in: npm install, vite build, scale files (once, into $standin)"
    sbs="$(dirname "$src")/side-by-side"
    mkdir -p "$standin"
    cp -r "$src/." "$standin/" && chmod -R u+w "$standin"
    (cd "$standin" && npm install --no-audit --no-fund --loglevel=error && node scripts/gen.mjs demos >/dev/null && npx vite build --logLevel warn \
      && mkdir -p scale && node scripts/gen.mjs scale 2000 10 300 scale/scale-light.json >/dev/null \
      && node scripts/gen.mjs scale 10000 10 300 scale/scale-100k.json >/dev/null)
    python3 "$sbs/to_pep.py" "$standin/scale/scale-light.json" "$standin/scale/scale-light.pep.json"
    python3 "$sbs/to_pep.py" "$standin/scale/scale-100k.json" "$standin/scale/scale-100k.pep.json"
  fi
fi

step "inputs: big envelope, 10 MB mixed text, chat, long runs (deterministic)"
node bench/gen.mjs "$out"
cargo run -q --locked -p pep -- validate "$out/big.envelope.json"
cargo run -q --locked -p pep -- validate "$out/one-message-100k.envelope.json"
echo "pep validate: $out/big.envelope.json and one-message-100k.envelope.json are valid (big100k is the same generator)"

step "native: re-plan at 2,000 parts and the steps of opening the big envelope (release)"
CARGO_TARGET_DIR=target/bench-replan cargo build -q --locked --release --manifest-path bench/replan/Cargo.toml
target/bench-replan/release/replan 2000 1000 > "$out/replan.json"
target/bench-replan/release/load_stages "$out/big.envelope.json" > "$out/load-stages.json"

profile=0
args=()
for a in "$@"; do
  if [ "$a" = "--profile" ]; then profile=1; else args+=("$a"); fi
done
# `--only LIST`: the hostile section runs when LIST names it (or without --only).
only=""
for i in "${!args[@]}"; do
  if [ "${args[$i]}" = "--only" ]; then only="${args[$((i + 1))]:-}"; fi
done

if [ -z "$only" ] || [[ ",$only," == *",hostile,"* ]]; then
  step "hostile inputs (issue #12): pep validate/export/truncate on each, release build (≤ 2 s each)"
  node bench/hostile-gen.mjs "$out/hostile" >/dev/null
  cargo build -q --locked --release -p pep
  node bench/hostile.mjs target/release/pep "$out/hostile"
  target/bench-replan/release/read_speed "$out/big.envelope.json" > "$out/read-speed.json"
  target/bench-replan/release/markdown_cost "$out/hostile/markdown-1.3mb.json" > "$out/markdown-cost.json"
  step "hostile inputs in the app: each opened from a file, then the Budget tab (first screen ≤ 2 s; longest task ≤ 200 ms up to 5 MB, ≤ 1 s beyond)"
  RUNS=1 BUDGET=1 node bench/open-big.mjs $(ls "$out"/hostile/*.json | grep -v '/escape-')
  if [ "$only" = "hostile" ]; then exit 0; fi
fi

step "browser benchmarks (headless Chromium)"
node bench/run.mjs "${args[@]+"${args[@]}"}"

if [ "$profile" = 1 ]; then
  step "profiles by function (pep-app with names, no wasm-opt)"
  # PEP_NO_SPLIT: one module with every view (build.rs), which wasm-bindgen alone can serve.
  PEP_NO_SPLIT=1 CARGO_TARGET_DIR=target/bench-prof cargo build -q --release --locked --target wasm32-unknown-unknown --bin pep-app
  prof="$out/prof-dist"
  rm -rf "$prof" && mkdir -p "$prof" && cp -r dist/. "$prof/"
  wasm-bindgen --target web --out-dir "$prof" --out-name pep-app-prof target/bench-prof/wasm32-unknown-unknown/release/pep-app.wasm
  # index.html loads the named build instead (and drops the preload links of
  # the files it replaces, which carry their integrity hashes, and the CSP,
  # whose hashes of the inline scripts the renaming breaks: a profiling copy
  # served on 127.0.0.1 only).
  sed -i -E -e 's#/pep-app-[0-9a-f]+\.js#/pep-app-prof.js#g' -e 's#/pep-app-[0-9a-f]+_bg\.wasm#/pep-app-prof_bg.wasm#g' \
    -e 's#<link rel="(modulepreload|preload)"[^>]*>##g' -e 's#<meta http-equiv="Content-Security-Policy"[^>]*>##' "$prof/index.html"
  node bench/profile.mjs "$prof"
fi
