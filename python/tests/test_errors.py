"""Errors are Python exceptions carrying the Rust error's message; nothing crashes."""

from __future__ import annotations

import os

import numpy as np
import pytest

import weald
from conftest import DATA


@pytest.fixture(scope="module")
def small():
    return weald.Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 3]))


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        weald.read(tmp_path / "nope.txt")
    assert "nope.txt" in str(e.value)


def test_parse_error_has_path_and_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("0 1\n1 2\n2 x\n")
    with pytest.raises(weald.ParseError) as e:
        weald.read(p)
    assert isinstance(e.value, ValueError)
    assert e.value.line == 3 and e.value.path == str(p)
    assert "bad.txt:3" in str(e.value)


def test_format_errors(tmp_path):
    p = tmp_path / "g.unknownext"
    p.write_text("0 1\n")
    with pytest.raises(ValueError, match="format"):
        weald.read(p)
    assert weald.read(p, format="edgelist").num_edges == 1
    with pytest.raises(ValueError):
        weald.read(p, format="nonsense")
    with pytest.raises(ValueError):
        weald.read(p, format="edgelist", dedup="avg")
    b = tmp_path / "broken.wgb"
    b.write_bytes(b"not a weald file at all")
    with pytest.raises(weald.ParseError):
        weald.read(b)


def test_bad_vertex(small):
    for f in (weald.bfs, weald.betweenness):
        with pytest.raises(IndexError):
            f(small, 4)
        with pytest.raises(IndexError):
            f(small, -1)
        with pytest.raises(IndexError):
            f(small, 2**40)


def test_weighted_algorithm_on_unweighted_graph(small):
    with pytest.raises(ValueError, match="weighted"):
        weald.sssp(small, 0)
    with pytest.raises(ValueError, match="weighted"):
        weald.bellman_ford(small, 0)


def test_negative_weights():
    g = weald.Graph.from_edges([0, 1, 2], [1, 2, 0], weights=[1, -5, 1], directed=True)
    with pytest.raises(weald.NegativeCycleError) as e:
        weald.bellman_ford(g, 0)
    assert isinstance(e.value, ValueError) and e.value.source == 0
    with pytest.raises(ValueError):
        weald.sssp(g, 0)  # delta-stepping needs non-negative weights
    h = weald.Graph.from_edges([0, 1, 0], [1, 2, 2], weights=[4, -3, 2], directed=True)
    assert weald.bellman_ford(h, 0).tolist() == [0.0, 4.0, 1.0]


def test_pagerank_that_does_not_converge_raises():
    # A path converges at rate d: 2 iterations leave it far from tol (networkx raises
    # PowerIterationFailedConvergence there too); enough iterations pass.
    g = weald.Graph.from_edges([0, 1, 2], [1, 2, 3], directed=True)
    with pytest.raises(weald.ConvergenceError) as e:
        weald.pagerank(g, max_iter=2)
    assert isinstance(e.value, RuntimeError)
    assert e.value.iterations == 2 and e.value.l1_change > 1e-6
    with pytest.raises(weald.ConvergenceError):
        weald.pagerank(g, max_iter=0)
    pr = weald.pagerank(g, max_iter=200, tol=1e-9)
    assert abs(pr.sum() - 1.0) < 1e-9


def test_invalid_arguments(small):
    d = weald.Graph.from_edges([0], [1], directed=True)
    for f in (weald.kcore, weald.triangles, weald.triangle_count, weald.mis):
        with pytest.raises(ValueError, match="symmetric|undirected"):
            f(d)
    with pytest.raises(ValueError):
        weald.pagerank(small, damping=1.5)
    with pytest.raises(ValueError):
        weald.pagerank(small, tol=-1)
    with pytest.raises(ValueError):
        weald.sssp(weald.Graph.from_edges([0], [1], weights=[1.0]), 0, delta=-1.0)
    with pytest.raises(TypeError):
        weald.bfs("not a graph", 0)
    with pytest.raises(TypeError):
        weald.bfs(small, "0")
    with pytest.raises(TypeError):
        weald.number_connected_components("not a graph")


def test_empty_graph():
    g = weald.Graph.from_edges([], [])
    assert weald.connected_components(g).tolist() == []
    assert weald.number_connected_components(g) == 0
    assert weald.pagerank(g).tolist() == []
    assert weald.triangle_count(g) == 0
    with pytest.raises(IndexError):
        weald.bfs(g, 0)


def test_integers_beyond_64_bits_raise_the_documented_errors(small):
    # Not PyO3's OverflowError (an ArithmeticError): IndexError for vertices, ValueError else.
    with pytest.raises(IndexError, match=str(2**70)):
        weald.bfs(small, 2**70)
    with pytest.raises(IndexError):
        small.neighbors(-(2**64))
    with pytest.raises(ValueError, match="seed"):
        weald.generate.rmat(4, seed=-1)
    with pytest.raises(ValueError, match="seed"):
        weald.mis(small, seed=2**64)
    with pytest.raises(ValueError, match="num_vertices"):
        weald.DynamicGraph(2**70)
    with pytest.raises(ValueError, match="num_vertices"):
        weald.DynamicGraph(-1)
    with pytest.raises(ValueError):
        weald.generate.uniform(-1, 5)
    with pytest.raises(ValueError):
        weald.set_num_threads(2**80)
    assert weald.generate.rmat(4, seed=2**64 - 1).num_vertices == 16


