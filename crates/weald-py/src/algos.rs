//! One `#[pyfunction]` per algorithm: check the arguments, release the GIL, call the generic
//! `weald-algo` function on the concrete graph (via `with_target!`), return numpy arrays
//! indexed by internal vertex id (scalars as Python numbers).

use crate::convert::Int;
use crate::graph::{target_of, Target};
use crate::pool::compute_sized;
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use weald_algo as algo;
use weald_graph::{DistValue, Vertex, NO_VERTEX};

/// A source vertex: in range, and on a snapshot a vertex present (a snapshot's ids run to
/// the largest present; one below it may be deleted or never inserted).
fn source_of(py: Python<'_>, t: &Target, source: Int) -> PyResult<Vertex> {
    let v = source.vertex(Some(t.num_vertices()))?;
    let present = match t {
        Target::Static(a) => a.has_vertex(v),
        Target::Snap(s) => s.has_vertex(v),
    };
    if present {
        Ok(v)
    } else {
        let absent = weald_graph::WealdError::VertexAbsent { vertex: v as u64 };
        Err(crate::errors::to_pyerr(py, absent))
    }
}

fn parent_array(p: &[Vertex]) -> Vec<i64> {
    p.iter()
        .map(|&x| if x == NO_VERTEX { -1 } else { x as i64 })
        .collect()
}

/// Breadth-first search from `source` (direction-optimising, Beamer et al.).
///
/// Args:
///     graph: a Graph or Snapshot.
///     source: the start vertex (internal id).
///     parents: also return the BFS tree.
///
/// Returns:
///     int64 array of hop distances (-1 = unreachable); with `parents=True` a tuple
///     `(depth, parent)` where `parent[source] == source` and -1 marks unreached vertices.
///     The tree is canonical (each vertex's smallest-id parent one level up).
///
/// Raises IndexError for a bad source. Complexity: O(n + m) work, parallel.
///
/// Example:
///     >>> depth = weald.bfs(g, 0); (depth >= 0).sum()  # vertices reached
#[pyfunction]
#[pyo3(signature = (graph, source, *, parents=false))]
fn bfs<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    source: Int,
    parents: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let t = target_of(graph)?;
    let s = source_of(py, &t, source)?;
    let (depth, parent) = compute_sized(py, t.work(), move || {
        // The tree comes free with the packed search; without it, the 4-byte depth-only one.
        let (depth, parent) = if parents {
            let out = with_target!(&t, g => algo::bfs::run(g, s, &Default::default()))?;
            (out.depth, Some(out.parent))
        } else {
            let d = with_target!(&t, g => algo::bfs::depths(g, s, &Default::default()))?;
            (d, None)
        };
        let depth = algo::bfs::signed_depths(&depth);
        Ok((depth, parent.map(|p| parent_array(&p))))
    })?;
    let depth = PyArray1::from_vec(py, depth).into_any();
    Ok(match parent {
        None => depth,
        Some(p) => PyTuple::new(py, [depth, PyArray1::from_vec(py, p).into_any()])?.into_any(),
    })
}

/// Single-source betweenness: Brandes' dependencies of every vertex on `source`.
///
/// `delta[v] = sum over targets t != source, v of sigma(source, t | v) / sigma(source, t)`
/// (unweighted shortest paths; arcs followed in their direction). Summing over all sources
/// gives betweenness centrality (networkx's `betweenness_centrality(normalized=False)`,
/// halved for undirected graphs).
///
/// Returns: float64 array. Raises IndexError for a bad source.
/// Complexity: O(n + m), parallel. Example: `weald.betweenness(g, 0).argmax()`.
#[pyfunction]
fn betweenness<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    source: Int,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let t = target_of(graph)?;
    let s = source_of(py, &t, source)?;
    let d = compute_sized(py, t.work(), move || {
        Ok(with_target!(&t, g => algo::bc::run(g, s, &Default::default()))?.dependency)
    })?;
    Ok(PyArray1::from_vec(py, d))
}

