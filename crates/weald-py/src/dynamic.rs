//! `weald.DynamicGraph` (a versioned C-tree store: batch updates, O(1) snapshots) and
//! `weald.Snapshot` (one version; a `Graph`, so every algorithm runs on it).

use crate::convert::{self, Int, Weights};
use crate::graph::{parse_combine, target_of, Graph, SnapData, Target};
use crate::pool::{compute, compute_sized};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBool;
use std::sync::{Arc, Mutex, TryLockError};
use weald::any::flat_of_version;
use weald_graph::batch::Combine;
use weald_graph::{BatchResult, Graph as _, UpdateBatch, Vertex, Weight};
use weald_storage::ctree::{CTreeGraph, CTreeOptions, Snapshot as CSnapshot, VersionedGraph};
use weald_storage::AnyCsr;

enum AnyVersioned {
    Unweighted(VersionedGraph<()>),
    Int(VersionedGraph<i32>),
    Float(VersionedGraph<f64>),
}

macro_rules! with_versioned {
    ($v:expr, $g:ident => $body:expr) => {
        match $v {
            AnyVersioned::Unweighted($g) => $body,
            AnyVersioned::Int($g) => $body,
            AnyVersioned::Float($g) => $body,
        }
    };
}

/// What one update did. `inserted`: new edges; `updated`: edges already present (weight
/// combined); `deleted`: edges (or vertices plus their edges) removed; `absent`: deletions of
/// things that were not there; `version`: the version the update published.
#[pyclass(frozen, module = "weald", get_all)]
pub struct UpdateResult {
    inserted: u64,
    updated: u64,
    deleted: u64,
    absent: u64,
    version: u64,
}

#[pymethods]
impl UpdateResult {
    fn __repr__(&self) -> String {
        format!(
            "UpdateResult(inserted={}, updated={}, deleted={}, absent={}, version={})",
            self.inserted, self.updated, self.deleted, self.absent, self.version
        )
    }
}

fn result(version: u64, r: BatchResult) -> UpdateResult {
    UpdateResult {
        inserted: r.inserted,
        updated: r.updated,
        deleted: r.deleted,
        absent: r.absent,
        version,
    }
}

/// A graph that changes: batches of edge and vertex insertions and deletions, each published
/// as a new version; `snapshot()` takes the latest version in O(1) and never changes after.
///
/// Backed by C-trees (Aspen): purely-functional compressed trees shared between versions.
/// One writer at a time (updates are serialised); any number of snapshots may be read
/// concurrently, also from other threads, while updates continue. An update while no snapshot
/// holds the latest version changes that version in place (nothing copied, nothing to free);
/// a `snapshot()` taken meanwhile from another thread waits for that update.
///
/// Args:
///     num_vertices: start with vertices 0..num_vertices present (and no edges).
///     directed: store arcs (True) or undirected edges (False, each stored both ways).
///     weighted: False, True / "float" (float64 weights) or "int" (int32 weights).
///     dedup: how an inserted edge that is already present combines its weight with the old
///         one: "min" (default), "max", "sum", "first" (keep old) or "last" (take new).
///
/// Example:
///     >>> dg = weald.DynamicGraph()
///     >>> dg.insert_edges(np.array([0, 1]), np.array([1, 2]))
///     UpdateResult(inserted=2, updated=0, deleted=0, absent=0, version=1)
///     >>> with dg.snapshot() as s:
///     ...     weald.bfs(s, 0)
///     array([0, 1, 2])
#[pyclass(frozen, module = "weald")]
pub struct DynamicGraph {
    inner: AnyVersioned,
    rule: Combine,
    /// Taken (on the calling thread, outside the worker pool) for the whole of an update.
    /// `VersionedGraph::apply_in_place` holds its writer lock while its batch runs on the
    /// pool, and a pool thread waiting inside that batch may pick up another Python thread's
    /// queued update, which would then wait for the lock its own thread holds: two threads
    /// updating one graph would hang. With this, the second waits here instead.
    turn: Mutex<()>,
}

