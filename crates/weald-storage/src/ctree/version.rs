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
//! A version's memory is freed when its last `Snapshot` drops. A version that [`VersionedGraph::apply`]
//! replaced is settled right after the publication (`vtree::Lending`): if no reader holds it,
//! the nodes its successor copied are freed then, and otherwise what they lent is counted.
//!
//! [`VersionedGraph::apply_in_place`] is the one exception to "readers never wait": when no
//! snapshot holds the current version, it takes that version out of `current` (the pointer is
//! null meanwhile), updates its graph in place ([`CTreeGraph::apply_mut`]: no node copied,
//! nothing to free afterwards) and puts it back under the next number. A reader that arrives
//! meanwhile finds the pointer null and waits on the `gate` mutex, which the writer holds for
//! exactly that span. A writer that never calls it keeps every `acquire` wait-free.

use super::counted::Spare;
use super::flat::FlatSnapshot;
use super::graph::CTreeGraph;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use weald_graph::batch::Combine;
use weald_graph::{BatchResult, UpdateBatch, Weight};

/// A version replaced by a batch of fewer edge updates than this (and no vertex deletion) is
/// freed on the writer's thread alone (`vtree::sequentially`): its few replaced paths
/// take microseconds to free, less than handing half of them to another thread. (The batch's
/// own update runs in parallel from 64 items on, `vtree::PAR_ITEMS`.)
const PAR_FREE_UPDATES: usize = 64;

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
    held: Vec<Arc<Version<W>>>,
}

struct WriterState<W: Weight> {
    retired: Vec<Arc<Version<W>>>,
    number: u64,
    /// The node and block-array allocations the last copied batch freed, for the next one
    /// to take.
    spare: Spare,
}

