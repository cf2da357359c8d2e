#!/usr/bin/env python3
"""Textbook BM25 on a BEIR collection, written as a TREC run file for `mindex eval --run`.

The reference every lexical figure in benches/README.md is compared with: PyPI `bm25s`
(Lucene's BM25, k1 1.5, b 0.75), English Snowball stemming (PyStemmer) and bm25s's English
stop words, one document = title + text. It only ranks; `mindex eval --run FILE` scores the
file with the same nDCG/MRR/recall code as mindex's own modes, in the same run.

    python3 benches/bm25_reference.py DATASET_DIR OUT.run [--k1 1.5] [--b 0.75] [--top 100]

DATASET_DIR holds corpus.jsonl, queries.jsonl and qrels.tsv (BEIR layout). Only judged queries
are ranked. Needs `pip install bm25s PyStemmer` (benches/run-quality.sh sets up a virtualenv).
"""

import argparse
import json
import sys
from pathlib import Path


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--k1", type=float, default=1.5)
    ap.add_argument("--b", type=float, default=0.75)
    ap.add_argument("--top", type=int, default=100)
    args = ap.parse_args()

    try:
        import bm25s
        import Stemmer
    except ImportError as e:
        sys.exit(f"error: {e.name} is not installed: pip install bm25s PyStemmer")

    for name in ("corpus.jsonl", "queries.jsonl", "qrels.tsv"):
        if not (args.dataset / name).is_file():
            sys.exit(f"error: {args.dataset / name}: no such file (BEIR layout expected)")
    corpus = read_jsonl(args.dataset / "corpus.jsonl")
    queries = read_jsonl(args.dataset / "queries.jsonl")
    judged = set()
    with open(args.dataset / "qrels.tsv", encoding="utf-8") as f:
        for i, line in enumerate(f):
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 3 and not (i == 0 and not cols[2].strip().lstrip("-").isdigit()):
                judged.add(cols[0].strip())
    queries = [q for q in queries if str(q["_id"]) in judged]

    ids = [str(d["_id"]) for d in corpus]
    texts = [((d.get("title") or "") + " " + (d.get("text") or "")).strip() for d in corpus]
    stemmer = Stemmer.Stemmer("english")
    doc_tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25(method="lucene", k1=args.k1, b=args.b)
    retriever.index(doc_tokens, show_progress=False)

    top = min(args.top, len(ids))
    vocab = retriever.vocab_dict
    lines = []
    for q in queries:
        words = bm25s.tokenize(
            [q["text"]], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
        )[0]
        words = [w for w in words if w in vocab]
        if not words:
            continue  # every word a stop word or absent from the corpus: nothing retrieved
        docs, scores = retriever.retrieve([words], k=top, show_progress=False)
        for rank, (d, s) in enumerate(zip(docs[0], scores[0]), start=1):
            if s <= 0:
                break
            lines.append(f"{q['_id']} Q0 {ids[int(d)]} {rank} {float(s):.6f} bm25s")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(
        f"bm25s (lucene, k1 {args.k1}, b {args.b}): {len(ids)} documents, "
        f"{len(queries)} judged queries -> {args.out}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
