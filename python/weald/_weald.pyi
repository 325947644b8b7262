"""Type stubs of the extension module `weald._weald` (generated from its docstrings, then
kept by hand). Per-vertex arrays are indexed by internal vertex id."""

import datetime
import os
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

__version__: str

class ParseError(ValueError):
    """Malformed graph input. Attributes: `path` (str) and `line` (1-based int; 0 when the fault is not tied to a line, e.g. a damaged binary file).
    """
    path: str
    line: int

class ConvergenceError(RuntimeError):
    """An iterative algorithm (PageRank) reached its iteration limit before its tolerance. Attributes: `iterations` (int) and `l1_change` (float, the change of the last iteration).
    """
    iterations: int
    l1_change: float

class NegativeCycleError(ValueError):
    """Bellman-Ford found a negative-weight cycle reachable from the source (attribute `source`).
    """
    source: int

class Graph:
    """A graph: a static CSR (from `read`, `Graph.from_edges`, the generators) or, as the base of
    `Snapshot`, one version of a `DynamicGraph`.

    Vertices are dense ints `0..num_vertices`; every per-vertex array that Weald returns is
    indexed by them. Graphs read with relabelling keep the file's ids in `original_ids()`, and
    so do snapshots of a version whose ids are sparse (fewer than one id in 64 holds a vertex),
    which are renumbered too.
    Undirected graphs store each edge in both directions (a self loop once).
    """
    @staticmethod
    def from_edges(src: ArrayLike, dst: ArrayLike, weights: ArrayLike | None = None, num_vertices: int | None = None, directed: bool = False, dedup: str | None = "min", drop_self_loops: bool = False) -> Graph:
        """Build a static graph from numpy arrays of edge endpoints.

        Args:
            src, dst: integer arrays (any integer dtype) of equal length, ids >= 0.
            weights: optional array of the same length; an integer dtype gives int32 weights
                (each must fit), a float dtype float64 weights.
            num_vertices: number of vertices (default: largest id + 1); ids must be below it.
            directed: keep arcs as given (True) or store every edge both ways (False).
            dedup: merge duplicate edges, combining weights by "min" (default), "max", "sum",
                "first" or "last"; None keeps a multigraph.
            drop_self_loops: remove edges v-v.

        Returns:
            Graph (backend "csr"). The arrays are copied; building is O(n + m), in parallel.

        Raises:
            IndexError for a negative id or one >= num_vertices; ValueError for arrays of
            different lengths; TypeError for non-integer ids.

        Example:
            >>> g = weald.Graph.from_edges(np.array([0, 1]), np.array([1, 2]))
            >>> g.num_vertices, g.num_edges
            (3, 2)
        """

    @property
    def num_vertices(self) -> int:
        """Number of vertices n (ids are 0..n).
        """

    @property
    def num_edges(self) -> int:
        """Number of edges: undirected edges (a self loop counts once) or directed arcs.
        """

    @property
    def num_arcs(self) -> int:
        """Number of stored arcs (about 2 * num_edges for an undirected graph).
        """

    @property
    def is_directed(self) -> bool:
        """True for a directed graph.
        """

    @property
    def is_weighted(self) -> bool:
        """True if edges carry weights.
        """

    @property
    def weight_dtype(self) -> str | None:
        """The weight dtype: None, "int32" or "float64".
        """

    @property
    def backend(self) -> str:
        """The storage backend: "csr" (static) or "ctree" (a DynamicGraph snapshot).
        """

    @property
    def labels(self) -> list[Any] | None:
        """Node labels given to `weald.from_networkx` (a list indexed by vertex), or None.
        """

    def degree(self, mode: str = "out") -> IntArray:
        """Degree of every vertex as an int64 array.

        Args:
            mode: "out" (default; for undirected graphs the number of incident edge ends,
                a self loop counting once) or "in" (directed graphs).

        Complexity: O(n). Example: `g.degree().max()`.
        """

    def neighbors(self, v: int, weights: bool = False) -> IntArray | tuple[IntArray, np.ndarray]:
        """Out-neighbours of vertex `v` (sorted int64 array; all neighbours if undirected).

        With `weights=True` returns `(neighbours, weights)`. Raises IndexError for a bad `v`.
        Complexity: O(deg(v)). Example: `g.neighbors(0)`.
        """

    def edges(self) -> tuple[IntArray, IntArray] | tuple[IntArray, IntArray, np.ndarray]:
        """All edges as numpy arrays `(src, dst)`, or `(src, dst, weights)` for a weighted graph.

        An undirected graph lists each edge once with `src <= dst`; a directed graph every
        arc. Order: by `src`, then `dst`. Complexity: O(n + m).

        Example:
            >>> s, d = g.edges()
        """

    def original_ids(self) -> IntArray | None:
        """The file's vertex ids (int64 array indexed by vertex) if `read` relabelled them, or the
        store's ids if a snapshot did (its version's ids were sparse), else None (ids are the
        file's or the store's own).
        """

    def write(self, path: str | os.PathLike[str], format: str | None = None) -> None:
        """Write the graph to `path`: format "edgelist" (.txt, .el; .gz compresses), "ligra"
        (.adj) or "binary" (.wgb, Weald's fast snapshot format). `format=None` picks it from
        the file name. Edge lists are written in the original ids, if any.

        Raises ValueError for a format that cannot be written, OSError on I/O failure.
        Example: `g.write("/tmp/g.wgb"); weald.read("/tmp/g.wgb")`.
        """

    def to_networkx(self, weight: str = "weight", original_ids: bool = True) -> Any:
        """Convert a :class:`Graph` or :class:`Snapshot` into a networkx ``Graph``/``DiGraph``.

        Every vertex ``0..n`` becomes a node (isolated ones too). Node names are the ``labels``
        from :func:`from_networkx` if any, else the file's ids (``original_ids()``) if
        ``original_ids`` is true and the graph was relabelled, else the vertex ids. Weights go
        into the ``weight`` attribute.

        Complexity: O(n + m) Python objects (networkx is the bottleneck).

        Example:
            >>> G = weald.read("facebook_combined.txt.gz").to_networkx()
        """

    def to_scipy(self) -> Any:
        """The adjacency of a :class:`Graph` or :class:`Snapshot` as a ``scipy.sparse.csr_array``
        (n x n; both directions of an undirected edge, a self loop once; values are the weights,
        or 1.0 when unweighted).

        Complexity: O(n + m). Example: ``A = g.to_scipy(); A.sum(axis=1)`` gives degrees.
        """

    def _set_labels(self, labels: list[Any]) -> None:
        """Attach node labels (used by `weald.from_networkx`; once only).
        """

    def _csr_arrays(self) -> tuple[IntArray, IntArray, np.ndarray | None]:
        """The stored adjacency as CSR arrays `(indptr, indices, data)`; `data` is None when
        unweighted. Used by `to_scipy`. Complexity: O(n + m).
        """

    def __len__(self) -> int: ...

