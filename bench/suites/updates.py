"""updates: batch insert/delete throughput by batch size (Aspen's experiment), Weald's C-tree
store vs the Python-reachable dynamic peers (NetworKit addEdge/removeEdge loops, igraph
add_edges/delete_edges, rustworkx add_edges_from_no_data/remove_edge_from_index on a
multigraph=False PyGraph, raphtory's Arrow loaders on a PersistentGraph).

raphtory is a temporal graph: the base graph is loaded at time 0 (load_nodes, load_edges; not
timed), and batch r is an Arrow table of (time, src, dst) rows made before the clock starts,
each edge as (min, max) since raphtory's edges are directed. The timed call is
`load_edges(table)` (all rows at time 2r+3) for an insert and `load_edge_deletions(table)` (at
2r+4) for a delete: a re-inserted edge gets one more event, not a second edge, and the latest
view's edge count grows by the batch's new edges. Its loaders draw a progress bar on stderr
(0.17.0 cannot turn it off) and cost 0.2-0.5 ms per call whatever the size (RMAT scale 10 and
16), so its 10-edge batches measure that fixed cost; its history grows with every batch
(deletions are events too).

Each case is one process per system: it builds the base graph (not timed), runs one untimed
warm-up batch, then times `repeat` batches of RMAT-sampled edges (Graph500 parameters)
inserted, or inserted and then deleted (only the deletion timed); batches of at most 1,000
edges take at least SMALL_REPEATS samples per process, and at least STEADY_EDGES edges' worth
of batches (5,000 batches of 10): a batch of 10 lasts microseconds, a median of a handful of
them is noise, and the first few dozen after the graph is built run on cold caches (Weald's
block index, the peers' adjacency arrays), where a stream of small batches runs warm (Weald in
place, 1 thread: batches of 10 inserted at 1.0e6 edges/s over 40 trials, 1.3e6 over 4,000).
Throughput = batch edges / seconds (higher is better).

The batches' vertex permutation is independent of the graph's (as in Aspen's experiment and
the peers' numpy sampler), so most updates land on low-degree vertices. The `..., graph hubs`
cases (Weald only: the peers have no way to draw from Weald's generator) continue the stream
that generated the graph (`weald bench updates --graph-seed 1`), so updates land on its hubs,
whose long edge lists make each touched chunk a rewrite: the costlier case.

`weald` makes each batch a new version, as Aspen's tool does (`VersionedGraph::apply`: the
latest version's touched paths copied, the result published, the replaced version released
and freed inside the timed call; a line of versions that nothing else holds; until
2026-12-02 the loaded graph stayed held and freeing was not timed, which left out work
Aspen's figures include). Since run 85 the copy lends (`vtree::Lending` in
`weald-storage/src/ctree/`): what the new version shares with the replaced one is not
counted, and the replaced version's copied nodes are then freed without touching what they
lent. Run 86 adds `vtree::rejoin` (a copied node no longer reads its untouched child) and
single-count vertex-tree nodes (`counted::Counted`); run 87 (0d9a6a0) adds the writer's
spare allocations (`counted::Spare`: a batch's copy takes the nodes the previous batch's
settling freed, without the allocator's free-list load) and `Slots::finish_spare` by mask
bits; block arrays joined the spare after it (ab6057f, +4–6 % at 1 thread in an A/B, in
`ctree/mod.rs` under "Lending"), and `vtree::warm` walks 32 paths at a time instead of 16
(f18b870, +2.8 % / +1.6 % on batches of 10). Run 88 (20d6ba4, 2026-12-07) has all of these and
the spare's limit raised to what freeing the whole vertex tree gives back (+2–8 % at 1e5 and
1e6 in an A/B). It ran on a faster host than run 87 (the kernel build differs): Weald in
place inserted batches of 1e6 at 8.2e6 edges/s against 4.48e6, far more than the A/Bs of the
changes between the runs measured (a few per cent each), while NetworKit stayed level
(2.10e6 against 2.07e6). This machine's speed wanders by up to 2× between processes, hours
and hosts, and the hosts are not all of one kind (each command in `docs/benchmarks.md` names its
CPU: AMD EPYC or Intel Xeon): only rows of one run compare, and A/B figures of each change are in
`ctree/mod.rs`.
The `aspen-tool ...` cases (Weald only, `weald bench updates --aspen-tool`,
`Sampling::AspenTool` in `crates/weald/src/experiments/updates.rs`) run the protocol of Aspen's
own tool (`code/tools/run_batch_updates.cpp` in its repository), read line by line, to compare
with its published figures like for like. It differs from the cases above in four ways: (1) its
`insert_edges_batch` inserts the pairs it is given as arcs, one direction each (the code's
comment: it assumes an edge already shows up in both directions and lets the caller handle
that), so its batch of 10 is 10 arcs where the cases above insert 20, each edge both ways, as
the issue's goal defines the experiment; (2) it seeds its generator with the same value in every
trial (`r.ith_rand(0)`, `r` never advanced), so its 20 trials insert and delete one batch, warm
after the first; (3) it draws ids below 2^(ceil(log2 n) - 1), half the graph's, without a
permutation, and its uniform draw is a 32-bit hash divided by INT_MAX, so the quadrants come
with probabilities 0.25 / 0.05 / 0.05 / 0.65 rather than its a = 0.5, b = c = 0.1; (4) it
reports the mean of its 20 trials, the cold first one included (and writes two lines to stdout
inside each timed call). Weald's cases do the same (the graph taken as its stored arcs,
`CTreeGraph::into_out_arcs`; one batch per size, 20 trials per process, every one timed; as in
the tool, a process runs the sizes 10, 100, 1e3, 1e4, ... in that order up to the row's, so that
only the batches of 10 pay the process's first call). The rows give the median of two processes'
40 trials, not the tool's mean. Run 91 (Intel Xeon, 2026-12-08, all of this suite's cases in one
run), 1 thread, versioned, batches of 10 / 1e3 / 1e5 / 1e6 arcs: inserted 1.35e6 / 1.37e6 /
2.68e6 / 6.36e6 arcs/s, 1.90 / 2.07 / 1.27 / 1.99x Aspen's published 7.1e5 / 6.6e5 / 2.1e6 /
3.2e6; deleted 1.47e6 / 1.60e6 / 3.64e6 / 8.66e6, 2.19 / 2.11 / 2.02 / 2.41x its 6.7e5 / 7.6e5 /
1.8e6 / 3.6e6. In the same run the experiment as the goal defines it (the `insert 10` ... rows
above) gave 0.58 / 0.85 / 0.87 / 1.58x and 0.64 / 0.82 / 0.94 / 1.38x. Run 90 (the hour before,
each size in processes of its own) gave medians of 1.94 / 2.12 / 1.40 / 2.03x and 1.46 / 1.71 /
2.06 / 2.37x, and an unkept run before it 1.87 / 2.05 / 1.18 / 2.04x and 2.19 / 2.12 / 1.54 /
2.43x: this host's processes differ by up to a third. By the tool's own statistic, the mean, run
91 inserted 6.8e5 / 1.32e6 / 2.66e6 / 6.37e6 and deleted 1.30e6 / 1.56e6 / 3.62e6 / 8.66e6
arcs/s: 0.96 / 1.99 / 1.26 / 1.99x and 1.94 / 2.06 / 2.01 / 2.41x Aspen's figures. The first
insert of 10 arcs in a process took ~150 us (146 and 286 us in run 90's two processes) against
~7.5 us for the ones after it, and in a mean of 20 trials that one trial weighs about as much as
the other 19. Most of it is paid once per process, not per graph: in a throwaway program a first
batch of one edge into another graph took 60 us (its second 11.5), after which the graph's own
first batch of 10 edges took 52 us against ~30 for the next ones, and 126-133 us without that.
In place, the first batch also builds the block index (`vtree::BlockIndex`, a walk of the 65,536
nodes, ~1.4 ms). Whether Aspen's published figures were made this way is not known. If they
were, the goal as the issue states it (edges both ways, fresh batches) asks for about four times
Aspen's speed per arc, and the cases above stay the ones the goal is judged by.
`weald in place` updates the loaded graph itself, which nothing else holds (`weald bench updates --in-place`, `CTreeGraph::apply_mut`): unshared
vertex-tree nodes, block arrays and chunks are edited where they are, and what a batch
replaces is freed inside the timed call.
"""

