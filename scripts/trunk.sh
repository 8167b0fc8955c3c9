#!/usr/bin/env bash
# Trunk, with the release build's compiler settings (scripts/release-env.sh):
#
#   scripts/trunk.sh build --release [ARGS…]     scripts/trunk.sh serve --release
#
# Without this script, `trunk build --release` still builds a working app,
# ~25 KB gzip heavier (the size gate fails on it). Debug builds (no --release)
# run Trunk unchanged.
set -euo pipefail
release=0
for a in "$@"; do
  [ "$a" = "--release" ] && release=1
done
if [ "$release" = 1 ]; then
  . "$(dirname "$0")/release-env.sh"
fi
exec trunk "$@"