/// The latest version of a graph, shared by one writer and many readers.
pub struct VersionedGraph<W: Weight = ()> {
    /// The current version; null only while `apply_in_place` updates it.
    current: AtomicPtr<Version<W>>,
    active: AtomicUsize,
    writer: Mutex<WriterState<W>>,
    /// Held by `apply_in_place` while `current` is null; readers that find it null wait here.
    gate: Mutex<()>,
    /// Set when a batch applied in place panicked (a bug): the version then holds part of it.
    poisoned: AtomicBool,
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
                spare: Spare::default(),
            }),
            gate: Mutex::new(()),
            poisoned: AtomicBool::new(false),
        }
    }

    /// The latest version. Wait-free, never blocking on the writer, unless the writer is in
    /// [`apply_in_place`](Self::apply_in_place): then it waits for that batch.
    pub fn acquire(&self) -> Snapshot<W> {
        loop {
            self.active.fetch_add(1, SeqCst);
            let p = self.current.load(SeqCst);
            if !p.is_null() {
                // SAFETY: `p` came from `Arc::into_raw`, and it cannot have been released: the
                // writer releases a swapped-out pointer only after seeing `active == 0`, and we
                // are counted in `active` until after the increment; `apply_in_place` takes
                // the pointer out only after seeing `active == 0` too, and then keeps the
                // version only if its count is still one (ours would make it two).
                let inner = unsafe {
                    Arc::increment_strong_count(p);
                    Arc::from_raw(p)
                };
                self.active.fetch_sub(1, SeqCst);
                return Snapshot { inner };
            }
            self.active.fetch_sub(1, SeqCst);
            // A batch is updating the version in place while holding the gate.
            drop(self.gate.lock().unwrap_or_else(|e| e.into_inner()));
        }
    }

    /// Publish `graph` as the next version (single writer; concurrent writers are serialised).
    /// Returns its version number.
    pub fn set(&self, graph: CTreeGraph<W>) -> u64 {
        self.set_deferred(graph).0
    }

    /// [`set`](Self::set), but the versions this makes unreachable are handed back instead of
    /// freed here: a writer that acknowledges the commit first and drops them after keeps the
    /// freeing (a walk over every node the batch replaced) out of its visibility latency.
    /// A whole new graph also clears the poison of a panicked in-place batch.
    pub fn set_deferred(&self, graph: CTreeGraph<W>) -> (u64, Retired<W>) {
        let mut st = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        self.poisoned.store(false, SeqCst);
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
        Retired { held }
    }

    /// Apply `batch` to the latest version and publish the result (as the single writer).
    /// The touched paths are copied; a batch of edge insertions only or deletions only copies
    /// them lending (see `vtree::Lending`): what the new version shares with the old one is
    /// not counted, and once the old one is released its copied nodes are freed without
    /// touching what they lent (if a reader still holds it, what it lent is counted then).
    /// Panics after a panicked [`apply_in_place`](Self::apply_in_place), as that does.
    pub fn apply(&self, batch: &UpdateBatch<W>, rule: Combine) -> (u64, BatchResult) {
        let mut st = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        self.check_poison();
        self.apply_copying(&mut st, batch, rule)
    }

    /// `apply`'s work, under the writer lock `st`: the batch applied to a copy of the touched
    /// paths, published as a new version. The nodes the copy makes on this thread take the
    /// allocations that the previous batch's settling freed here (`Spare`), and this batch's
    /// settling leaves its own for the next.
    fn apply_copying(
        &self,
        st: &mut WriterState<W>,
        batch: &UpdateBatch<W>,
        rule: Combine,
    ) -> (u64, BatchResult) {
        let cur = self.acquire();
        let mut spare = std::mem::take(&mut st.spare);
        // Room for what the last batch freed, twice over (the next is likely of its size: a
        // large batch copies most of the vertex tree, and the next one takes those allocations
        // back), never more than the whole vertex tree can free; after small batches the
        // limit falls back, and what a large one left is given back to the allocator.
        let need = spare.freed().saturating_mul(2);
        spare.limit_to(need.min(cur.graph().vertex_tree_bound()));
        let out = spare.with(|| self.copy_and_settle(st, cur, batch, rule));
        st.spare = spare;
        out
    }

    /// `apply_copying` without the spare, on the latest version `cur`.
    fn copy_and_settle(
        &self,
        st: &mut WriterState<W>,
        cur: Snapshot<W>,
        batch: &UpdateBatch<W>,
        rule: Combine,
    ) -> (u64, BatchResult) {
        // Lending (`CTreeGraph::apply_lending`): the new version takes what it shares with
        // this one without counting it, and once this one is released the debt is settled:
        // its copied nodes are freed without touching what they lent. A version some reader
        // still holds has what it lent counted instead, as path copying would have.
        let (g, r, lent) = cur.graph().apply_lending(batch, rule);
        drop(cur);
        let (number, retired) = self.publish(st, g);
        // A vertex deletion touches a block per neighbour, and a version parked earlier (a
        // reader was mid-acquire) may be one a large batch replaced: those are freed as usual.
        let small = batch.insert_edges.len() + batch.delete_edges.len() < PAR_FREE_UPDATES
            && batch.delete_vertices.is_empty()
            && retired.held.len() <= 1;
        // Released first, so that the settling finds the replaced version held by no one
        // else (if no reader holds it); the new version lives on in `current` meanwhile.
        let settle = move || {
            drop(retired);
            lent.settle();
        };
        if small {
            super::vtree::sequentially(settle);
        } else {
            settle();
        }
        (number, r)
    }

    /// [`apply`](Self::apply), but when no snapshot holds the current version, that version is
    /// updated in place ([`CTreeGraph::apply_mut`]) and republished under the next number: no
    /// node is copied and nothing is left to free, where `apply` copies every touched path and
    /// then frees the replaced one (RMAT scale 20, 1 thread: batches of 1000 edges about twice
    /// as fast, of 1e5 about a quarter faster; `small_batches FILE SIZE ROUNDS in-place` against
    /// `chain`). The price: a reader that calls [`acquire`](Self::acquire) during such a batch
    /// waits for it. When a snapshot holds the version, this is `apply` (readers never wait).
    ///
    /// Take snapshots outside the rayon pool the batch runs on: a pool thread waiting inside
    /// the batch may run another queued job, and one that calls `acquire` would then wait for
    /// the batch its own thread is running.
    ///
    /// # Panics
    /// If a batch applied in place panicked earlier (a bug: the version holds part of that
    /// batch), every later `apply` and `apply_in_place` panics too, as a poisoned lock does.
    pub fn apply_in_place(&self, batch: &UpdateBatch<W>, rule: Combine) -> (u64, BatchResult) {
        let mut st = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        self.check_poison();
        let p = self.current.load(SeqCst);
        // SAFETY (both blocks): only the writer, whose lock we hold, replaces or takes out the
        // current pointer, so `p` stays the current version's owned pointer while we read it.
        if unsafe { sole_holder(p) } {
            let gate = self.gate.lock().unwrap_or_else(|e| e.into_inner());
            self.current.store(std::ptr::null_mut(), SeqCst);
            // A reader that loaded `p` before the store is counted in `active` until it has
            // counted itself in `p`'s strong count; later readers find null and wait at `gate`.
            while self.active.load(SeqCst) != 0 {
                std::thread::yield_now();
            }
            if unsafe { sole_holder(p) } {
                // SAFETY: `p` is the owned pointer we took out of `current`, and no snapshot
                // holds it, nor can one be made until we store a pointer back.
                let mut v = Republish {
                    vg: self,
                    version: Some(unsafe { Arc::from_raw(p) }),
                };
                let own = Arc::get_mut(v.version.as_mut().expect("just set"))
                    .expect("no other holder: counted above with no reader in between");
                let r = own.graph.apply_mut(batch, rule);
                st.number += 1;
                own.number = st.number;
                v.finish();
                drop(gate);
                drop(self.unreachable(&mut st));
                return (st.number, r);
            }
            // A reader took the version meanwhile: put it back and copy instead.
            self.current.store(p, SeqCst);
            drop(gate);
        }
        self.apply_copying(&mut st, batch, rule)
    }

    fn check_poison(&self) {
        assert!(
            !self.poisoned.load(SeqCst),
            "a batch applied in place panicked; this graph holds part of it"
        );
    }

    /// Release retired versions no reader can still be acquiring; returns how many are still
    /// parked. (Called by `set` too.)
    pub fn reclaim(&self) -> usize {
        let mut st = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        drop(self.unreachable(&mut st));
        st.retired.len()
    }

    /// Bytes the store keeps besides its versions: the free node and block-array
    /// allocations the writer holds for its next batch (at most the larger of 4 MiB and twice
    /// what the batch before the last freed, and never more than freeing the whole vertex tree
    /// could give back: up to about the vertex trees' size in free memory after large
    /// batches, back to 4 MiB after two small ones; and the addresses of them), and the list
    /// of retired versions. While a batch runs on a pool thread, jobs that thread steals
    /// meanwhile (another graph's work) free into and take from the same spare, so it may
    /// hold memory that graph freed.
    pub fn spare_bytes(&self) -> usize {
        let st = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        st.spare.bytes() + st.retired.capacity() * std::mem::size_of::<Arc<Version<W>>>()
    }

    /// The latest version number.
    pub fn version(&self) -> u64 {
        self.acquire().version()
    }
}

