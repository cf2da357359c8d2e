#!/usr/bin/env bash
# Embedding throughput: mindex (int8, the default where the CPU has VNNI, and f32) against
# sentence-transformers (PyTorch CPU), same texts, same 2 threads, one run; prints the ratios.
# Uses PYTHON=/path/to/python if given (it needs sentence-transformers), else a virtualenv it
# makes once under target/st-venv.
#   benches/run-embed.sh            (texts from ../shared/data/scifact-train, or SCIFACT=dir)
set -euo pipefail
cd "$(dirname "$0")/.."
py="${PYTHON:-}"
if [ -z "$py" ]; then
  # A virtualenv of our own with sentence-transformers (it pulls PyTorch: large, once).
  venv="${MINDEX_ST_VENV:-$PWD/target/st-venv}"
  if ! "$venv/bin/python" -c 'import sentence_transformers' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q sentence-transformers
  fi
  py="$venv/bin/python"
fi
data="${SCIFACT:-../shared/data/scifact-train}"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$py" - "$data" "$tmp" <<'PY'
import json, sys
data, out = sys.argv[1], sys.argv[2]
docs = [json.loads(l) for l in open(f"{data}/corpus.jsonl")][:300]
with open(f"{out}/passages.jsonl", "w") as f:
    for d in docs:
        f.write(json.dumps((d["title"] + "\n" + d["text"])[:1200]) + "\n")
qs = [json.loads(l) for l in open(f"{data}/queries.jsonl")][:500]
with open(f"{out}/short.jsonl", "w") as f:
    for q in qs:
        f.write(json.dumps(q["text"]) + "\n")
PY
cargo bench -p mindex-benches --bench embed --no-run
rate() { sed -n 's/.*best of 3: \([0-9.]*\) texts\/s.*/\1/p' | tail -1; }
for set in passages short; do
  echo "== $set"
  int8=$(MINDEX_PRECISION=int8 RAYON_NUM_THREADS=2 cargo bench -q -p mindex-benches --bench embed -- "$tmp/$set.jsonl" | tee /dev/stderr | rate)
  f32=$(MINDEX_PRECISION=f32 RAYON_NUM_THREADS=2 cargo bench -q -p mindex-benches --bench embed -- "$tmp/$set.jsonl" | tee /dev/stderr | rate)
  st=$(THREADS=2 HF_HUB_OFFLINE=1 "$py" benches/embed_vs_st.py "$tmp/$set.jsonl" | tee /dev/stderr | rate)
  awk -v a="$int8" -v b="$f32" -v s="$st" -v n="$set" 'BEGIN {
    printf "%s: mindex int8 %.1f/s = %.2fx sentence-transformers (%.1f/s); f32 %.1f/s = %.2fx\n", n, a, a / s, s, b, b / s }'
done