impl From<CTreeGraph<()>> for AnyVersioned {
    fn from(g: CTreeGraph<()>) -> Self {
        AnyVersioned::Unweighted(VersionedGraph::new(g))
    }
}
impl From<CTreeGraph<i32>> for AnyVersioned {
    fn from(g: CTreeGraph<i32>) -> Self {
        AnyVersioned::Int(VersionedGraph::new(g))
    }
}
impl From<CTreeGraph<f64>> for AnyVersioned {
    fn from(g: CTreeGraph<f64>) -> Self {
        AnyVersioned::Float(VersionedGraph::new(g))
    }
}

/// A C-tree copy of any graph (every vertex `0..n` present; parallel edges merged by `rule`).
fn ctree_of<G: weald_graph::Graph>(
    g: &G,
    b: u32,
    rule: Combine,
) -> weald_graph::Result<CTreeGraph<G::W>> {
    let directed = g.is_directed();
    let mut el = weald_graph::EdgeList::new(g.num_vertices());
    for u in 0..g.num_vertices() as Vertex {
        g.for_each_out(u, |v, w| {
            if directed || u <= v {
                el.push(u, v, w);
            }
            true
        });
    }
    let opts = CTreeOptions {
        directed,
        in_edges: true,
        b,
    };
    CTreeGraph::from_edge_list(&el, opts, rule)
}

/// One C-tree version of any weight type, before it is flattened.
pub(crate) enum AnySnap {
    Unweighted(CSnapshot<()>),
    Int(CSnapshot<i32>),
    Float(CSnapshot<f64>),
}

impl AnySnap {
    /// The flat view algorithms run on: O(n), so the caller runs it without the GIL.
    pub(crate) fn flatten(self) -> weald_graph::Result<SnapData> {
        Ok(match self {
            AnySnap::Unweighted(s) => {
                let (f, ids) = flat_of_version(s.graph())?;
                SnapData::Unweighted(s, f, ids)
            }
            AnySnap::Int(s) => {
                let (f, ids) = flat_of_version(s.graph())?;
                SnapData::Int(s, f, ids)
            }
            AnySnap::Float(s) => {
                let (f, ids) = flat_of_version(s.graph())?;
                SnapData::Float(s, f, ids)
            }
        })
    }
}

/// The latest version. Call it on the caller's thread, never in a pool job: during an update
/// applied in place it waits for that update, and a pool thread waiting inside the update's
/// own batch could pick the job up and wait for itself.
fn latest(v: &AnyVersioned) -> AnySnap {
    match v {
        AnyVersioned::Unweighted(g) => AnySnap::Unweighted(g.acquire()),
        AnyVersioned::Int(g) => AnySnap::Int(g.acquire()),
        AnyVersioned::Float(g) => AnySnap::Float(g.acquire()),
    }
}

/// Pair endpoints (and weights) into the batch's triples.
fn triples<W: Weight>(
    s: Vec<Vertex>,
    d: Vec<Vertex>,
    w: Option<Vec<W>>,
    one: W,
) -> Vec<(Vertex, Vertex, W)> {
    match w {
        Some(w) => s
            .into_iter()
            .zip(d)
            .zip(w)
            .map(|((a, b), x)| (a, b, x))
            .collect(),
        None => s.into_iter().zip(d).map(|(a, b)| (a, b, one)).collect(),
    }
}

/// Work of one update for [`compute_sized`] (a path of vertex-tree nodes and a chunk are
/// copied): batches of fewer than `INLINE_WORK / UPDATE_WORK` updates (512) run on the calling
/// thread, which saves the two thread hand-offs that cost more than such a batch.
const UPDATE_WORK: usize = 64;

