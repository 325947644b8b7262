//! Replaying the log at recovery.
//!
//! Records are applied in log order, but a version that the retention rule will not keep
//! needs no graph of its own: consecutive such records are concatenated and applied as one
//! large batch ([`apply_in_order`] keeps the effect equal to applying them one by one). A
//! C-tree batch costs much less per update when it is large (many updates share the chunks
//! they rewrite), so a long log replays in a few big batches instead of one per record.
//!
//! The versions that *are* materialised, each as its own graph as before the restart: the
//! newest `Retention::last` records, every record committed within `Retention::newer_than`,
//! and pinned versions.

use super::history::{History, Kept};
use super::store::{apply_in_order, now_ns, Layout};
use super::update::Update;
use super::wal::Record;
use std::collections::VecDeque;
use weald_graph::Weight;
use weald_storage::ctree::{CTreeGraph, Snapshot};

/// Updates merged into one batch before it is applied (bounds the memory of the merge).
const MERGE_UPDATES: usize = 1 << 23;

pub(crate) struct Replay<'a, W: Weight> {
    graph: CTreeGraph<W>,
    layout: &'a Layout,
    history: &'a mut History<W>,
    pinned: &'a dyn Fn(u64) -> bool,
    /// Records committed at or after this time are kept by the `newer_than` clause.
    horizon: Option<u64>,
    /// The newest records read so far, which the `last` clause may keep.
    window: VecDeque<Record<W>>,
    last: usize,
    /// Updates of records that no clause keeps, not yet applied, and the version, time and
    /// tag of the newest of those records.
    merged: Vec<Update<W>>,
    merged_head: Option<(u64, u64, u64)>,
    /// Batches applied (for the report).
    batches: u64,
}

impl<'a, W: Weight> Replay<'a, W> {
    pub(crate) fn new(
        graph: CTreeGraph<W>,
        layout: &'a Layout,
        history: &'a mut History<W>,
        pinned: &'a dyn Fn(u64) -> bool,
    ) -> Self {
        let horizon = history.rule.horizon(now_ns());
        let last = history.rule.last.max(1);
        Replay {
            graph,
            layout,
            history,
            pinned,
            horizon,
            window: VecDeque::new(),
            last,
            merged: Vec::new(),
            merged_head: None,
            batches: 0,
        }
    }

    /// The next record of the log (versions consecutive; checked by the caller).
    pub(crate) fn push(&mut self, r: Record<W>) {
        let kept = (self.pinned)(r.version) || self.horizon.is_some_and(|h| r.time_ns >= h);
        self.window.push_back(r);
        if kept {
            // Everything before it is materialised in order, then it.
            self.flush_window();
            return;
        }
        while self.window.len() > self.last {
            let old = self.window.pop_front().expect("window is not empty");
            if self.merged.len() + old.updates.len() > MERGE_UPDATES {
                self.flush_merged();
            }
            self.merged_head = Some((old.version, old.time_ns, old.tag));
            self.merged.extend(old.updates);
        }
    }

    /// Apply what is left: the recovered newest graph and the number of batches applied.
    pub(crate) fn finish(mut self) -> (CTreeGraph<W>, u64) {
        self.flush_window();
        (self.graph, self.batches)
    }

    fn flush_window(&mut self) {
        self.flush_merged();
        while let Some(r) = self.window.pop_front() {
            self.apply(&r.updates, r.version, r.time_ns, r.tag);
        }
    }

    fn flush_merged(&mut self) {
        if let Some((version, time_ns, tag)) = self.merged_head.take() {
            let ups = std::mem::take(&mut self.merged);
            self.apply(&ups, version, time_ns, tag);
        }
    }

    fn apply(&mut self, ups: &[Update<W>], version: u64, time_ns: u64, tag: u64) {
        self.graph = apply_in_order(&self.graph, ups, self.layout).0;
        self.batches += 1;
        // Recovery has no readers waiting: what the rule drops is freed right here.
        drop(self.history.push(
            Kept {
                snap: Snapshot::detached(self.graph.clone(), version),
                time_ns,
                tag,
            },
            now_ns(),
            self.pinned,
        ));
    }
}
