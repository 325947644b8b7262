"""static: the core kernels on Kronecker (RMAT) and uniform graphs, Weald vs the peers.

Weald runs `weald run ALGO FILE.wgb --json --trials R+1` (the first trial is the warm-up);
peers run bench/peers.py on the same graph (built from the same edges, not timed).
`weald ctree` is the same command with `--backend ctree`: the kernel on a C-tree snapshot
(loading and converting are not timed), for the kernels Aspen reports on its snapshots, the
cheap ones (the C-tree store issue asks for at most 1.3x the CSR's time), and the two whose
relaxations read neighbour state ahead (SSSP, k-core). The warm-up trial also gathers what a
snapshot remembers once asked (its weight summary, which each SSSP run reads), as the CSR
gathers it when built. `cargo run --release --example backends_ab -p weald-cli -- ALGO FILE`
times the two backends in one process, trials alternating (free of run-to-run noise).
"""

from __future__ import annotations

from .common import Case, Context

# kernel -> (peers that have it, the check key compared between systems)
KERNELS = {
    "bfs": (("networkit", "igraph", "graphblas", "networkx"), "reached"),
    "bc": ((), None),
    "pagerank": (("networkit", "igraph", "graphblas", "networkx"), None),
    "cc": (("networkit", "igraph", "rustworkx", "networkx"), "components"),
    "sssp": (("networkit", "igraph", "rustworkx", "graphblas"), "reached"),
    "tc": (("networkit", "graphblas", "networkx"), "triangles"),
    "kcore": (("networkit", "igraph", "rustworkx", "networkx"), "max_core"),
    "mis": (("networkit",), None),
}
SOURCED = {"bfs", "bc", "sssp"}
CTREE = {"bfs", "bc", "pagerank", "cc", "mis", "sssp", "kcore"}


def weald_run_argv(ctx: Context, g, k: str, t: int, r: int) -> list:
    """`weald run K` on graph `g` with `r` timed trials after a warm-up (the first trial)."""
    f = g.wbinary if k == "sssp" else g.binary
    argv = [ctx.weald, "--threads", str(t), "-q", "run", k, str(f), "--json", "--trials", str(r + 1)]
    if k in SOURCED:
        argv += ["--source", str(g.source)]
    if k == "pagerank":
        argv += ["--tol", str(ctx.tol)]
    return argv


def cases(ctx: Context) -> list[Case]:
    out = []
    for g in ctx.graphs:
        for k, (peers, key) in KERNELS.items():
            c = Case("static", k, g.label, guard=(key,) if key else (), check_key=key)
            c.systems["weald"] = lambda t, r, k=k, g=g: weald_run_argv(ctx, g, k, t, r)
            if k in CTREE:
                c.systems["weald ctree"] = lambda t, r, k=k, g=g: weald_run_argv(ctx, g, k, t, r) + [
                    "--backend", "ctree"]
            add_peers(ctx, c, g, k, peers)
            out.append(c)
    return out


def add_peers(ctx: Context, c: Case, g, k: str, peers) -> None:
    """The peers' `peers.py kernel` processes for kernel `k` on graph `g`."""
    for p in peers:
        if p == "networkx" and g.vertices > 70_000:
            continue  # networkx only at small scale
        c.systems[p] = lambda t, r, k=k, p=p, g=g: [
            ctx.py, ctx.peers_script, "kernel", p, k, str(g.npz),
            "--repeat", str(r), "--source", str(g.source), "--tol", str(ctx.tol),
        ]
