"""Call overhead of the Python bindings: µs per `weald.bfs` call on a 10-vertex graph.

Not a test (speed is checked in benchmarks, never asserted). Run:
    .venv/bin/python python/bench_overhead.py [--threads K]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import weald


def per_call_us(f, reps: int) -> float:
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(reps):
            f()
        best = min(best, (time.perf_counter() - t) / reps * 1e6)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--reps", type=int, default=20000)
    a = ap.parse_args()
    if a.threads:
        weald.set_num_threads(a.threads)
    src = np.arange(9)
    g = weald.Graph.from_edges(src, src + 1)  # a path of 10 vertices
    dg = weald.DynamicGraph()
    dg.insert_edges(src, src + 1)
    snap = dg.snapshot()
    rows = [
        ("g.num_vertices (no GIL release)", lambda: g.num_vertices),
        ("g.degree()", lambda: g.degree()),
        ("weald.bfs(g, 0)", lambda: weald.bfs(g, 0)),
        ("weald.bfs(snapshot, 0)", lambda: weald.bfs(snap, 0)),
        ("weald.connected_components(g)", lambda: weald.connected_components(g)),
        ("weald.pagerank(g)", lambda: weald.pagerank(g)),
    ]
    print(f"weald {weald.__version__}, {weald.get_num_threads()} threads, 10-vertex path")
    for name, f in rows:
        print(f"{name:34s} {per_call_us(f, a.reps):8.2f} µs/call")
    snap.release()


if __name__ == "__main__":
    main()
