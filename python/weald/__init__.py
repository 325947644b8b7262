"""Weald: a graph engine for graphs that change — numpy-first, GIL-free, networkx-friendly.

Vertices are dense ints ``0..n``; per-vertex results are numpy arrays indexed by them.
Every algorithm releases the GIL and runs on Weald's own thread pool
(:func:`set_num_threads`), on a static :class:`Graph` or on a :class:`Snapshot` of a
:class:`DynamicGraph` or of a durable :class:`Store`.

>>> import weald
>>> g = weald.read("facebook_combined.txt.gz")
>>> depth = weald.bfs(g, 0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import generate
from ._weald import (
    ConvergenceError,
    DynamicGraph,
    Graph,
    NegativeCycleError,
    ParseError,
    Snapshot,
    Store,
    UpdateResult,
    __version__,
    bellman_ford,
    betweenness,
    bfs,
    connected_components,
    get_num_threads,
    kcore,
    local_cluster,
    mis,
    number_connected_components,
    pagerank,
    read,
    set_num_threads,
    sssp,
    triangle_count,
    triangles,
    two_hop,
)

__all__ = [
    "ConvergenceError",
    "DynamicGraph",
    "Graph",
    "NegativeCycleError",
    "ParseError",
    "Snapshot",
    "Store",
    "UpdateResult",
    "__version__",
    "bellman_ford",
    "betweenness",
    "bfs",
    "connected_components",
    "from_networkx",
    "from_scipy",
    "generate",
    "get_num_threads",
    "kcore",
    "local_cluster",
    "mis",
    "number_connected_components",
    "pagerank",
    "read",
    "set_num_threads",
    "sssp",
    "to_networkx",
    "to_scipy",
    "triangle_count",
    "triangles",
    "two_hop",
]


def from_networkx(G: Any, weight: str | None = "weight", dedup: str | None = "min") -> Graph:
    """Convert a networkx ``Graph``/``DiGraph`` (or multigraph) into a static :class:`Graph`.

    If every node is an int >= 0, the nodes are the vertex ids (``num_vertices`` is the
    largest + 1; missing ids become isolated vertices). Otherwise nodes are numbered
    ``0..n`` in ``G.nodes`` order and the graph's ``labels`` list maps ids back to nodes.

    Args:
        G: the networkx graph (directedness is kept).
        weight: edge attribute read as the weight if *every* edge has it (ints give int32
            weights, otherwise float64); None ignores weights.
        dedup: how parallel edges of a multigraph are merged ("min", "max", "sum", ...).

    Returns:
        Graph. Complexity: O(n + m) (one pass over ``G.edges`` in Python).

    Example:
        >>> import networkx as nx
        >>> g = weald.from_networkx(nx.karate_club_graph())
        >>> g.num_vertices, g.num_edges
        (34, 78)
    """
    nodes = list(G.nodes)
    ints = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0 for v in nodes)
    m = G.number_of_edges()
    if ints:
        index = None
        n = (max(nodes) + 1) if nodes else 0
        src = np.fromiter((u for u, _ in G.edges()), dtype=np.int64, count=m)
        dst = np.fromiter((v for _, v in G.edges()), dtype=np.int64, count=m)
    else:
        index = {v: i for i, v in enumerate(nodes)}
        n = len(nodes)
        src = np.fromiter((index[u] for u, _ in G.edges()), dtype=np.int64, count=m)
        dst = np.fromiter((index[v] for _, v in G.edges()), dtype=np.int64, count=m)
    weights = None
    if weight is not None and m > 0:
        ws = [d.get(weight) for _, _, d in G.edges(data=True)]
        if all(w is not None for w in ws):
            if all(isinstance(w, (int, np.integer)) and not isinstance(w, bool) for w in ws):
                weights = np.asarray(ws, dtype=np.int64)
            else:
                weights = np.asarray(ws, dtype=np.float64)
    g = Graph.from_edges(
        src, dst, weights=weights, num_vertices=n, directed=G.is_directed(), dedup=dedup
    )
    if index is not None:
        g._set_labels(nodes)
    return g


def to_networkx(g: Graph, weight: str = "weight", original_ids: bool = True) -> Any:
    """Convert a :class:`Graph` or :class:`Snapshot` into a networkx ``Graph``/``DiGraph``.

    Every vertex ``0..n`` becomes a node (isolated ones too). Node names are the ``labels``
    from :func:`from_networkx` if any, else the file's ids (``original_ids()``) if
    ``original_ids`` is true and the graph was relabelled, else the vertex ids. Weights go
    into the ``weight`` attribute.

    Complexity: O(n + m) Python objects (networkx is the bottleneck).

    Example:
        >>> G = weald.read("facebook_combined.txt.gz").to_networkx()
    """
    import networkx as nx

    H = nx.DiGraph() if g.is_directed else nx.Graph()
    n = g.num_vertices
    names: Any = None
    if g.labels is not None:
        names = list(g.labels)
    elif original_ids:
        ids = g.original_ids()
        if ids is not None:
            names = ids.tolist()
    e = g.edges()
    if names is None:
        H.add_nodes_from(range(n))
        s, d = e[0].tolist(), e[1].tolist()
    else:
        H.add_nodes_from(names)
        s = [names[i] for i in e[0].tolist()]
        d = [names[i] for i in e[1].tolist()]
    if len(e) == 3:
        H.add_weighted_edges_from(zip(s, d, e[2].tolist()), weight=weight)
    else:
        H.add_edges_from(zip(s, d))
    return H


def from_scipy(A: Any, directed: bool | None = None, weighted: bool | None = None) -> Graph:
    """Convert a square scipy.sparse matrix or array into a static :class:`Graph`.

    Entry ``A[u, v]`` is the arc ``u -> v`` with weight ``A[u, v]``.

    Args:
        directed: None means directed unless ``A`` is symmetric. For an undirected graph the
            upper triangle (with the diagonal) is read.
        weighted: None means weighted unless every stored value is 1 (an integer dtype gives
            int32 weights, otherwise float64).

    Complexity: O(n + nnz), vectorised. Example: ``weald.from_scipy(nx.to_scipy_sparse_array(G))``.
    """
    import scipy.sparse as sp

    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"expected a square matrix, got shape {A.shape}")
    A = sp.csr_array(A)
    A.sum_duplicates()
    if directed is None:
        directed = (A != A.T).nnz != 0
    C = A if directed else sp.triu(A, format="csr")
    C = C.tocoo()
    data = np.asarray(C.data)
    if weighted is None:
        weighted = not np.all(data == 1)
    w = None
    if weighted:
        w = data.astype(np.int64) if data.dtype.kind in "iub" else data.astype(np.float64)
    return Graph.from_edges(C.row, C.col, weights=w, num_vertices=A.shape[0], directed=directed)


def to_scipy(g: Graph) -> Any:
    """The adjacency of a :class:`Graph` or :class:`Snapshot` as a ``scipy.sparse.csr_array``
    (n x n; both directions of an undirected edge, a self loop once; values are the weights,
    or 1.0 when unweighted).

    Complexity: O(n + m). Example: ``A = g.to_scipy(); A.sum(axis=1)`` gives degrees.
    """
    import scipy.sparse as sp

    indptr, indices, data = g._csr_arrays()
    if data is None:
        data = np.ones(len(indices), dtype=np.float64)
    n = g.num_vertices
    return sp.csr_array((data, indices, indptr), shape=(n, n))


# Methods that live in Python (interop), attached to the Rust classes.
Graph.to_networkx = to_networkx  # type: ignore[attr-defined]
Graph.to_scipy = to_scipy  # type: ignore[attr-defined]
