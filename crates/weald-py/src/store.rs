//! `weald.Store`: the durable streaming store (`weald::stream`) — a data directory with a
//! write-ahead log, checkpoints, recovery and historical versions — from Python.

use crate::convert::{self, Int, Weights};
use crate::dynamic::{new_snapshot, weight_kind, AnySnap, Snapshot};
use crate::errors::to_pyerr;
use crate::graph::{parse_combine, target_of, Target};
use crate::pool::{compute, compute_sized};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, TryLockError};
use std::time::Duration;
use weald::stream::{
    latest_ns_at_seconds, time_seconds, AnyStore, Fsync, Layout, Producer, RecoveryReport,
    Retention, StoreOptions, StreamStats, Ticket, Update,
};
use weald::with_store;
use weald_graph::{Graph as _, Vertex, WealdError, Weight};

enum AnyProducer {
    Unweighted(Producer<()>),
    Int(Producer<i32>),
    Float(Producer<f64>),
}

fn producer_of(s: &AnyStore) -> AnyProducer {
    match s {
        AnyStore::Unweighted(s) => AnyProducer::Unweighted(s.producer()),
        AnyStore::Int(s) => AnyProducer::Int(s.producer()),
        AnyStore::Float(s) => AnyProducer::Float(s.producer()),
    }
}

/// A durable, versioned graph in a data directory: updates go to a write-ahead log and are
/// applied by one writer thread as new versions; snapshots are O(1) and never change; nothing
/// acknowledged is lost when the process dies (see `docs/streaming.md` for the fsync policies
/// and the directory layout).
///
/// `Store(path)` opens the directory — recovering the newest checkpoint plus the log after it —
/// or, when it does not exist or is empty, creates a store there holding `base` (a static
/// `weald.Graph`, its vertex ids kept) or an empty graph as version 0. The layout arguments
/// (`directed`, `weighted`, `dedup`) only apply when creating; an existing store keeps its own.
///
/// Args:
///     path: the data directory.
///     base: the graph of version 0 of a new store (a weald.Graph; its weights decide the
///         store's weight type unless `weighted` is given).
///     directed: store arcs (True) or undirected edges (False, each stored both ways); a base
///         graph's own direction wins.
///     weighted: False, True / "float" (float64 weights) or "int" (int32 weights).
///     dedup: how an inserted edge that is already present combines its weight with the old
///         one: "last" (default: the new weight), "first", "min", "max" or "sum".
///     fsync: "interval" (default: the log is flushed to disk within 10 ms; an acknowledged
///         update survives a process crash), "always" (flushed before the acknowledgement:
///         also survives power loss) or "never" (survives a process crash).
///     batch_size: the writer seals a batch at this many updates...
///     max_wait: ...or this many seconds after its first update (0: as soon as nothing more
///         is waiting — the lowest latency).
///     checkpoint_every: start a background checkpoint after this many updates (0: only on
///         `checkpoint()`).
///     keep_last: keep the newest K versions in memory for `snapshot_at` (default 16)...
///     keep_seconds: ...and every version committed less than this many seconds ago.
///     salvage: open a log damaged in its middle by keeping its valid prefix (the rest is set
///         aside as `*.wal.damaged`) instead of raising.
///
/// Raises ValueError for a directory that is not a Weald store, a newer format, or bad
/// arguments; OSError for I/O errors.
///
/// Example:
///     >>> with weald.Store("g.d", base=weald.read("facebook_combined.txt.gz")) as st:
///     ...     v = st.insert_edges(np.array([0]), np.array([4000]))
///     ...     with st.snapshot() as s:
///     ...         weald.bfs(s, 0)
// The doc comment is the Python docstring: `np.array([0])` in its example is not a link.
#[allow(rustdoc::broken_intra_doc_links)]
#[pyclass(frozen, module = "weald")]
pub struct Store {
    /// `None` once closed. The mutex is only held to clone or take the `Arc` — never across a
    /// wait or a GIL acquisition — so no thread can wait for the GIL while holding it.
    inner: Mutex<Option<Arc<Open>>>,
    /// Held by `close` for the whole of closing, so a second `close` returns only once the
    /// store is closed.
    closing: Mutex<()>,
    /// The weight type (`None`: unweighted, `Some(true)`: float), fixed at open.
    weight_kind: Option<bool>,
    path: PathBuf,
}

