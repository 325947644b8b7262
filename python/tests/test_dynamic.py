"""DynamicGraph (C-tree store): updates, versions, snapshots, isolation, algorithms."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import weald
from conftest import DATA


def test_updates_and_counts():
    dg = weald.DynamicGraph()
    assert dg.version == 0 and dg.num_vertices == 0 and len(dg) == 0
    r = dg.insert_edges(np.array([0, 1, 1]), np.array([1, 2, 2]))
    assert (r.inserted, r.updated, r.version) == (2, 0, 1)
    assert dg.version == 1 and dg.num_edges == 2 and dg.num_vertices == 3
    r = dg.insert_edges([1], [0])  # already there (undirected)
    assert (r.inserted, r.updated) == (0, 1)
    r = dg.delete_edges(np.array([0, 5]), np.array([1, 6]))
    assert (r.deleted, r.absent) == (1, 1)
    r = dg.insert_vertices(np.array([9]))
    assert dg.num_vertices == 10
    r = dg.delete_vertices(np.array([2, 7]))
    assert r.absent == 1 and dg.num_edges == 0
    assert "backend=ctree" in repr(dg) and "version=" in repr(dg)
    with pytest.raises(IndexError):
        dg.insert_edges([-1], [0])
    with pytest.raises(ValueError):
        dg.insert_edges([0, 1], [1])
    with pytest.raises(ValueError):
        dg.insert_edges([0], [1], w=[1.0])  # unweighted
    with pytest.raises(ValueError):
        weald.DynamicGraph(weighted="complex")


def test_snapshot_isolation():
    dg = weald.DynamicGraph(5)
    dg.insert_edges(np.arange(4), np.arange(1, 5))  # path 0-1-2-3-4
    with dg.snapshot() as s1:
        v1 = s1.version
        before = [a.copy() for a in s1.edges()]
        d1 = weald.bfs(s1, 0)
        dg.delete_edges([2], [3])
        dg.insert_edges([0, 7], [4, 8])
        dg.delete_vertices([1])
        # s1 has not changed.
        assert s1.version == v1 and s1.num_vertices == 5 and s1.num_edges == 4
        assert all(np.array_equal(a, b) for a, b in zip(before, s1.edges()))
        assert np.array_equal(weald.bfs(s1, 0), d1) and d1.tolist() == [0, 1, 2, 3, 4]
        with dg.snapshot() as s2:
            assert s2.version == dg.version > v1
            assert s2.num_vertices == 9 and s2.num_edges == 3
            assert weald.bfs(s2, 0).tolist() == [0, -1, -1, 2, 1, -1, -1, -1, -1]
            # Ids below the largest that hold no vertex are not sources.
            for absent in (1, 5):  # deleted, never inserted
                with pytest.raises(IndexError, match="not in the graph"):
                    weald.bfs(s2, absent)
    assert s1.released and s2.released
    with pytest.raises(ValueError, match="released"):
        weald.bfs(s1, 0)
    with pytest.raises(ValueError, match="released"):
        s1.num_vertices
    assert "released" in repr(s1)
    s1.release()  # idempotent


def test_a_version_with_ids_near_2_pow_32_is_read_relabelled(tmp_path):
    # Fewer than one id in 64 holds a vertex: the snapshot renumbers its vertices 0..k (a flat
    # view over the id space would need 96 GiB) and original_ids() maps them back, as for a
    # file read with relabelling.
    top = 2**32 - 2
    dg = weald.DynamicGraph()
    dg.insert_edges([0, 1, top], [1, top, top])
    dg.insert_vertices([7])
    assert dg.num_vertices == top + 1 and dg.num_edges == 3
    with dg.snapshot() as s:
        assert s.num_vertices == 4 and s.num_edges == 3
        assert s.original_ids().tolist() == [0, 1, 7, top]
        assert weald.bfs(s, 3).tolist() == [2, 1, -1, 0]
        assert weald.connected_components(s).tolist() == [0, 0, 2, 0]
        s.write(tmp_path / "g.el")
    with open(tmp_path / "g.el") as f:
        pairs = {tuple(sorted(map(int, line.split()[:2]))) for line in f if line[0] != "#"}
    assert pairs == {(0, 1), (1, top), (top, top)}
    dg.insert_edges(np.arange(2, 100), np.arange(3, 101))
    with dg.snapshot() as s:  # still sparse: 0, 1, 2..100 and top
        assert s.num_vertices == 102 and s.original_ids()[-1] == top
    dense = weald.DynamicGraph()
    dense.insert_edges([0, 2], [2, 3])  # id 1 holds no vertex, but 3 ids of 4 do
    with dense.snapshot() as s:
        assert s.original_ids() is None and s.num_vertices == 4


def test_stream_facebook_and_compare_with_static():
    g = weald.read(DATA / "static" / "facebook_combined.txt.gz")
    s, d = g.edges()
    dg = weald.DynamicGraph()
    for lo in range(0, len(s), 20000):
        dg.insert_edges(s[lo:lo + 20000], d[lo:lo + 20000])
    assert dg.num_edges == g.num_edges == 88234
    with dg.snapshot() as snap:
        assert isinstance(snap, weald.Graph) and snap.backend == "ctree"
        assert np.array_equal(snap.degree(), g.degree())
        assert np.array_equal(weald.connected_components(snap), weald.connected_components(g))
        assert np.array_equal(weald.triangles(snap), weald.triangles(g))
        assert np.array_equal(weald.kcore(snap), weald.kcore(g))
        assert np.array_equal(weald.bfs(snap, 0), weald.bfs(g, 0))
        assert np.allclose(weald.pagerank(snap), weald.pagerank(g), atol=1e-12)
        assert np.allclose(weald.betweenness(snap, 0), weald.betweenness(g, 0))
        assert np.array_equal(weald.mis(snap, seed=3), weald.mis(g, seed=3))
        assert all(np.array_equal(a, b) for a, b in zip(snap.edges(), g.edges()))
        A, B = snap.to_scipy(), g.to_scipy()
        assert (A != B).nnz == 0
        G = snap.to_networkx()
        assert G.number_of_edges() == 88234
    # Delete 10% of the edges; a fresh snapshot matches networkx.
    drop = np.arange(0, len(s), 10)
    r = dg.delete_edges(s[drop], d[drop])
    assert r.deleted == len(drop)
    H = nx.Graph()
    H.add_nodes_from(range(g.num_vertices))
    keep = np.ones(len(s), dtype=bool)
    keep[drop] = False
    H.add_edges_from(zip(s[keep].tolist(), d[keep].tolist()))
    with dg.snapshot() as snap:
        assert weald.triangle_count(snap) == sum(nx.triangles(H).values()) // 3
        comps = list(nx.connected_components(H))
        assert len(np.unique(weald.connected_components(snap))) == len(comps)
        assert weald.number_connected_components(snap) == len(comps)


def test_weighted_dynamic_graph_and_from_graph(tmp_path):
    dg = weald.DynamicGraph(directed=True, weighted=True)
    dg.insert_edges([0, 1, 0], [1, 2, 2], w=np.array([1.0, 2.0, 5.0]))
    dg.insert_edges([0], [2], w=[10.0])  # combined by min: stays 5
    with dg.snapshot() as s:
        assert s.is_directed and s.weight_dtype == "float64"
        assert weald.sssp(s, 0).tolist() == [0.0, 1.0, 3.0]
        assert weald.bellman_ford(s, 0).tolist() == [0.0, 1.0, 3.0]
        s.write(tmp_path / "snap.txt")
        copy = weald.DynamicGraph.from_graph(s)  # O(1), shares the version
    assert copy.num_edges == 3 and copy.version == 0
    h = weald.read(tmp_path / "snap.txt", directed=True, weighted=True, relabel=False)
    assert h.num_edges == 3 and sorted(h.edges()[2].tolist()) == [1.0, 2.0, 5.0]
    di = weald.DynamicGraph(weighted="int", dedup="sum")
    di.insert_edges([0, 0], [1, 1], w=[2, 3])
    with di.snapshot() as s:
        assert s.weight_dtype == "int32" and s.edges()[2].tolist() == [5]
    with pytest.raises(TypeError):
        di.insert_edges([0], [1], w=[0.5])
    static = weald.generate.uniform(200, 800, seed=4, weights=(1, 20))
    dg = weald.DynamicGraph.from_graph(static)
    with dg.snapshot() as s:
        assert np.array_equal(weald.sssp(s, 0), weald.sssp(static, 0))


def test_from_graph_merges_the_parallel_edges_of_a_multigraph():
    multi = weald.Graph.from_edges(
        [0, 0, 1, 2], [1, 1, 2, 2], weights=np.array([1.0, 3.0, 2.0, 7.0]), dedup=None
    )
    assert multi.num_edges == 4
    for rule, w01 in (("min", 1.0), ("max", 3.0), ("sum", 4.0)):
        dg = weald.DynamicGraph.from_graph(multi, dedup=rule)
        with dg.snapshot() as s:
            assert s.num_edges == 3 and dg.num_edges == 3
            ns, ws = s.neighbors(0, weights=True)
            assert ns.tolist() == [1] and ws.tolist() == [w01]
            assert s.degree().tolist() == [1, 2, 2]  # 2's self loop once
            assert s.neighbors(2).tolist() == [1, 2]
        # Later updates see one edge, as in a graph built without duplicates.
        assert dg.delete_edges([0], [1]).deleted == 1
        with dg.snapshot() as s:
            assert s.neighbors(0).tolist() == []
