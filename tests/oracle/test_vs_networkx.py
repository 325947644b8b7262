"""Weald's answers equal networkx's on the real graphs (components, BFS depths, triangles,
coreness, PageRank within 1e-6, SSSP distances on road networks, betweenness dependencies,
and an independent check of the maximal independent set)."""

from __future__ import annotations

import math

import networkx as nx
import pytest

from conftest import DATA, read_edges, weald_run

UNDIRECTED = [
    "static/facebook_combined.txt.gz",
    "static/CA-GrQc.txt",
    "static/as20graph.txt",
    "static/email-Eu-core.txt.gz",
    "static/musae/lastfm_asia_edges.csv",
    "static/p2p-Gnutella05.txt",
    "static/hartford_drug.edgelist",
]
DIRECTED = ["static/wiki-Vote.txt", "static/email-Eu-core.txt.gz", "static/C-elegans-frontal.txt"]
BOTH = [(r, False) for r in UNDIRECTED] + [(r, True) for r in DIRECTED]
ROADS = [
    "weighted/street/monaco.tsv",
    "weighted/street/andorra.tsv",
    "weighted/minnesota_road.tsv",
    "weighted/lanl_routes.edgelist",
]


def nx_graph(rel: str, directed: bool = False, weighted: bool = False):
    g = nx.DiGraph() if directed else nx.Graph()
    for e in read_edges(DATA / rel, weighted):
        if weighted:
            u, v, w = e
            if g.has_edge(u, v):
                w = min(w, g[u][v]["weight"])  # Weald merges duplicates by min
            g.add_edge(u, v, weight=w)
        else:
            g.add_edge(*e)
    return g


def source_of(g) -> int:
    return max(g.nodes, key=lambda v: (g.degree(v), -v))


@pytest.mark.parametrize("rel", UNDIRECTED)
def test_components(rel, tmp_path):
    g = nx_graph(rel)
    rep, labels = weald_run("cc", DATA / rel, tmp_path=tmp_path)
    comps = list(nx.connected_components(g))
    assert rep["result"] == len(comps)
    for c in comps:
        assert {labels[v] for v in c} == {min(c)}


@pytest.mark.parametrize("rel", DIRECTED)
def test_weak_components_directed(rel, tmp_path):
    g = nx_graph(rel, directed=True)
    rep, labels = weald_run("cc", DATA / rel, "--directed", tmp_path=tmp_path)
    comps = list(nx.weakly_connected_components(g))
    assert rep["result"] == len(comps)
    for c in comps:
        assert {labels[v] for v in c} == {min(c)}


@pytest.mark.parametrize("rel,directed", BOTH)
def test_bfs_depths(rel, directed, tmp_path):
    g = nx_graph(rel, directed=directed)
    s = source_of(g)
    extra = ["--directed"] if directed else []
    _, depth = weald_run("bfs", DATA / rel, "--source", str(s), *extra, tmp_path=tmp_path)
    expected = nx.single_source_shortest_path_length(g, s)
    assert len(depth) == g.number_of_nodes()
    for v in g.nodes:
        assert depth[v] == expected.get(v, -1), v


@pytest.mark.parametrize("rel", UNDIRECTED)
def test_triangles(rel, tmp_path):
    g = nx_graph(rel)
    g.remove_edges_from(nx.selfloop_edges(g))
    rep, per = weald_run("tc", DATA / rel, tmp_path=tmp_path)
    t = nx.triangles(g)
    assert rep["result"] == sum(t.values()) // 3
    assert all(per[v] == t[v] for v in g.nodes)


@pytest.mark.parametrize("rel", UNDIRECTED)
def test_coreness(rel, tmp_path):
    g = nx_graph(rel)
    g.remove_edges_from(nx.selfloop_edges(g))
    rep, core = weald_run("kcore", DATA / rel, tmp_path=tmp_path)
    expected = nx.core_number(g)
    assert all(core[v] == expected[v] for v in g.nodes)
    assert rep["result"] == max(expected.values())


@pytest.mark.parametrize("rel,directed", BOTH)
def test_pagerank(rel, directed, tmp_path):
    g = nx_graph(rel, directed=directed)
    extra = ["--directed"] if directed else []
    _, rank = weald_run("pagerank", DATA / rel, "--tol", "1e-10", "--max-iter", "1000", *extra, tmp_path=tmp_path)
    expected = nx.pagerank(g, alpha=0.85, tol=1e-12, max_iter=1000)
    assert abs(sum(rank.values()) - 1) < 1e-9
    assert max(abs(rank[v] - expected[v]) for v in g.nodes) < 1e-6


