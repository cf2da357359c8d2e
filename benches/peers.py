#!/usr/bin/env python3
"""mindex against QMD, side by side on one generated vault: every row of the speed table.

Usage (through benches/run-peers.sh, which builds mindex and installs QMD itself):
    peers.py --mindex BIN --qmd-runtime BUN --qmd-entry QMD_JS --vault DIR [--runs N] [--json OUT]

Every measure runs the two tools alternately (the order flips each run) and reports medians of
whole-process wall time, or of per-call latency for the warm MCP servers. QMD runs BM25-only
(`collection add` / `update` / `search` / MCP `query` with a `lex` search and no rerank): no model
is loaded by either tool, so the figures compare the engines, not an LLM.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# Five query shapes an agent sends, in the generated vault's words (benches/src/lib.rs).
SHAPES = [
    ("one word", "rollback"),
    ("two words", "checkout latency"),
    ("question", "why did the payment migration fail during review"),
    ("identifier", "topic-55"),
    ("phrase", '"ledger backfill"'),
]


def run(cmd, env=None, cwd=None):
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ms = (time.perf_counter() - t) * 1000
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.decode(errors='replace')[-2000:]}")
    return ms, p.stdout


class Tools:
    def __init__(self, args, work):
        self.mindex = args.mindex
        self.vault = os.path.abspath(args.vault)
        self.index = os.path.join(work, "mindex-index")
        self.qmd = [args.qmd_runtime, args.qmd_entry]
        self.qenv = dict(os.environ)
        self.qenv.update(
            XDG_CONFIG_HOME=os.path.join(work, "qmd-config"),
            XDG_CACHE_HOME=os.path.join(work, "qmd-cache"),
            INDEX_PATH=os.path.join(work, "qmd-cache", "bench.sqlite"),
            QMD_FORCE_CPU="1",
            NO_COLOR="1",
        )

    def m(self, *a):
        return [self.mindex, "--vault", self.vault, "--index", self.index, "-q", *a]

    def q(self, *a):
        return [*self.qmd, *a]

    def mindex_build(self):
        shutil.rmtree(self.index, ignore_errors=True)
        return run(self.m("update"))[0]

    def qmd_build(self):
        for d in ("qmd-config", "qmd-cache"):
            shutil.rmtree(os.path.join(os.path.dirname(self.index), d), ignore_errors=True)
        return run(self.q("collection", "add", self.vault, "--name", "v"), env=self.qenv)[0]


def median(xs):
    return statistics.median(xs)


def alternate(runs, a, b):
    """Runs `a` and `b` `runs` times, alternating which goes first; their timings."""
    ta, tb = [], []
    for i in range(runs):
        if i % 2 == 0:
            ta.append(a(i))
            tb.append(b(i))
        else:
            tb.append(b(i))
            ta.append(a(i))
    return ta, tb


class Mcp:
    """A stdio MCP client: newline-delimited JSON-RPC."""

    def __init__(self, cmd, env=None):
        self.p = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        self.next_id = 0
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "mindex-peers-bench", "version": "1"},
            },
        )
        self.notify("notifications/initialized", {})

    def notify(self, method, params):
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method, "params": params}) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.p.stdin.write(
            (json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n").encode()
        )
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit(f"MCP server ended while answering {method}")
            msg = json.loads(line)
            if msg.get("id") == rid and ("result" in msg or "error" in msg):
                if "error" in msg:
                    sys.exit(f"MCP {method}: {msg['error']}")
                return msg["result"]

    def call(self, tool, arguments):
        t = time.perf_counter()
        r = self.request("tools/call", {"name": tool, "arguments": arguments})
        ms = (time.perf_counter() - t) * 1000
        if r.get("isError"):
            sys.exit(f"MCP tool {tool} failed: {json.dumps(r)[:500]}")
        return ms, r

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def row(name, tm, tq, goal):
    mm, mq = median(tm), median(tq)
    ratio = mq / mm if mm > 0 else float("inf")
    met = "met" if goal is None or ratio >= goal else "missed"
    goal_s = "—" if goal is None else f"≥ {goal:g}× ({met})"
    return {"measure": name, "mindex_ms": round(mm, 2), "qmd_ms": round(mq, 2), "speedup": round(ratio, 1), "goal": goal_s}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mindex", required=True)
    ap.add_argument("--qmd-runtime", required=True)
    ap.add_argument("--qmd-entry", required=True)
    ap.add_argument("--vault", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--calls", type=int, default=50, help="MCP calls per query shape")
    ap.add_argument("--json", help="write the rows here too")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="mindex-peers-")
    # A copy: the update rows edit notes, and the generated vault stays as generated.
    copy = os.path.join(work, "vault")
    shutil.copytree(args.vault, copy, ignore=shutil.ignore_patterns(".*"))
    args.vault = copy
    t = Tools(args, work)
    rows = []
    notes = [
        os.path.relpath(os.path.join(d, f), t.vault)
        for d, _, fs in os.walk(t.vault)
        for f in fs
        if f.endswith(".md") and "/." not in d
    ]
    notes.sort()
    print(f"vault: {t.vault} ({len(notes)} notes); runs: {args.runs}", file=sys.stderr)

    # 1. Full build from scratch.
    tm, tq = alternate(args.runs, lambda i: t.mindex_build(), lambda i: t.qmd_build())
    rows.append(row("full build from scratch", tm, tq, 10))

    # 2. One-note update and no-change update (each run edits another note).
    def edit(i):
        with open(os.path.join(t.vault, notes[(i * 7919) % len(notes)]), "a") as f:
            f.write(f"\nbench edit {i} {time.time_ns()}\n")

    tm, tq = [], []
    for i in range(args.runs):
        edit(2 * i)
        a = run(t.m("update"))[0]
        edit(2 * i + 1)
        b = run(t.q("update"), env=t.qenv)[0]
        # Both must see both edits: each catches up on the other's too.
        run(t.m("update"))
        run(t.q("update"), env=t.qenv)
        tm.append(a)
        tq.append(b)
    rows.append(row("one-note update", tm, tq, 10))
    tm, tq = alternate(args.runs, lambda i: run(t.m("update"))[0], lambda i: run(t.q("update"), env=t.qenv)[0])
    rows.append(row("no-change update", tm, tq, 10))

    # 3. Search, whole process, per shape.
    for label, q in SHAPES:
        tm, tq = alternate(
            args.runs,
            lambda i: run(t.m("search", "-n", "10", q))[0],
            lambda i: run(t.q("search", "-n", "10", q), env=t.qenv)[0],
        )
        rows.append(row(f"`search`, whole process: {label}", tm, tq, 10))

    # 4. get / get --json.
    path = notes[len(notes) // 2]
    tm, tq = alternate(args.runs, lambda i: run(t.m("get", path))[0], lambda i: run(t.q("get", f"v/{path}"), env=t.qenv)[0])
    rows.append(row("`get`", tm, tq, 10))
    tm, tq = alternate(
        args.runs,
        lambda i: run(t.m("--json", "get", path))[0],
        lambda i: run(t.q("get", f"v/{path}", "--json"), env=t.qenv)[0],
    )
    rows.append(row("`get --json`", tm, tq, 10))

    # 5. Warm MCP search: one server each, `calls` calls per shape after a warm-up call.
    ms = Mcp([*t.m("--caller", "bench", "mcp")])
    qs = Mcp(t.q("mcp"), env=t.qenv)
    for label, q in SHAPES:
        mcall = lambda: ms.call("search", {"query": q, "limit": 10})
        qcall = lambda: qs.call("query", {"searches": [{"type": "lex", "query": q}], "limit": 10, "rerank": False})
        mcall(), qcall()
        tm, tq = alternate(args.calls, lambda i: mcall()[0], lambda i: qcall()[0])
        rows.append(row(f"warm MCP search: {label}", tm, tq, 10))
    ms.close()
    qs.close()
    shutil.rmtree(work, ignore_errors=True)

    print("| measure | mindex (median) | QMD (median) | mindex / QMD speed-up | goal |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['measure']} | {r['mindex_ms']:.2f} ms | {r['qmd_ms']:.2f} ms | {r['speedup']:.1f}× | {r['goal']} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
