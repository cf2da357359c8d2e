"""Writes reference.json: sentence-transformers' embeddings of a fixed sentence set.

Run once (needs `pip install sentence-transformers`, which pulls torch; keep it out of CI):

    python engine/tests/data/make_reference.py [MODEL_DIR]

MODEL_DIR defaults to mindex's model folder (scripts/setup-model.sh installs it). The Rust test
`reference_embeddings_match_sentence_transformers` compares mindex's vectors with these.
"""

import json
import os
import pathlib
import sys

from sentence_transformers import SentenceTransformer

SENTENCES = [
    "The checkout service timed out after the database failover.",
    "How do I roll back a feature flag?",
    "Idempotency keys make client retries safe.",
    "Postgres was chosen over DynamoDB for the ledger because of multi-row transactions.",
    "a",
    "Hello, world!",
    "UPPER CASE AND lower case Mixed",
    "Numbers 12345 and dates 2026-03-14 with times 14:05 UTC.",
    "fn main() { println!(\"hello\"); }  // some Rust code",
    "Café naïve résumé — unicode punctuation “quotes” and emoji 🚀",
    "漢字とかなの混じった日本語の文章です。",
    "[[Payments Migration#Plan|the plan]] links to another note #work-note",
    "- [ ] follow up with Alice about the reconciliation job",
    "The quick brown fox jumps over the lazy dog.",
    "Connection pool exhaustion under a retry storm made every request fail.",
    "   leading and trailing whitespace   ",
    "word " * 400,  # far past 256 tokens: truncation must match
    " ".join(f"token{i}" for i in range(300)),
    "Backfills run in batches of 1,000 rows with a sleep between batches, resumable from a checkpoint.",
    "What did we decide about the rollback window with finance?",
]


def main() -> None:
    default = pathlib.Path(
        os.environ.get("MINDEX_MODEL_DIR")
        or pathlib.Path(os.environ.get("XDG_DATA_HOME") or pathlib.Path.home() / ".local/share")
        / "mindex/models/all-MiniLM-L6-v2"
    )
    model_dir = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else default
    model = SentenceTransformer(str(model_dir), device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True)
    out = {
        "model": "all-MiniLM-L6-v2",
        "max_seq_length": model.max_seq_length,
        "sentences": SENTENCES,
        "vectors": [[round(float(x), 7) for x in v] for v in vectors],
    }
    path = pathlib.Path(__file__).with_name("reference.json")
    path.write_text(json.dumps(out, ensure_ascii=False) + "\n")
    print(f"wrote {path} ({len(SENTENCES)} sentences, dim {vectors.shape[1]})")


if __name__ == "__main__":
    main()
