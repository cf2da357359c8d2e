#!/usr/bin/env bash
# `mindex hook <event>` whole-process wall time on the sample vault and a generated one, with a
# Node.js per-event process as the baseline. Usage: benches/run-hooks.sh [notes] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
export MINDEX_BENCH_NOTES="${1:-1000}"
export MINDEX_BENCH_RUNS="${2:-60}"
cargo build --release -p mindex-cli
MINDEX_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/mindex" cargo bench -p mindex-benches --bench hooks
