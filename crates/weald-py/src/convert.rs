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
        'b' => Err(PyTypeError::new_err(format!(
            "{what} must hold integer vertex ids, got a boolean array (np.flatnonzero(mask) \
             gives the ids a mask selects)"
        ))),
        'u' => {
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

/// Weights: an integer array (each value must fit in i32) gives `Int`, a float array `Float`
/// (each value finite).
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
        let s = arr.as_slice()?;
        if let Some(i) = s.iter().position(|w| !w.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "weights[{i}] is {}: weights must be finite",
                s[i]
            )));
        }
        return Ok(Weights::Float(s.to_vec()));
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

/// An integer argument of any size. PyO3's own extraction raises `OverflowError` for a value
/// beyond the Rust type, which is not the `IndexError` (vertex ids) or `ValueError` (sizes,
/// seeds, versions) the API documents; arguments declared as `Int` are checked here instead.
#[derive(Clone, Debug)]
pub struct Int(Result<i128, String>);

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;
    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        let too_big = |e: &PyErr| e.is_instance_of::<pyo3::exceptions::PyOverflowError>(py);
        match obj.extract::<i64>() {
            Ok(v) => Ok(Int(Ok(v as i128))),
            Err(e) if too_big(&e) => match obj.extract::<u64>() {
                Ok(v) => Ok(Int(Ok(v as i128))),
                Err(e) if too_big(&e) => Ok(Int(Err(obj.str()?.to_string()))),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        }
    }
}

impl From<i64> for Int {
    fn from(v: i64) -> Self {
        Int(Ok(v as i128))
    }
}

impl Int {
    /// The value as a `T`, or `ValueError` naming `what` and `T`'s range.
    pub fn get<T: TryFrom<i128> + num_bounds::Bounded>(&self, what: &str) -> PyResult<T> {
        self.0
            .as_ref()
            .ok()
            .and_then(|&v| T::try_from(v).ok())
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "{what} must be in {}..={}, got {}",
                    T::MIN_TEXT,
                    T::MAX_TEXT,
                    self.text()
                ))
            })
    }

    /// A vertex id below `n` (or in the id space), else `IndexError`.
    pub fn vertex(&self, n: Option<usize>) -> PyResult<Vertex> {
        match self.0.as_ref().ok().and_then(|&v| i64::try_from(v).ok()) {
            Some(v) => vertex_arg(v, n),
            None => Err(PyIndexError::new_err(format!(
                "vertex {} out of range",
                self.text()
            ))),
        }
    }

    fn text(&self) -> String {
        match &self.0 {
            Ok(v) => v.to_string(),
            Err(s) => s.clone(),
        }
    }
}

/// The printed range of the integer types [`Int::get`] converts to.
pub mod num_bounds {
    pub trait Bounded {
        const MIN_TEXT: &'static str;
        const MAX_TEXT: &'static str;
    }
    impl Bounded for u64 {
        const MIN_TEXT: &'static str = "0";
        const MAX_TEXT: &'static str = "2**64-1";
    }
    impl Bounded for u32 {
        const MIN_TEXT: &'static str = "0";
        const MAX_TEXT: &'static str = "2**32-1";
    }
    impl Bounded for usize {
        const MIN_TEXT: &'static str = "0";
        const MAX_TEXT: &'static str = "2**64-1";
    }
    impl Bounded for i32 {
        const MIN_TEXT: &'static str = "-2**31";
        const MAX_TEXT: &'static str = "2**31-1";
    }
    impl Bounded for i64 {
        const MIN_TEXT: &'static str = "-2**63";
        const MAX_TEXT: &'static str = "2**63-1";
    }
}
