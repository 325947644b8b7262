//! Versions: one writer publishes graphs, any number of readers acquire the latest one.
//!
//! The current version is an `Arc` turned into a raw pointer in an `AtomicPtr`. `acquire`
//! is wait-free: announce (`active += 1`), load the pointer, increment the `Arc`'s strong
//! count, retract (`active -= 1`). `set` swaps in the new pointer and parks the old `Arc` in
//! a retired list; retired versions are released as soon as the writer sees `active == 0`
//! after the swap (all operations are `SeqCst`): a reader that loaded an old pointer
//! announced itself before the load, so once `active` reads 0 it has finished incrementing,
//! and every later reader loads the new pointer. The writer never waits either — if readers
//! are mid-acquire it just retries at the next `set` (or [`VersionedGraph::reclaim`]).
//! A version's memory is freed when its last `Snapshot` drops.

use super::flat::FlatSnapshot;
use super::graph::CTreeGraph;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use weald_graph::batch::Combine;
use weald_graph::{BatchResult, UpdateBatch, Weight};

struct Version<W: Weight> {
    number: u64,
    graph: CTreeGraph<W>,
}

/// A handle on one committed version; it never changes. Dropping it releases the version.
pub struct Snapshot<W: Weight = ()> {
    inner: Arc<Version<W>>,
}

impl<W: Weight> Clone for Snapshot<W> {
    fn clone(&self) -> Self {
        Snapshot {
            inner: self.inner.clone(),
        }
    }
}

impl<W: Weight> Snapshot<W> {
    /// A snapshot of `graph` labelled `number` that belongs to no [`VersionedGraph`] (an old
    /// version read back from disk).
    pub fn detached(graph: CTreeGraph<W>, number: u64) -> Self {
        Snapshot {
            inner: Arc::new(Version { number, graph }),
        }
    }

    /// The version number (0 for the initial graph, +1 per `set`).
    pub fn version(&self) -> u64 {
        self.inner.number
    }

    /// The graph of this version.
    pub fn graph(&self) -> &CTreeGraph<W> {
        &self.inner.graph
    }

    /// A flat snapshot of this version (O(n)).
    pub fn flat(&self) -> FlatSnapshot<W> {
        FlatSnapshot::new(&self.inner.graph)
    }
}

impl<W: Weight> std::ops::Deref for Snapshot<W> {
    type Target = CTreeGraph<W>;
    fn deref(&self) -> &CTreeGraph<W> {
        &self.inner.graph
    }
}

/// Versions a publication made unreachable to new readers (see
/// [`VersionedGraph::set_deferred`]); dropping this releases them.
#[must_use = "dropping this frees the versions; keep it only to choose when"]
pub struct Retired<W: Weight> {
    _held: Vec<Arc<Version<W>>>,
}

struct WriterState<W: Weight> {
    retired: Vec<Arc<Version<W>>>,
    number: u64,
}

/// The latest version of a graph, shared by one writer and many readers.
pub struct VersionedGraph<W: Weight = ()> {
    current: AtomicPtr<Version<W>>,
    active: AtomicUsize,
    writer: Mutex<WriterState<W>>,
}

impl<W: Weight> VersionedGraph<W> {
    /// Start at version 0 holding `graph`.
    pub fn new(graph: CTreeGraph<W>) -> Self {
        Self::starting_at(graph, 0)
    }

    /// Start at version `number` holding `graph` (a store recovered from a checkpoint).
    pub fn starting_at(graph: CTreeGraph<W>, number: u64) -> Self {
        let v = Arc::new(Version { number, graph });
        VersionedGraph {
            current: AtomicPtr::new(Arc::into_raw(v) as *mut Version<W>),
            active: AtomicUsize::new(0),
            writer: Mutex::new(WriterState {
                retired: Vec::new(),
                number,
            }),
        }
    }

    /// The latest version. Wait-free; never blocks on the writer.
    pub fn acquire(&self) -> Snapshot<W> {
        self.active.fetch_add(1, SeqCst);
        let p = self.current.load(SeqCst);
        // SAFETY: `p` came from `Arc::into_raw`, and it cannot have been released: the writer
        // releases a swapped-out pointer only after seeing `active == 0`, and we are counted
        // in `active` until after the increment.
        let inner = unsafe {
            Arc::increment_strong_count(p);
            Arc::from_raw(p)
        };
        self.active.fetch_sub(1, SeqCst);
        Snapshot { inner }
    }

    /// Publish `graph` as the next version (single writer; concurrent writers are serialised).
    /// Returns its version number.
    pub fn set(&self, graph: CTreeGraph<W>) -> u64 {
        self.set_deferred(graph).0
    }

    /// [`set`](Self::set), but the versions this makes unreachable are handed back instead of
    /// freed here: a writer that acknowledges the commit first and drops them after keeps the
    /// freeing (a walk over every node the batch replaced) out of its visibility latency.
    pub fn set_deferred(&self, graph: CTreeGraph<W>) -> (u64, Retired<W>) {
        let mut st = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        self.publish(&mut st, graph)
    }

    /// Swap in `graph` as the next version; the retired versions no reader can still be
    /// acquiring are handed back.
    fn publish(&self, st: &mut WriterState<W>, graph: CTreeGraph<W>) -> (u64, Retired<W>) {
        st.number += 1;
        let v = Arc::new(Version {
            number: st.number,
            graph,
        });
        let old = self
            .current
            .swap(Arc::into_raw(v) as *mut Version<W>, SeqCst);
        // SAFETY: `old` was the owned pointer of the current version; we take its count back.
        st.retired.push(unsafe { Arc::from_raw(old) });
        (st.number, self.unreachable(st))
    }

    /// The retired versions, taken out of `st`, if no reader is between loading the current
    /// pointer and counting itself (then none can reach them); nothing otherwise.
    fn unreachable(&self, st: &mut WriterState<W>) -> Retired<W> {
        let held = if self.active.load(SeqCst) == 0 {
            std::mem::take(&mut st.retired)
        } else {
            Vec::new()
        };
        Retired { _held: held }
    }

    /// Apply `batch` to the latest version and publish the result (as the single writer).
    pub fn apply(&self, batch: &UpdateBatch<W>, rule: Combine) -> (u64, BatchResult) {
        let mut st = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let cur = self.acquire();
        let (g, r) = cur.graph().apply(batch, rule);
        drop(cur);
        (self.publish(&mut st, g).0, r)
    }

    /// Release retired versions no reader can still be acquiring; returns how many are still
    /// parked. (Called by `set` too.)
    pub fn reclaim(&self) -> usize {
        let mut st = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        drop(self.unreachable(&mut st));
        st.retired.len()
    }

    /// The latest version number.
    pub fn version(&self) -> u64 {
        self.acquire().version()
    }
}

impl<W: Weight> Drop for VersionedGraph<W> {
    fn drop(&mut self) {
        let p = *self.current.get_mut();
        // SAFETY: we own the current version's count; no reader can be mid-acquire (`&mut`).
        drop(unsafe { Arc::from_raw(p) });
    }
}
