//! # weald-runner — the one place where types are erased for the front ends
//!
//! * [`AnyGraph`] — one enum over every backend and weight type, with the [`with_graph!`] macro
//!   to run generic code on whatever is inside;
//! * [`runner`] — run any algorithm of `weald-algo` by name on an [`AnyGraph`], time its trials,
//!   verify the answer, and report per-vertex values in the user's vertex ids.
//!
//! Every algorithm is compiled here once per graph type (six of them: the CSR and the flat
//! C-tree snapshot, each unweighted, `i32` and `f64`). It is a crate of its own, below the
//! `weald` facade that re-exports it, so that this, the largest code generation of the
//! workspace, happens once in a build: the facade's unit tests (the streaming store's) do not
//! compile it again.

pub mod any;
pub mod runner;

pub use any::{AnyFlat, AnyGraph, Backend};