impl DynamicGraph {
    fn apply(&self, py: Python<'_>, batch: AnyBatch) -> PyResult<UpdateResult> {
        let _turn = loop {
            match self.turn.try_lock() {
                Ok(g) => break g,
                Err(TryLockError::Poisoned(e)) => break e.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    py.check_signals()?;
                    py.detach(|| std::thread::sleep(std::time::Duration::from_micros(50)));
                }
            }
        };
        let rule = self.rule;
        let inner = &self.inner;
        let work = batch.len().saturating_mul(UPDATE_WORK);
        let (v, r) = compute_sized(py, work, move || {
            Ok(match (inner, batch) {
                (AnyVersioned::Unweighted(g), AnyBatch::Unweighted(b)) => {
                    g.apply_in_place(&b, rule)
                }
                (AnyVersioned::Int(g), AnyBatch::Int(b)) => g.apply_in_place(&b, rule),
                (AnyVersioned::Float(g), AnyBatch::Float(b)) => g.apply_in_place(&b, rule),
                _ => unreachable!("batch built for the graph's weight type"),
            })
        })?;
        Ok(result(v, r))
    }

    fn empty_batch(&self) -> AnyBatch {
        match &self.inner {
            AnyVersioned::Unweighted(_) => AnyBatch::Unweighted(UpdateBatch::new()),
            AnyVersioned::Int(_) => AnyBatch::Int(UpdateBatch::new()),
            AnyVersioned::Float(_) => AnyBatch::Float(UpdateBatch::new()),
        }
    }
}

enum AnyBatch {
    Unweighted(UpdateBatch<()>),
    Int(UpdateBatch<i32>),
    Float(UpdateBatch<f64>),
}

macro_rules! with_batch {
    ($b:expr, $x:ident => $body:expr) => {
        match $b {
            AnyBatch::Unweighted($x) => $body,
            AnyBatch::Int($x) => $body,
            AnyBatch::Float($x) => $body,
        }
    };
}

impl AnyBatch {
    fn len(&self) -> usize {
        with_batch!(self, b => b.len())
    }
}

/// `False`/`None` → unweighted; `True`/"float" → f64; "int" → i32.
pub(crate) fn weight_kind(w: Option<&Bound<'_, PyAny>>) -> PyResult<Option<bool>> {
    let Some(w) = w else { return Ok(None) };
    if w.is_none() {
        return Ok(None);
    }
    if let Ok(b) = w.cast::<PyBool>() {
        return Ok(b.is_true().then_some(true));
    }
    let Ok(name) = w.extract::<String>() else {
        return Err(PyTypeError::new_err(format!(
            "weighted must be False, True, \"float\" or \"int\", got {}",
            w.get_type().name()?
        )));
    };
    match name.as_str() {
        "float" | "float64" | "f64" => Ok(Some(true)),
        "int" | "int32" | "i32" => Ok(Some(false)),
        other => Err(PyValueError::new_err(format!(
            "weighted must be False, True, \"float\" or \"int\", got {other:?}"
        ))),
    }
}

