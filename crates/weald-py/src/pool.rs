//! The module's rayon pool, and [`compute`]: run Rust work with the GIL released.
//!
//! Every algorithm runs inside `pool.install`, so its parallel loops use this pool (not rayon's
//! global one) and one cross-thread hand-off is paid per call, not per parallel loop.
//! `set_num_threads` builds a new pool and swaps it in; calls already running keep the old
//! one (held by an `Arc`) until they finish.

use crate::errors::{panic_error, to_pyerr};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, RwLock};
use weald_graph::WealdError;

static POOL: RwLock<Option<Arc<rayon::ThreadPool>>> = RwLock::new(None);

fn default_threads() -> usize {
    std::env::var("WEALD_NUM_THREADS")
        .or_else(|_| std::env::var("RAYON_NUM_THREADS"))
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|&k| k > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |k| k.get()))
}

fn build(threads: usize) -> PyResult<Arc<rayon::ThreadPool>> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("weald-{i}"))
        .build()
        .map(Arc::new)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start {threads} threads: {e}")))
}

/// The current pool (created on first use).
pub fn pool() -> PyResult<Arc<rayon::ThreadPool>> {
    if let Some(p) = POOL.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return Ok(p.clone());
    }
    let mut w = POOL.write().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = w.as_ref() {
        return Ok(p.clone());
    }
    let p = build(default_threads())?;
    *w = Some(p.clone());
    Ok(p)
}

/// Work (vertices + arcs) below which a call runs on the calling thread, see [`compute_sized`].
const INLINE_WORK: usize = 1 << 15;

thread_local! {
    /// A pool of one worker, the calling thread itself: `install` on it runs inline and every
    /// parallel loop inside runs sequentially on this thread, with no hand-off.
    static INLINE: Option<rayon::ThreadPool> = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .ok();
}

/// Run `f` in the module's pool with the GIL released; panics become `RuntimeError` and
/// Weald errors their Python exception.
pub fn compute<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, WealdError> + Send,
{
    compute_sized(py, usize::MAX, f)
}

/// [`compute`] for a call on a graph of `work` vertices + arcs. Below `INLINE_WORK` it runs
/// on the calling thread: handing a call to the pool and back costs two thread wake-ups (tens
/// of microseconds on a virtual machine), more than a small graph's whole computation.
pub fn compute_sized<T, F>(py: Python<'_>, work: usize, f: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, WealdError> + Send,
{
    let run = move || catch_unwind(AssertUnwindSafe(f));
    // `detach` runs its closure on this thread, so it sees the same thread-local pool, which
    // is only ever entered from its own thread.
    let r = if work < INLINE_WORK && INLINE.with(Option::is_some) {
        py.detach(move || INLINE.with(|p| p.as_ref().expect("checked above").install(run)))
    } else {
        let p = pool()?;
        py.detach(move || p.install(run))
    };
    match r {
        Ok(Ok(x)) => Ok(x),
        Ok(Err(e)) => Err(to_pyerr(py, e)),
        Err(payload) => Err(panic_error(payload)),
    }
}

/// Use `k` worker threads for every later Weald call (a new pool replaces the old one; calls
/// already running finish on the old pool). The default is `WEALD_NUM_THREADS`, else
/// `RAYON_NUM_THREADS`, else the number of CPUs.
///
/// Raises ValueError if `k < 1`.
///
/// Example:
///     >>> weald.set_num_threads(2); weald.get_num_threads()
///     2
#[pyfunction]
pub fn set_num_threads(py: Python<'_>, k: crate::convert::Int) -> PyResult<()> {
    let k: i64 = k.get("the number of threads")?;
    let max = weald_graph::parallel::MAX_THREADS as i64;
    if !(1..=max).contains(&k) {
        return Err(PyValueError::new_err(format!(
            "number of threads must be in 1..={max}, got {k}"
        )));
    }
    let p = py.detach(|| build(k as usize))?;
    let old = POOL.write().unwrap_or_else(|e| e.into_inner()).replace(p);
    // Drop the old pool without the GIL: its threads exit once idle.
    py.detach(move || drop(old));
    Ok(())
}

/// The number of worker threads Weald's algorithms use.
#[pyfunction]
pub fn get_num_threads() -> PyResult<usize> {
    Ok(pool()?.current_num_threads())
}