from __future__ import annotations

from .common import Case, Context

SIZES = [10, 1_000, 100_000, 1_000_000]
QUICK_SIZES = [10, 1_000]
PEERS = ("networkit", "igraph", "rustworkx", "raphtory")
SMALL_REPEATS = 25
STEADY_EDGES = 50_000
HUB_SIZES = [1_000, 100_000]
ASPEN_TRIALS = 20  # what Aspen's tool runs for batches under 1e8
ASPEN_SIZES = [10, 100, 1_000, 10_000, 100_000, 1_000_000]  # its sizes, in its order


def repeats(system: str, size: int, r: int, quick: bool) -> int:
    """Timed batches per process: for batches of at most 1,000 edges, at least SMALL_REPEATS
    and at least STEADY_EDGES edges in all (see the module docs), except for igraph, which
    rebuilds its indices on every call (~6 s per batch at scale 20, whatever the size): more
    samples would add minutes without changing its median."""
    if size <= 1_000 and not quick and system != "igraph":
        return max(r, SMALL_REPEATS, STEADY_EDGES // size)
    return r


def cases(ctx: Context) -> list[Case]:
    out = []
    g = ctx.graphs[0]  # the RMAT graph
    for size in QUICK_SIZES if ctx.quick else SIZES:
        for op in ("insert", "delete"):
            c = Case("updates", f"{op} {size}", g.label, unit="eps", weald_run=False)
            for name, extra in (("weald", []), ("weald in place", ["--in-place"])):
                c.systems[name] = lambda t, r, size=size, extra=extra: [
                    ctx.weald, "--threads", str(t), "-q", "bench", "updates", str(g.binary),
                    "--batch-sizes", str(size), "--trials", str(repeats("weald", size, r, ctx.quick)),
                    "--json", *extra,
                ]
            for p in PEERS:
                c.systems[p] = lambda t, r, op=op, size=size, p=p: [
                    ctx.py, ctx.peers_script, "updates", p, op, str(size), str(g.npz),
                    "--repeat", str(repeats(p, size, r, ctx.quick)),
                ]
            out.append(c)
    for size in [] if ctx.quick else SIZES:
        for op in ("insert", "delete"):
            c = Case("updates", f"aspen-tool {op} {size}", g.label, unit="eps", weald_run=False)
            # As the tool does, one process runs its sizes in increasing order up to this one
            # (the row is this size's): only the batches of 10 pay the process's first call.
            upto = ",".join(str(x) for x in ASPEN_SIZES if x <= size)
            for name, extra in (("weald", []), ("weald in place", ["--in-place"])):
                c.systems[name] = lambda t, r, upto=upto, extra=extra: [
                    ctx.weald, "--threads", str(t), "-q", "bench", "updates", str(g.binary),
                    "--batch-sizes", upto, "--trials", str(ASPEN_TRIALS), "--aspen-tool",
                    "--json", *extra,
                ]
            out.append(c)
    for size in [] if ctx.quick else HUB_SIZES:
        for op in ("insert", "delete"):
            c = Case("updates", f"{op} {size}, graph hubs", g.label, unit="eps", weald_run=False)
            for name, extra in (("weald", []), ("weald in place", ["--in-place"])):
                c.systems[name] = lambda t, r, size=size, extra=extra: [
                    ctx.weald, "--threads", str(t), "-q", "bench", "updates", str(g.binary),
                    "--batch-sizes", str(size), "--trials", str(repeats("weald", size, r, ctx.quick)),
                    "--graph-seed", "1", "--json", *extra,
                ]
            out.append(c)
    return out