class Snapshot(Graph):
    """One version of a DynamicGraph: a Graph that never changes, whatever updates follow.
    Release it with `release()` or by leaving its `with` block; using it afterwards raises
    ValueError.
    """
    @property
    def version(self) -> int:
        """The version number this snapshot shows.
        """

    @property
    def released(self) -> bool:
        """True once released.
        """

    def release(self) -> None:
        """Release the version now (idempotent).
        """

    def __enter__(self) -> Snapshot: ...
    def __exit__(self, *args: object) -> bool: ...

class Store:
    """A durable, versioned graph in a data directory: updates go to a write-ahead log and are
    applied by one writer thread as new versions; snapshots are O(1) and never change; nothing
    acknowledged is lost when the process dies (docs/streaming.md).

    `Store(path)` opens the directory (recovering the newest checkpoint plus the log after it)
    or, when it does not exist or is empty, creates a store holding `base` (or an empty graph)
    as version 0. `directed`, `weighted` and `dedup` only apply when creating.
    """
    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        base: Graph | None = None,
        directed: bool = False,
        weighted: bool | str | None = None,
        dedup: str = "last",
        fsync: str = "interval",
        batch_size: int = 100_000,
        max_wait: float = 0.0,
        checkpoint_every: int = 10_000_000,
        keep_last: int = 16,
        keep_seconds: float | None = None,
        salvage: bool = False,
    ) -> None: ...
    def insert_edges(self, src: ArrayLike, dst: ArrayLike, w: ArrayLike | None = None, *, wait: bool = True) -> int | None:
        """Insert edges; with `wait`, the version that contains them once logged and visible."""
    def delete_edges(self, src: ArrayLike, dst: ArrayLike, *, wait: bool = True) -> int | None:
        """Delete edges (absent ones are no-ops); the committing version with `wait`."""
    def insert_vertices(self, ids: ArrayLike, *, wait: bool = True) -> int | None:
        """Make vertices present; the committing version with `wait`."""
    def delete_vertices(self, ids: ArrayLike, *, wait: bool = True) -> int | None:
        """Delete vertices and their edges; the committing version with `wait`."""
    def flush(self) -> int:
        """Wait until everything sent through this object is committed; the newest version."""
    def snapshot(self) -> Snapshot:
        """The newest version (use as a context manager)."""
    def snapshot_at(self, version: int) -> Snapshot:
        """A retained or pinned version; ValueError for any other."""
    def snapshot_at_time(self, t: float | datetime.datetime) -> Snapshot:
        """The newest retained version committed at or before `t` (seconds since the epoch, or a datetime), as `versions()` reports times."""
    def versions(self) -> list[dict[str, Any]]:
        """Retained versions, oldest first: version, time (float seconds), time_ns (exact), tag, edges, arcs, pins, in_memory, on_disk."""
    def pin(self, name: str, version: int) -> None:
        """Keep `version` under `name`, across restarts."""
    def unpin(self, name: str) -> None:
        """Drop the pin `name`."""
    def checkpoint(self) -> int:
        """Write a checkpoint of the newest version now; its version once installed."""
    def stats(self) -> dict[str, Any]:
        """updates, batches, checkpoints, visibility_p50_us, visibility_p99_us of this session."""
    def close(self) -> None:
        """Stop the writer, sync the log, release the directory (idempotent)."""
    @property
    def version(self) -> int: ...
    @property
    def recovery(self) -> dict[str, Any]:
        """What opening the directory did (created, records_replayed, dropped, seconds, ...)."""
    @property
    def path(self) -> str: ...
    @property
    def is_directed(self) -> bool: ...
    @property
    def is_weighted(self) -> bool: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_edges(self) -> int: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Store: ...
    def __exit__(self, *args: object) -> bool: ...

