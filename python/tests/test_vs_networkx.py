"""Algorithm results equal networkx's on the real graphs of ../shared/data/graphs."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

import weald
from conftest import DATA, id_maps, nx_graph

UNDIRECTED = [
    "static/facebook_combined.txt.gz",
    "static/CA-GrQc.txt",
    "static/email-Eu-core.txt.gz",
    "static/musae/lastfm_asia_edges.csv",
]
DIRECTED = ["static/wiki-Vote.txt", "static/C-elegans-frontal.txt"]
BOTH = [(r, False) for r in UNDIRECTED] + [(r, True) for r in DIRECTED]
ROADS = ["weighted/street/monaco.tsv", "weighted/street/andorra.tsv", "weighted/minnesota_road.tsv"]


def load(rel, directed=False, weighted=False, **read_opts):
    g = weald.read(DATA / rel, directed=directed, weighted=weighted or None, **read_opts)
    G = nx_graph(rel, directed=directed, weighted=weighted)
    if rel == "static/CA-GrQc.txt":  # first line `5242 28980` is a count line, not an edge
        G.remove_edge(5242, 28980)
        G.remove_nodes_from([x for x in (5242, 28980) if G.degree(x) == 0])
    return g, G


def source_of(G) -> int:
    return max(G.nodes, key=lambda v: (G.degree(v), -v))


@pytest.mark.parametrize("rel,directed", BOTH)
def test_components_as_partitions(rel, directed):
    g, G = load(rel, directed)
    ids, pos = id_maps(g)
    assert g.num_vertices == G.number_of_nodes()
    label = weald.connected_components(g)
    comps = nx.weakly_connected_components(G) if directed else nx.connected_components(G)
    comps = list(comps)
    assert len(np.unique(label)) == len(comps)
    count = nx.number_weakly_connected_components(G) if directed else nx.number_connected_components(G)
    assert weald.number_connected_components(g) == count == len(comps)
    for c in comps:
        labels = {int(label[pos[v]]) for v in c}
        assert labels == {min(pos[v] for v in c)}


@pytest.mark.parametrize("rel,directed", BOTH)
def test_bfs_depths(rel, directed):
    g, G = load(rel, directed)
    ids, pos = id_maps(g)
    s = source_of(G)
    depth, parent = weald.bfs(g, pos[s], parents=True)
    expected = nx.single_source_shortest_path_length(G, s)
    got = {ids[i]: int(d) for i, d in enumerate(depth)}
    assert got == {v: expected.get(v, -1) for v in G.nodes}
    assert parent[pos[s]] == pos[s]
    assert ((parent == -1) == (depth == -1)).all()


@pytest.mark.parametrize("rel,directed", [("static/facebook_combined.txt.gz", False), ("static/wiki-Vote.txt", True)])
def test_pagerank(rel, directed):
    g, G = load(rel, directed)
    ids, _ = id_maps(g)
    rank = weald.pagerank(g, tol=1e-10, max_iter=1000)
    expected = nx.pagerank(G, alpha=0.85, tol=1e-12, max_iter=1000)
    assert abs(rank.sum() - 1) < 1e-9
    assert max(abs(rank[i] - expected[ids[i]]) for i in range(len(ids))) < 1e-6


@pytest.mark.parametrize("rel", ["static/facebook_combined.txt.gz", "static/CA-GrQc.txt"])
def test_triangles_and_coreness(rel):
    g, G = load(rel)
    ids, _ = id_maps(g)
    G.remove_edges_from(nx.selfloop_edges(G))
    tri = weald.triangles(g)
    expected = nx.triangles(G)
    assert [int(x) for x in tri] == [expected[v] for v in ids]
    assert weald.triangle_count(g) == sum(expected.values()) // 3 == tri.sum() // 3
    core = weald.kcore(g)
    expected = nx.core_number(G)
    assert [int(x) for x in core] == [expected[v] for v in ids]


def test_facebook_triangle_total():
    assert weald.triangle_count(weald.read(DATA / "static/facebook_combined.txt.gz")) == 1612010


@pytest.mark.parametrize("rel", ROADS)
def test_sssp_roads(rel):
    g, G = load(rel, weighted=True)
    assert g.is_weighted
    ids, pos = id_maps(g)
    s = source_of(G)
    expected = nx.single_source_dijkstra_path_length(G, s)
    for dist in (weald.sssp(g, pos[s]), weald.bellman_ford(g, pos[s]), weald.sssp(g, pos[s], delta=50.0)):
        for i, v in enumerate(ids):
            if v in expected:
                assert math.isclose(dist[i], expected[v], rel_tol=1e-9, abs_tol=1e-9), v
            else:
                assert math.isinf(dist[i])
    dist, parent = weald.sssp(g, pos[s], parents=True)
    assert parent[pos[s]] == pos[s] and ((parent == -1) == np.isinf(dist)).all()


def test_betweenness_dependencies():
    from networkx.algorithms.centrality.betweenness import _accumulate_basic, _single_source_shortest_path_basic

    g, G = load("static/email-Eu-core.txt.gz")
    ids, pos = id_maps(g)
    g = weald.read(DATA / "static/email-Eu-core.txt.gz", drop_self_loops=True)
    G.remove_edges_from(nx.selfloop_edges(G))
    s = source_of(G)
    dep = weald.betweenness(g, pos[s])
    S, P, sigma, _ = _single_source_shortest_path_basic(G, s)
    expected, _ = _accumulate_basic(dict.fromkeys(G, 0.0), S, P, sigma, s)
    for i, v in enumerate(ids):
        assert math.isclose(dep[i], expected[v], rel_tol=1e-9, abs_tol=1e-9), v


@pytest.mark.parametrize("rel", ["static/facebook_combined.txt.gz", "static/CA-GrQc.txt"])
def test_mis_is_maximal_independent(rel):
    g = weald.read(DATA / rel, drop_self_loops=True)
    member = weald.mis(g, seed=7)
    assert member.dtype == bool
    s, d = g.edges()
    assert not (member[s] & member[d]).any()  # independent
    covered = member.copy()
    covered[d[member[s]]] = True
    covered[s[member[d]]] = True
    assert covered.all()  # maximal
    assert np.array_equal(member, weald.mis(g, seed=7))


@pytest.mark.parametrize("rel,directed", [(r, False) for r in UNDIRECTED[:2]] + [(DIRECTED[0], True)])
def test_two_hop(rel, directed):
    g, G = load(rel, directed)
    ids, pos = id_maps(g)
    s = source_of(G)
    got = {ids[i] for i in weald.two_hop(g, pos[s])}
    near = nx.single_source_shortest_path_length(G, s, cutoff=2)
    assert got == {v for v, d in near.items() if d in (1, 2)}


@pytest.mark.parametrize("rel", UNDIRECTED[:2])
def test_local_cluster_conductance(rel):
    g, G = load(rel, drop_self_loops=True)
    G.remove_edges_from(nx.selfloop_edges(G))
    ids, pos = id_maps(g)
    s = source_of(G)
    cluster, phi = weald.local_cluster(g, pos[s])
    assert len(cluster) > 0 and 0 <= phi <= 1
    assert phi == pytest.approx(nx.conductance(G, {ids[i] for i in cluster}), rel=1e-9)
    with pytest.raises(ValueError):
        weald.local_cluster(g, pos[s], epsilon=0)
    with pytest.raises(IndexError):
        weald.local_cluster(g, g.num_vertices)
