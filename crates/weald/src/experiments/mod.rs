//! Reproducible experiments shared by the CLI (`weald bench ...`) and the benchmark harness
//! (`bench/suites/`): each does its own timing and returns plain numbers, never prints.
//!
//! * [`updates`] — Aspen's batch-update experiment: throughput by batch size.
//! * [`stream`] — Aspen's concurrent update-and-query experiment (visibility latency, BFS
//!   under ingest), log overhead on batch ingest, and recovery time of a long log.

pub mod stream;
pub mod updates;

pub use updates::{
    batch_updates, batch_updates_in_place, flat_snapshot_seconds, BatchTiming, Sampling,
};
