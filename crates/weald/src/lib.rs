//! # Weald — a single-machine engine for graphs that change
//!
//! This is the facade crate: it re-exports the parts and provides the one place where types are
//! erased for the front ends (the `weald` command and the Python package):
//!
//! * [`AnyGraph`] — one enum over every backend and weight type, with the [`with_graph!`] macro
//!   to run generic code on whatever is inside;
//! * [`runner`] — run any algorithm of `weald-algo` by name on an [`AnyGraph`], time its trials,
//!   verify the answer, and report per-vertex values in the user's vertex ids.
//!
//! (Both live in the `weald-runner` crate, re-exported here: it compiles every algorithm for
//! every graph type, and a crate of its own does that once per build.)

pub mod experiments;
pub mod stream;

pub use weald_algo as algo;
pub use weald_graph as graph;
pub use weald_graph::{EdgeList, Graph, InGraph, Result, UpdateBatch, Vertex, WealdError, Weight};
pub use weald_io as io;
pub use weald_runner::{any, runner, with_graph, AnyFlat, AnyGraph, Backend};
pub use weald_storage as storage;
