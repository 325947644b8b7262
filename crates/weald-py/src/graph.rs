//! `weald.Graph`, the loaders and generators, and `with_target!`, the one place where the
//! Python layer erases graph types (static graphs via the facade's `with_graph!`, C-tree
//! snapshots via their flat view).

use crate::convert::{self, Int, Weights};
use crate::pool::{compute, compute_sized};
use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyTuple};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock, RwLock};
use weald::any::csr_with_ids;
use weald::AnyGraph;
use weald_graph::batch::Combine;
use weald_graph::{EdgeList, Graph as _, InGraph, Vertex, WealdError, Weight};
use weald_io::{gen::WeightRange, Format, LoadOptions};
use weald_storage::ctree::{FlatSnapshot, Snapshot as CSnapshot};
use weald_storage::{AnyCsr, BuildOptions, Csr};

/// The ids of a relabelled snapshot's vertices (`None`: its vertices are the store's ids).
pub type SnapIds = Option<weald::any::IdMap>;

/// One acquired C-tree version and its flat view (what algorithms run on), relabelled when the
/// version's ids are sparse ([`weald::any::flat_of_version`]).
pub enum SnapData {
    Unweighted(CSnapshot<()>, FlatSnapshot<()>, SnapIds),
    Int(CSnapshot<i32>, FlatSnapshot<i32>, SnapIds),
    Float(CSnapshot<f64>, FlatSnapshot<f64>, SnapIds),
}

impl SnapData {
    pub fn version(&self) -> u64 {
        match self {
            SnapData::Unweighted(s, ..) => s.version(),
            SnapData::Int(s, ..) => s.version(),
            SnapData::Float(s, ..) => s.version(),
        }
    }

    /// The snapshot as a CSR (a copy, e.g. to write it), with its id map if relabelled.
    pub fn to_csr(&self) -> AnyCsr {
        let ids = self.original_ids();
        match self {
            SnapData::Unweighted(_, f, _) => AnyCsr::from(csr_with_ids(f, ids)),
            SnapData::Int(_, f, _) => AnyCsr::from(csr_with_ids(f, ids)),
            SnapData::Float(_, f, _) => AnyCsr::from(csr_with_ids(f, ids)),
        }
    }

    /// The store's ids of the vertices, if the snapshot renumbered them.
    pub fn original_ids(&self) -> Option<&[u32]> {
        match self {
            SnapData::Unweighted(.., ids) | SnapData::Int(.., ids) | SnapData::Float(.., ids) => {
                ids.as_deref()
            }
        }
    }

    /// Whether `v` is a vertex present in the snapshot.
    pub fn has_vertex(&self, v: Vertex) -> bool {
        match self {
            SnapData::Unweighted(_, f, _) => f.has_vertex(v),
            SnapData::Int(_, f, _) => f.has_vertex(v),
            SnapData::Float(_, f, _) => f.has_vertex(v),
        }
    }
}

/// What a Python graph object refers to. Cloning is two atomic increments.
#[derive(Clone)]
pub enum Target {
    Static(Arc<AnyGraph>),
    Snap(Arc<SnapData>),
}

/// Run `$body` with `$g` bound to the concrete graph (`&Csr<W>` or `&FlatSnapshot<W>`)
/// inside a `&Target`. `$body` must type-check for every backend and weight type.
#[macro_export]
macro_rules! with_target {
    ($t:expr, $g:ident => $body:expr) => {
        match $t {
            $crate::graph::Target::Static(a) => weald::with_graph!(&**a, $g => $body),
            $crate::graph::Target::Snap(s) => match &**s {
                $crate::graph::SnapData::Unweighted(_, $g, _) => $body,
                $crate::graph::SnapData::Int(_, $g, _) => $body,
                $crate::graph::SnapData::Float(_, $g, _) => $body,
            },
        }
    };
}

impl Target {
    pub fn backend(&self) -> &'static str {
        match self {
            Target::Static(a) => a.backend(),
            Target::Snap(_) => "ctree",
        }
    }

    /// `none`, `i32` or `f64`.
    pub fn weight_name(&self) -> &'static str {
        match self {
            Target::Static(a) => a.weight_name(),
            Target::Snap(s) => match &**s {
                SnapData::Unweighted(..) => "none",
                SnapData::Int(..) => "i32",
                SnapData::Float(..) => "f64",
            },
        }
    }

    pub fn num_vertices(&self) -> usize {
        with_target!(self, g => g.num_vertices())
    }

    /// Vertices + stored arcs: the size of a whole-graph computation on it.
    pub fn work(&self) -> usize {
        with_target!(self, g => g.num_vertices() + g.num_arcs())
    }
}

