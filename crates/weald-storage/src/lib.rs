//! # weald-storage — Weald's storage backends
//!
//! One module per backend. Every backend implements the traits of `weald-graph`, so every
//! algorithm of `weald-algo` runs on it.
//!
//! * [`csr`] — the static compressed-sparse-row graph: the simplest correct backend and the
//!   oracle the others are tested against.
//! * [`ctree`] — Aspen-style C-trees: purely-functional compressed trees, versioned snapshots.

pub mod csr;
pub mod ctree;

pub use csr::{AnyCsr, BuildOptions, BuildStats, Csr};
pub use ctree::{
    CTreeGraph, CTreeOptions, CTreeSet, FlatSnapshot, MemoryReport, Snapshot, VersionedGraph,
};

pub(crate) use weald_graph::{prefetch, prefetch_at};
