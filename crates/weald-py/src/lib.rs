//! # weald-py — the Python bindings of Weald (`weald._weald`)
//!
//! Thin by design: every function converts its arguments, releases the GIL, runs a generic
//! `weald-algo` / `weald-io` / `weald-storage` function inside the module's rayon pool, and
//! converts the answer into numpy arrays. The Python package (`python/weald/`) re-exports
//! these and adds the networkx / scipy interop in pure Python.
//!
//! * [`graph`] — `Graph` (a static CSR, or the base of a C-tree `Snapshot`), `read`,
//!   `from_edges`, the generators, and the one type-erasure macro `with_target!`.
//! * [`dynamic`] — `DynamicGraph` (a versioned C-tree store) and `Snapshot`.
//! * [`algos`] — one `#[pyfunction]` per algorithm.
//! * [`errors`] — `WealdError` → Python exceptions.
//! * [`pool`] — the module's rayon pool and the GIL-free `compute` helper.
//! * [`convert`] — numpy input checking.

#[macro_use]
pub mod graph;
pub mod algos;
pub mod convert;
pub mod dynamic;
pub mod errors;
pub mod pool;
pub mod store;

use pyo3::prelude::*;

// The same allocator as the `weald` command (C-tree updates allocate many small nodes); it
// serves the extension's Rust allocations only, Python's own memory is untouched.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (the index of `mi_option_purge_delay` in mimalloc.h).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The extension module `weald._weald`.
#[pymodule]
fn _weald(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // As in the `weald` command (see its `keep_freed_memory`): freed memory is kept for a second
    // rather than 10 ms, so a stream of batches does not fault its pages in again and again.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets a plain integer option; mimalloc reads it on its next purge.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 1000) };
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ParseError", py.get_type::<errors::ParseError>())?;
    m.add(
        "ConvergenceError",
        py.get_type::<errors::ConvergenceError>(),
    )?;
    m.add(
        "NegativeCycleError",
        py.get_type::<errors::NegativeCycleError>(),
    )?;
    m.add_class::<graph::Graph>()?;
    m.add_class::<dynamic::Snapshot>()?;
    m.add_class::<dynamic::DynamicGraph>()?;
    m.add_class::<dynamic::UpdateResult>()?;
    m.add_class::<store::Store>()?;
    m.add_function(wrap_pyfunction!(graph::read, m)?)?;
    m.add_function(wrap_pyfunction!(graph::rmat, m)?)?;
    m.add_function(wrap_pyfunction!(graph::uniform, m)?)?;
    m.add_function(wrap_pyfunction!(pool::set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(pool::get_num_threads, m)?)?;
    algos::register(m)?;
    Ok(())
}