/// The Python object behind an algorithm's `graph` argument (a `Graph` or a `Snapshot`).
pub fn target_of(obj: &Bound<'_, PyAny>) -> PyResult<Target> {
    match obj.cast::<Graph>() {
        Ok(g) => g.get().target(),
        Err(_) => Err(PyTypeError::new_err(format!(
            "expected a weald.Graph or weald.Snapshot, got {}",
            obj.get_type().name()?
        ))),
    }
}

/// A graph: a static CSR (from `read`, `Graph.from_edges`, the generators) or, as the base of
/// `Snapshot`, one version of a `DynamicGraph`.
///
/// Vertices are dense ints `0..num_vertices`; every per-vertex array that Weald returns is
/// indexed by them. Graphs read with relabelling keep the file's ids in `original_ids()`, and
/// so do snapshots of a version whose ids are sparse (fewer than one id in 64 holds a vertex),
/// which are renumbered too.
/// Undirected graphs store each edge in both directions (a self loop once).
#[pyclass(frozen, subclass, module = "weald")]
pub struct Graph {
    /// `None` once a snapshot is released.
    target: RwLock<Option<Target>>,
    /// Node labels from `from_networkx` (a Python list indexed by vertex), if any.
    labels: OnceLock<Py<PyAny>>,
}

impl Graph {
    pub fn new(t: Target) -> Self {
        Graph {
            target: RwLock::new(Some(t)),
            labels: OnceLock::new(),
        }
    }

    pub fn from_csr(c: AnyCsr) -> Self {
        Graph::new(Target::Static(Arc::new(AnyGraph::from(c))))
    }

    /// The graph this object refers to (`ValueError` once a snapshot is released).
    pub fn target(&self) -> PyResult<Target> {
        self.target
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| {
                PyValueError::new_err("this snapshot was released (use it inside its `with` block)")
            })
    }

    /// Drop the reference (snapshots: releases the version). Returns whether it was held.
    pub fn release(&self) -> bool {
        self.target
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .is_some()
    }

    pub fn is_released(&self) -> bool {
        self.target
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .is_none()
    }
}

/// Every arc (directed) or every edge once with `u <= v` (undirected), in order of `u` then
/// `v`, with weights as f64 (exact for i32 weights).
fn edge_arrays<G: weald_graph::Graph>(g: &G) -> (Vec<i64>, Vec<i64>, Vec<f64>) {
    let directed = g.is_directed();
    let m = if directed {
        g.num_arcs()
    } else {
        g.num_edges()
    };
    let (mut s, mut d) = (Vec::with_capacity(m), Vec::with_capacity(m));
    let mut w = Vec::with_capacity(if G::W::WEIGHTED { m } else { 0 });
    for u in 0..g.num_vertices() as Vertex {
        g.for_each_out(u, |v, x| {
            if directed || u <= v {
                s.push(u as i64);
                d.push(v as i64);
                if G::W::WEIGHTED {
                    w.push(x.to_f64());
                }
            }
            true
        });
    }
    (s, d, w)
}

/// CSR arrays `(indptr, indices, data)` of the stored arcs.
fn csr_arrays<G: weald_graph::Graph>(g: &G) -> (Vec<i64>, Vec<i64>, Vec<f64>) {
    let n = g.num_vertices();
    let mut ptr = Vec::with_capacity(n + 1);
    let mut idx = Vec::with_capacity(g.num_arcs());
    let mut w = Vec::with_capacity(if G::W::WEIGHTED { g.num_arcs() } else { 0 });
    ptr.push(0i64);
    for u in 0..n as Vertex {
        g.for_each_out(u, |v, x| {
            idx.push(v as i64);
            if G::W::WEIGHTED {
                w.push(x.to_f64());
            }
            true
        });
        ptr.push(idx.len() as i64);
    }
    (ptr, idx, w)
}

