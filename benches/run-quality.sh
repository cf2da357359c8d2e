#!/usr/bin/env bash
# Retrieval quality against the textbook-BM25 reference, every dev set, same run, same metric code.
#
#   benches/run-quality.sh [MODE] [DATA_DIR]
#
# MODE is a `mindex eval --mode` value (default bm25; `all` also embeds each collection once and
# keeps its vectors under $MINDEX_EVAL_KEEP, default /tmp/mindex-eval, so later runs reuse them).
# DATA_DIR holds BEIR-layout folders (default ../shared/data); the agent-style set in
# benches/agent-set and benches/agent-set-hard (in this repository) are always run too. For each collection, the
# reference (PyPI bm25s: Lucene BM25 k1 1.5 b 0.75, Snowball stemmer, English stop words, one
# document = title + text; benches/bm25_reference.py, in a virtualenv made here) writes a TREC
# run, and `mindex eval --run` scores it beside mindex's own modes.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-bm25}"
data="${2:-../shared/data}"
keep="${MINDEX_EVAL_KEEP:-/tmp/mindex-eval}"
venv="${MINDEX_BENCH_VENV:-$PWD/target/bench-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import bm25s, Stemmer' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q bm25s PyStemmer
fi
cargo build --release -q -p mindex-cli
mkdir -p "$keep"
for set in "$data"/*/ benches/agent-set/ benches/agent-set-hard/; do
  name=$(basename "$set")
  [ -f "$set/corpus.jsonl" ] || continue
  echo "== $name"
  "$venv/bin/python" benches/bm25_reference.py "$set" "$keep/$name.bm25s.run"
  ./target/release/mindex eval -q --corpus "$set/corpus.jsonl" --queries "$set/queries.jsonl" \
    --qrels "$set/qrels.tsv" --mode "$mode" --keep "$keep/$name" --run "$keep/$name.bm25s.run"
done
