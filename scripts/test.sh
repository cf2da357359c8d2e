#!/usr/bin/env bash
# The full test suite: formatting, lints, and every test (unit, integration, CLI processes).
# This is the command README.md gives and .ci/run calls. It ends with one summary line,
# "N passed, N failed", and exits non-zero when anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

echo "==> model (all-MiniLM-L6-v2, for the real-model tests)"
# One definite folder for the installer and the tests, even where HOME is unset.
export MINDEX_MODEL_DIR="${MINDEX_MODEL_DIR:-${XDG_DATA_HOME:-${HOME:-$PWD/.cache}/.local/share}/mindex/models/all-MiniLM-L6-v2}"
./scripts/setup-model.sh
echo "==> cargo fmt --check"
cargo fmt --all -- --check
echo "==> cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
echo "==> cargo doc (the engine's public API docs; a broken or private link fails)"
RUSTDOCFLAGS="-D warnings" cargo doc -p mindex --no-deps
echo "==> other platforms: cargo clippy for macOS (Apple Silicon) and Windows"
./scripts/check-platforms.sh aarch64-apple-darwin x86_64-pc-windows-msvc
# Release: the same artefacts as the quick start and the benches, and (with models) fast enough to
# run real inference in tests.
echo "==> cargo test"
status=0
# The C ABI tests link the C example against libmindex.so, which `cargo test` does not build
# (the ffi crate is cdylib/staticlib only): build it first.
cargo build --release -p mindex-ffi
cargo test --release --workspace 2>&1 | tee "$log" || status=$?

echo "==> Python wheel (maturin) in a fresh virtualenv, pytest"
pylog="$(mktemp)"
pystatus=0
./scripts/python-test.sh 2>&1 | tee "$pylog" || pystatus=$?

passed=$( (grep -Eo '^test result: [A-Za-z]+\. [0-9]+ passed' "$log" || true) | awk '{s+=$4} END {print s+0}')
failed=$( (grep -Eo '[0-9]+ failed;' "$log" || true) | awk '{s+=$1} END {print s+0}')
# pytest's summary: "N passed[, M failed][, K skipped] in T s"
py_passed=$( (grep -Eo '[0-9]+ passed' "$pylog" || true) | tail -1 | awk '{print $1+0}')
py_failed=$( (grep -Eo '[0-9]+ (failed|error|errors)' "$pylog" || true) | tail -1 | awk '{print $1+0}')
rm -f "$pylog"
passed=$((passed + ${py_passed:-0}))
failed=$((failed + ${py_failed:-0}))
if [ "$pystatus" -ne 0 ]; then
  [ "$failed" -eq 0 ] && failed=1
  status=$pystatus
fi
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1  # a build error or a crashed test binary counts as a failure
fi
echo
echo "$passed passed, $failed failed"
exit "$status"