fn weights_out<'py>(py: Python<'py>, kind: &str, w: Vec<f64>) -> Option<Bound<'py, PyAny>> {
    match kind {
        "none" => None,
        "i32" => Some(
            PyArray1::from_vec(py, w.into_iter().map(|x| x as i32).collect::<Vec<_>>()).into_any(),
        ),
        _ => Some(PyArray1::from_vec(py, w).into_any()),
    }
}

pub fn parse_combine(dedup: Option<&str>) -> PyResult<Option<Combine>> {
    dedup
        .map(|s| s.parse::<Combine>().map_err(PyValueError::new_err))
        .transpose()
}

fn parse_format(format: Option<&str>) -> PyResult<Option<Format>> {
    format
        .map(|s| s.parse::<Format>().map_err(PyValueError::new_err))
        .transpose()
}

#[pymethods]
impl Graph {
    /// Build a static graph from numpy arrays of edge endpoints.
    ///
    /// Args:
    ///     src, dst: integer arrays (any integer dtype) of equal length, ids >= 0.
    ///     weights: optional array of the same length; an integer dtype gives int32 weights
    ///         (each must fit), a float dtype float64 weights.
    ///     num_vertices: number of vertices (default: largest id + 1); ids must be below it.
    ///     directed: keep arcs as given (True) or store every edge both ways (False).
    ///     dedup: merge duplicate edges, combining weights by "min" (default), "max", "sum",
    ///         "first" or "last"; None keeps a multigraph.
    ///     drop_self_loops: remove edges v-v.
    ///
    /// Returns:
    ///     Graph (backend "csr"). The arrays are copied; building is O(n + m), in parallel.
    ///
    /// Raises:
    ///     IndexError for a negative id or one >= num_vertices; ValueError for arrays of
    ///     different lengths; TypeError for non-integer ids.
    ///
    /// Example:
    ///     >>> g = weald.Graph.from_edges(np.array([0, 1]), np.array([1, 2]))
    ///     >>> g.num_vertices, g.num_edges
    ///     (3, 2)
    #[staticmethod]
    #[pyo3(signature = (src, dst, weights=None, num_vertices=None, directed=false, dedup=Some("min"), drop_self_loops=false))]
    #[allow(clippy::too_many_arguments)]
    fn from_edges(
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
        num_vertices: Option<Int>,
        directed: bool,
        dedup: Option<&str>,
        drop_self_loops: bool,
    ) -> PyResult<Graph> {
        let limit = match num_vertices {
            Some(n) => Some(n.get::<u32>("num_vertices")? as usize),
            None => None,
        };
        let s = convert::vertex_ids(src, "src", limit)?;
        let d = convert::vertex_ids(dst, "dst", limit)?;
        if s.len() != d.len() {
            return Err(PyValueError::new_err(format!(
                "src and dst differ in length ({} and {})",
                s.len(),
                d.len()
            )));
        }
        let w = weights.map(|w| convert::weights(w, None)).transpose()?;
        if let Some(w) = &w {
            let len = match w {
                Weights::Int(x) => x.len(),
                Weights::Float(x) => x.len(),
            };
            if len != s.len() {
                return Err(PyValueError::new_err(format!(
                    "weights has {len} entries but there are {} edges",
                    s.len()
                )));
            }
        }
        let n = limit.unwrap_or_else(|| s.iter().chain(&d).max().map_or(0, |&m| m as usize + 1));
        let opts = BuildOptions {
            directed,
            in_edges: true,
            drop_self_loops,
            dedup: parse_combine(dedup)?,
            relabel: false,
        };
        let any = compute(py, move || {
            let m = s.len();
            Ok(match w {
                None => AnyCsr::Unweighted(
                    Csr::build(
                        EdgeList {
                            num_vertices: n,
                            src: s,
                            dst: d,
                            weights: vec![(); m],
                        },
                        &opts,
                    )?
                    .0,
                ),
                Some(Weights::Int(w)) => AnyCsr::Int(
                    Csr::build(
                        EdgeList {
                            num_vertices: n,
                            src: s,
                            dst: d,
                            weights: w,
                        },
                        &opts,
                    )?
                    .0,
                ),
                Some(Weights::Float(w)) => AnyCsr::Float(
                    Csr::build(
                        EdgeList {
                            num_vertices: n,
                            src: s,
                            dst: d,
                            weights: w,
                        },
                        &opts,
                    )?
                    .0,
                ),
            })
        })?;
        Ok(Graph::from_csr(any))
    }

