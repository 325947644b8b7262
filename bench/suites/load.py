"""load: text edge list -> graph, and Weald binary -> graph (Weald, NetworKit, igraph, rustworkx).

NetworKit and igraph drop the second copy of each edge (the file lists both directions;
removeMultiEdges, simplify: timed); rustworkx's read_edge_list keeps both (a multigraph with
2 m edges): its multigraph=False variant drops them but searches the endpoint's edges on every
line, quadratic on RMAT hubs (82 s instead of 1.9 s at scale 18).
"""

from __future__ import annotations

from .common import Case, Context


def cases(ctx: Context) -> list[Case]:
    out = []
    for g in ctx.graphs:
        text = Case("load", "text edge list", g.label, guard=(), weald_run=False)
        text.systems["weald"] = lambda t, r, g=g: [ctx.weald, "--threads", str(t), "-q", "info", str(g.text), "--json"]
        for peer in ("networkit", "igraph", "rustworkx"):
            text.systems[peer] = lambda t, r, g=g, peer=peer: [ctx.py, ctx.peers_script, "load", peer, str(g.text), "--repeat", str(r)]
        out.append(text)
        binary = Case("load", "weald binary", g.label, weald_run=False)
        binary.systems["weald"] = lambda t, r, g=g: [ctx.weald, "--threads", str(t), "-q", "info", str(g.binary), "--json"]
        out.append(binary)
    return out
