"""python: Weald through `import weald` (the PyO3 package) against the peers people call from
Python, each in its natural form (issue 6's table).

* `call overhead: cc, N vertices`: the number of connected components of a tiny RMAT graph
  (scale 6), each timed repeat averaging many calls, so the figure is the fixed cost of one
  call (argument checks, GIL release) plus a small kernel. Weald calls
  `weald.number_connected_components` (the same Afforest run as `connected_components`, no
  label array), NetworKit ConnectedComponents + numberOfComponents, networkx
  number_connected_components; igraph and rustworkx list the components and count them.
  The `cc` row on the RMAT graph makes the same calls.
* `load text edge list`: `weald.read(path)` vs NetworKit's EdgeListReader, igraph's
  Read_Edgelist, rustworkx's read_edge_list (NetworKit and igraph with their duplicate removal;
  rustworkx keeps both directions of each edge, see the load suite).
* `bfs`, `pagerank`, `cc`, `sssp`, `kcore` (tc: the static suite) through `import weald` on the RMAT graph, the
  same kernel through `weald run` (what the binding costs), and the peers that have it
  (NetworKit, igraph, rustworkx, python-graphblas; graph construction is not timed).
* `insert N (python)`: a batch of N RMAT edges into `weald.DynamicGraph` (numpy arrays in)
  vs NetworKit's addEdge loop, igraph's add_edges, rustworkx's add_edges_from_no_data.

`weald-py` runs bench/peers.py with the repository's .venv interpreter, where
scripts/python-env.sh installs the package; the peers run in bench/.venv.
"""

from __future__ import annotations

from pathlib import Path

import harness

from .common import Case, Context
from .static import KERNELS, add_peers, weald_run_argv
from .updates import repeats

TINY_SCALE = 6
OVERHEAD_PEERS = ("networkit", "igraph", "rustworkx", "networkx")
LOAD_PEERS = ("networkit", "igraph", "rustworkx")
# tc is in the static suite only: minutes per peer process at scale 20, and the binding adds
# nothing to a 10-second kernel (weald-py and `weald run` measured within 2% of each other).
KERNELS_HERE = ("bfs", "pagerank", "cc", "sssp", "kcore")
UPDATE_SIZES = (100_000, 1_000_000)
UPDATE_PEERS = ("networkit", "igraph", "rustworkx")


def cases(ctx: Context) -> list[Case]:
    out = []
    tiny = harness.prepare_graph(Path(ctx.weald), "rmat", TINY_SCALE, Path(ctx.cache), Path(ctx.py))
    inner = 100 if ctx.quick else 2000
    ov = Case("python", f"call overhead: cc, {tiny.vertices} vertices", tiny.label, guard=("components",),
              weald_run=False)
    for system, py in (("weald-py", ctx.weald_py), *((p, ctx.py) for p in OVERHEAD_PEERS)):
        ov.systems[system] = lambda t, r, system=system, py=py: [
            py, ctx.peers_script, "kernel", system, "cc", str(tiny.npz), "--repeat", str(r),
            "--inner", str(inner)]
    out.append(ov)
    g = ctx.graphs[0]
    load = Case("python", "load text edge list", g.label, weald_run=False)
    for system in ("weald-py", *LOAD_PEERS):
        load.systems[system] = lambda t, r, system=system: [
            ctx.weald_py if system == "weald-py" else ctx.py, ctx.peers_script, "load", system,
            str(g.text), "--repeat", str(r)]
    out.append(load)
    for k in KERNELS_HERE:
        peers, key = KERNELS[k]
        c = Case("python", k, g.label, guard=(key,) if key else (), check_key=key)
        c.systems["weald"] = lambda t, r, k=k: weald_run_argv(ctx, g, k, t, r)
        c.systems["weald-py"] = lambda t, r, k=k: [
            ctx.weald_py, ctx.peers_script, "kernel", "weald-py", k, str(g.npz), "--repeat", str(r),
            "--source", str(g.source), "--tol", str(ctx.tol)]
        add_peers(ctx, c, g, k, peers)
        out.append(c)
    for size in () if ctx.quick else UPDATE_SIZES:
        c = Case("python", f"insert {size} (python)", g.label, unit="eps", weald_run=False)
        for system in ("weald-py", *UPDATE_PEERS):
            c.systems[system] = lambda t, r, system=system, size=size: [
                ctx.weald_py if system == "weald-py" else ctx.py, ctx.peers_script, "updates",
                system, "insert", str(size), str(g.npz),
                "--repeat", str(repeats(system, size, r, ctx.quick))]
        out.append(c)
    return out
