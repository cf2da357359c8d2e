#!/usr/bin/env bash
# `mindex remember` at scale: whole-process latency of storing a lesson in a large vault.
# Usage: benches/run-remember.sh [notes] [runs]   (default: 200000 notes, 50 runs)
# Generates the vault with mindex-vaultgen (in $MINDEX_BENCH_DIR, default a temporary folder),
# indexes it once, then times `mindex remember` (distinct lessons, so none is refused as a
# duplicate), each a fresh process, and prints p50 / p95 / p99 / max. Every lesson must be
# answered as stored and indexed.
set -euo pipefail
cd "$(dirname "$0")/.."
notes="${1:-200000}"
runs="${2:-50}"
cargo build -q --release -p mindex-cli -p mindex-benches
bin="${CARGO_TARGET_DIR:-$PWD/target}/release"
work="${MINDEX_BENCH_DIR:-$(mktemp -d)}"
vault="$work/v$notes"
if [ ! -d "$vault/.mindex" ]; then
  "$bin/mindex-vaultgen" "$vault" --notes "$notes"
  "$bin/mindex" update -q --vault "$vault"
fi
times="$work/remember-times.txt"
: > "$times"
cd "$work"
for i in $(seq 1 "$runs"); do
  t0=$(date +%s%N)
  out=$("$bin/mindex" remember --vault "$vault" --json --confidence inferred \
    --title "Scale lesson $i-$$ about queue retries" \
    --body "Lesson $i-$$: retries on queue number $i must be idempotent, because the broker redelivers after a visibility timeout of $((i * 7)) seconds.")
  t1=$(date +%s%N)
  echo "$out" | grep -q '"indexed": *true' || { echo "lesson $i not indexed: $out" >&2; exit 1; }
  echo $(( (t1 - t0) / 1000 )) >> "$times"
done
python3 - "$times" "$notes" <<'EOF'
import sys
v = sorted(int(x) / 1000 for x in open(sys.argv[1]))
p = lambda q: v[min(len(v) - 1, round(q / 100 * (len(v) - 1)))]
print(f"mindex remember, {sys.argv[2]} notes, {len(v)} runs (whole process): "
      f"p50 {p(50):.1f} ms, p95 {p(95):.1f} ms, p99 {p(99):.1f} ms, max {v[-1]:.1f} ms")
EOF