/// An open store and the producer this Python object sends through.
struct Open {
    store: AnyStore,
    producer: AnyProducer,
}

fn closed_error() -> PyErr {
    PyValueError::new_err("the store is closed")
}

fn seconds(py: Python<'_>, what: &str, x: f64) -> PyResult<Duration> {
    weald::stream::duration_arg(what, x, 1.0, "seconds").map_err(|e| to_pyerr(py, e))
}

/// Send `us` through `p`; with `wait`, block (without the GIL) until they are committed and
/// return the version that holds them.
fn send<W: Weight>(
    py: Python<'_>,
    p: &Producer<W>,
    us: Vec<Update<W>>,
    wait: bool,
) -> PyResult<Option<u64>> {
    if !wait {
        return p
            .send_tagged(us, 0, false)
            .map(|_| None)
            .map_err(|e| to_pyerr(py, e));
    }
    let t = p.send_all(us).map_err(|e| to_pyerr(py, e))?;
    wait_ticket(py, t).map(Some)
}

fn wait_ticket(py: Python<'_>, t: Ticket) -> PyResult<u64> {
    py.detach(move || t.wait()).map_err(|e| to_pyerr(py, e))
}

fn pairs_checked(
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
) -> PyResult<(Vec<Vertex>, Vec<Vertex>)> {
    let s = convert::vertex_ids(src, "src", None)?;
    let d = convert::vertex_ids(dst, "dst", None)?;
    if s.len() != d.len() {
        return Err(PyValueError::new_err(format!(
            "src and dst differ in length ({} and {})",
            s.len(),
            d.len()
        )));
    }
    Ok((s, d))
}

fn edge_inserts<W: Weight>(
    s: Vec<Vertex>,
    d: Vec<Vertex>,
    w: Option<Vec<W>>,
    one: W,
) -> Vec<Update<W>> {
    match w {
        Some(w) => s
            .into_iter()
            .zip(d)
            .zip(w)
            .map(|((a, b), x)| Update::InsertEdge(a, b, x))
            .collect(),
        None => s
            .into_iter()
            .zip(d)
            .map(|(a, b)| Update::InsertEdge(a, b, one))
            .collect(),
    }
}

fn recovery_dict<'py>(py: Python<'py>, r: &RecoveryReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("created", r.created)?;
    d.set_item("checkpoint_version", r.checkpoint_version)?;
    d.set_item(
        "checkpoint",
        r.checkpoint.as_ref().map(|p| p.display().to_string()),
    )?;
    let bad = PyList::empty(py);
    for (p, why) in &r.bad_checkpoints {
        bad.append((p.display().to_string(), why.clone()))?;
    }
    d.set_item("bad_checkpoints", bad)?;
    d.set_item("records_replayed", r.records_replayed)?;
    d.set_item("updates_replayed", r.updates_replayed)?;
    d.set_item("batches_applied", r.batches_applied)?;
    d.set_item("version", r.version)?;
    d.set_item("arcs", r.arcs)?;
    d.set_item("log_segments", r.log_segments)?;
    let dropped = match &r.dropped {
        None => None,
        Some(x) => {
            let e = PyDict::new(py);
            e.set_item("segment", x.segment.display().to_string())?;
            e.set_item("offset", x.offset)?;
            e.set_item("bytes", x.bytes)?;
            e.set_item("reason", x.reason.clone())?;
            e.set_item("inside", x.inside)?;
            let aside: Vec<String> = x
                .set_aside
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            e.set_item("set_aside", aside)?;
            Some(e)
        }
    };
    d.set_item("dropped", dropped)?;
    d.set_item("seconds", r.elapsed.as_secs_f64())?;
    Ok(d)
}

fn stats_dict<'py>(py: Python<'py>, s: &StreamStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("updates", s.updates)?;
    d.set_item("batches", s.batches)?;
    d.set_item("checkpoints", s.checkpoints)?;
    let lat = s.visibility_us();
    let pct = |q: f64| -> Option<f64> {
        (!lat.is_empty()).then(|| lat[((lat.len() - 1) as f64 * q).round() as usize])
    };
    d.set_item("visibility_p50_us", pct(0.5))?;
    d.set_item("visibility_p99_us", pct(0.99))?;
    Ok(d)
}