    /// Number of vertices n (ids are 0..n).
    #[getter]
    fn num_vertices(&self) -> PyResult<usize> {
        Ok(self.target()?.num_vertices())
    }

    /// Number of edges: undirected edges (a self loop counts once) or directed arcs. O(1),
    /// except for an undirected snapshot, whose self loops are counted (in parallel, without
    /// the GIL) the first time.
    #[getter]
    fn num_edges(&self, py: Python<'_>) -> PyResult<usize> {
        let t = self.target()?;
        compute_sized(py, t.work(), move || {
            Ok(with_target!(&t, g => g.num_edges()))
        })
    }

    /// Number of stored arcs (about 2 * num_edges for an undirected graph).
    #[getter]
    fn num_arcs(&self) -> PyResult<usize> {
        Ok(with_target!(&self.target()?, g => g.num_arcs()))
    }

    /// True for a directed graph.
    #[getter]
    fn is_directed(&self) -> PyResult<bool> {
        Ok(with_target!(&self.target()?, g => g.is_directed()))
    }

    /// True if edges carry weights.
    #[getter]
    fn is_weighted(&self) -> PyResult<bool> {
        Ok(self.target()?.weight_name() != "none")
    }

    /// The weight dtype: None, "int32" or "float64".
    #[getter]
    fn weight_dtype(&self) -> PyResult<Option<&'static str>> {
        Ok(match self.target()?.weight_name() {
            "none" => None,
            "i32" => Some("int32"),
            _ => Some("float64"),
        })
    }

    /// The storage backend: "csr" (static) or "ctree" (a DynamicGraph snapshot).
    #[getter]
    fn backend(&self) -> PyResult<&'static str> {
        Ok(self.target()?.backend())
    }

    /// Node labels given to `weald.from_networkx` (a list indexed by vertex), or None.
    #[getter]
    fn labels(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.labels.get().map(|l| l.clone_ref(py))
    }

    /// Attach node labels (used by `weald.from_networkx`; once only).
    fn _set_labels(&self, labels: Py<PyAny>) -> PyResult<()> {
        self.labels
            .set(labels)
            .map_err(|_| PyValueError::new_err("labels are already set"))
    }

    fn __len__(&self) -> PyResult<usize> {
        self.num_vertices()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        match self.target() {
            Err(_) => "<weald.Snapshot (released)>".into(),
            Ok(t) => {
                let (n, dir) = with_target!(&t, g => (g.num_vertices(), g.is_directed()));
                // Counting an undirected snapshot's edges scans for self loops: in the pool.
                let m = compute_sized(py, t.work(), || Ok(with_target!(&t, g => g.num_edges())))
                    .map_or_else(|_| "?".to_string(), |m| m.to_string());
                let ver = match &t {
                    Target::Snap(s) => format!(" version={}", s.version()),
                    Target::Static(_) => String::new(),
                };
                let cls = if ver.is_empty() { "Graph" } else { "Snapshot" };
                format!(
                    "<weald.{cls} n={n} m={m} {} weights={} backend={}{ver}>",
                    if dir { "directed" } else { "undirected" },
                    t.weight_name(),
                    t.backend()
                )
            }
        }
    }

    /// Degree of every vertex as an int64 array.
    ///
    /// Args:
    ///     mode: "out" (default; for undirected graphs the number of incident edge ends,
    ///         a self loop counting once) or "in" (directed graphs).
    ///
    /// Complexity: O(n). Example: `g.degree().max()`.
    #[pyo3(signature = (mode="out"))]
    fn degree<'py>(&self, py: Python<'py>, mode: &str) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let t = self.target()?;
        let inn = match mode {
            "out" => false,
            "in" => true,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "mode must be \"out\" or \"in\", got {mode:?}"
                )))
            }
        };
        let d = compute_sized(py, t.work(), move || {
            use rayon::prelude::*;
            with_target!(&t, g => {
                if inn && !g.has_in_edges() {
                    return Err(WealdError::Invalid("this directed graph has no in-arcs stored".into()));
                }
                Ok((0..g.num_vertices() as Vertex)
                    .into_par_iter()
                    .with_min_len(1024)
                    .map(|v| if inn { g.in_degree(v) as i64 } else { g.out_degree(v) as i64 })
                    .collect::<Vec<i64>>())
            })
        })?;
        Ok(PyArray1::from_vec(py, d))
    }

    /// Out-neighbours of vertex `v` (sorted int64 array; all neighbours if undirected).
    ///
    /// With `weights=True` returns `(neighbours, weights)`. Raises IndexError for a bad `v`.
    /// Complexity: O(deg(v)). Example: `g.neighbors(0)`.
    #[pyo3(signature = (v, weights=false))]
    fn neighbors<'py>(
        &self,
        py: Python<'py>,
        v: Int,
        weights: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.target()?;
        let v = v.vertex(Some(t.num_vertices()))?;
        let (ns, ws) = with_target!(&t, g => {
            let mut ns = Vec::with_capacity(g.out_degree(v));
            let mut ws = Vec::new();
            g.for_each_out(v, |u, w| {
                ns.push(u as i64);
                if weights {
                    ws.push(w.to_f64());
                }
                true
            });
            (ns, ws)
        });
        let ns = PyArray1::from_vec(py, ns).into_any();
        if !weights {
            return Ok(ns);
        }
        let ws = weights_out(py, t.weight_name(), ws).unwrap_or_else(|| {
            PyArray1::<f64>::from_vec(py, vec![1.0; ns.len().unwrap_or(0)]).into_any()
        });
        Ok(PyTuple::new(py, [ns, ws])?.into_any())
    }

    /// All edges as numpy arrays `(src, dst)`, or `(src, dst, weights)` for a weighted graph.
    ///
    /// An undirected graph lists each edge once with `src <= dst`; a directed graph every
    /// arc. Order: by `src`, then `dst`. Complexity: O(n + m).
    ///
    /// Example:
    ///     >>> s, d = g.edges()
    fn edges<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let t = self.target()?;
        let kind = t.weight_name();
        let (s, d, w) = compute_sized(py, t.work(), move || {
            Ok(with_target!(&t, g => edge_arrays(g)))
        })?;
        let s = PyArray1::from_vec(py, s).into_any();
        let d = PyArray1::from_vec(py, d).into_any();
        match weights_out(py, kind, w) {
            None => PyTuple::new(py, [s, d]),
            Some(w) => PyTuple::new(py, [s, d, w]),
        }
    }

    /// The stored adjacency as CSR arrays `(indptr, indices, data)`; `data` is None when
    /// unweighted. Used by `to_scipy`. Complexity: O(n + m).
    fn _csr_arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let t = self.target()?;
        let kind = t.weight_name();
        let (p, i, w) = compute_sized(py, t.work(), move || {
            Ok(with_target!(&t, g => csr_arrays(g)))
        })?;
        let p = PyArray1::from_vec(py, p).into_any();
        let i = PyArray1::from_vec(py, i).into_any();
        let w = weights_out(py, kind, w).unwrap_or_else(|| py.None().into_bound(py));
        PyTuple::new(py, [p, i, w])
    }

    /// The file's vertex ids (int64 array indexed by vertex) if `read` relabelled them, or the
    /// store's ids if a snapshot did (its version's ids were sparse), else None (ids are the
    /// file's or the store's own).
    fn original_ids<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray1<i64>>>> {
        Ok(match &self.target()? {
            Target::Static(a) => a.original_ids(),
            Target::Snap(s) => s.original_ids(),
        }
        .map(|ids| PyArray1::from_vec(py, ids.iter().map(|&x| x as i64).collect::<Vec<_>>())))
    }

    /// Write the graph to `path`: format "edgelist" (.txt, .el; .gz compresses), "ligra"
    /// (.adj) or "binary" (.wgb, Weald's fast snapshot format). `format=None` picks it from
    /// the file name. Edge lists are written in the original ids, if any.
    ///
    /// Raises ValueError for a format that cannot be written, OSError on I/O failure.
    /// Example: `g.write("/tmp/g.wgb"); weald.read("/tmp/g.wgb")`.
    #[pyo3(signature = (path, format=None))]
    // A single-backend `AnyGraph` makes the `if let` irrefutable.
    #[allow(irrefutable_let_patterns)]
    fn write(&self, py: Python<'_>, path: PathBuf, format: Option<&str>) -> PyResult<()> {
        let t = self.target()?;
        let fmt = parse_format(format)?;
        compute(py, move || {
            let c = match &t {
                Target::Static(a) => match &**a {
                    AnyGraph::Csr(c) => return weald_io::save(c, &path, fmt),
                    g => g.to_csr(),
                },
                Target::Snap(s) => s.to_csr(),
            };
            weald_io::save(&c, &path, fmt)
        })
    }
}

