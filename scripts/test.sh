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
# Release: the same artefacts as the quick start and the benches, and (with models) fast enough to
# run real inference in tests.
echo "==> cargo test"
status=0
cargo test --release --workspace 2>&1 | tee "$log" || status=$?

passed=$(grep -Eo '^test result: [A-Za-z]+\. [0-9]+ passed' "$log" | awk '{s+=$4} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed;' "$log" | awk '{s+=$1} END {print s+0}')
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1  # a build error or a crashed test binary counts as a failure
fi
echo
echo "$passed passed, $failed failed"
exit "$status"
