//! numpy (or sequence) input → Rust vectors, with every value checked (no Python-level loop:
//! `numpy.asarray` then one pass over the contiguous buffer).

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use weald_graph::{Vertex, NO_VERTEX};

/// `numpy.asarray(x)` as a 1-d array, and its dtype kind (`i`, `u`, `f`, `b`, ...).
fn as_1d<'py>(x: &Bound<'py, PyAny>, what: &str) -> PyResult<(Bound<'py, PyAny>, char, usize)> {
    let np = x.py().import("numpy")?;
    let a = np.call_method1("asarray", (x,))?;
    let ndim: usize = a.getattr("ndim")?.extract()?;
    let size: usize = a.getattr("size")?.extract()?;
    if ndim != 1 && !(ndim == 0 && size == 0) {
        return Err(PyValueError::new_err(format!(
            "{what} must be a 1-d array, got {ndim} dimensions"
        )));
    }
    let kind: String = a.getattr("dtype")?.getattr("kind")?.extract()?;
    Ok((a, kind.chars().next().unwrap_or('?'), size))
}

fn contiguous<'py>(a: &Bound<'py, PyAny>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    let np = a.py().import("numpy")?;
    let kw = pyo3::types::PyDict::new(a.py());
    kw.set_item("dtype", dtype)?;
    np.call_method("ascontiguousarray", (a,), Some(&kw))
}

/// Vertex ids: an integer array (any width, signed or not) with values in `0..limit`
/// (`limit` defaults to `2^32 - 1`, the id space). Out of range → `IndexError`.
pub fn vertex_ids(x: &Bound<'_, PyAny>, what: &str, limit: Option<usize>) -> PyResult<Vec<Vertex>> {
    let (a, kind, size) = as_1d(x, what)?;
    if size == 0 {
        return Ok(Vec::new());
    }
    let lim = limit.unwrap_or(NO_VERTEX as usize) as u64;
    let bad = |v: String| {
        PyIndexError::new_err(format!(
            "{what}: vertex id {v} out of range (must be in 0..{lim})"
        ))
    };
    match kind {
        'i' => {
            let a = contiguous(&a, "int64")?;
            let arr = a.cast::<PyArray1<i64>>()?.readonly();
            let s = arr.as_slice()?;
            let mut out = Vec::with_capacity(s.len());
            for &v in s {
                if v < 0 || v as u64 >= lim {
                    return Err(bad(v.to_string()));
                }
                out.push(v as Vertex);
            }
            Ok(out)
        }
        'u' | 'b' => {
            let a = contiguous(&a, "uint64")?;
            let arr = a.cast::<PyArray1<u64>>()?.readonly();
            let s = arr.as_slice()?;
            let mut out = Vec::with_capacity(s.len());
            for &v in s {
                if v >= lim {
                    return Err(bad(v.to_string()));
                }
                out.push(v as Vertex);
            }
            Ok(out)
        }
        _ => Err(PyTypeError::new_err(format!(
            "{what} must hold integers (got dtype kind '{kind}')"
        ))),
    }
}

/// Edge weights read from an array.
pub enum Weights {
    Int(Vec<i32>),
    Float(Vec<f64>),
}

/// Weights: an integer array (each value must fit in i32) gives `Int`, a float array `Float`.
/// `want` forces the kind (`Some(true)`: float, `Some(false)`: int).
pub fn weights(x: &Bound<'_, PyAny>, want_float: Option<bool>) -> PyResult<Weights> {
    let (a, kind, size) = as_1d(x, "weights")?;
    let float = match (kind, want_float) {
        (_, Some(f)) if size == 0 => f,
        ('f', Some(false)) => {
            return Err(PyTypeError::new_err(
                "this graph has integer weights; pass an integer weight array",
            ))
        }
        ('f', _) => true,
        ('i' | 'u', Some(f)) => f,
        ('i' | 'u', None) => false,
        _ if size == 0 => true,
        _ => {
            return Err(PyTypeError::new_err(format!(
                "weights must be integers or floats (got dtype kind '{kind}')"
            )))
        }
    };
    if float {
        let a = contiguous(&a, "float64")?;
        let arr = a.cast::<PyArray1<f64>>()?.readonly();
        return Ok(Weights::Float(arr.as_slice()?.to_vec()));
    }
    let a = contiguous(&a, if kind == 'u' { "uint64" } else { "int64" })?;
    let too_big = |v: String| {
        PyValueError::new_err(format!(
            "integer weight {v} does not fit in 32 bits; pass float weights instead"
        ))
    };
    let out = if kind == 'u' {
        let arr = a.cast::<PyArray1<u64>>()?.readonly();
        let s = arr.as_slice()?;
        let mut out = Vec::with_capacity(s.len());
        for &v in s {
            out.push(i32::try_from(v).map_err(|_| too_big(v.to_string()))?);
        }
        out
    } else {
        let arr = a.cast::<PyArray1<i64>>()?.readonly();
        let s = arr.as_slice()?;
        let mut out = Vec::with_capacity(s.len());
        for &v in s {
            out.push(i32::try_from(v).map_err(|_| too_big(v.to_string()))?);
        }
        out
    };
    Ok(Weights::Int(out))
}

/// A vertex argument (a Python int): negative or beyond the id space → `IndexError`.
pub fn vertex_arg(v: i64, n: Option<usize>) -> PyResult<Vertex> {
    let lim = n.unwrap_or(NO_VERTEX as usize) as i64;
    if v < 0 || v >= lim {
        return Err(PyIndexError::new_err(match n {
            Some(n) => format!("vertex {v} out of range (graph has {n} vertices)"),
            None => format!("vertex {v} out of range"),
        }));
    }
    Ok(v as Vertex)
}
