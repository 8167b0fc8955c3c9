#!/usr/bin/env bash
# The release build's Rust, compiled ahead of Trunk (D182): the cargo commands
# that `scripts/trunk.sh build --release` runs for index.html's two rust links
# (the app; the engine worker with its profile), with the same settings
# (scripts/release-env.sh), then the split-step tool that scripts/split.mjs
# builds in the post-build hook. Trunk's and split.mjs's own cargo runs then
# find everything fresh. scripts/setup.sh runs this beside the build tools'
# installs, which leave a core idle for minutes; keep it in step with
# index.html's <link data-trunk rel="rust"> (a mismatch costs time, not
# correctness: Trunk compiles what differs).
set -euo pipefail
cd "$(dirname "$0")/.."
(
  . scripts/release-env.sh
  cargo build --locked --target=wasm32-unknown-unknown --manifest-path "$PWD/Cargo.toml" --release --bin pep-app
  cargo build --locked --target=wasm32-unknown-unknown --manifest-path "$PWD/crates/token-worker/Cargo.toml" \
    --profile release-worker --bin token-worker
)
# A native build, without the WebAssembly settings (as scripts/split.mjs runs it).
cargo build --locked --profile tool -p pep-split-step