#[pymethods]
impl DynamicGraph {
    #[new]
    #[pyo3(
        signature = (num_vertices=Int::from(0), *, directed=false, weighted=None, dedup="min"),
        text_signature = "(num_vertices=0, *, directed=False, weighted=None, dedup='min')"
    )]
    fn new(
        py: Python<'_>,
        num_vertices: Int,
        directed: bool,
        weighted: Option<&Bound<'_, PyAny>>,
        dedup: &str,
    ) -> PyResult<Self> {
        let rule = parse_combine(Some(dedup))?.unwrap_or_default();
        let num_vertices: u32 = num_vertices.get("num_vertices")?;
        if num_vertices == u32::MAX {
            return Err(PyValueError::new_err(format!(
                "num_vertices must be in 0..2^32-1, got {num_vertices}"
            )));
        }
        let kind = weight_kind(weighted)?;
        let opts = CTreeOptions {
            directed,
            ..CTreeOptions::default()
        };
        let n = num_vertices as Vertex;
        // Measured: ~26 bytes per vertex (the id list and the vertex tree).
        weald_graph::mem::ensure_fits(weald_graph::mem::bytes_for(n as u64, 16), || {
            format!("a DynamicGraph of {n} vertices")
        })
        .map_err(|e| crate::errors::to_pyerr(py, e))?;
        let inner = compute(py, move || {
            let all: Vec<Vertex> = (0..n).collect();
            Ok(match kind {
                None => AnyVersioned::Unweighted(VersionedGraph::new(
                    CTreeGraph::new(opts).insert_vertices(&all).0,
                )),
                Some(false) => AnyVersioned::Int(VersionedGraph::new(
                    CTreeGraph::new(opts).insert_vertices(&all).0,
                )),
                Some(true) => AnyVersioned::Float(VersionedGraph::new(
                    CTreeGraph::new(opts).insert_vertices(&all).0,
                )),
            })
        })?;
        Ok(DynamicGraph {
            inner,
            rule,
            turn: Mutex::new(()),
        })
    }

    /// A DynamicGraph holding a copy of `graph` (a static Graph: O(n + m) build; a Snapshot:
    /// O(1), sharing its trees) as version 0. Its weight type and directedness are kept. A
    /// DynamicGraph holds each edge once: the parallel edges of a multigraph (a Graph built
    /// with `dedup=None`) are merged, their weights combined by `dedup`.
    ///
    /// Example: `dg = weald.DynamicGraph.from_graph(weald.read("facebook_combined.txt.gz"))`
    #[staticmethod]
    #[pyo3(signature = (graph, dedup="min"))]
    // A single-backend `AnyGraph` makes the `if let` irrefutable.
    #[allow(irrefutable_let_patterns)]
    fn from_graph(py: Python<'_>, graph: &Bound<'_, PyAny>, dedup: &str) -> PyResult<Self> {
        let rule = parse_combine(Some(dedup))?.unwrap_or_default();
        let t = target_of(graph)?;
        let b = CTreeOptions::default().b;
        let inner = compute(py, move || {
            Ok(match &t {
                Target::Static(a) => {
                    if let weald::AnyGraph::Csr(c) = &**a {
                        return Ok(match c {
                            AnyCsr::Unweighted(c) => {
                                CTreeGraph::try_from_csr_merging(c, b, rule)?.into()
                            }
                            AnyCsr::Int(c) => CTreeGraph::try_from_csr_merging(c, b, rule)?.into(),
                            AnyCsr::Float(c) => {
                                CTreeGraph::try_from_csr_merging(c, b, rule)?.into()
                            }
                        });
                    }
                    weald::with_graph!(&**a, g => ctree_of(g, b, rule)?.into())
                }
                Target::Snap(s) => match &**s {
                    SnapData::Unweighted(s, ..) => {
                        AnyVersioned::Unweighted(VersionedGraph::new(s.graph().clone()))
                    }
                    SnapData::Int(s, ..) => {
                        AnyVersioned::Int(VersionedGraph::new(s.graph().clone()))
                    }
                    SnapData::Float(s, ..) => {
                        AnyVersioned::Float(VersionedGraph::new(s.graph().clone()))
                    }
                },
            })
        })?;
        Ok(DynamicGraph {
            inner,
            rule,
            turn: Mutex::new(()),
        })
    }

    /// Insert edges `(src[i], dst[i])` with weights `w[i]` as one new version.
    ///
    /// Endpoints become present. An edge already present (or repeated in the batch) gets its
    /// weight combined by the graph's `dedup` rule. On a weighted graph `w=None` means weight 1.
    ///
    /// Returns: UpdateResult (`inserted` new edges, `updated` existing ones; undirected edges
    /// count once). Raises IndexError for a negative id, ValueError for mismatched lengths or
    /// weights on an unweighted graph. Complexity: O(k log(n m / k)) for k edges, parallel.
    ///
    /// Example:
    ///     >>> dg.insert_edges(np.array([0, 1]), np.array([1, 2])).inserted
    ///     2
    #[pyo3(signature = (src, dst, w=None))]
    fn insert_edges(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
        w: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<UpdateResult> {
        let s = convert::vertex_ids(src, "src", None)?;
        let d = convert::vertex_ids(dst, "dst", None)?;
        if s.len() != d.len() {
            return Err(PyValueError::new_err(format!(
                "src and dst differ in length ({} and {})",
                s.len(),
                d.len()
            )));
        }
        let w = match (&self.inner, w) {
            (_, None) => None,
            (AnyVersioned::Unweighted(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "this DynamicGraph is unweighted; create it with weighted=True to pass w",
                ))
            }
            (AnyVersioned::Int(_), Some(w)) => Some(convert::weights(w, Some(false))?),
            (AnyVersioned::Float(_), Some(w)) => Some(convert::weights(w, Some(true))?),
        };
        if let Some(w) = &w {
            let len = match w {
                Weights::Int(x) => x.len(),
                Weights::Float(x) => x.len(),
            };
            if len != s.len() {
                return Err(PyValueError::new_err(format!(
                    "w has {len} entries but there are {} edges",
                    s.len()
                )));
            }
        }
        let batch = match (self.empty_batch(), w) {
            (AnyBatch::Unweighted(mut b), _) => {
                b.insert_edges = triples(s, d, None, ());
                AnyBatch::Unweighted(b)
            }
            (AnyBatch::Int(mut b), w) => {
                let w = match w {
                    Some(Weights::Int(w)) => Some(w),
                    _ => None,
                };
                b.insert_edges = triples(s, d, w, 1);
                AnyBatch::Int(b)
            }
            (AnyBatch::Float(mut b), w) => {
                let w = match w {
                    Some(Weights::Float(w)) => Some(w),
                    _ => None,
                };
                b.insert_edges = triples(s, d, w, 1.0);
                AnyBatch::Float(b)
            }
        };
        self.apply(py, batch)
    }

    /// Delete edges `(src[i], dst[i])` as one new version (both directions if undirected).
    /// Vertices stay present. Returns UpdateResult (`deleted`, `absent`).
    /// Complexity: O(k log(n m / k)) for k edges, parallel.
    ///
    /// Example: `dg.delete_edges(np.array([0]), np.array([1])).deleted` is 1 if 0-1 existed.
    fn delete_edges(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
    ) -> PyResult<UpdateResult> {
        let s = convert::vertex_ids(src, "src", None)?;
        let d = convert::vertex_ids(dst, "dst", None)?;
        if s.len() != d.len() {
            return Err(PyValueError::new_err(format!(
                "src and dst differ in length ({} and {})",
                s.len(),
                d.len()
            )));
        }
        let pairs: Vec<(Vertex, Vertex)> = s.into_iter().zip(d).collect();
        let mut b = self.empty_batch();
        with_batch!(&mut b, x => x.delete_edges = pairs);
        self.apply(py, b)
    }

    /// Make vertices present (isolated; existing ones are left alone) as one new version.
    /// Returns UpdateResult (counts are 0; the version is new). Complexity: O(k log n).
    ///
    /// Example: `dg.insert_vertices(np.arange(100, 110))`.
    fn insert_vertices(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<UpdateResult> {
        let v = convert::vertex_ids(ids, "ids", None)?;
        let mut b = self.empty_batch();
        with_batch!(&mut b, x => x.insert_vertices = v);
        self.apply(py, b)
    }

    /// Delete vertices and all their edges as one new version. Returns UpdateResult:
    /// `deleted` counts the vertices removed plus the edges removed with them, `absent` the
    /// vertices that were not present. (Ids of absent vertices below `num_vertices` behave
    /// as isolated vertices in snapshots.) Complexity: O(k log n + edges removed).
    ///
    /// Example: `dg.delete_vertices(np.array([3])).deleted` is 1 + degree of 3.
    fn delete_vertices(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<UpdateResult> {
        let v = convert::vertex_ids(ids, "ids", None)?;
        let mut b = self.empty_batch();
        with_batch!(&mut b, x => x.delete_vertices = v);
        self.apply(py, b)
    }

    /// The latest version: an immutable Snapshot (a Graph) that every algorithm accepts.
    ///
    /// Use it as a context manager so the version is released at the end of the block (it is
    /// also released when the object is garbage-collected):
    ///
    ///     with dg.snapshot() as s:
    ///         cc = weald.connected_components(s)
    ///
    /// Taking it is O(1) for the version plus O(n) to flatten the vertex array.
    fn snapshot(&self, py: Python<'_>) -> PyResult<Py<Snapshot>> {
        let inner = &self.inner;
        let snap = py.detach(|| latest(inner));
        let data = compute(py, move || snap.flatten())?;
        new_snapshot(py, data)
    }

    /// The latest version number (0 at creation, +1 per update call).
    #[getter]
    fn version(&self) -> u64 {
        with_versioned!(&self.inner, g => g.version())
    }

    /// Number of vertices of the latest version (1 + the largest id present).
    #[getter]
    fn num_vertices(&self) -> usize {
        with_versioned!(&self.inner, g => g.acquire().num_vertices())
    }

    /// Number of edges of the latest version (undirected edges once). O(1) for a directed
    /// graph; an undirected one's self loops are counted (in parallel, without the GIL).
    #[getter]
    fn num_edges(&self, py: Python<'_>) -> PyResult<usize> {
        let inner = &self.inner;
        let work = with_versioned!(inner, g => {
            let s = g.acquire();
            s.num_vertices() + s.num_arcs()
        });
        compute_sized(py, work, || {
            Ok(with_versioned!(inner, g => g.acquire().num_edges()))
        })
    }

    /// Number of stored arcs of the latest version.
    #[getter]
    fn num_arcs(&self) -> usize {
        with_versioned!(&self.inner, g => g.acquire().num_arcs())
    }

    #[getter]
    fn is_directed(&self) -> bool {
        with_versioned!(&self.inner, g => g.acquire().is_directed())
    }

    #[getter]
    fn is_weighted(&self) -> bool {
        !matches!(self.inner, AnyVersioned::Unweighted(_))
    }

    fn __len__(&self) -> usize {
        self.num_vertices()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<weald.DynamicGraph n={} m={} {} weighted={} backend=ctree version={}>",
            self.num_vertices(),
            self.num_edges(py)
                .map_or_else(|_| "?".to_string(), |m| m.to_string()),
            if self.is_directed() {
                "directed"
            } else {
                "undirected"
            },
            if self.is_weighted() { "True" } else { "False" },
            self.version()
        )
    }
}

