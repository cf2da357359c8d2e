#!/usr/bin/env bash
# `remember` latency with many writer processes on one vault (six MCP servers at once) against one
# writer alone. Usage: benches/run-writers.sh [notes] [writers] [remembers-per-writer]
set -euo pipefail
cd "$(dirname "$0")/.."
export MINDEX_BENCH_NOTES="${1:-1000}"
export MINDEX_BENCH_WRITERS="${2:-6}"
export MINDEX_BENCH_RUNS="${3:-40}"
cargo build --release -p mindex-cli
MINDEX_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/mindex" cargo bench -p mindex-benches --bench writers
