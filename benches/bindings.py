"""Per-call cost of a search through the Python binding (typed Hit objects returned), and of
the same searches run inside one binding call (no Python objects): prints both medians over
blocks of the mean time per call, in microseconds.

    python bindings.py VAULT QUERY LIMIT BLOCKS CALLS
"""

import statistics
import sys
import time

import mindex


def main() -> None:
    path, query, limit, blocks, calls = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    v = mindex.Vault(path)
    per, inner = [], []
    for b in range(-1, blocks):
        t0 = time.perf_counter()
        for _ in range(calls):
            hits = v.search(query, limit)
            for h in hits:
                _ = h.path
        t1 = time.perf_counter()
        mindex._mindex._search_n_times(v, query, limit, calls)
        t2 = time.perf_counter()
        if b >= 0:
            per.append((t1 - t0) / calls * 1e6)
            inner.append((t2 - t1) / calls * 1e6)
    # The layer's own cost per call: the same searches with and without a Python call each
    # (interleaved blocks, one process).
    layer = [p - i for p, i in zip(per, inner)]
    print(f"{statistics.median(per):.3f} {statistics.median(inner):.3f} {statistics.median(layer):.3f} {len(hits)}")


if __name__ == "__main__":
    main()
