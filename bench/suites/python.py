"""python: Weald through `import weald` (the PyO3 package), against the peers people call from
Python, and against Weald's own CLI on the same kernels.

* `call overhead: cc, N vertices`: connected components on a tiny RMAT graph (scale 6), each
  timed repeat averaging many calls, so the figure is the fixed cost of one call (argument
  checks, GIL release, result array) plus a trivial kernel. Peers: NetworKit, igraph,
  rustworkx, networkx.
* `bfs`, `pagerank`, `cc`, `tc`, `kcore` through `import weald` on the RMAT graph vs `weald run`
  on the same graph (graph construction from numpy is not timed, as for the peers): what the
  binding costs on real work. The static suite has the peers' times on the same graph.

`weald-py` runs bench/peers.py with the repository's .venv interpreter, where
scripts/python-env.sh installs the package; the peers run in bench/.venv.
"""

from __future__ import annotations

from pathlib import Path

import harness

from .common import Case, Context
from .static import KERNELS, weald_run_argv

TINY_SCALE = 6
OVERHEAD_PEERS = ("networkit", "igraph", "rustworkx", "networkx")
KERNELS_HERE = ("bfs", "pagerank", "cc", "tc", "kcore")


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
    for k in KERNELS_HERE:
        key = KERNELS[k][1]
        c = Case("python", k, g.label, guard=(key,) if key else (), check_key=key)
        c.systems["weald"] = lambda t, r, k=k: weald_run_argv(ctx, g, k, t, r)
        c.systems["weald-py"] = lambda t, r, k=k: [
            ctx.weald_py, ctx.peers_script, "kernel", "weald-py", k, str(g.npz), "--repeat", str(r),
            "--source", str(g.source), "--tol", str(ctx.tol)]
        out.append(c)
    return out
