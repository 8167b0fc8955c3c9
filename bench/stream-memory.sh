#!/usr/bin/env bash
# Peak memory of `pep` over a large JSON Lines file of calls (issue 22: "a 1 GB
# JSON Lines file streams in constant memory").
#
#   bench/stream-memory.sh [SIZE_MB]      (default 1024)
#
# Generates SIZE_MB of JSON Lines in $TMPDIR (removed at the end): OTLP/JSON
# trace lines made from the corpus's real GenAI spans (otel-openai-v2-latest-span,
# messages on the span; each copy given new trace and span ids) mixed with
# OpenAI Chat request bodies of about 2 KB, then runs the release `pep`
# (PEP=path to use another build; built with `cargo build --release -p pep`
# when missing) over it:
#   export --format openai, export --format openai --batch, validate,
#   lint --format json, calls --format json
# and prints each command's peak resident set (GNU time's "Maximum resident
# set size", else VmHWM from /proc) and wall time. Set COMMANDS to a
# space-separated subset of: export batch validate lint calls.
set -euo pipefail

cd "$(dirname "$0")/.."
size_mb=${1:-1024}
pep=${PEP:-target/release/pep}
if [[ ! -x $pep ]]; then
  echo "building $pep (cargo build --release -p pep)…" >&2
  cargo build --release -p pep >&2
fi
commands=${COMMANDS:-export batch validate lint calls}
template=crates/envelope/tests/fixtures/traces/otel-openai-v2-latest-span/traces.jsonl
dir=$(mktemp -d "${TMPDIR:-/tmp}/pep-stream.XXXXXX")
trap '[[ -n ${KEEP:-} ]] || rm -rf "$dir"' EXIT
file=$dir/calls.jsonl

# The generator: the template's LLM spans with fresh ids, and bodies. Each
# template line is cut once around its trace and span ids.
awk -v limit=$((size_mb * 1024 * 1024)) '
  BEGIN { n = 0; filler = ""; for (i = 0; i < 40; i++) filler = filler "All work and no play makes a very long prompt. " }
  /gen_ai.input.messages/ {
    line = $0
    gsub(/"traceId":"[0-9a-fA-F]*"/, "\"traceId\":\"\001\"", line)
    gsub(/"spanId":"[0-9a-fA-F]*"/, "\"spanId\":\"\002\"", line)
    t = index(line, "\001"); s = index(line, "\002")
    if (t == 0 || s < t) next
    a[n] = substr(line, 1, t - 1); b[n] = substr(line, t + 1, s - t - 1); c[n] = substr(line, s + 1)
    size[n] = length(line) - 2 + 32 + 16 + 1
    n++
  }
  END {
    if (n == 0) { print "no GenAI span in the template" > "/dev/stderr"; exit 1 }
    head = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"system\",\"content\":\"You are terse.\"},{\"role\":\"user\",\"content\":\""
    tail = ": " filler "\"}],\"temperature\":0.2}"
    written = 0; k = 0
    while (written < limit) {
      k++
      if (k % 2 == 0) {
        i = k % n
        printf "%s%032x%s%016x%s\n", a[i], k, b[i], k, c[i]
        written += size[i]
      } else {
        printf "%s%d%s\n", head, k, tail
        written += length(head) + length(tail) + length(k "") + 1
      }
    }
  }' "$template" > "$file"

bytes=$(stat -c %s "$file")
lines=$(wc -l < "$file")
echo "file: $((bytes / 1024 / 1024)) MB, $lines lines ($pep)"

# Runs pep with ARGS over the file; prints peak RSS and wall time.
measure() {
  local name=$1; shift
  local start end peak
  start=$(date +%s.%N)
  if /usr/bin/time -V >/dev/null 2>&1; then
    /usr/bin/time -v -o "$dir/time" "$pep" "$@" "$file" > "$dir/out" 2> "$dir/err" || true
    peak=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/time")
  else
    "$pep" "$@" "$file" > "$dir/out" 2> "$dir/err" &
    local pid=$! hwm=0 v
    while kill -0 "$pid" 2>/dev/null; do
      v=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
      [[ -n $v && $v -gt $hwm ]] && hwm=$v
      sleep 0.05
    done
    wait "$pid" || true
    peak=$hwm
  fi
  end=$(date +%s.%N)
  printf '%-9s peak RSS %7d kB  %6.1f s  %9d lines out  %d lines on stderr\n' \
    "$name" "$peak" "$(echo "$end - $start" | bc)" "$(wc -l < "$dir/out")" "$(wc -l < "$dir/err")"
}

for c in $commands; do
  case $c in
    export) measure export export --format openai ;;
    batch) measure batch export --format openai --batch ;;
    validate) measure validate validate ;;
    lint) measure lint lint --format json ;;
    calls) measure calls calls --format json ;;
    *) echo "unknown command $c" >&2; exit 2 ;;
  esac
done