/// A Python `weald.Snapshot` holding `data` (a DynamicGraph's or a Store's version).
pub(crate) fn new_snapshot(py: Python<'_>, data: SnapData) -> PyResult<Py<Snapshot>> {
    let init = PyClassInitializer::from(Graph::new(Target::Snap(Arc::new(data))))
        .add_subclass(Snapshot {});
    Py::new(py, init)
}

/// One version of a DynamicGraph or a Store: a Graph that never changes, whatever updates
/// follow.
/// Release it with `release()` or by leaving its `with` block; using it afterwards raises
/// ValueError.
#[pyclass(frozen, extends = Graph, module = "weald")]
pub struct Snapshot {}

#[pymethods]
impl Snapshot {
    /// The version number this snapshot shows.
    #[getter]
    fn version(slf: &Bound<'_, Self>) -> PyResult<u64> {
        match slf.as_super().get().target()? {
            Target::Snap(s) => Ok(s.version()),
            Target::Static(_) => Err(PyTypeError::new_err("not a snapshot")),
        }
    }

    /// Release the version now (idempotent); later use raises ValueError.
    ///
    /// Example: `s = dg.snapshot(); ...; s.release()`.
    fn release(slf: &Bound<'_, Self>) {
        let g = slf.as_super().get();
        let py = slf.py();
        // The last reference may free a large version: do it without the GIL.
        py.detach(|| {
            g.release();
        });
    }

    /// True once released.
    #[getter]
    fn released(slf: &Bound<'_, Self>) -> bool {
        slf.as_super().get().is_released()
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(slf: &Bound<'_, Self>, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        Snapshot::release(slf);
        false
    }
}
