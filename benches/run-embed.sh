#!/usr/bin/env bash
# Embedding throughput: mindex (candle) against sentence-transformers (PyTorch CPU), same texts,
# same 2 threads, one run. Needs a Python with sentence-transformers: PYTHON=/path/to/python.
#   benches/run-embed.sh            (texts from ../shared/data/scifact-train, or SCIFACT=dir)
set -euo pipefail
cd "$(dirname "$0")/.."
py="${PYTHON:-python3}"
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
for set in passages short; do
  echo "== $set"
  RAYON_NUM_THREADS=2 cargo bench -q -p mindex-benches --bench embed -- "$tmp/$set.jsonl" | tail -1
  THREADS=2 HF_HUB_OFFLINE=1 "$py" benches/embed_vs_st.py "$tmp/$set.jsonl" | tail -1
done