/// PageRank by power iteration (networkx's `pagerank(G, alpha=damping)` semantics: dangling
/// mass spread uniformly, weights ignored, ranks sum to 1).
///
/// Args:
///     damping: in [0, 1].
///     tol: stop when the L1 change of one iteration is below `tol` (networkx stops at
///         `n * tol`, so Weald's default is n times tighter).
///     max_iter: iteration cap; reaching it before `tol` raises weald.ConvergenceError (a
///         RuntimeError with `.iterations` and `.l1_change`), as networkx raises
///         PowerIterationFailedConvergence.
///
/// Returns: float64 array of ranks. The result does not depend on the thread count.
/// Raises ValueError for a bad damping or tol. Complexity: O(m) per iteration, parallel.
///
/// Example:
///     >>> pr = weald.pagerank(g); pr.argsort()[::-1][:10]  # top 10
#[pyfunction]
#[pyo3(
    signature = (graph, damping=0.85, tol=1e-6, max_iter=Int::from(100)),
    text_signature = "(graph, damping=0.85, tol=1e-6, max_iter=100)"
)]
fn pagerank<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    damping: f64,
    tol: f64,
    max_iter: Int,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let max_iter: usize = max_iter.get("max_iter")?;
    let t = target_of(graph)?;
    let prm = algo::pagerank::Params {
        damping,
        tol,
        max_iter,
    };
    let out = compute_sized(
        py,
        t.work(),
        move || with_target!(&t, g => algo::pagerank::run(g, &prm)),
    )?;
    if let Some(why) = out.not_converged(tol) {
        let msg = format!("{why} (raise max_iter or tol)");
        return Err(crate::errors::not_converged(
            py,
            msg,
            out.iterations,
            out.l1_change,
        ));
    }
    Ok(PyArray1::from_vec(py, out.rank))
}

/// Connected components (weakly connected for directed graphs), Afforest.
///
/// Returns: int64 array `label` with `label[v]` = the smallest vertex id in v's component;
/// the number of components is `(label == np.arange(n)).sum()`.
/// Complexity: O(n + m) expected, parallel. Example: `np.unique(weald.connected_components(g))`.
#[pyfunction]
fn connected_components<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let t = target_of(graph)?;
    let l = compute_sized(py, t.work(), move || {
        let out = with_target!(&t, g => algo::cc::run(g, &Default::default()))?;
        Ok(out.label.iter().map(|&x| x as i64).collect::<Vec<i64>>())
    })?;
    Ok(PyArray1::from_vec(py, l))
}

/// The number of connected components (weakly connected for directed graphs), Afforest.
///
/// Returns: int, the number of components, as networkx's `number_connected_components` (and
/// `number_weakly_connected_components` for a directed graph) counts them; isolated vertices
/// are components of their own. The same computation as `connected_components`, without the
/// label array.
/// Complexity: O(n + m) expected, parallel.
///
/// Example:
///     >>> weald.number_connected_components(weald.Graph.from_edges([0, 2], [1, 3]))
///     2
#[pyfunction]
fn number_connected_components(py: Python<'_>, graph: &Bound<'_, PyAny>) -> PyResult<usize> {
    let t = target_of(graph)?;
    compute_sized(py, t.work(), move || {
        Ok(with_target!(&t, g => algo::cc::run(g, &Default::default()))?.num_components)
    })
}

fn sssp_result<'py>(
    py: Python<'py>,
    dist: Vec<f64>,
    parent: Option<Vec<i64>>,
) -> PyResult<Bound<'py, PyAny>> {
    let d = PyArray1::from_vec(py, dist).into_any();
    Ok(match parent {
        None => d,
        Some(p) => PyTuple::new(py, [d, PyArray1::from_vec(py, p).into_any()])?.into_any(),
    })
}

/// Single-source shortest paths by delta-stepping (non-negative weights).
///
/// Args:
///     source: start vertex.
///     delta: bucket width; None picks one from the weights.
///     parents: also return a shortest-path tree (deterministic).
///
/// Returns: float64 distances (inf = unreachable), or `(dist, parent)` with -1 for
///     unreached vertices.
///
/// Raises ValueError on an unweighted graph, a negative weight or a bad delta; IndexError for
/// a bad source. Complexity: O(m + n * (max distance / delta)) work, parallel.
///
/// Example:
///     >>> g = weald.read("road.tsv", weighted=True); d = weald.sssp(g, 0)
#[pyfunction]
#[pyo3(signature = (graph, source, delta=None, *, parents=false))]
fn sssp<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    source: Int,
    delta: Option<f64>,
    parents: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let t = target_of(graph)?;
    let s = source_of(py, &t, source)?;
    let prm = algo::sssp::delta_stepping::Params { delta };
    let (d, p) = compute_sized(py, t.work(), move || {
        with_target!(&t, g => {
            // The tree is a pass of its own over the arcs: only when asked for.
            let dist = algo::sssp::delta_stepping::distances(g, s, &prm)?;
            let parent = parents.then(|| {
                parent_array(&algo::sssp::shortest_path_parents(g, s, &dist, true))
            });
            Ok((dist.iter().map(|x| x.to_f64()).collect::<Vec<f64>>(), parent))
        })
    })?;
    sssp_result(py, d, p)
}

