#!/usr/bin/env bash
# Trunk, with the release build's compiler settings (docs/DECISIONS.md,
# "Release builds compile the standard library with the app"):
#
#   scripts/trunk.sh build --release [ARGS…]     scripts/trunk.sh serve --release
#
# With --release, the WebAssembly modules (the app, the Markdown module, the
# engine worker) are built with their own copy of the standard library
# (`-Zbuild-std`, from the toolchain's rust-src component, which
# scripts/setup.sh adds), so that std is optimized and stripped as the app is:
#   - panic=immediate-abort: a panic is a trap at once; no panic message is
#     formatted, no hook runs (index.html's crash script shows the error
#     screen for any trap);
#   - location-detail=none: no source paths and line numbers in the module;
#   - core's optimize_for_size: its smaller algorithms (sorting, integer
#     printing).
# These are unstable options of the pinned stable toolchain, opened for this
# one command only with RUSTC_BOOTSTRAP=1 (the same compiler; never set for
# clippy, the tests or the CLI). Without this script, `trunk build --release`
# still builds a working app, ~25 KB gzip heavier (the size gate fails on it).
#
# Debug builds (no --release) run Trunk unchanged.
set -euo pipefail
release=0
for a in "$@"; do
  [ "$a" = "--release" ] && release=1
done
if [ "$release" = 1 ]; then
  export RUSTC_BOOTSTRAP=1
  export CARGO_UNSTABLE_BUILD_STD=std,panic_abort
  export CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size
  # Added to .cargo/config.toml's list for this target (cargo joins the two).
  export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none"
fi
exec trunk "$@"
