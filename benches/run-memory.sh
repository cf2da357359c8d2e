#!/usr/bin/env bash
# Memory store benchmarks. Usage: benches/run-memory.sh [memories] [notes]
set -euo pipefail
cd "$(dirname "$0")/.."
export MINDEX_BENCH_MEMORIES="${1:-5000}" MINDEX_BENCH_NOTES="${2:-1000}"
cargo bench -p mindex-benches --bench memory
