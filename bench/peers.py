"""Worker process for one peer case (NetworKit, igraph, rustworkx, networkx, python-graphblas,
raphtory).

    peers.py prepare EDGELIST OUT.npz        edge list (both directions) -> each edge once, int32
    peers.py meta IN.npz                     vertices, edges, a random non-isolated source
    peers.py load SYSTEM EDGELIST            time reading the text edge list into SYSTEM's graph
    peers.py kernel SYSTEM CASE IN.npz --repeat R --source S [--tol T] [--inner K]
    peers.py updates SYSTEM insert|delete SIZE IN.npz --repeat R   batches of SIZE RMAT edges

SYSTEM is networkit, igraph, rustworkx, networkx, graphblas (python-graphblas on SuiteSparse,
with the textbook GraphBLAS kernels written here: masked BFS, PageRank, min-plus Bellman-Ford,
masked L·Lᵀ triangles), or weald-py (Weald's own Python package,
`import weald`, which the harness runs with the repository's .venv interpreter), or raphtory
(updates only: a PersistentGraph, batches through its Arrow loaders). With --inner K
each timed repeat calls the kernel K times and reports the time per call (call overhead on tiny
graphs).

Prints one JSON object as the last line: {"times": [...], "check": {...}}. A kernel is run once
as a warm-up, then R timed times. Graph construction is not timed for kernels.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import time

import numpy as np

THREADS = int(os.environ.get("WEALD_BENCH_THREADS", "1"))


def prepare(src: str, out: str) -> None:
    with open(src, "rb") as f:
        data = f.read()
    first = next((ln for ln in data.split(b"\n", 64) if ln.strip() and not ln.startswith((b"#", b"%"))), b"0 0")
    cols = len(first.split())
    # Whitespace-separated numbers (tabs and newlines count as separators).
    arr = np.fromstring(data.decode(), dtype=np.float64, sep=" ")
    arr = arr.reshape(-1, cols)
    u = arr[:, 0].astype(np.int64)
    v = arr[:, 1].astype(np.int64)
    w = arr[:, 2].astype(np.int64) if cols >= 3 else np.ones(len(u), dtype=np.int64)
    keep = u < v
    n = int(max(u.max(initial=-1), v.max(initial=-1)) + 1)
    np.savez(out, u=u[keep].astype(np.int32), v=v[keep].astype(np.int32), w=w[keep].astype(np.int32), n=n)


def load_npz(path: str):
    z = np.load(path)
    return int(z["n"]), z["u"], z["v"], z["w"]


def meta(path: str) -> dict:
    n, u, v, _ = load_npz(path)
    deg = np.bincount(np.concatenate([u, v]), minlength=n)
    rng = random.Random(27491095)
    source = 0
    for _ in range(100):
        source = rng.randrange(n) if n else 0
        if n == 0 or deg[source] > 0:
            break
    return {"vertices": n, "edges": int(len(u)), "source": int(source)}


def build(system: str, n, u, v, w, weighted: bool):
    if system == "networkit":
        import networkit as nk

        nk.setNumberOfThreads(THREADS)
        g = nk.Graph(n, weighted=weighted)
        # addEdges needs node ids of networkit's own index type (uint64); int32 crashes it.
        uu, vv = u.astype(np.uint64), v.astype(np.uint64)
        if weighted:
            g.addEdges((w.astype(np.float64), (uu, vv)))
        else:
            g.addEdges((uu, vv))
        return g
    if system == "igraph":
        import igraph as ig

        g = ig.Graph(n=n, edges=np.column_stack([u, v]).tolist(), directed=False)
        if weighted:
            g.es["weight"] = w.tolist()
        return g
    if system == "rustworkx":
        return build_rustworkx(n, u, v, w if weighted else None)
    if system == "raphtory":
        return build_raphtory(n, u, v)
    if system == "weald-py":
        import weald

        weald.set_num_threads(THREADS)
        return weald.Graph.from_edges(u, v, weights=w if weighted else None, num_vertices=n)
    if system == "networkx":
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from(range(n))
        if weighted:
            g.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist()))
        else:
            g.add_edges_from(zip(u.tolist(), v.tolist()))
        return g
    if system == "graphblas":
        import graphblas as gb

        gb.ss.config["nthreads"] = THREADS
        rows, cols = np.concatenate([u, v]), np.concatenate([v, u])
        if weighted:
            vals = np.concatenate([w, w]).astype(np.float64)
            return gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dup_op=gb.binary.min)
        return gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n)
    raise SystemExit(f"unknown system {system}")


def assert_simple(n: int, u, v) -> None:
    """Each undirected edge once, no self-loops: what `prepare` writes (it keeps u < v of a
    symmetric edge list; `weald generate` writes no duplicate arcs). O(m) when the edges are
    sorted, as `prepare` leaves them; a sort otherwise."""
    if not len(u):
        return
    if not bool(np.all(u < v)):
        raise SystemExit("peers.py: the .npz holds self-loops or edges with u > v (re-run prepare)")
    keys = u.astype(np.int64) * max(n, 1) + v
    if not bool(np.all(keys[1:] > keys[:-1])) and len(np.unique(keys)) != len(keys):
        raise SystemExit("peers.py: the .npz holds duplicate edges")


def build_rustworkx(n: int, u, v, w=None):
    """rustworkx's PyGraph(multigraph=False) holding exactly the npz's edges, in order.

    Adding edges to a multigraph=False graph (extend_from_edge_list, add_edge) first searches
    the endpoint's adjacency for an existing edge: O(degree) per edge, quadratic on RMAT hubs
    (6 min for the 15.7 M edges of RMAT scale 20). The edges here are unique (assert_simple),
    so that search can never find one: the graph is restored through the pickle protocol
    instead (`__setstate__` appends the listed nodes and edges without the search). The result
    is identical to the old construction (same node payloads 0..n-1, edge indices 0..m-1 in npz
    order, edge payloads None or the weight, multigraph=False), so the updates suite's inserts
    keep their set semantics: an inserted edge that exists updates it, no parallel edge.
    """
    import rustworkx as rx

    assert_simple(n, u, v)
    m = len(u)
    g = rx.PyGraph(multigraph=False, node_count_hint=n, edge_count_hint=m)
    payloads = w.tolist() if w is not None else itertools.repeat(None, m)
    nodes = range(n)
    g.__setstate__({"nodes": list(zip(nodes, nodes)), "edges": list(zip(u.tolist(), v.tolist(), payloads)),
                    "nodes_removed": False})
    if g.num_nodes() != n or g.num_edges() != m or g.multigraph:
        raise SystemExit(f"rustworkx: restored {g.num_nodes()} nodes, {g.num_edges()} edges "
                         f"(multigraph={g.multigraph}); expected {n}, {m}, False")
    return g


def build_raphtory(n: int, u, v):
    """raphtory's PersistentGraph (deletions need the persistent semantics) holding every
    vertex and every npz edge, all at time 0, through its Arrow loaders (load_nodes,
    load_edges; the fastest way it offers). Raphtory's edges are directed: each undirected edge
    is one edge u -> v with u < v, and the updates' batches are put in the same orientation."""
    import pyarrow as pa
    import raphtory

    g = raphtory.PersistentGraph()
    g.load_nodes(pa.table({"t": np.zeros(n, dtype=np.int64), "id": np.arange(n, dtype=np.int64)}),
                 time="t", id="id")
    g.load_edges(pa.table({"t": np.zeros(len(u), dtype=np.int64), "src": u.astype(np.int64),
                           "dst": v.astype(np.int64)}), time="t", src="src", dst="dst")
    return g