/// Read a graph file into a static Graph (backend "csr"), parsing in parallel.
///
/// Args:
///     path: str or os.PathLike. Gzip input is recognised by content.
///     format: None (from the extension: .txt/.el/.tsv/.edges/.snap edge lists, .csv, .mtx,
///         .gr DIMACS, .graph METIS, .adj Ligra, .wgb binary; a trailing .gz is ignored) or
///         one of "edgelist", "csv", "temporal", "mtx", "dimacs", "metis", "ligra", "binary".
///     directed: None means what the format declares (edge lists: undirected).
///     weighted: None means what the format declares (edge lists: unweighted); True reads
///         the third column as the weight.
///     drop_self_loops: remove edges v-v.
///     dedup: merge duplicate edges by "min" (default), "max", "sum", "first", "last"; None
///         keeps a multigraph.
///     relabel: renumber ids to 0..n in increasing order (default: True for edge lists, whose
///         ids may be sparse; then `original_ids()` maps back).
///
/// Returns: Graph. Complexity: O(file size + n + m), parallel.
///
/// Raises:
///     FileNotFoundError; weald.ParseError (a ValueError with .path and .line) for malformed
///     text; ValueError for an unknown format or option.
///
/// Example:
///     >>> g = weald.read("facebook_combined.txt.gz")
///     >>> g.num_vertices, g.num_edges
///     (4039, 88234)
#[pyfunction]
#[pyo3(signature = (path, format=None, directed=None, weighted=None, drop_self_loops=false, dedup=Some("min"), relabel=None))]
#[allow(clippy::too_many_arguments)]
pub fn read(
    py: Python<'_>,
    path: PathBuf,
    format: Option<&str>,
    directed: Option<bool>,
    weighted: Option<bool>,
    drop_self_loops: bool,
    dedup: Option<&str>,
    relabel: Option<bool>,
) -> PyResult<Graph> {
    let opts = LoadOptions {
        format: parse_format(format)?,
        directed,
        weighted,
        drop_self_loops,
        dedup: parse_combine(dedup)?,
        relabel,
        ..LoadOptions::default()
    };
    let loaded = compute(py, move || weald_io::load(&path, &opts))?;
    Ok(Graph::from_csr(loaded.graph))
}