def _available_bytes():
    """MemAvailable + SwapFree, what Weald's memory check compares with."""
    fields = {}
    with open("/proc/meminfo") as f:
        for line in f:
            name, value = line.split(":", 1)
            fields[name] = int(value.split()[0]) * 1024
    return fields["MemAvailable"] + fields.get("SwapFree", 0)


def test_sizes_beyond_memory_raise_memoryerror_instead_of_killing_the_process():
    # Each of these used to be killed by the kernel (or abort) on a 24 GiB machine.
    with pytest.raises(MemoryError, match="74505"):
        weald.generate.uniform(10, 10**13)  # 10**13 edges: 75 TB of pairs
    if not os.path.exists("/proc/meminfo") or _available_bytes() > 30 << 30:
        pytest.skip("the rest needs less than 30 GiB of available memory")
    with pytest.raises(MemoryError, match="vertices"):
        weald.Graph.from_edges(np.array([0]), np.array([1]), num_vertices=2**32 - 1)
    with pytest.raises(MemoryError, match="DynamicGraph"):
        weald.DynamicGraph(2**32 - 2)
    dg = weald.DynamicGraph()
    dg.insert_vertices(np.array([2**32 - 2]))  # the vertex tree is sparse: fine
    # A flat view over all ids would need 96 GiB: the snapshot of so sparse a version is
    # relabelled instead (it had raised MemoryError).
    with dg.snapshot() as s:
        assert s.num_vertices == 1 and s.original_ids().tolist() == [2**32 - 2]
    assert dg.num_edges == 0


def test_non_finite_weights_are_refused():
    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError, match="finite"):
            weald.Graph.from_edges([0, 1], [1, 2], weights=np.array([1.0, bad]))
        dg = weald.DynamicGraph(weighted=True)
        with pytest.raises(ValueError, match="finite"):
            dg.insert_edges([0], [1], w=np.array([bad]))
        assert dg.version == 0
    with pytest.raises(ValueError, match="finite"):
        weald.generate.rmat(4, weights=(0.0, float("inf")))


def test_generator_weight_ranges_are_checked():
    # A width beyond the largest float made every weight inf (SSSP then found nothing).
    with pytest.raises(ValueError, match="width"):
        weald.generate.uniform(100, 300, weights=(-1e308, 1e308))
    with pytest.raises(ValueError, match="above"):
        weald.generate.uniform(100, 300, weights=(5.0, 1.0))
    with pytest.raises(ValueError, match="above"):
        weald.generate.rmat(4, weights=(9, 1))
    with pytest.raises(ValueError, match="weights"):
        weald.generate.rmat(4, weights=(0, 2**31))
    g = weald.generate.uniform(100, 300, weights=(-1e307, 1e307))
    assert np.isfinite(g.edges()[2]).all()
    # n = 0 cannot hold the edges asked for (it returned an empty graph).
    with pytest.raises(ValueError, match="at least one vertex"):
        weald.generate.uniform(0, 1000)
    assert weald.generate.uniform(0, 0).num_vertices == 0


def test_boolean_arrays_are_not_vertex_ids(small):
    # A mask (weald.mis returns one) had been read as the ids 0 and 1.
    dg = weald.DynamicGraph(10)
    dg.insert_edges([0, 1, 2], [1, 2, 3])
    with pytest.raises(TypeError, match="flatnonzero"):
        dg.delete_vertices(np.ones(10, dtype=bool))
    with pytest.raises(TypeError, match="boolean"):
        weald.Graph.from_edges(np.array([True]), np.array([False]))
    assert dg.num_edges == 3


def test_integer_arguments_out_of_range_raise_valueerror(small, tmp_path):
    # Not PyO3's OverflowError.
    with pytest.raises(ValueError, match="max_iter"):
        weald.pagerank(small, max_iter=-1)
    with pytest.raises(ValueError, match="steps"):
        weald.local_cluster(small, 0, steps=-1)
    with pytest.raises(ValueError, match="num_vertices"):
        weald.Graph.from_edges([0], [1], num_vertices=2**64)
    with pytest.raises(ValueError, match="keep_last"):
        weald.Store(tmp_path / "a", keep_last=-1)
    with pytest.raises(ValueError, match="batch_size"):
        weald.Store(tmp_path / "b", batch_size=2**70)


def test_store_durations_beyond_the_clock_raise_valueerror(tmp_path):
    # Duration::from_secs_f64 panicked (PanicException, not an Exception) at 2**64 s.
    for kw in ({"max_wait": 1e20}, {"keep_seconds": float(2**64)}, {"max_wait": -1.0},
               {"keep_seconds": float("nan")}):
        with pytest.raises(ValueError, match="seconds"):
            weald.Store(tmp_path / "s", **kw)
    assert not (tmp_path / "s").exists()


def test_weighted_of_another_type_says_what_is_accepted(tmp_path):
    with pytest.raises(TypeError, match='"float" or "int", got int'):
        weald.DynamicGraph(weighted=1)
    with pytest.raises(TypeError, match="weighted must be"):
        weald.Store(tmp_path / "w", weighted=1)


def test_generator_weight_ends_numpy_ints_and_huge_floats():
    # numpy integer ends give int32 weights, as Python ints do (they gave float64).
    g = weald.generate.rmat(4, weights=(np.int64(1), np.int64(9)))
    assert g.edges()[2].dtype == np.int32
    with pytest.raises(ValueError, match="largest float"):
        weald.generate.rmat(4, weights=(0.5, 2**1100))
