"""updates: batch insert/delete throughput by batch size (Aspen's experiment), Weald's C-tree
store vs the Python-reachable dynamic peers (NetworKit addEdge/removeEdge loops, igraph
add_edges/delete_edges, rustworkx add_edges_from_no_data/remove_edge_list).

Each case is one process per system: it builds the base graph (not timed), then times
`repeat` batches of RMAT-sampled edges (Graph500 parameters) inserted, or inserted and then
deleted (only the deletion timed). Throughput = batch edges / seconds (higher is better).
"""

from __future__ import annotations

from .common import Case, Context

SIZES = [10, 1_000, 100_000, 1_000_000]
QUICK_SIZES = [10, 1_000]
PEERS = ("networkit", "igraph", "rustworkx")


def cases(ctx: Context) -> list[Case]:
    out = []
    g = ctx.graphs[0]  # the RMAT graph
    for size in QUICK_SIZES if ctx.quick else SIZES:
        for op in ("insert", "delete"):
            c = Case("updates", f"{op} {size}", g.label, unit="eps", weald_run=False)
            c.systems["weald"] = lambda t, r, op=op, size=size: [
                ctx.weald, "--threads", str(t), "-q", "bench", "updates", str(g.binary),
                "--batch-sizes", str(size), "--trials", str(r), "--json",
            ]
            for p in PEERS:
                if size >= 1_000_000 and p == "networkit":
                    continue  # a Python loop of 1e6 addEdge calls per batch: minutes, not a kernel
                c.systems[p] = lambda t, r, op=op, size=size, p=p: [
                    ctx.py, ctx.peers_script, "updates", p, op, str(size), str(g.npz),
                    "--repeat", str(r),
                ]
            out.append(c)
    return out