/// Optional generator weights `(lo, hi)`: two ints give int32 weights (each must fit), otherwise
/// float64; checked by [`weald_io::gen::WeightRange`], as the CLI's `--weights`.
fn weight_range(weights: Option<&Bound<'_, PyTuple>>) -> PyResult<Option<WeightRange>> {
    let Some(t) = weights else { return Ok(None) };
    if t.len() != 2 {
        return Err(PyValueError::new_err("weights must be a (lo, hi) pair"));
    }
    let (a, b) = (t.get_item(0)?, t.get_item(1)?);
    // An int, or an integer numpy scalar (`__index__`, which floats lack).
    let integer = |x: &Bound<'_, PyAny>| -> PyResult<bool> {
        Ok(x.is_instance_of::<PyInt>() || x.hasattr("__index__")?)
    };
    let float = |x: &Bound<'_, PyAny>| -> PyResult<f64> {
        x.extract::<f64>().map_err(|e| {
            if e.is_instance_of::<pyo3::exceptions::PyOverflowError>(x.py()) {
                PyValueError::new_err("weights: an end is beyond the largest float")
            } else {
                e
            }
        })
    };
    let r = if integer(&a)? && integer(&b)? {
        let (lo, hi): (Int, Int) = (a.extract()?, b.extract()?);
        WeightRange::int(lo.get("weights (lo)")?, hi.get("weights (hi)")?)
    } else {
        WeightRange::float(float(&a)?, float(&b)?)
    };
    r.map(Some)
        .map_err(|e| PyValueError::new_err(format!("weights: {e}")))
}

