"""sentence-transformers throughput on a file of texts (one JSON string per line), 2 threads.

    python benches/embed_vs_st.py FILE [MODEL_DIR]

Prints `texts/s` (best of 3), for comparison with `cargo bench -p mindex-benches --bench embed -- FILE`
(benches/run-embed.sh runs both on the same files and prints the ratio).
"""

import json
import os
import pathlib
import sys
import time

import torch
from sentence_transformers import SentenceTransformer


def main() -> None:
    torch.set_num_threads(int(os.environ.get("THREADS", "2")))
    texts = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    default = pathlib.Path(
        os.environ.get("MINDEX_MODEL_DIR")
        or pathlib.Path(os.environ.get("XDG_DATA_HOME") or pathlib.Path.home() / ".local/share")
        / "mindex/models/all-MiniLM-L6-v2"
    )
    model = SentenceTransformer(str(sys.argv[2] if len(sys.argv) > 2 else default), device="cpu")
    model.encode(texts[:16], batch_size=32)
    rates = []
    for _ in range(3):
        t = time.perf_counter()
        model.encode(texts, batch_size=32, normalize_embeddings=True)
        rates.append(len(texts) / (time.perf_counter() - t))
    rates.sort()
    print(f"sentence-transformers: {len(texts)} texts, best of 3: {rates[2]:.1f} texts/s (median {rates[1]:.1f})")


if __name__ == "__main__":
    main()