def raphtory_batch(su, sv, t: int):
    """One batch for raphtory, in its natural batch form (Arrow tables, made before the clock):
    the insertions at time t and the deletions at time t + 1, each edge as (min, max)."""
    import pyarrow as pa

    a, b = np.minimum(su, sv).astype(np.int64), np.maximum(su, sv).astype(np.int64)
    return tuple(pa.table({"t": np.full(len(a), t + k, dtype=np.int64), "src": a, "dst": b}) for k in (0, 1))


def graphblas_kernel(case: str, A, source: int, tol: float):
    """The standard GraphBLAS formulations (as in LAGraph), one Python call per round."""
    import graphblas as gb
    from graphblas import Vector, agg, binary, semiring

    n = A.nrows
    if case == "bfs":
        def f():
            seen = Vector(bool, n)
            seen[source] = True
            q = seen.dup()
            while q.nvals:
                q(~seen.S, replace=True) << semiring.any_pair(q @ A)
                seen(q.S) << True
            return {"reached": seen.nvals}
        return f
    if case == "pagerank":
        deg = A.reduce_rowwise(agg.count).new(dtype=float)
        def f():
            r = Vector(float, n)
            r << 1.0 / n
            for _ in range(100):
                x = (r / deg).new()  # only where deg > 0
                dangling = 1.0 - x.ewise_mult(deg, binary.times).reduce().get(0.0)
                nr = Vector(float, n)
                nr << (1 - 0.85) / n + 0.85 * dangling / n
                nr(accum=binary.plus) << semiring.plus_first(x @ A).new().apply(binary.times, right=0.85)
                delta = (nr - r).new().apply(gb.unary.abs).reduce().get(0.0)
                r = nr
                if delta < tol:
                    break
            return {"sum": round(r.reduce().get(0.0), 6)}
        return f
    if case == "sssp":
        def f():
            d = Vector(float, n)
            d[source] = 0.0
            while True:
                before = d.dup()
                d(binary.min) << semiring.min_plus(d @ A)
                if d.isequal(before):  # distances only fall: unchanged means converged
                    return {"reached": d.nvals}
        return f
    if case == "tc":
        def f():
            L = A.select("tril", -1).new()
            c = semiring.plus_pair(L @ L.T).new(mask=L.S)
            return {"triangles": int(c.reduce_scalar(gb.monoid.plus).get(0))}
        return f
    return None


