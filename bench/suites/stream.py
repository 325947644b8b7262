"""stream: the durable store under a stream of updates (`weald bench stream`), on the RMAT graph.

* `visibility + BFS`: Aspen's Table-5 experiment (PLDI'19 §7.4). Sample 2 M edges, delete 90 %
  of them up front, stream a random permutation of their re-insertions and of the deletions of
  the other 10 %, one update at a time (each acknowledged before the next is sent), while BFS
  runs from random sources back to back; BFS with nothing else running, from the same sources,
  alternates with it (A B A B ...). The timed value is the per-trial median visibility latency
  (arrival -> visible to a new reader); p99 and BFS concurrent vs. isolated (the median of each
  concurrent run over its source's isolated time) are in the notes.
* `ingest batches of 1e5`: the same stream in batches of 100 000 through the store with each
  fsync policy, and applied the same way to the versioned graph with no log at all.
* `recovery of 10 M updates`: a store holding the graph as its checkpoint and a log of 10 M
  RMAT insertions is reopened; the timed value is `Store::open` (checkpoint load + replay).

There is no Python-reachable peer with a durable log or a concurrent-reader store, so the rows
compare Weald's own configurations (and Aspen's published figures, quoted in docs/streaming.md).
"""

from __future__ import annotations

from .common import Case, Context


def cases(ctx: Context) -> list[Case]:
    g = ctx.graphs[0]  # the RMAT graph
    sample, limit, log_updates = (1_000, 2_000, 100_000) if ctx.quick else (2_000_000, 200_000, 10_000_000)

    def bench(t: int, r: int, *args: str) -> list:
        return [ctx.weald, "--threads", str(t), "-q", "bench", "stream", str(g.binary), "--sample", str(sample),
                "--trials", str(r), "--json", *args]

    out = []
    vis = Case("stream", f"visibility + BFS ({limit:,} updates)", g.label, weald_run=False)
    for fs in ("never", "interval"):
        vis.systems[f"weald fsync={fs}"] = lambda t, r, fs=fs: bench(
            t, r, "--experiment", "concurrent", "--fsync", fs, "--limit", str(limit))
    out.append(vis)
    ing = Case("stream", "ingest batches of 1e5", g.label, unit="eps", weald_run=False)
    for fs in ("none", "never", "interval", "always"):
        name = "weald no log" if fs == "none" else f"weald fsync={fs}"
        ing.systems[name] = lambda t, r, fs=fs: bench(t, r, "--experiment", "ingest", "--fsync", fs)
    out.append(ing)
    rec = Case("stream", f"recovery of {log_updates:,} updates", g.label, weald_run=False)
    rec.systems["weald"] = lambda t, r: bench(
        t, r, "--experiment", "recovery", "--log-updates", str(log_updates))
    out.append(rec)
    return out
