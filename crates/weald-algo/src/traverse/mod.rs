//! # The traversal layer (Ligra / GBBS style)
//!
//! * [`VertexSubset`]: a frontier, sparse (ids) or dense (bitmap), converted on demand.
//! * [`edge_map`]: one traversal step over the arcs leaving a subset, with the three-method
//!   [`EdgeMapFn`] contract (`cond`, `update`, `update_atomic`), sparse push, dense pull and
//!   direction optimisation ([`EdgeMapOptions`]).
//! * [`vertex_map`], [`vertex_filter`], [`vertex_filter_all`]: per-vertex steps.
//! * [`AsInGraph`]: lets an algorithm bounded by `Graph` use edge_map on symmetric graphs.

pub mod bucket;
pub mod edge_map;
pub mod vertex_subset;

#[cfg(test)]
mod perf_tests;
#[cfg(test)]
pub(crate) mod testutil;

pub use edge_map::{edge_map, AsInGraph, Direction, EdgeMapFn, EdgeMapOptions};
pub use vertex_subset::{vertex_filter, vertex_filter_all, vertex_map, VertexSubset};
