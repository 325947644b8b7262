//! # weald-graph — the contract every Weald backend and algorithm shares
//!
//! * [`Vertex`] ids are `u32`; edges optionally carry a [`Weight`] (the unit type `()` for
//!   unweighted graphs, which costs nothing).
//! * Neighbour access is **push-style** ([`Graph::for_each_out`]): the backend calls a closure
//!   for each neighbour, in increasing id order, and stops when the closure returns `false`.
//!   Compressed backends decode blocks in order, which a pull iterator cannot express cheaply.
//! * Algorithms ask for the least they need: [`Graph`] for out-neighbours, [`InGraph`] for
//!   in-neighbours (direction optimisation on directed graphs), [`EdgeScan`] for algorithms that
//!   only stream over all edges.
//! * One error type, [`WealdError`], with file/line context for parse errors.
//! * [`parallel`] holds the rayon-based primitives (scan, pack, sort, semisort, histogram) and
//!   [`codec`] the byte codes (varint difference coding) shared by the compressed backends.

pub mod batch;
pub mod codec;
pub mod error;
pub mod fingerprint;
pub mod mem;
pub mod parallel;
pub mod traits;
pub mod weight;

pub use batch::{BatchResult, EdgeList, UpdateBatch};
pub use error::{Result, WealdError};
pub use traits::{
    prefetch, prefetch_at, EdgeScan, Graph, InGraph, PREFETCH_AHEAD, PREFETCH_AHEAD_SHORT,
};
pub use weight::{DistValue, Weight, WeightSummary};

/// A vertex id. Dense ids `0..n` index every per-vertex array.
pub type Vertex = u32;

/// The largest representable vertex id (reserved as a "none" marker in some arrays).
pub const NO_VERTEX: Vertex = u32::MAX;

/// The largest vertex id a graph may hold: `n = max id + 1` must be a `Vertex` too, and
/// [`NO_VERTEX`] is reserved. Readers, update parsers and the streaming store refuse larger
/// ids.
pub const MAX_VERTEX: Vertex = NO_VERTEX - 1;
