#!/usr/bin/env bash
# Embedding throughput: mindex (int8 on this CPU's default kernel, and f32) against
# sentence-transformers (PyTorch CPU), same texts, same 2 threads, one run; prints the ratios.
# INT8_KERNELS="avx2 avxvnni ..." also times int8 with each of those kernels forced
# (MINDEX_INT8_KERNEL; a kernel the CPU lacks stops the script).
# Uses PYTHON=/path/to/python if given (it needs sentence-transformers), else a virtualenv it
# makes once under target/st-venv.
#   benches/run-embed.sh            (texts from ../shared/data/scifact-train, or SCIFACT=dir)
#   INT8_KERNELS=avx2 benches/run-embed.sh
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
bench() { RAYON_NUM_THREADS=2 cargo bench -q -p mindex-benches --bench embed -- "$1" | tee /dev/stderr | rate; }
for set in passages short; do
  echo "== $set"
  runs=("int8 $(MINDEX_PRECISION=int8 bench "$tmp/$set.jsonl")")
  for k in ${INT8_KERNELS:-}; do
    runs+=("int8-$k $(MINDEX_INT8_KERNEL=$k MINDEX_PRECISION=int8 bench "$tmp/$set.jsonl")")
  done
  runs+=("f32 $(MINDEX_PRECISION=f32 bench "$tmp/$set.jsonl")")
  st=$(THREADS=2 HF_HUB_OFFLINE=1 "$py" benches/embed_vs_st.py "$tmp/$set.jsonl" | tee /dev/stderr | rate)
  printf '%s\n' "${runs[@]}" | awk -v s="$st" -v n="$set" '
    BEGIN { printf "%s: sentence-transformers %.1f/s", n, s }
    { printf "; mindex %s %.1f/s = %.2fx", $1, $2, $2 / s }
    END { print "" }'
done
