#!/usr/bin/env bash
# mindex against QMD 2.8.3 on one generated vault: full build, updates, whole-process search and
# get, warm MCP search; alternating runs, medians, ratios from this one run.
# Usage: benches/run-peers.sh [notes] [runs]      (10,000 notes and 3 runs by default)
#
# QMD comes from the npm registry, installed by this script under target/bench-node (with Bun,
# also from the registry: QMD needs Node >= 22 or Bun, and its native SQLite module is not built
# here). Nothing is installed globally.
set -euo pipefail
cd "$(dirname "$0")/.."
NOTES="${1:-10000}"
RUNS="${2:-3}"
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
QMD_VERSION=2.8.3
BUN_VERSION=1.4.5

NODE_DIR="$TARGET/bench-node"
ENTRY="$NODE_DIR/node_modules/@tobilu/qmd/dist/cli/qmd.js"
BUN="$NODE_DIR/node_modules/bun/bin/bun.exe"
if [ ! -f "$ENTRY" ] || ! "$BUN" --version >/dev/null 2>&1 \
    || ! grep -q "\"version\": \"$QMD_VERSION\"" "$NODE_DIR/node_modules/@tobilu/qmd/package.json"; then
    mkdir -p "$NODE_DIR"
    echo "installing QMD $QMD_VERSION and Bun $BUN_VERSION under $NODE_DIR" >&2
    # --ignore-scripts: QMD's LLM and SQLite native builds are not needed for BM25 under Bun
    # (bun:sqlite); Bun's own install step (copy its binary into place) is run by hand below.
    npm install --prefix "$NODE_DIR" --ignore-scripts --no-audit --no-fund --loglevel=error \
        "@tobilu/qmd@$QMD_VERSION" "bun@$BUN_VERSION" >&2
    (cd "$NODE_DIR/node_modules/bun" && node install.js) >&2
fi
echo "QMD $(grep -o '"version": "[^"]*"' "$NODE_DIR/node_modules/@tobilu/qmd/package.json"), Bun $("$BUN" --version)" >&2

cargo build --release -q -p mindex-cli -p mindex-benches --bin mindex --bin mindex-vaultgen
VAULT="$TARGET/peers/vault-$NOTES"
if [ ! -d "$VAULT" ]; then
    mkdir -p "$TARGET/peers"
    "$TARGET/release/mindex-vaultgen" "$VAULT" --notes "$NOTES" >&2
fi
python3 benches/peers.py --mindex "$TARGET/release/mindex" --qmd-runtime "$BUN" \
    --qmd-entry "$ENTRY" --vault "$VAULT" --runs "$RUNS" --json "$TARGET/peers/result-$NOTES.json"
