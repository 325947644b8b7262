//! `WealdError` → Python exceptions.
//!
//! | `WealdError` | Python |
//! |---|---|
//! | `Io` (not found) | `FileNotFoundError` (`OSError` picks the subclass from errno) |
//! | `Io`, `RawIo` | `OSError` with errno and filename |
//! | `Parse`, `Format` | `weald.ParseError(ValueError)` with `.path` and `.line` |
//! | `VertexOutOfRange`, `NoSuchVertex`, `VertexAbsent` | `IndexError` |
//! | `NegativeCycle` | `weald.NegativeCycleError(ValueError)` with `.source` |
//! | (PageRank's iteration limit reached) | `weald.ConvergenceError(RuntimeError)` |
//! | `Invalid`, `WeightMismatch`, `Unsupported` | `ValueError` |
//! | `OutOfMemory` | `MemoryError` |
//! | `Unavailable` | `RuntimeError` |

use pyo3::exceptions::{
    PyFileNotFoundError, PyIndexError, PyMemoryError, PyOSError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use std::path::Path;
use weald_graph::WealdError;

pyo3::create_exception!(
    weald,
    ParseError,
    PyValueError,
    "Malformed graph input. Attributes: `path` (str) and `line` (1-based int; 0 when the \
     fault is not tied to a line, e.g. a damaged binary file)."
);
pyo3::create_exception!(
    weald,
    ConvergenceError,
    PyRuntimeError,
    "An iterative algorithm (PageRank) reached its iteration limit before its tolerance. \
     Attributes: `iterations` (int) and `l1_change` (float, the change of the last iteration)."
);
pyo3::create_exception!(
    weald,
    NegativeCycleError,
    PyValueError,
    "Bellman-Ford found a negative-weight cycle reachable from the source (attribute `source`)."
);

fn with_attrs(py: Python<'_>, err: PyErr, attrs: &[(&str, Py<PyAny>)]) -> PyErr {
    let v = err.value(py);
    for (k, x) in attrs {
        // Setting an attribute on a fresh exception instance cannot fail in practice; if it
        // does, the exception is still raised without it.
        let _ = v.setattr(*k, x);
    }
    err
}

fn os_error(py: Python<'_>, path: Option<&Path>, source: &std::io::Error, msg: String) -> PyErr {
    let filename = path.map(|p| p.display().to_string());
    match (source.raw_os_error(), &filename) {
        (Some(errno), Some(f)) => PyOSError::new_err((errno, source.to_string(), f.clone())),
        (Some(errno), None) => PyOSError::new_err((errno, source.to_string())),
        _ if source.kind() == std::io::ErrorKind::NotFound => {
            let e = PyFileNotFoundError::new_err(msg);
            match filename {
                Some(f) => with_attrs(
                    py,
                    e,
                    &[("filename", f.into_pyobject(py).unwrap().into_any().unbind())],
                ),
                None => e,
            }
        }
        _ => PyOSError::new_err(msg),
    }
}

/// `weald.ConvergenceError` (message `msg`) for an iteration stopped by its limit.
pub fn not_converged(py: Python<'_>, msg: String, iterations: usize, l1: f64) -> PyErr {
    with_attrs(
        py,
        ConvergenceError::new_err(msg),
        &[
            (
                "iterations",
                iterations.into_pyobject(py).unwrap().into_any().unbind(),
            ),
            (
                "l1_change",
                l1.into_pyobject(py).unwrap().into_any().unbind(),
            ),
        ],
    )
}

/// Convert a Weald error into the matching Python exception (see the module table).
pub fn to_pyerr(py: Python<'_>, e: WealdError) -> PyErr {
    let msg = e.to_string();
    match &e {
        WealdError::Io { path, source } => os_error(py, Some(path), source, msg),
        WealdError::RawIo(source) => os_error(py, None, source, msg),
        WealdError::Parse { path, line, .. } => {
            let p = path.display().to_string();
            with_attrs(
                py,
                ParseError::new_err(msg),
                &[
                    ("path", p.into_pyobject(py).unwrap().into_any().unbind()),
                    ("line", line.into_pyobject(py).unwrap().into_any().unbind()),
                ],
            )
        }
        WealdError::Format { path, .. } => {
            let p = path.display().to_string();
            with_attrs(
                py,
                ParseError::new_err(msg),
                &[
                    ("path", p.into_pyobject(py).unwrap().into_any().unbind()),
                    ("line", 0u64.into_pyobject(py).unwrap().into_any().unbind()),
                ],
            )
        }
        WealdError::VertexOutOfRange { .. }
        | WealdError::NoSuchVertex { .. }
        | WealdError::VertexAbsent { .. } => PyIndexError::new_err(msg),
        WealdError::NegativeCycle { source_vertex } => with_attrs(
            py,
            NegativeCycleError::new_err(msg),
            &[(
                "source",
                source_vertex.into_pyobject(py).unwrap().into_any().unbind(),
            )],
        ),
        WealdError::Invalid(_) | WealdError::WeightMismatch(_) | WealdError::Unsupported(_) => {
            PyValueError::new_err(msg)
        }
        WealdError::Unavailable(_) => PyRuntimeError::new_err(msg),
        WealdError::OutOfMemory(_) => PyMemoryError::new_err(msg),
    }
}

/// A Rust panic caught at the boundary (a bug): reported as `RuntimeError`, never a crash.
pub fn panic_error(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    PyRuntimeError::new_err(format!("internal error in weald (please report): {what}"))
}
