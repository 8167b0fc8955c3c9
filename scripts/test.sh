#!/usr/bin/env bash
# Runs every test: formatting and lints, the native tests of every crate, the
# component tests in headless Chromium, the first-load size gate on the
# release build, and the end-to-end tests against that build served on
# 127.0.0.1. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$PWD/.tools/node_modules/.bin:$PATH"

step() { printf '\n\033[1;34m== %s\033[0m\n' "$*" >&2; }

for tool in chromium chromedriver; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install chromium chromium-driver" >&2; exit 1; }
done

step "format"
cargo fmt --all -- --check

step "clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy -p envelope --features tokenizer,templates --all-targets --locked -- -D warnings
cargo clippy --target wasm32-unknown-unknown -p pep-app -p pep-token-worker --all-targets --locked -- -D warnings

step "native tests"
cargo test --workspace --locked
cargo test -p envelope --features tokenizer,templates --locked

step "component tests in headless Chromium"
CHROMEDRIVER=/usr/bin/chromedriver \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test --target wasm32-unknown-unknown --locked --test web

step "release build"
./scripts/trunk.sh build --release
# The same site under a sub-path, as on GitHub Pages (the shipping e2e test).
./scripts/trunk.sh build --release --public-url /sub/ --dist target/dist-sub

step "size gate: the bytes fetched until the first screen is complete, / and /demo/f (gzip -9; bench/SIZE.md)"
node bench/complete-gate.mjs dist

step "end-to-end tests in headless Chromium (@playwright/test; report and traces of failures in target/)"
node .tools/node_modules/@playwright/test/cli.js test -c tests/e2e/playwright.config.mjs
