#!/usr/bin/env bash
# Runs the core's property tests over and over with fresh random seeds for
# SECONDS (default 600), release build, and prints each failure's minimal input.
# proptest saves failing cases in crates/envelope/proptest-regressions/: commit
# them with the fix. (CI runs one fixed seed: see .ci/run.)
#
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-600}"
unset PROPTEST_RNG_SEED
bins=$(cargo test -p envelope --release --locked --no-run --message-format=json 2>/dev/null |
  sed -n 's/.*"executable":"\([^"]*\)".*/\1/p')
[ -n "$bins" ] || { echo "no test binaries built" >&2; exit 1; }
end=$((SECONDS + secs))
rounds=0
failed=0
while [ "$SECONDS" -lt "$end" ]; do
  rounds=$((rounds + 1))
  for b in $bins; do
    if ! out=$("$b" --quiet 2>&1); then
      failed=$((failed + 1))
      echo "== failure in $(basename "$b"), round $rounds"
      echo "$out" | grep -E "minimal failing input|Test failed|panicked at" | head -6
    fi
  done
done
echo "$rounds rounds of $(echo "$bins" | wc -w) test binaries in ${secs}s: $failed failing runs"
[ "$failed" -eq 0 ]