thread_local! {
    /// The stores (by address) with a call in progress on this thread, each call holding its
    /// store open.
    static IN_FLIGHT: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

impl Store {
    fn id(&self) -> usize {
        self as *const Store as usize
    }

    fn open(&self) -> Option<Arc<Open>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Run `f` on the open store and its producer (ValueError once closed). `f` holds a
    /// reference count, not the lock: `close` waits (without the GIL) for calls in flight.
    fn with_open<T>(&self, f: impl FnOnce(&AnyStore, &AnyProducer) -> PyResult<T>) -> PyResult<T> {
        match self.open() {
            Some(o) => {
                struct InFlight;
                impl Drop for InFlight {
                    fn drop(&mut self) {
                        IN_FLIGHT.with(|c| c.borrow_mut().pop());
                    }
                }
                IN_FLIGHT.with(|c| c.borrow_mut().push(self.id()));
                let _in_flight = InFlight;
                f(&o.store, &o.producer)
            }
            None => Err(closed_error()),
        }
    }

    fn snapshot_py(py: Python<'_>, snap: AnySnap) -> PyResult<Py<Snapshot>> {
        let data = compute(py, move || snap.flatten())?;
        new_snapshot(py, data)
    }
}

#[pymethods]
impl Store {
    #[new]
    #[pyo3(signature = (path, *, base=None, directed=false, weighted=None, dedup="last",
        fsync="interval", batch_size=Int::from(100_000), max_wait=0.0,
        checkpoint_every=Int::from(10_000_000), keep_last=Int::from(16), keep_seconds=None,
        salvage=false),
        text_signature = "(path, *, base=None, directed=False, weighted=None, dedup='last', \
            fsync='interval', batch_size=100000, max_wait=0.0, checkpoint_every=10000000, \
            keep_last=16, keep_seconds=None, salvage=False)")]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        base: Option<&Bound<'_, PyAny>>,
        directed: bool,
        weighted: Option<&Bound<'_, PyAny>>,
        dedup: &str,
        fsync: &str,
        batch_size: Int,
        max_wait: f64,
        checkpoint_every: Int,
        keep_last: Int,
        keep_seconds: Option<f64>,
        salvage: bool,
    ) -> PyResult<Self> {
        let batch_size: usize = batch_size.get("batch_size")?;
        let checkpoint_every: u64 = checkpoint_every.get("checkpoint_every")?;
        let keep_last: usize = keep_last.get("keep_last")?;
        let combine = parse_combine(Some(dedup))?.unwrap_or_default();
        let fsync: Fsync = fsync.parse().map_err(|e| to_pyerr(py, e))?;
        if batch_size == 0 {
            return Err(PyValueError::new_err("batch_size must be at least 1"));
        }
        let opts = StoreOptions {
            fsync,
            batch_size,
            max_wait: seconds(py, "max_wait", max_wait)?,
            checkpoint_every,
            retention: Retention {
                last: keep_last.max(1),
                newer_than: keep_seconds
                    .map(|x| seconds(py, "keep_seconds", x))
                    .transpose()?,
            },
            salvage,
            ..StoreOptions::default()
        };
        let weight = match weight_kind(weighted)? {
            None if weighted.is_some_and(|w| !w.is_none()) => Some("none"),
            None => None,
            Some(false) => Some("i32"),
            Some(true) => Some("f64"),
        };
        let base =
            match base {
                None => None,
                Some(b) => match target_of(b)? {
                    Target::Static(g) => Some(g),
                    Target::Snap(_) => return Err(PyTypeError::new_err(
                        "base must be a static weald.Graph (a Snapshot already lives in a store)",
                    )),
                },
            };
        let dir = path.clone();
        let store = py
            .detach(move || -> Result<AnyStore, WealdError> {
                if !AnyStore::is_fresh(&dir)? {
                    if base.is_some() {
                        return Err(WealdError::Invalid(format!(
                            "{}: the directory already holds a store; `base` only starts a new one",
                            dir.display()
                        )));
                    }
                    return AnyStore::open(&dir, opts);
                }
                let layout = Layout {
                    directed,
                    in_edges: true,
                    combine,
                    ..Layout::default()
                };
                let csr = match base.as_deref() {
                    None => None,
                    Some(weald::AnyGraph::Csr(c)) => Some(c),
                    #[allow(unreachable_patterns)]
                    Some(_) => {
                        return Err(WealdError::Invalid(
                            "base must be a graph in memory (CSR)".into(),
                        ))
                    }
                };
                AnyStore::create(&dir, layout, weight, csr, false, opts)
            })
            .map_err(|e| to_pyerr(py, e))?;
        let producer = producer_of(&store);
        let weight_kind = match &store {
            AnyStore::Unweighted(_) => None,
            AnyStore::Int(_) => Some(false),
            AnyStore::Float(_) => Some(true),
        };
        Ok(Store {
            inner: Mutex::new(Some(Arc::new(Open { store, producer }))),
            closing: Mutex::new(()),
            weight_kind,
            path,
        })
    }

    /// Insert edges `(src[i], dst[i])` with weights `w[i]` (a weighted store without `w`:
    /// weight 1). An edge already present combines its weight by the store's `dedup` rule.
    ///
    /// With `wait` (default) the call returns once the updates are in the log (per the fsync
    /// policy) and visible: the version that contains them. With `wait=False` it returns None
    /// at once; `flush()` waits for everything sent so far. The updates of one call are
    /// applied atomically (never split across versions).
    ///
    /// Raises IndexError for a negative id, ValueError for mismatched lengths or weights on an
    /// unweighted store, RuntimeError if the store failed (e.g. its disk is full).
    ///
    /// Example: `v = st.insert_edges(np.array([0, 1]), np.array([1, 2]))`
    #[pyo3(signature = (src, dst, w=None, *, wait=true))]
    fn insert_edges(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
        w: Option<&Bound<'_, PyAny>>,
        wait: bool,
    ) -> PyResult<Option<u64>> {
        let (s, d) = pairs_checked(src, dst)?;
        let w = w.filter(|w| !w.is_none());
        let n = s.len();
        // Every argument is converted before the store is held: converting runs Python code
        // (e.g. an `__array__` method), which could close the store.
        let w = match (w, self.weight_kind) {
            (None, _) => None,
            (Some(_), None) => {
                return Err(PyValueError::new_err(
                    "this store is unweighted; create it with weighted=True to pass w",
                ))
            }
            (Some(w), Some(float)) => {
                let x = convert::weights(w, Some(float))?;
                let len = match &x {
                    Weights::Int(v) => v.len(),
                    Weights::Float(v) => v.len(),
                };
                if len != n {
                    return Err(PyValueError::new_err(format!(
                        "w has {len} entries but there are {n} edges"
                    )));
                }
                Some(x)
            }
        };
        self.with_open(|_, p| match (p, w) {
            (AnyProducer::Unweighted(p), _) => send(py, p, edge_inserts(s, d, None, ()), wait),
            (AnyProducer::Int(p), w) => {
                let w = match w {
                    Some(Weights::Int(w)) => Some(w),
                    _ => None,
                };
                send(py, p, edge_inserts(s, d, w, 1), wait)
            }
            (AnyProducer::Float(p), w) => {
                let w = match w {
                    Some(Weights::Float(w)) => Some(w),
                    _ => None,
                };
                send(py, p, edge_inserts(s, d, w, 1.0), wait)
            }
        })
    }

    /// Delete edges `(src[i], dst[i])` (both directions if undirected); absent ones are
    /// no-ops. Returns the committing version with `wait`, else None (see `insert_edges`).
    ///
    /// Example: `st.delete_edges(np.array([0]), np.array([1]))`
    #[pyo3(signature = (src, dst, *, wait=true))]
    fn delete_edges(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
        wait: bool,
    ) -> PyResult<Option<u64>> {
        let (s, d) = pairs_checked(src, dst)?;
        fn dels<W: Weight>(s: Vec<Vertex>, d: Vec<Vertex>) -> Vec<Update<W>> {
            s.into_iter()
                .zip(d)
                .map(|(a, b)| Update::DeleteEdge(a, b))
                .collect()
        }
        self.with_open(|_, p| match p {
            AnyProducer::Unweighted(p) => send(py, p, dels(s, d), wait),
            AnyProducer::Int(p) => send(py, p, dels(s, d), wait),
            AnyProducer::Float(p) => send(py, p, dels(s, d), wait),
        })
    }

    /// Make vertices present (isolated if new). Returns the committing version with `wait`.
    ///
    /// Example: `st.insert_vertices(np.arange(100, 110))`
    #[pyo3(signature = (ids, *, wait=true))]
    fn insert_vertices(
        &self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        wait: bool,
    ) -> PyResult<Option<u64>> {
        let v = convert::vertex_ids(ids, "ids", None)?;
        fn ups<W: Weight>(v: Vec<Vertex>) -> Vec<Update<W>> {
            v.into_iter().map(Update::InsertVertex).collect()
        }
        self.with_open(|_, p| match p {
            AnyProducer::Unweighted(p) => send(py, p, ups(v), wait),
            AnyProducer::Int(p) => send(py, p, ups(v), wait),
            AnyProducer::Float(p) => send(py, p, ups(v), wait),
        })
    }

    /// Delete vertices and every edge incident to them. Returns the committing version with
    /// `wait`.
    ///
    /// Example: `st.delete_vertices(np.array([3]))`
    #[pyo3(signature = (ids, *, wait=true))]
    fn delete_vertices(
        &self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        wait: bool,
    ) -> PyResult<Option<u64>> {
        let v = convert::vertex_ids(ids, "ids", None)?;
        fn ups<W: Weight>(v: Vec<Vertex>) -> Vec<Update<W>> {
            v.into_iter().map(Update::DeleteVertex).collect()
        }
        self.with_open(|_, p| match p {
            AnyProducer::Unweighted(p) => send(py, p, ups(v), wait),
            AnyProducer::Int(p) => send(py, p, ups(v), wait),
            AnyProducer::Float(p) => send(py, p, ups(v), wait),
        })
    }

    /// Wait until everything sent through this Store object is committed; returns the
    /// newest version.
    ///
    /// Example: `st.insert_edges(s, d, wait=False); st.flush()`
    fn flush(&self, py: Python<'_>) -> PyResult<u64> {
        let t = self.with_open(|_, p| {
            match p {
                AnyProducer::Unweighted(p) => p.flush(),
                AnyProducer::Int(p) => p.flush(),
                AnyProducer::Float(p) => p.flush(),
            }
            .map_err(|e| to_pyerr(py, e))
        })?;
        wait_ticket(py, t)
    }

    /// The newest version: an immutable Snapshot (a Graph every algorithm accepts). Use it as
    /// a context manager to release the version at the end of the block.
    ///
    /// Example:
    ///     >>> with st.snapshot() as s:
    ///     ...     weald.connected_components(s)
    fn snapshot(&self, py: Python<'_>) -> PyResult<Py<Snapshot>> {
        let snap = self.with_open(|s, _| {
            Ok(match s {
                AnyStore::Unweighted(s) => AnySnap::Unweighted(s.acquire()),
                AnyStore::Int(s) => AnySnap::Int(s.acquire()),
                AnyStore::Float(s) => AnySnap::Float(s.acquire()),
            })
        })?;
        Self::snapshot_py(py, snap)
    }

    /// The graph as of `version`: a retained version (see `keep_last`, `keep_seconds`) or a
    /// pinned one (read back from its checkpoint). Raises ValueError for any other version.
    ///
    /// Example: `with st.snapshot_at(3) as old: ...`
    fn snapshot_at(&self, py: Python<'_>, version: Int) -> PyResult<Py<Snapshot>> {
        let version: u64 = version.get("version")?;
        let snap = self.with_open(|s, _| {
            py.detach(|| -> Result<AnySnap, WealdError> {
                Ok(match s {
                    AnyStore::Unweighted(s) => AnySnap::Unweighted(s.snapshot_at(version)?),
                    AnyStore::Int(s) => AnySnap::Int(s.snapshot_at(version)?),
                    AnyStore::Float(s) => AnySnap::Float(s.snapshot_at(version)?),
                })
            })
            .map_err(|e| to_pyerr(py, e))
        })?;
        Self::snapshot_py(py, snap)
    }

    /// The graph as of time `t` (seconds since the Unix epoch, as `time.time()`, or a
    /// `datetime`): the newest retained version committed at or before `t`, compared as
    /// `versions()` reports commit times (so `snapshot_at_time(v["time"])` is version `v`).
    /// Raises ValueError if none is retained.
    ///
    /// Example: `with st.snapshot_at_time(time.time() - 60) as minute_ago: ...`
    fn snapshot_at_time(&self, py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<Py<Snapshot>> {
        // A datetime (anything with `timestamp()`) gives its seconds since the epoch.
        let t: f64 = match t.getattr("timestamp") {
            Ok(ts) => ts.call0()?.extract()?,
            Err(_) => t.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "t must be seconds since the epoch (a number) or a datetime, not {}",
                    t.get_type()
                        .name()
                        .map_or_else(|_| "that".into(), |n| n.to_string())
                ))
            })?,
        };
        if !t.is_finite() || t < 0.0 {
            return Err(PyValueError::new_err(format!(
                "t must be a time in seconds since the epoch, got {t}"
            )));
        }
        let ns = latest_ns_at_seconds(t);
        let snap = self.with_open(|s, _| {
            py.detach(|| -> Result<AnySnap, WealdError> {
                Ok(match s {
                    AnyStore::Unweighted(s) => AnySnap::Unweighted(s.snapshot_at_time(ns)?),
                    AnyStore::Int(s) => AnySnap::Int(s.snapshot_at_time(ns)?),
                    AnyStore::Float(s) => AnySnap::Float(s.snapshot_at_time(ns)?),
                })
            })
            .map_err(|e| to_pyerr(py, e))
        })?;
        Self::snapshot_py(py, snap)
    }

    /// The retained versions, oldest first: dicts with `version`, `time` (seconds since the
    /// epoch, a float), `time_ns` (the exact commit time, nanoseconds since the epoch), `tag`,
    /// `edges`, `arcs`, `pins` (names), `in_memory`, `on_disk`.
    ///
    /// Example: `[v["version"] for v in st.versions()]`
    fn versions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let vs = self.with_open(|s, _| {
            py.detach(|| with_store!(s, s => s.versions()))
                .map_err(|e| to_pyerr(py, e))
        })?;
        let out = PyList::empty(py);
        for v in vs {
            let d = PyDict::new(py);
            d.set_item("version", v.version)?;
            d.set_item("time", time_seconds(v.time_ns))?;
            d.set_item("time_ns", v.time_ns)?;
            d.set_item("tag", v.tag)?;
            d.set_item("edges", v.edges)?;
            d.set_item("arcs", v.arcs)?;
            d.set_item("pins", v.pins)?;
            d.set_item("in_memory", v.in_memory)?;
            d.set_item("on_disk", v.on_disk)?;
            out.append(d)?;
        }
        Ok(out)
    }

    /// Keep `version` under `name`, also across restarts (it is written as a checkpoint).
    ///
    /// Example: `st.pin("before-import", st.version)`
    fn pin(&self, py: Python<'_>, name: &str, version: Int) -> PyResult<()> {
        let version: u64 = version.get("version")?;
        self.with_open(|s, _| {
            py.detach(|| with_store!(s, s => s.pin(name, version)))
                .map_err(|e| to_pyerr(py, e))
        })
    }

    /// Drop the pin `name` (the version is then kept only by the retention rule).
    fn unpin(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        self.with_open(|s, _| {
            py.detach(|| with_store!(s, s => s.unpin(name)))
                .map_err(|e| to_pyerr(py, e))
        })
    }

    /// Write a checkpoint of the newest version now (ingest continues meanwhile); returns its
    /// version once it is installed. Recovery then replays only the log after it.
    fn checkpoint(&self, py: Python<'_>) -> PyResult<u64> {
        let t = self
            .with_open(|s, _| with_store!(s, s => s.checkpoint()).map_err(|e| to_pyerr(py, e)))?;
        wait_ticket(py, t)
    }

    /// The newest version number.
    #[getter]
    fn version(&self) -> PyResult<u64> {
        self.with_open(|s, _| Ok(with_store!(s, s => s.version())))
    }

    /// What opening the directory did: `created`, `checkpoint_version`, `records_replayed`,
    /// `updates_replayed`, `version`, `dropped` (None, or what a torn or damaged log tail
    /// lost: `segment`, `offset`, `bytes`, `reason`), `seconds`, ...
    #[getter]
    fn recovery<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.with_open(|s, _| recovery_dict(py, s.recovery()))
    }

    /// Counters of this session: `updates`, `batches`, `checkpoints`, and the visibility
    /// latency (arrival to visible) percentiles `visibility_p50_us`, `visibility_p99_us`.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let st = self.with_open(|s, _| Ok(with_store!(s, s => s.stats())))?;
        stats_dict(py, &st)
    }

    /// The data directory.
    #[getter]
    fn path(&self) -> String {
        self.path.display().to_string()
    }

    #[getter]
    fn is_directed(&self) -> PyResult<bool> {
        self.with_open(|s, _| Ok(s.manifest().layout.directed))
    }

    #[getter]
    fn is_weighted(&self) -> PyResult<bool> {
        self.with_open(|s, _| Ok(!matches!(s, AnyStore::Unweighted(_))))
    }

    /// Vertices of the newest version (1 + the largest id present).
    #[getter]
    fn num_vertices(&self) -> PyResult<usize> {
        self.with_open(|s, _| Ok(with_store!(s, s => s.acquire().num_vertices())))
    }

    /// Edges of the newest version (undirected edges once; an undirected graph's self loops
    /// are counted, in parallel, without the GIL).
    #[getter]
    fn num_edges(&self, py: Python<'_>) -> PyResult<usize> {
        self.with_open(|s, _| edges_in_pool(py, s))
    }

    /// True once closed.
    #[getter]
    fn closed(&self) -> bool {
        self.open().is_none()
    }

    /// Stop the writer, sync the log and release the directory (idempotent). Snapshots taken
    /// before stay usable. Later calls on the store raise ValueError.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        if IN_FLIGHT.with(|c| c.borrow().contains(&self.id())) {
            // Called from inside a call on this store on this thread (Python code it ran,
            // e.g. a finalizer): that call holds the store, so waiting for it would never
            // end. New calls now see a closed store; the store closes (log synced, directory
            // released) when that call ends. (Not the last reference: no wait here.)
            let taken = self.inner.lock().unwrap_or_else(|e| e.into_inner()).take();
            drop(taken);
            return Ok(());
        }
        let _closing = loop {
            match self.closing.try_lock() {
                Ok(g) => break g,
                Err(TryLockError::Poisoned(e)) => break e.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    py.detach(|| std::thread::sleep(Duration::from_millis(1)))
                }
            }
        };
        let Some(mut open) = self.inner.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return Ok(());
        };
        // New calls now see a closed store; calls in flight (e.g. waiting for an
        // acknowledgement, which the still-running writer gives) finish first.
        py.detach(move || {
            let o = loop {
                match Arc::try_unwrap(open) {
                    Ok(o) => break o,
                    Err(again) => {
                        open = again;
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            };
            drop(o.producer);
            o.store.close()
        })
        .map_err(|e| to_pyerr(py, e))
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        match self.open() {
            None => format!("<weald.Store {} closed>", self.path.display()),
            Some(o) => {
                let s = &o.store;
                let m = edges_in_pool(py, s).map_or_else(|_| "?".to_string(), |m| m.to_string());
                format!(
                    "<weald.Store {} version={} n={} m={} {} weights={}>",
                    self.path.display(),
                    with_store!(s, s => s.version()),
                    with_store!(s, s => s.acquire().num_vertices()),
                    m,
                    if s.manifest().layout.directed {
                        "directed"
                    } else {
                        "undirected"
                    },
                    s.manifest().weight
                )
            }
        }
    }
}

/// The newest version's edges. Counting an undirected graph's edges scans for self loops: in
/// the module's pool (its thread count), without the GIL.
fn edges_in_pool(py: Python<'_>, s: &AnyStore) -> PyResult<usize> {
    let work = with_store!(s, s => {
        let g = s.acquire();
        g.num_vertices() + g.num_arcs()
    });
    compute_sized(py, work, || {
        Ok(with_store!(s, s => s.acquire().num_edges()))
    })
}