/// Single-source shortest paths by parallel Bellman-Ford (negative weights allowed).
///
/// Returns: float64 distances (inf = unreachable), or `(dist, parent)` with `parents=True`.
///
/// Raises weald.NegativeCycleError (a ValueError, attribute `.source`) if a negative cycle is
/// reachable; ValueError on an unweighted graph; IndexError for a bad source.
/// Complexity: O(n * m) worst case, usually far less; parallel.
///
/// Example: `weald.bellman_ford(g, 0)`.
#[pyfunction]
#[pyo3(signature = (graph, source, *, parents=false))]
fn bellman_ford<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    source: Int,
    parents: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let t = target_of(graph)?;
    let s = source_of(py, &t, source)?;
    let (d, p) = compute_sized(py, t.work(), move || {
        with_target!(&t, g => {
            let dist = algo::sssp::bellman_ford::distances(g, s, &Default::default())?;
            let parent = parents.then(|| {
                parent_array(&algo::sssp::shortest_path_parents(g, s, &dist, false))
            });
            Ok((dist.iter().map(|x| x.to_f64()).collect::<Vec<f64>>(), parent))
        })
    })?;
    sssp_result(py, d, p)
}

/// Triangles at each vertex of an undirected graph (networkx's `nx.triangles`), by
/// degree-ordered sorted intersection. Self loops and parallel edges are ignored.
///
/// Returns: int64 array; the total is `triangles(g).sum() // 3` (or `triangle_count(g)`).
/// Raises ValueError on a directed graph. Complexity: O(m^1.5), parallel.
///
/// Example:
///     >>> t = weald.triangles(g); t.sum() // 3 == weald.triangle_count(g)
///     True
#[pyfunction]
fn triangles<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let t = target_of(graph)?;
    let x = compute_sized(py, t.work(), move || {
        let out = with_target!(&t, g => algo::tc::run(g, &Default::default()))?;
        Ok(out
            .per_vertex
            .iter()
            .map(|&x| x as i64)
            .collect::<Vec<i64>>())
    })?;
    Ok(PyArray1::from_vec(py, x))
}

/// The number of triangles of an undirected graph (a Python int).
///
/// Raises ValueError on a directed graph. Complexity: O(m^1.5), parallel.
/// Example: `weald.triangle_count(weald.read("facebook_combined.txt.gz"))` is 1612010.
#[pyfunction]
fn triangle_count(py: Python<'_>, graph: &Bound<'_, PyAny>) -> PyResult<u64> {
    let t = target_of(graph)?;
    compute_sized(py, t.work(), move || {
        Ok(with_target!(&t, g => algo::tc::run(g, &Default::default()))?.total)
    })
}

/// Coreness of every vertex of an undirected graph (networkx's `core_number`), by bucketed
/// peeling (Julienne). Self loops and parallel edges are ignored.
///
/// Returns: int64 array; `kcore(g).max()` is the degeneracy.
/// Raises ValueError on a directed graph. Complexity: O(n + m) work, parallel.
///
/// Example:
///     >>> core = weald.kcore(g); (core == core.max()).sum()  # size of the densest core
#[pyfunction]
fn kcore<'py>(py: Python<'py>, graph: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let t = target_of(graph)?;
    let x = compute_sized(py, t.work(), move || {
        let out = with_target!(&t, g => algo::kcore::run(g, &Default::default()))?;
        Ok(out.coreness.iter().map(|&x| x as i64).collect::<Vec<i64>>())
    })?;
    Ok(PyArray1::from_vec(py, x))
}

