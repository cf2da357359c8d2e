#!/usr/bin/env bash
# Save-to-searchable latency with `mindex watch` running, per editor save pattern, against a
# once-a-second `mindex update` loop. Usage: benches/run-watch.sh [notes] [saves-per-pattern]
set -euo pipefail
cd "$(dirname "$0")/.."
export MINDEX_BENCH_NOTES="${1:-1000}"
export MINDEX_BENCH_RUNS="${2:-100}"
cargo build --release -p mindex-cli
MINDEX_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/mindex" cargo bench -p mindex-benches --bench watch
