#!/usr/bin/env bash
# Per-call overhead of the C and Python layers over the Rust search, in one run.
# Builds libmindex.so and the wheel, installs the wheel into target/py/bench-venv.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release -p mindex-ffi
tools="$target/py/tools"
if [ ! -x "$tools/bin/maturin" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install --quiet "maturin>=1.9.4,<2"
fi
rm -rf "$target/py/bench-wheels"
"$tools/bin/maturin" build --release --quiet -m bindings/python/Cargo.toml -o "$target/py/bench-wheels"
venv="$target/py/bench-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --force-reinstall "$target"/py/bench-wheels/mindex-*.whl
MINDEX_BENCH_PYTHON="$venv/bin/python" cargo bench -p mindex-benches --bench bindings