class UpdateResult:
    """What one update did. `inserted`: new edges; `updated`: edges already present (weight
    combined); `deleted`: edges (or vertices plus their edges) removed; `absent`: deletions of
    things that were not there; `version`: the version the update published.
    """
    @property
    def inserted(self) -> int:
        ...
    @property
    def updated(self) -> int:
        ...
    @property
    def deleted(self) -> int:
        ...
    @property
    def absent(self) -> int:
        ...
    @property
    def version(self) -> int:
        ...

class DynamicGraph:
    """A graph that changes: batches of edge and vertex insertions and deletions, each published
    as a new version; `snapshot()` takes the latest version in O(1) and never changes after.

    Backed by C-trees (Aspen): purely-functional compressed trees shared between versions.
    One writer at a time (updates are serialised); any number of snapshots may be read
    concurrently, also from other threads, while updates continue.

    Args:
        num_vertices: start with vertices 0..num_vertices present (and no edges).
        directed: store arcs (True) or undirected edges (False, each stored both ways).
        weighted: False, True / "float" (float64 weights) or "int" (int32 weights).
        dedup: how an inserted edge that is already present combines its weight with the old
            one: "min" (default), "max", "sum", "first" (keep old) or "last" (take new).

    Example:
        >>> dg = weald.DynamicGraph()
        >>> dg.insert_edges(np.array([0, 1]), np.array([1, 2]))
        UpdateResult(inserted=2, updated=0, deleted=0, absent=0, version=1)
        >>> with dg.snapshot() as s:
        ...     weald.bfs(s, 0)
        array([0, 1, 2])
    """
    def __init__(self, num_vertices: int = 0, *, directed: bool = False, weighted: bool | str | None = None, dedup: str = "min") -> None: ...
    @staticmethod
    def from_graph(graph: Graph, dedup: str = "min") -> DynamicGraph:
        """A DynamicGraph holding a copy of `graph` (a static Graph: O(n + m) build; a Snapshot:
        O(1), sharing its trees) as version 0. Its weight type and directedness are kept.

        Example: `dg = weald.DynamicGraph.from_graph(weald.read("facebook_combined.txt.gz"))`
        """

    def insert_edges(self, src: ArrayLike, dst: ArrayLike, w: ArrayLike | None = None) -> UpdateResult:
        """Insert edges `(src[i], dst[i])` with weights `w[i]` as one new version.

        Endpoints become present. An edge already present (or repeated in the batch) gets its
        weight combined by the graph's `dedup` rule. On a weighted graph `w=None` means weight 1.

        Returns: UpdateResult (`inserted` new edges, `updated` existing ones; undirected edges
        count once). Raises IndexError for a negative id, ValueError for mismatched lengths or
        weights on an unweighted graph. Complexity: O(k log(n m / k)) for k edges, parallel.
        """

    def delete_edges(self, src: ArrayLike, dst: ArrayLike) -> UpdateResult:
        """Delete edges `(src[i], dst[i])` as one new version (both directions if undirected).
        Vertices stay present. Returns UpdateResult (`deleted`, `absent`).
        Complexity: O(k log(n m / k)) for k edges, parallel.
        """

    def insert_vertices(self, ids: ArrayLike) -> UpdateResult:
        """Make vertices present (isolated; existing ones are left alone) as one new version.
        Returns UpdateResult (counts are 0; the version is new).
        """

    def delete_vertices(self, ids: ArrayLike) -> UpdateResult:
        """Delete vertices and all their edges as one new version. Returns UpdateResult:
        `deleted` counts the vertices removed plus the edges removed with them, `absent` the
        vertices that were not present. (Ids of absent vertices below `num_vertices` behave
        as isolated vertices in snapshots.)
        """

    def snapshot(self) -> Snapshot:
        """The latest version: an immutable Snapshot (a Graph) that every algorithm accepts.

        Use it as a context manager so the version is released at the end of the block (it is
        also released when the object is garbage-collected):

            with dg.snapshot() as s:
                cc = weald.connected_components(s)

        Taking it is O(1) for the version plus O(n) to flatten the vertex array.
        """

    @property
    def version(self) -> int:
        """The latest version number (0 at creation, +1 per update call).
        """

    @property
    def num_vertices(self) -> int:
        """Number of vertices of the latest version (1 + the largest id present).
        """

    @property
    def num_edges(self) -> int:
        """Number of edges of the latest version (undirected edges once).
        """

    @property
    def num_arcs(self) -> int:
        """Number of stored arcs of the latest version.
        """

    @property
    def is_directed(self) -> bool:
        ...
    @property
    def is_weighted(self) -> bool:
        ...
    def __len__(self) -> int: ...