/// Whether the version behind the owned pointer `p` has no holder besides its owner.
///
/// # Safety
/// `p` must be an owned pointer from `Arc::into_raw` that stays alive during the call.
unsafe fn sole_holder<W: Weight>(p: *const Version<W>) -> bool {
    // SAFETY: the caller's; the ManuallyDrop keeps the owner's count untouched.
    let a = std::mem::ManuallyDrop::new(unsafe { Arc::from_raw(p) });
    Arc::strong_count(&a) == 1 && Arc::weak_count(&a) == 0
}

/// Puts a version taken out by `apply_in_place` back into `current`, also when the batch
/// panics (then marking the graph poisoned), so that waiting readers are released.
struct Republish<'a, W: Weight> {
    vg: &'a VersionedGraph<W>,
    version: Option<Arc<Version<W>>>,
}

impl<W: Weight> Republish<'_, W> {
    fn finish(&mut self) {
        if let Some(v) = self.version.take() {
            self.vg
                .current
                .store(Arc::into_raw(v) as *mut Version<W>, SeqCst);
        }
    }
}

impl<W: Weight> Drop for Republish<'_, W> {
    fn drop(&mut self) {
        if self.version.is_some() {
            self.vg.poisoned.store(true, SeqCst);
            self.finish();
        }
    }
}

impl<W: Weight> Drop for VersionedGraph<W> {
    fn drop(&mut self) {
        let p = *self.current.get_mut();
        // SAFETY: we own the current version's count; no reader can be mid-acquire (`&mut`).
        drop(unsafe { Arc::from_raw(p) });
    }
}
