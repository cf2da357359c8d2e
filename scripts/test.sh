#!/usr/bin/env bash
# The full test suite: formatting, lints, and every test (unit, integration, CLI processes).
# This is the command README.md gives and .ci/run calls.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
# Release: the same artefacts as the quick start and the benches, and (with models) fast enough to
# run real inference in tests.
echo "==> cargo test"
cargo test --release --workspace