def kernel(system: str, case: str, g, source: int, tol: float):
    """Return a function running the kernel once and returning its check value(s)."""
    if system == "graphblas":
        return graphblas_kernel(case, g, source, tol)
    if system == "networkit":
        import networkit as nk

        if case == "bfs":
            def f():
                b = nk.distance.BFS(g, source, storePaths=False)
                b.run()
                d = np.asarray(b.getDistances())
                return {"reached": int(np.count_nonzero(d < 1e300))}
            return f
        if case == "pagerank":
            def f():
                pr = nk.centrality.PageRank(g, damp=0.85, tol=tol)
                pr.norm = nk.centrality.Norm.L1_NORM
                pr.run()
                return {}
            return f
        if case == "cc":
            def f():
                cc = nk.components.ConnectedComponents(g)
                cc.run()
                return {"components": cc.numberOfComponents()}
            return f
        if case == "sssp":
            def f():
                d = nk.distance.Dijkstra(g, source, storePaths=False)
                d.run()
                x = np.asarray(d.getDistances())
                return {"reached": int(np.count_nonzero(x < 1e300))}
            return f
        if case == "tc":
            def f():
                g.indexEdges()
                s = nk.sparsification.TriangleEdgeScore(g)
                s.run()
                return {"triangles": int(round(sum(s.scores()) / 3))}
            return f
        if case == "mis":
            def f():
                s = nk.independentset.Luby().run(g)
                return {"size": int(sum(1 for x in s if x))}
            return f
        if case == "kcore":
            def f():
                c = nk.centrality.CoreDecomposition(g)
                c.run()
                return {"max_core": int(max(c.scores(), default=0))}
            return f
    if system == "igraph":
        if case == "bfs":
            def f():
                order, _, _ = g.bfs(source)
                return {"reached": len(order)}
            return f
        if case == "pagerank":
            return lambda: (g.pagerank(damping=0.85), {})[1]
        if case == "cc":
            return lambda: {"components": len(g.connected_components())}
        if case == "sssp":
            def f():
                d = g.distances(source=[source], weights="weight")[0]
                return {"reached": sum(1 for x in d if x != float("inf"))}
            return f
        if case == "kcore":
            return lambda: {"max_core": max(g.coreness(), default=0)}
    if system == "rustworkx":
        import rustworkx as rx

        if case == "cc":
            return lambda: {"components": len(rx.connected_components(g))}
        if case == "sssp":
            def f():
                d = rx.graph_dijkstra_shortest_path_lengths(g, source, edge_cost_fn=float)
                return {"reached": len(d) + 1}
            return f
        if case == "kcore":
            return lambda: {"max_core": max(rx.core_number(g).values(), default=0)}
    if system == "weald-py":
        import weald

        if case == "bfs":
            return lambda: {"reached": int(np.count_nonzero(weald.bfs(g, source) >= 0))}
        if case == "pagerank":
            return lambda: (weald.pagerank(g, tol=tol), {})[1]
        if case == "cc":
            # The count, as NetworKit's numberOfComponents and networkx's
            # number_connected_components give it (the same Afforest run as
            # connected_components, without building the label array).
            return lambda: {"components": weald.number_connected_components(g)}
        if case == "sssp":
            return lambda: {"reached": int(np.count_nonzero(np.isfinite(weald.sssp(g, source))))}
        if case == "tc":
            return lambda: {"triangles": int(weald.triangle_count(g))}
        if case == "kcore":
            return lambda: {"max_core": int(weald.kcore(g).max(initial=0))}
        if case == "mis":
            return lambda: {"size": int(np.count_nonzero(weald.mis(g)))}
    if system == "networkx":
        import networkx as nx

        if case == "bfs":
            return lambda: {"reached": len(nx.single_source_shortest_path_length(g, source))}
        if case == "cc":
            return lambda: {"components": nx.number_connected_components(g)}
        if case == "pagerank":
            return lambda: (nx.pagerank(g, alpha=0.85, tol=tol), {})[1]
        if case == "tc":
            return lambda: {"triangles": sum(nx.triangles(g).values()) // 3}
        if case == "kcore":
            return lambda: {"max_core": max(nx.core_number(g).values(), default=0)}
    return None


def load_text(system: str, path: str):
    if system == "networkit":
        import networkit as nk

        nk.setNumberOfThreads(THREADS)
        g = nk.graphio.EdgeListReader("\t", 0, directed=False, continuous=True).read(path)
        g.removeMultiEdges()
        return {"vertices": g.numberOfNodes(), "edges": g.numberOfEdges()}
    if system == "igraph":
        import igraph as ig

        g = ig.Graph.Read_Edgelist(path, directed=False)
        g.simplify()
        return {"vertices": g.vcount(), "edges": g.ecount()}
    if system == "rustworkx":
        import rustworkx as rx

        # read_edge_list's default multigraph=True keeps every line: the graph holds each
        # undirected edge twice (the file lists both directions). Its multigraph=False removes
        # them but searches the endpoint's edges per line, quadratic on hubs: 5.3 s at RMAT
        # scale 16, 82 s at 18 (vs 0.4 s, 1.9 s), so >20 min at 20.
        g = rx.PyGraph.read_edge_list(path, deliminator="\t")
        return {"vertices": g.num_nodes(), "edges": g.num_edges()}
    if system == "weald-py":
        import weald

        weald.set_num_threads(THREADS)
        g = weald.read(path)
        return {"vertices": g.num_vertices, "edges": g.num_edges}
    raise SystemExit(f"{system}: no text loader")


def rmat_sample(scale: int, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """RMAT edges (Graph500 a=.57, b=.19, c=.19) drawn with numpy; ids < 2^scale."""
    rng = np.random.default_rng(seed)
    u = np.zeros(count, dtype=np.int64)
    v = np.zeros(count, dtype=np.int64)
    for bit in range(scale):
        r = rng.random(count)
        down = r >= 0.57 + 0.19  # quadrants c, d: source bit set
        right = ((r >= 0.57) & (r < 0.76)) | (r >= 0.95)  # quadrants b, d: target bit set
        u |= down.astype(np.int64) << bit
        v |= right.astype(np.int64) << bit
    n = 1 << scale
    ids, inv = np.unique(np.concatenate([u, v]), return_inverse=True)
    if len(ids) * 64 < n:
        # A small batch: draw the images of its own ids only (distinct, uniform: what a random
        # permutation gives them), not a permutation of all n ids (10 ms at scale 20, which
        # made thousands of batches of 10 take minutes to sample).
        img = rng.choice(n, size=len(ids), replace=False)
    else:
        img = rng.permutation(n)[ids]
    both = img[inv]
    return both[:count], both[count:]


def updates(system: str, op: str, size: int, path: str, repeat: int) -> dict:
    n, u, v, w = load_npz(path)
    scale = max(1, int(np.ceil(np.log2(max(n, 2)))))
    g = build(system, max(n, 1 << scale), u, v, w, weighted=False)
    if system == "weald-py":
        import weald

        g = weald.DynamicGraph.from_graph(g)  # the C-tree store
    times = []
    for r in range(-1, repeat):  # r = -1: an untimed warm-up batch of its own
        su, sv = rmat_sample(scale, size, 1000 + r)
        # each system's natural batch form, made before the clock starts: numpy arrays for
        # Weald, Arrow tables for raphtory (insertions at time 2r+3, deletions at 2r+4, after
        # the base graph's time 0), a list of pairs for the others
        if system == "weald-py":
            pairs = (su, sv)
        elif system == "raphtory":
            pairs = raphtory_batch(su, sv, 2 * r + 3)
        else:
            pairs = list(zip(su.tolist(), sv.tolist()))
        ins, dele = batch_ops(system, g)
        if r < 0:
            ins(pairs)
            dele(pairs)
        elif op == "insert":
            t = time.perf_counter()
            ins(pairs)
            times.append(time.perf_counter() - t)
            dele(pairs)
        else:
            ins(pairs)
            t = time.perf_counter()
            dele(pairs)
            times.append(time.perf_counter() - t)
    return {"times": times, "check": {"size": size}, "peak_rss_mb": peak_rss_mb()}


def batch_ops(system: str, g):
    """(insert(pairs), delete(pairs)) for one system; deletions remove what insert added."""
    if system == "networkit":
        def ins(pairs):
            for a, b in pairs:
                g.addEdge(a, b)

        def dele(pairs):
            for a, b in pairs:
                g.removeEdge(a, b)
        return ins, dele
    if system == "igraph":
        def ins(pairs):
            g.add_edges(pairs)

        def dele(pairs):
            g.delete_edges(range(g.ecount() - len(pairs), g.ecount()))  # the ones just added
        return ins, dele
    if system == "rustworkx":
        added = []

        def ins(pairs):
            added[:] = g.add_edges_from_no_data(pairs)

        def dele(pairs):
            for e in set(added):
                g.remove_edge_from_index(e)
        return ins, dele
    if system == "raphtory":
        # pairs = (insertions, deletions): Arrow tables of (t, src, dst). An edge inserted again
        # gets one more addition event, not a second edge; a deletion ends the edge at its time
        # (the history is kept: a temporal graph's memory grows with every batch).
        def ins(pairs):
            g.load_edges(pairs[0], time="t", src="src", dst="dst")

        def dele(pairs):
            g.load_edge_deletions(pairs[1], time="t", src="src", dst="dst")
        return ins, dele
    if system == "weald-py":
        def ins(pairs):
            g.insert_edges(*pairs)

        def dele(pairs):
            g.delete_edges(*pairs)
        return ins, dele
    raise SystemExit(f"{system}: no dynamic updates")


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["prepare", "meta", "load", "kernel", "updates"])
    ap.add_argument("args", nargs="+")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--source", type=int, default=0)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--inner", type=int, default=1, help="kernel calls per timed repeat")
    a = ap.parse_args()
    if a.mode == "prepare":
        prepare(a.args[0], a.args[1])
        print(json.dumps({"ok": True}))
        return
    if a.mode == "meta":
        print(json.dumps(meta(a.args[0])))
        return
    if a.mode == "load":
        system, path = a.args
        times, check = [], {}
        for _ in range(a.repeat):
            t = time.perf_counter()
            check = load_text(system, path)
            times.append(time.perf_counter() - t)
        print(json.dumps({"times": times, "check": check, "peak_rss_mb": peak_rss_mb()}))
        return
    if a.mode == "updates":
        system, op, size, path = a.args
        print(json.dumps(updates(system, op, int(size), path, a.repeat)))
        return
    system, case, path = a.args
    n, u, v, w = load_npz(path)
    g = build(system, n, u, v, w, weighted=(case == "sssp"))
    f = kernel(system, case, g, a.source, a.tol)
    if f is None:
        print(json.dumps({"unsupported": True}))
        return
    check = f()  # warm-up
    times = []
    inner = max(1, a.inner)
    for _ in range(a.repeat):
        t = time.perf_counter()
        for _ in range(inner):
            check = f()
        times.append((time.perf_counter() - t) / inner)
    print(json.dumps({"times": times, "check": check, "peak_rss_mb": peak_rss_mb()}))


if __name__ == "__main__":
    sys.exit(main())
