#!/usr/bin/env bash
# Scale: the foundation bench (build, one-note update, no-op update, search, RSS, index size)
# and the MCP search bench at growing vault sizes; one full build per size past 10,000 notes.
# Usage: benches/run-scale.sh [sizes...]   (default: 10000 100000 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 200000)
cargo build --release -p mindex-cli
export MINDEX_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/mindex"
for n in "${sizes[@]}"; do
  runs=3
  [ "$n" -gt 10000 ] && runs=1
  MINDEX_BENCH_NOTES="$n" MINDEX_BENCH_BUILD_RUNS="$runs" cargo bench -q -p mindex-benches --bench foundation
  MINDEX_BENCH_NOTES="$n" cargo bench -q -p mindex-benches --bench mcp
done