def read(path: str | os.PathLike[str], format: str | None = None, directed: bool | None = None, weighted: bool | None = None, drop_self_loops: bool = False, dedup: str | None = "min", relabel: bool | None = None) -> Graph:
    """Read a graph file into a static Graph (backend "csr"), parsing in parallel.

    Args:
        path: str or os.PathLike. Gzip input is recognised by content.
        format: None (from the extension: .txt/.el/.tsv/.edges/.snap edge lists, .csv, .mtx,
            .gr DIMACS, .graph METIS, .adj Ligra, .wgb binary; a trailing .gz is ignored) or
            one of "edgelist", "csv", "temporal", "mtx", "dimacs", "metis", "ligra", "binary".
        directed: None means what the format declares (edge lists: undirected).
        weighted: None means what the format declares (edge lists: unweighted); True reads
            the third column as the weight.
        drop_self_loops: remove edges v-v.
        dedup: merge duplicate edges by "min" (default), "max", "sum", "first", "last"; None
            keeps a multigraph.
        relabel: renumber ids to 0..n in increasing order (default: True for edge lists, whose
            ids may be sparse; then `original_ids()` maps back).

    Returns: Graph. Complexity: O(file size + n + m), parallel.

    Raises:
        FileNotFoundError; weald.ParseError (a ValueError with .path and .line) for malformed
        text; ValueError for an unknown format or option.

    Example:
        >>> g = weald.read("facebook_combined.txt.gz")
        >>> g.num_vertices, g.num_edges
        (4039, 88234)
    """

