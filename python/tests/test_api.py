"""The Graph API: loading, properties, arrays, writing, generators, threads, interop."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import weald
from conftest import DATA

FB = DATA / "static" / "facebook_combined.txt.gz"


@pytest.fixture(scope="module")
def fb():
    return weald.read(FB)


def test_read_properties(fb):
    assert fb.num_vertices == 4039 and len(fb) == 4039
    assert fb.num_edges == 88234 and fb.num_arcs == 2 * 88234
    assert not fb.is_directed and not fb.is_weighted and fb.weight_dtype is None
    assert fb.backend == "csr"
    r = repr(fb)
    assert "n=4039" in r and "m=88234" in r and "backend=csr" in r
    assert fb.original_ids() is None or (fb.original_ids() == np.arange(4039)).all()


def test_degree_neighbors_edges(fb):
    deg = fb.degree()
    assert deg.dtype == np.int64 and deg.shape == (4039,) and deg.sum() == 2 * 88234
    nb = fb.neighbors(0)
    assert len(nb) == deg[0] and (np.diff(nb) > 0).all()
    s, d = fb.edges()
    assert len(s) == 88234 and (s <= d).all()
    assert np.array_equal(np.bincount(np.concatenate([s, d]), minlength=4039), deg)
    with pytest.raises(IndexError):
        fb.neighbors(4039)
    with pytest.raises(IndexError):
        fb.neighbors(-1)


def test_relabelled_ids_and_in_degree():
    g = weald.read(DATA / "static" / "wiki-Vote.txt", directed=True)
    ids = g.original_ids()
    assert ids is not None and len(ids) == g.num_vertices == 7115
    assert ids.min() == 3 and (np.diff(ids) > 0).all()
    assert g.is_directed and g.num_edges == g.num_arcs == 103689
    assert g.degree("in").sum() == g.degree().sum() == g.num_arcs
    with pytest.raises(ValueError):
        g.degree("sideways")


def test_from_edges_dtypes():
    g = weald.Graph.from_edges(np.array([0, 1, 2], dtype=np.uint8), np.array([1, 2, 0], dtype=np.int16))
    assert (g.num_vertices, g.num_edges, g.is_weighted) == (3, 3, False)
    g = weald.Graph.from_edges([0, 1], [1, 2], weights=np.array([5, 7], dtype=np.int64), num_vertices=5, directed=True)
    assert (g.num_vertices, g.num_edges, g.weight_dtype, g.is_directed) == (5, 2, "int32", True)
    s, d, w = g.edges()
    assert s.tolist() == [0, 1] and d.tolist() == [1, 2] and w.dtype == np.int32 and w.tolist() == [5, 7]
    nb, nw = g.neighbors(1, weights=True)
    assert nb.tolist() == [2] and nw.tolist() == [7]
    g = weald.Graph.from_edges(np.array([0, 0]), np.array([1, 1]), weights=np.array([2.5, 1.5]))
    assert g.weight_dtype == "float64" and g.num_edges == 1 and g.edges()[2].tolist() == [1.5]  # min
    g = weald.Graph.from_edges(np.array([0, 0]), np.array([1, 1]), dedup=None)
    assert g.num_edges == 2
    g = weald.Graph.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    assert g.num_vertices == 0 and g.num_edges == 0


def test_from_edges_errors():
    with pytest.raises(IndexError):
        weald.Graph.from_edges(np.array([-1]), np.array([0]))
    with pytest.raises(IndexError):
        weald.Graph.from_edges(np.array([0]), np.array([5]), num_vertices=5)
    with pytest.raises(ValueError):
        weald.Graph.from_edges(np.array([0, 1]), np.array([0]))
    with pytest.raises(ValueError):
        weald.Graph.from_edges(np.array([0]), np.array([1]), weights=np.array([1.0, 2.0]))
    with pytest.raises(TypeError):
        weald.Graph.from_edges(np.array([0.5]), np.array([1.0]))
    with pytest.raises(ValueError):
        weald.Graph.from_edges(np.zeros((2, 2), dtype=int), np.zeros((2, 2), dtype=int))
    with pytest.raises(ValueError):
        weald.Graph.from_edges([0], [1], weights=[2**40])
    with pytest.raises(ValueError):
        weald.Graph.from_edges([0], [1], dedup="avg")


def test_write_read_roundtrip(fb, tmp_path):
    for name in ["g.wgb", "g.txt", "g.adj"]:
        fb.write(tmp_path / name)
        h = weald.read(tmp_path / name, directed=False if name == "g.adj" else None)
        assert (h.num_vertices, h.num_edges) == (fb.num_vertices, fb.num_edges), name
        assert np.array_equal(h.degree(), fb.degree()), name
    with pytest.raises(ValueError):
        fb.write(tmp_path / "g.mtx")
    with pytest.raises(ValueError):
        fb.write(tmp_path / "g.unknown")


def test_generators():
    g = weald.generate.rmat(10, edge_factor=8, seed=3)
    assert g.num_vertices == 1024 and 0 < g.num_edges <= 8 * 1024
    h = weald.generate.rmat(10, edge_factor=8, seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(g.edges(), h.edges()))
    u = weald.generate.uniform(500, 2000, seed=2, directed=True, weights=(1, 9))
    assert u.num_vertices == 500 and u.is_directed and u.weight_dtype == "int32"
    w = u.edges()[2]
    assert w.min() >= 1 and w.max() <= 9
    f = weald.generate.uniform(100, 300, weights=(0.5, 2.0))
    assert f.weight_dtype == "float64"
    with pytest.raises(ValueError):
        weald.generate.rmat(40)


def test_threads():
    k = weald.get_num_threads()
    try:
        weald.set_num_threads(1)
        assert weald.get_num_threads() == 1
        g = weald.generate.rmat(10)
        a = weald.pagerank(g)
        weald.set_num_threads(3)
        assert weald.get_num_threads() == 3
        assert np.array_equal(a, weald.pagerank(g))  # deterministic at any thread count
        with pytest.raises(ValueError):
            weald.set_num_threads(0)
    finally:
        weald.set_num_threads(k)


def test_networkx_roundtrip():
    G = nx.karate_club_graph()
    g = weald.from_networkx(G)
    assert (g.num_vertices, g.num_edges) == (34, 78) and g.weight_dtype == "int32"
    H = g.to_networkx()
    assert set(map(frozenset, H.edges())) == set(map(frozenset, G.edges()))
    assert all(H[u][v]["weight"] == G[u][v]["weight"] for u, v in G.edges())
    # Non-integer labels: relabelled, labels kept.
    L = nx.relabel_nodes(nx.path_graph(4), {0: "a", 1: "b", 2: "c", 3: "d"})
    g = weald.from_networkx(L)
    assert g.labels == ["a", "b", "c", "d"] and g.is_weighted is False
    assert weald.bfs(g, 0).tolist() == [0, 1, 2, 3]
    assert set(map(frozenset, g.to_networkx().edges())) == set(map(frozenset, L.edges()))
    D = nx.DiGraph([(0, 1), (1, 2), (5, 0)])
    d = weald.from_networkx(D)
    assert d.is_directed and d.num_vertices == 6 and d.num_edges == 3
    assert weald.bfs(d, 0).tolist() == [0, 1, 2, -1, -1, -1]


def test_scipy_roundtrip(fb):
    A = fb.to_scipy()
    assert isinstance(A, sp.csr_array) and A.shape == (4039, 4039) and A.nnz == 2 * 88234
    assert (abs(A - A.T)).nnz == 0
    g = weald.from_scipy(A)
    assert not g.is_directed and not g.is_weighted and g.num_edges == 88234
    M = sp.csr_array(np.array([[0, 2.5, 0], [0, 0, 1.0], [0, 0, 0]]))
    d = weald.from_scipy(M)
    assert d.is_directed and d.weight_dtype == "float64" and d.num_edges == 2
    assert np.array_equal(d.to_scipy().toarray(), M.toarray())
    with pytest.raises(ValueError):
        weald.from_scipy(sp.csr_array(np.zeros((2, 3))))