/// A maximal independent set of an undirected graph: the greedy set for random priorities
/// drawn from `seed` (deterministic for a seed, at any thread count).
///
/// Returns: bool array, True for members. Raises ValueError on a directed graph.
/// Complexity: O(n + m) expected work, parallel. Example: `weald.mis(g).sum()`.
#[pyfunction]
#[pyo3(signature = (graph, seed=Int::from(1)), text_signature = "(graph, seed=1)")]
fn mis<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    seed: Int,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let t = target_of(graph)?;
    let prm = algo::mis::Params {
        seed: seed.get("seed")?,
    };
    let x = compute_sized(py, t.work(), move || {
        Ok(with_target!(&t, g => algo::mis::run(g, &prm))?.in_set)
    })?;
    Ok(PyArray1::from_vec(py, x))
}

/// The two-hop neighbourhood of `source`: every vertex at distance 1 or 2 (out-edges for a
/// directed graph), the source excluded — Aspen's local query.
///
/// Returns: int64 array of vertex ids, increasing. Raises IndexError for a bad source.
/// Complexity: O(D log D) for D = the arcs read (the source's degree plus its neighbours');
/// nothing proportional to the graph. Example: `len(weald.two_hop(g, 0))`.
#[pyfunction]
fn two_hop<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    source: Int,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let t = target_of(graph)?;
    let s = source_of(py, &t, source)?;
    let v = compute_sized(py, t.work(), move || {
        let out = with_target!(&t, g => algo::twohop::run(g, s, &Default::default()))?;
        Ok(out.vertices.iter().map(|&x| x as i64).collect::<Vec<_>>())
    })?;
    Ok(PyArray1::from_vec(py, v))
}

/// A low-conductance cluster around `seed` by Nibble (Spielman & Teng; the serial version
/// Aspen runs): a lazy random walk of `steps` steps from the seed, mass below
/// `epsilon * degree` dropped after each step, then the sweep prefix (by mass / degree) of
/// least conductance. Weights are ignored.
///
/// Returns: `(cluster, conductance)` — int64 array of vertex ids, increasing, and a float
/// (`cut / min(vol(S), vol(V) - vol(S))`, as `networkx.conductance`; NaN with an empty
/// cluster, e.g. from an isolated seed).
/// Raises ValueError on a directed graph or a non-positive epsilon, IndexError for a bad seed.
/// Complexity: O(steps / epsilon) work around the seed, nothing proportional to the graph.
/// Example: `cluster, phi = weald.local_cluster(g, 0)`.
#[pyfunction]
#[pyo3(
    signature = (graph, seed, epsilon=1e-6, steps=Int::from(10)),
    text_signature = "(graph, seed, epsilon=1e-6, steps=10)"
)]
fn local_cluster<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    seed: Int,
    epsilon: f64,
    steps: Int,
) -> PyResult<(Bound<'py, PyArray1<i64>>, f64)> {
    let steps: usize = steps.get("steps")?;
    let t = target_of(graph)?;
    let s = source_of(py, &t, seed)?;
    let prm = algo::localcluster::Params {
        epsilon,
        iterations: steps,
    };
    let (c, phi) = compute_sized(py, t.work(), move || {
        let out = with_target!(&t, g => algo::localcluster::run(g, s, &prm))?;
        let c: Vec<i64> = out.cluster.iter().map(|&x| x as i64).collect();
        Ok((c, out.conductance))
    })?;
    Ok((PyArray1::from_vec(py, c), phi))
}

/// Add the algorithm functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bfs, m)?)?;
    m.add_function(wrap_pyfunction!(betweenness, m)?)?;
    m.add_function(wrap_pyfunction!(pagerank, m)?)?;
    m.add_function(wrap_pyfunction!(connected_components, m)?)?;
    m.add_function(wrap_pyfunction!(number_connected_components, m)?)?;
    m.add_function(wrap_pyfunction!(sssp, m)?)?;
    m.add_function(wrap_pyfunction!(bellman_ford, m)?)?;
    m.add_function(wrap_pyfunction!(triangles, m)?)?;
    m.add_function(wrap_pyfunction!(triangle_count, m)?)?;
    m.add_function(wrap_pyfunction!(kcore, m)?)?;
    m.add_function(wrap_pyfunction!(mis, m)?)?;
    m.add_function(wrap_pyfunction!(two_hop, m)?)?;
    m.add_function(wrap_pyfunction!(local_cluster, m)?)?;
    Ok(())
}