def rmat(scale: int, edge_factor: int = 16, seed: int = 1, directed: bool = False, weights: tuple[float, float] | None = None) -> Graph:
    """An R-MAT (Graph500 Kronecker) graph: 2**scale vertices, edge_factor * 2**scale generated
    edges (a = 0.57, b = c = 0.19), self loops dropped and duplicates merged.

    Args:
        scale: log2 of the number of vertices (0..=31).
        edge_factor: generated edges per vertex.
        seed: the same seed gives the same graph at any thread count.
        directed: keep arcs directed.
        weights: None, or (lo, hi): uniform int32 weights if both are ints, else float64.

    Complexity: O(m log n), parallel. Example: `g = weald.generate.rmat(12)`.
    """

def uniform(n: int, m: int, seed: int = 1, directed: bool = False, weights: tuple[float, float] | None = None) -> Graph:
    """A uniform random graph: m edges with both endpoints uniform in 0..n (Erdős–Rényi G(n, m)
    with replacement), self loops dropped and duplicates merged.

    Args: n, m, seed, directed, weights (as for `rmat`).
    Raises ValueError for m > 0 edges with n = 0, or a bad weight range.
    Complexity: O(m log m), parallel. Example: `g = weald.generate.uniform(1000, 5000)`.
    """

def set_num_threads(k: int) -> None:
    """Use `k` worker threads for every later Weald call (a new pool replaces the old one; calls
    already running finish on the old pool). The default is `WEALD_NUM_THREADS`, else
    `RAYON_NUM_THREADS`, else the number of CPUs.

    Raises ValueError if `k < 1`.

    Example:
        >>> weald.set_num_threads(2); weald.get_num_threads()
        2
    """

def get_num_threads() -> int:
    """The number of worker threads Weald's algorithms use.
    """

def bfs(graph: Graph, source: int, *, parents: bool = False) -> IntArray | tuple[IntArray, IntArray]:
    """Breadth-first search from `source` (direction-optimising, Beamer et al.).

    Args:
        graph: a Graph or Snapshot.
        source: the start vertex (internal id).
        parents: also return the BFS tree.

    Returns:
        int64 array of hop distances (-1 = unreachable); with `parents=True` a tuple
        `(depth, parent)` where `parent[source] == source` and -1 marks unreached vertices.
        The tree is canonical (each vertex's smallest-id parent one level up).

    Raises IndexError for a bad source. Complexity: O(n + m) work, parallel.

    Example:
        >>> depth = weald.bfs(g, 0); (depth >= 0).sum()  # vertices reached
    """

def betweenness(graph: Graph, source: int) -> FloatArray:
    """Single-source betweenness: Brandes' dependencies of every vertex on `source`.

    `delta[v] = sum over targets t != source, v of sigma(source, t | v) / sigma(source, t)`
    (unweighted shortest paths; arcs followed in their direction). Summing over all sources
    gives betweenness centrality (networkx's `betweenness_centrality(normalized=False)`,
    halved for undirected graphs).

    Returns: float64 array. Raises IndexError for a bad source.
    Complexity: O(n + m), parallel. Example: `weald.betweenness(g, 0).argmax()`.
    """

def pagerank(graph: Graph, damping: float = 0.85, tol: float = 1e-6, max_iter: int = 100) -> FloatArray:
    """PageRank by power iteration (networkx's `pagerank(G, alpha=damping)` semantics: dangling
    mass spread uniformly, weights ignored, ranks sum to 1).

    Args:
        damping: in [0, 1].
        tol: stop when the L1 change of one iteration is below `tol` (networkx stops at
            `n * tol`, so Weald's default is n times tighter).
        max_iter: iteration cap; reaching it before `tol` raises weald.ConvergenceError (a
            RuntimeError with `.iterations` and `.l1_change`), as networkx raises
            PowerIterationFailedConvergence.

    Returns: float64 array of ranks. The result does not depend on the thread count.
    Raises ValueError for a bad damping or tol. Complexity: O(m) per iteration, parallel.

    Example:
        >>> pr = weald.pagerank(g); pr.argsort()[::-1][:10]  # top 10
    """

def connected_components(graph: Graph) -> IntArray:
    """Connected components (weakly connected for directed graphs), Afforest.

    Returns: int64 array `label` with `label[v]` = the smallest vertex id in v's component;
    the number of components is `(label == np.arange(n)).sum()`.
    Complexity: O(n + m) expected, parallel. Example: `np.unique(weald.connected_components(g))`.
    """

