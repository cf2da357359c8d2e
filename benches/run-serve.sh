#!/usr/bin/env bash
# `mindex serve` under load: 50 concurrent MCP clients over Streamable HTTP on loopback.
# Usage: benches/run-serve.sh [notes] [clients] [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
export MINDEX_BENCH_NOTES="${1:-10000}" MINDEX_BENCH_CLIENTS="${2:-50}" MINDEX_BENCH_SECONDS="${3:-20}"
cargo build --release -p mindex-cli
MINDEX_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/mindex" cargo bench -p mindex-benches --bench serve
