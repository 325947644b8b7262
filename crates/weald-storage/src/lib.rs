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

/// Ask the CPU to start loading the cache line at `p` (a hint; no effect on correctness).
/// Used where the next accesses are known but not sequential: the C-trees' path copying (both
/// children of a node at once instead of one cold miss after the other) and the adjacency of
/// vertices a few ahead in a scan that skips some (a CSR's pull with early exit).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