def number_connected_components(graph: Graph) -> int:
    """The number of connected components (weakly connected for directed graphs), Afforest.

    Returns: int, the number of components, as networkx's `number_connected_components` (and
    `number_weakly_connected_components` for a directed graph) counts them; isolated vertices
    are components of their own. The same computation as `connected_components`, without the
    label array.
    Complexity: O(n + m) expected, parallel.

    Example:
        >>> weald.number_connected_components(weald.Graph.from_edges([0, 2], [1, 3]))
        2
    """

def sssp(graph: Graph, source: int, delta: float | None = None, *, parents: bool = False) -> FloatArray | tuple[FloatArray, IntArray]:
    """Single-source shortest paths by delta-stepping (non-negative weights).

    Args:
        source: start vertex.
        delta: bucket width; None picks one from the weights.
        parents: also return a shortest-path tree (deterministic).

    Returns: float64 distances (inf = unreachable), or `(dist, parent)` with -1 for
        unreached vertices.

    Raises ValueError on an unweighted graph, a negative weight or a bad delta; IndexError for
    a bad source. Complexity: O(m + n * (max distance / delta)) work, parallel.

    Example:
        >>> g = weald.read("road.tsv", weighted=True); d = weald.sssp(g, 0)
    """

def bellman_ford(graph: Graph, source: int, *, parents: bool = False) -> FloatArray | tuple[FloatArray, IntArray]:
    """Single-source shortest paths by parallel Bellman-Ford (negative weights allowed).

    Returns: float64 distances (inf = unreachable), or `(dist, parent)` with `parents=True`.

    Raises weald.NegativeCycleError (a ValueError, attribute `.source`) if a negative cycle is
    reachable; ValueError on an unweighted graph; IndexError for a bad source.
    Complexity: O(n * m) worst case, usually far less; parallel.

    Example: `weald.bellman_ford(g, 0)`.
    """

def triangles(graph: Graph) -> IntArray:
    """Triangles at each vertex of an undirected graph (networkx's `nx.triangles`), by
    degree-ordered sorted intersection. Self loops and parallel edges are ignored.

    Returns: int64 array; the total is `triangles(g).sum() // 3` (or `triangle_count(g)`).
    Raises ValueError on a directed graph. Complexity: O(m^1.5), parallel.
    """

def triangle_count(graph: Graph) -> int:
    """The number of triangles of an undirected graph (a Python int).

    Raises ValueError on a directed graph. Complexity: O(m^1.5), parallel.
    Example: `weald.triangle_count(weald.read("facebook_combined.txt.gz"))` is 1612010.
    """

def kcore(graph: Graph) -> IntArray:
    """Coreness of every vertex of an undirected graph (networkx's `core_number`), by bucketed
    peeling (Julienne). Self loops and parallel edges are ignored.

    Returns: int64 array; `kcore(g).max()` is the degeneracy.
    Raises ValueError on a directed graph. Complexity: O(n + m) work, parallel.
    """

def mis(graph: Graph, seed: int = 1) -> BoolArray:
    """A maximal independent set of an undirected graph: the greedy set for random priorities
    drawn from `seed` (deterministic for a seed, at any thread count).

    Returns: bool array, True for members. Raises ValueError on a directed graph.
    Complexity: O(n + m) expected work, parallel. Example: `weald.mis(g).sum()`.
    """

def two_hop(graph: Graph, source: int) -> IntArray:
    """The vertices at distance 1 or 2 from `source` (out-edges for a directed graph), the
    source excluded, increasing — Aspen's two-hop local query.

    Raises IndexError for a bad source. Complexity: O(D log D) for D = the arcs read (the
    source's degree plus its neighbours'); nothing proportional to the graph.
    """

def local_cluster(
    graph: Graph, seed: int, epsilon: float = 1e-6, steps: int = 10
) -> tuple[IntArray, float]:
    """A low-conductance cluster around `seed` by Nibble (truncated lazy random walk of `steps`
    steps, mass below `epsilon * degree` dropped, then the best sweep cut). Weights ignored.

    Returns: `(cluster, conductance)` — sorted vertex ids and `networkx.conductance` of that set
    (NaN for an empty cluster, e.g. an isolated seed).
    Raises ValueError on a directed graph or a non-positive epsilon, IndexError for a bad seed.
    Complexity: O(steps / epsilon) work around the seed; nothing proportional to the graph.
    """