/// The generated edges with their weights, built into a graph.
fn add_weights(
    el: EdgeList<()>,
    weights: Option<WeightRange>,
    seed: u64,
    opts: BuildOptions,
    py: Python<'_>,
) -> PyResult<Graph> {
    let any = compute(py, move || {
        Ok(weald_io::build(weald_io::gen::with_weights(el, weights, seed), &opts)?.0)
    })?;
    Ok(Graph::from_csr(any))
}

fn gen_opts(directed: bool) -> BuildOptions {
    BuildOptions {
        directed,
        in_edges: true,
        drop_self_loops: true,
        dedup: Some(Combine::Min),
        relabel: false,
    }
}

/// An R-MAT (Graph500 Kronecker) graph: 2**scale vertices, edge_factor * 2**scale generated
/// edges (a = 0.57, b = c = 0.19), self loops dropped and duplicates merged.
///
/// Args:
///     scale: log2 of the number of vertices (0..=31).
///     edge_factor: generated edges per vertex.
///     seed: the same seed gives the same graph at any thread count.
///     directed: keep arcs directed.
///     weights: None, or (lo, hi): uniform int32 weights if both are ints, else float64.
///
/// Complexity: O(m log n), parallel. Example: `g = weald.generate.rmat(12)`.
#[pyfunction]
#[pyo3(
    signature = (scale, edge_factor=Int::from(16), seed=Int::from(1), directed=false, weights=None),
    text_signature = "(scale, edge_factor=16, seed=1, directed=False, weights=None)"
)]
pub fn rmat(
    py: Python<'_>,
    scale: Int,
    edge_factor: Int,
    seed: Int,
    directed: bool,
    weights: Option<&Bound<'_, PyTuple>>,
) -> PyResult<Graph> {
    let (scale, edge_factor): (u32, u32) = (scale.get("scale")?, edge_factor.get("edge_factor")?);
    let seed: u64 = seed.get("seed")?;
    if scale > 31 {
        return Err(PyValueError::new_err(format!(
            "scale must be at most 31, got {scale}"
        )));
    }
    let m = (edge_factor as u64) << scale;
    let w = weight_range(weights)?;
    let el = compute(py, move || {
        weald_io::gen::ensure_fits(1 << scale, m, w.is_some(), directed)?;
        Ok(weald_io::gen::rmat(&weald_io::gen::RmatParams {
            scale,
            edge_factor,
            seed,
            ..Default::default()
        }))
    })?;
    add_weights(el, w, seed, gen_opts(directed), py)
}

/// A uniform random graph: m edges with both endpoints uniform in 0..n (Erdős–Rényi G(n, m)
/// with replacement), self loops dropped and duplicates merged.
///
/// Args: n, m, seed, directed, weights (as for `rmat`).
/// Raises ValueError for m > 0 edges with n = 0, or a bad weight range.
/// Complexity: O(m log m), parallel. Example: `g = weald.generate.uniform(1000, 5000)`.
#[pyfunction]
#[pyo3(
    signature = (n, m, seed=Int::from(1), directed=false, weights=None),
    text_signature = "(n, m, seed=1, directed=False, weights=None)"
)]
pub fn uniform(
    py: Python<'_>,
    n: Int,
    m: Int,
    seed: Int,
    directed: bool,
    weights: Option<&Bound<'_, PyTuple>>,
) -> PyResult<Graph> {
    let (n, m, seed): (u64, u64, u64) = (n.get("n")?, m.get("m")?, seed.get("seed")?);
    if n >= u32::MAX as u64 {
        return Err(PyValueError::new_err(format!(
            "n must be below 2^32 - 1, got {n}"
        )));
    }
    if n == 0 && m > 0 {
        return Err(PyValueError::new_err(format!(
            "m = {m} edges need at least one vertex (n = 0)"
        )));
    }
    let w = weight_range(weights)?;
    let el = compute(py, move || {
        weald_io::gen::ensure_fits(n, m, w.is_some(), directed)?;
        Ok(weald_io::gen::uniform(n as usize, m as usize, seed))
    })?;
    add_weights(el, w, seed, gen_opts(directed), py)
}
