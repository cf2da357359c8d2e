#!/usr/bin/env bash
# MCP server latency, measured by a client over pipes. Usage: benches/run-mcp.sh [notes]
set -euo pipefail
cd "$(dirname "$0")/.."
export MINDEX_BENCH_NOTES="${1:-10000}"
cargo build --release -p mindex-cli
MINDEX_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/mindex" cargo bench -p mindex-benches --bench mcp
