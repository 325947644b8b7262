//! The one error type of Weald.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// Shorthand for `Result<T, WealdError>`.
pub type Result<T, E = WealdError> = std::result::Result<T, E>;

/// Every error a Weald library call can return.
#[derive(Debug, thiserror::Error)]
pub enum WealdError {
    /// A file could not be opened, read or written.
    #[error("{}: {source}", named(path))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Malformed input text, with the position of the fault.
    #[error("{}:{line}: {message}", named(path))]
    Parse {
        path: PathBuf,
        /// 1-based line number (0 when the fault is not tied to a line).
        line: u64,
        message: String,
    },
    /// A binary file that is truncated, corrupt, or of another version.
    #[error("{}: {message}", named(path))]
    Format { path: PathBuf, message: String },
    /// A vertex id outside `0..n`.
    #[error("vertex {vertex} out of range (graph has {num_vertices} vertices)")]
    VertexOutOfRange { vertex: u64, num_vertices: u64 },
    /// A user id that no vertex has, in a graph whose vertices keep the ids of its file or
    /// store (relabelled: the ids in use, not `0..n`).
    #[error(
        "vertex {vertex} does not occur in the graph (its {num_vertices} vertices have ids \
         from {first} to {last}, not every id between)"
    )]
    NoSuchVertex {
        vertex: u64,
        num_vertices: u64,
        first: u64,
        last: u64,
    },
    /// An id within a dynamic graph's id space that holds no vertex (deleted, or never
    /// inserted: the space runs to the largest id ever present).
    #[error("vertex {vertex} is not in the graph (deleted, or never inserted)")]
    VertexAbsent { vertex: u64 },
    /// An argument or combination of arguments that is not allowed.
    #[error("{0}")]
    Invalid(String),
    /// The operation needs a weighted graph (or an unweighted one) and got the other kind.
    #[error("{0}")]
    WeightMismatch(String),
    /// An algorithm detected a negative-weight cycle reachable from the source.
    #[error("negative cycle reachable from vertex {source_vertex}")]
    NegativeCycle { source_vertex: u64 },
    /// The feature exists in the design but is not available in this build.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A store that stopped accepting updates (its log could not be written, or it was
    /// closed): the message says why. Nothing it acknowledged is lost.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// An I/O error not tied to a path.
    #[error(transparent)]
    RawIo(#[from] std::io::Error),
    /// The work needs more memory than the machine has available (checked up front, from a
    /// lower bound of what it allocates, so that it fails cleanly instead of being killed).
    #[error("{0}")]
    OutOfMemory(String),
}

/// A path as messages name it: `-` (standard input, where the CLI reads one) as `<stdin>`.
fn named(p: &Path) -> Cow<'_, str> {
    if p == Path::new("-") {
        Cow::Borrowed("<stdin>")
    } else {
        p.to_string_lossy()
    }
}

impl WealdError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        WealdError::Io {
            path: path.into(),
            source,
        }
    }

    /// A parse error at `path:line`.
    pub fn parse(path: impl Into<PathBuf>, line: u64, message: impl Into<String>) -> Self {
        WealdError::Parse {
            path: path.into(),
            line,
            message: message.into(),
        }
    }

    /// A binary-format error in `path`.
    pub fn format(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        WealdError::Format {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Return early with `WealdError::Invalid(format!(...))`.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::WealdError::Invalid(format!($($arg)*)))
    };
}

/// Return early with `WealdError::Invalid` unless the condition holds.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $($arg:tt)*) => {
        if !$cond {
            $crate::bail!($($arg)*);
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_input_is_named_in_messages() {
        let e = WealdError::parse("-", 2, "bad");
        assert_eq!(e.to_string(), "<stdin>:2: bad");
        let e = WealdError::parse("dir/-", 2, "bad");
        assert_eq!(e.to_string(), "dir/-:2: bad");
        let e = WealdError::format("g.wgb", "truncated");
        assert_eq!(e.to_string(), "g.wgb: truncated");
    }
}