@pytest.mark.parametrize("rel", ROADS)
@pytest.mark.parametrize("algo", ["sssp", "bellman-ford"])
def test_sssp_roads(rel, algo, tmp_path):
    g = nx_graph(rel, weighted=True)
    s = source_of(g)
    _, dist = weald_run(algo, DATA / rel, "--weighted", "--source", str(s), tmp_path=tmp_path)
    expected = nx.single_source_dijkstra_path_length(g, s)
    for v in g.nodes:
        if v in expected:
            assert math.isclose(dist[v], expected[v], rel_tol=1e-9, abs_tol=1e-9), v
        else:
            assert math.isinf(dist[v])


def test_sssp_rome_directed(tmp_path):
    rel = "weighted/rome99.gr"
    g = nx.DiGraph()
    for line in (DATA / rel).read_text().splitlines():
        if line.startswith("a "):
            _, u, v, w = line.split()
            u, v, w = int(u) - 1, int(v) - 1, int(w)  # Weald numbers DIMACS vertices from 0
            if not g.has_edge(u, v) or g[u][v]["weight"] > w:
                g.add_edge(u, v, weight=w)
    _, dist = weald_run("sssp", DATA / rel, "--source", "0", tmp_path=tmp_path)
    expected = nx.single_source_dijkstra_path_length(g, 0)
    for v, d in expected.items():
        assert dist[v] == d


@pytest.mark.parametrize("rel", ["static/CA-GrQc.txt", "static/as20graph.txt", "static/hartford_drug.edgelist"])
def test_betweenness_dependencies(rel, tmp_path):
    from networkx.algorithms.centrality.betweenness import _accumulate_basic, _single_source_shortest_path_basic

    g = nx_graph(rel)
    g.remove_edges_from(nx.selfloop_edges(g))
    s = source_of(g)
    _, dep = weald_run("bc", DATA / rel, "--source", str(s), "--drop-self-loops", tmp_path=tmp_path)
    S, P, sigma, _ = _single_source_shortest_path_basic(g, s)
    expected, _ = _accumulate_basic(dict.fromkeys(g, 0.0), S, P, sigma, s)  # source: 0
    for v in g.nodes:
        assert math.isclose(dep[v], expected[v], rel_tol=1e-9, abs_tol=1e-9), v


@pytest.mark.parametrize("rel", UNDIRECTED)
def test_mis_is_maximal_independent(rel, tmp_path):
    g = nx_graph(rel)
    g.remove_edges_from(nx.selfloop_edges(g))
    rep, member = weald_run("mis", DATA / rel, "--seed", "7", tmp_path=tmp_path)
    chosen = {v for v in g.nodes if member[v] == 1}
    assert rep["result"] == len(chosen)
    assert not any(g.has_edge(u, v) for u in chosen for v in g[u] if v in chosen)
    assert all(v in chosen or any(u in chosen for u in g[v]) for v in g.nodes)


@pytest.mark.parametrize("rel,directed", BOTH)
def test_two_hop(rel, directed, tmp_path):
    g = nx_graph(rel, directed=directed)
    s = source_of(g)
    extra = ["--directed"] if directed else []
    rep, member = weald_run("twohop", DATA / rel, "--source", str(s), *extra, tmp_path=tmp_path)
    near = nx.single_source_shortest_path_length(g, s, cutoff=2)
    expected = {v for v, d in near.items() if d in (1, 2)}
    assert {v for v, x in member.items() if x == 1} == expected
    assert rep["result"] == len(expected)


@pytest.mark.parametrize("rel", UNDIRECTED)
def test_nibble_conductance(rel, tmp_path):
    """networkx has no Nibble: check that the reported conductance is networkx's conductance of
    the reported cluster (self loops dropped on both sides: networkx counts one twice in a
    degree, Weald stores it as one arc)."""
    g = nx_graph(rel)
    g.remove_edges_from(nx.selfloop_edges(g))
    s = source_of(g)
    rep, member = weald_run("nibble", DATA / rel, "--source", str(s), "--drop-self-loops",
                            tmp_path=tmp_path)
    cluster = {v for v, x in member.items() if x == 1}
    assert cluster, "Nibble from the highest-degree vertex found no cluster"
    assert 0 <= rep["result"] <= 1
    assert rep["result"] == pytest.approx(nx.conductance(g, cluster), rel=1e-9)
