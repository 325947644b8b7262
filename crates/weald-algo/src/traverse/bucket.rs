//! A bucketing structure in the style of Julienne (Dhulipala, Blelloch & Shun, "Julienne: A
//! Framework for Parallel Graph Algorithms using Work-efficient Bucketing", SPAA 2017), for
//! algorithms that process vertices in increasing order of an integer priority: k-core peeling
//! (bucket = induced degree) and delta-stepping (bucket = `floor(dist / delta)`).
//!
//! # Model
//!
//! Every vertex `v` of `0..n` is either in exactly one bucket ([`Buckets::bucket_of`] returns
//! `Some(b)`) or in none. [`Buckets::next_bucket`] returns the lowest non-empty bucket `b` at or
//! above the current one together with all its vertices, and *removes* them from the structure
//! (they are in no bucket afterwards). [`Buckets::update_buckets`] moves vertices in bulk: into a
//! bucket, between buckets, or out of the structure ([`NULL_BUCKET`]). The order is increasing:
//! a vertex moved below the current bucket is placed in the current bucket (Julienne's k-core
//! needs exactly this clamp; delta-stepping never moves below the current bucket). Vertices
//! moved into the current bucket after it was returned are returned again by the next call,
//! with the same bucket id. Before the first call of `next_bucket`, the current bucket is the
//! lowest initial one (0 if none).
//!
//! # Representation (semi-eager)
//!
//! * `bkt[v]`: the bucket id of each vertex (or [`NULL_BUCKET`]) — the truth;
//! * a window of `open` buckets `base .. base + open`, each materialised as a vector of vertex
//!   ids, and one *overflow* vector for every vertex whose bucket is at or above `base + open`.
//!
//! A move writes `bkt[v]` and appends `v` to the vector of its new bucket; its entry in the old
//! bucket is left behind (lazy deletion) and is skipped when that bucket is extracted, because
//! `bkt[v]` no longer names it. When the window is exhausted, the overflow is split by a new
//! base (the lowest live bucket in it), again skipping stale entries.
//!
//! # Memory bound
//!
//! `4n` bytes for `bkt`, plus the entries of the `open + 1` vectors. Stale entries would make the
//! vectors grow with the number of moves, so whenever the vectors hold more than
//! `2n + 1024` entries in total the structure *compacts* them: every stale entry and duplicate is
//! dropped (a duplicate arises when a vertex leaves a bucket and comes back), after which each
//! live vertex has exactly one entry, so at most `n` entries remain. Compaction costs `O(entries)`
//! work, which is paid for by the at-least-`n` moves since the previous compaction. Hence the
//! structure never holds more than `2n + 1024 + (entries of one update_buckets call)` entries:
//! `O(n)` words in total (plus `n` bytes of marks, allocated only while compacting). The vector
//! returned by `next_bucket` holds each vertex once.
//!
//! # Parallelism
//!
//! Large move lists are grouped by destination with a parallel semisort and appended to their
//! vectors in parallel; large buckets are filtered in parallel (a compare-and-swap on `bkt[v]`
//! from `b` to "none" picks exactly one entry per vertex). The *set* of vertices returned by
//! `next_bucket` is deterministic; their order within a bucket is not specified.

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use weald_graph::parallel::{concat, semisort_by_key};
use weald_graph::Vertex;

/// A bucket id. Buckets are processed in increasing order of id.
pub type BucketId = u32;

/// "In no bucket". Moving a vertex to `NULL_BUCKET` removes it from the structure.
pub const NULL_BUCKET: BucketId = u32::MAX;

/// Default number of buckets materialised at a time (Julienne uses 128 as well).
pub const DEFAULT_OPEN_BUCKETS: usize = 128;

/// Below this many moves or entries, work is done sequentially.
const PAR_THRESHOLD: usize = 4096;

/// Julienne-style buckets over the vertices `0..n`, processed in increasing order.
#[derive(Debug)]
pub struct Buckets {
    /// Bucket of each vertex (`NULL_BUCKET`: none).
    bkt: Vec<AtomicU32>,
    /// `open` window vectors (bucket `base + i` in `window[i]`), then the overflow vector.
    window: Vec<Vec<Vertex>>,
    overflow: Vec<Vertex>,
    /// First bucket of the window.
    base: u64,
    /// The current bucket (the lowest one that may be non-empty), `base <= cur <= base + open`.
    cur: u64,
    /// Number of vertices in some bucket.
    live: usize,
    /// Entries in all vectors (live, stale and duplicate).
    entries: usize,
}

impl Buckets {
    /// Buckets over `0..n` with `DEFAULT_OPEN_BUCKETS` open buckets; vertex `v` starts in
    /// bucket `init(v)` (or in none, for [`NULL_BUCKET`]).
    pub fn new(n: usize, init: impl Fn(Vertex) -> BucketId + Sync) -> Self {
        Self::with_open_buckets(n, DEFAULT_OPEN_BUCKETS, init)
    }

    /// Like [`Buckets::new`] with `open` materialised buckets (at least 1).
    pub fn with_open_buckets(
        n: usize,
        open: usize,
        init: impl Fn(Vertex) -> BucketId + Sync,
    ) -> Self {
        assert!(n <= u32::MAX as usize, "vertex ids are u32");
        let open = open.max(1);
        let bkt: Vec<AtomicU32> = (0..n as Vertex)
            .into_par_iter()
            .with_min_len(PAR_THRESHOLD)
            .map(|v| AtomicU32::new(init(v)))
            .collect();
        let base = bkt
            .par_iter()
            .with_min_len(PAR_THRESHOLD)
            .map(|b| b.load(Relaxed))
            .min()
            .unwrap_or(NULL_BUCKET);
        let mut this = Buckets {
            bkt,
            window: vec![Vec::new(); open],
            overflow: Vec::new(),
            base: if base == NULL_BUCKET { 0 } else { base as u64 },
            cur: 0,
            live: 0,
            entries: 0,
        };
        this.cur = this.base;
        let all: Vec<Vertex> = (0..n as Vertex).collect();
        this.insert_entries(&all);
        this
    }

    /// Number of vertices in the structure (in some bucket).
    pub fn len(&self) -> usize {
        self.live
    }

    /// `true` when no vertex is in any bucket.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// The bucket of `v`, if it is in one.
    pub fn bucket_of(&self, v: Vertex) -> Option<BucketId> {
        let b = self.bkt[v as usize].load(Relaxed);
        (b != NULL_BUCKET).then_some(b)
    }

    /// The current bucket: no vertex is in a lower one.
    pub fn current(&self) -> BucketId {
        self.cur.min(NULL_BUCKET as u64 - 1) as BucketId
    }

    /// Entries held in the bucket vectors (live, stale and duplicate); see the memory bound in
    /// the module documentation.
    pub fn num_entries(&self) -> usize {
        self.entries
    }

    fn open(&self) -> u64 {
        self.window.len() as u64
    }

    /// Append `v` (whose `bkt` is already set) to the vector of its bucket, sequentially.
    fn push_entry(&mut self, v: Vertex, b: BucketId) {
        let b = b as u64;
        if b < self.base + self.open() {
            self.window[(b - self.base) as usize].push(v);
        } else {
            self.overflow.push(v);
        }
        self.entries += 1;
    }

    /// Slot of bucket `b`: `0..open` for the window, `open` for the overflow, `open + 1` for
    /// none.
    fn slot(&self, b: BucketId) -> u32 {
        if b == NULL_BUCKET {
            self.window.len() as u32 + 1
        } else if (b as u64) < self.base + self.open() {
            (b as u64 - self.base) as u32
        } else {
            self.window.len() as u32
        }
    }

    /// Append the vertices `vs` (with `bkt` already set, each at most once) to their vectors and
    /// count them as live.
    fn insert_entries(&mut self, vs: &[Vertex]) {
        if vs.len() < PAR_THRESHOLD {
            for &v in vs {
                let b = self.bkt[v as usize].load(Relaxed);
                if b != NULL_BUCKET {
                    self.push_entry(v, b);
                    self.live += 1;
                }
            }
            return;
        }
        let open = self.window.len();
        let (sorted, offsets) = semisort_by_key(vs, open + 2, |&v| {
            self.slot(self.bkt[v as usize].load(Relaxed))
        });
        let added = offsets[open + 1];
        let mut targets: Vec<&mut Vec<Vertex>> = self.window.iter_mut().collect();
        targets.push(&mut self.overflow);
        targets.into_par_iter().enumerate().for_each(|(i, t)| {
            t.extend_from_slice(&sorted[offsets[i]..offsets[i + 1]]);
        });
        self.live += added;
        self.entries += added;
    }

    /// Move vertices in bulk: each `(v, b)` puts `v` into bucket `b` (or out of the structure
    /// for [`NULL_BUCKET`]); a bucket below [`Buckets::current`] means the current one. Each
    /// vertex may appear at most once in `moves` (otherwise it ends in one of its destinations,
    /// unspecified which). Moving a vertex to the bucket it is already in does nothing.
    pub fn update_buckets(&mut self, moves: &[(Vertex, BucketId)]) {
        let cur = self.current();
        let clamp = |b: BucketId| if b == NULL_BUCKET { b } else { b.max(cur) };
        if moves.len() < PAR_THRESHOLD {
            for &(v, b) in moves {
                let b = clamp(b);
                let old = self.bkt[v as usize].swap(b, Relaxed);
                if old == b {
                    continue;
                }
                if old != NULL_BUCKET {
                    self.live -= 1;
                }
                if b != NULL_BUCKET {
                    self.push_entry(v, b);
                    self.live += 1;
                }
            }
        } else {
            // Write the new buckets, keep the vertices whose entry must be appended, and count
            // the vertices that leave the structure.
            let (parts, removed): (Vec<Vec<Vertex>>, Vec<usize>) = moves
                .par_chunks(PAR_THRESHOLD)
                .map(|c| {
                    let mut add = Vec::new();
                    let mut removed = 0;
                    for &(v, b) in c {
                        let b = clamp(b);
                        let old = self.bkt[v as usize].swap(b, Relaxed);
                        if old == b {
                            continue;
                        }
                        if old != NULL_BUCKET {
                            removed += 1;
                        }
                        if b != NULL_BUCKET {
                            add.push(v);
                        }
                    }
                    (add, removed)
                })
                .unzip();
            self.live -= removed.iter().sum::<usize>();
            let add = concat(parts);
            self.insert_entries(&add);
        }
        self.maybe_compact();
    }

    /// Remove and return the vertices of the lowest non-empty bucket, with its id; `None` when
    /// the structure is empty.
    pub fn next_bucket(&mut self) -> Option<(BucketId, Vec<Vertex>)> {
        while self.live > 0 {
            let open = self.open();
            while self.cur < self.base + open {
                let i = (self.cur - self.base) as usize;
                if !self.window[i].is_empty() {
                    let entries = std::mem::take(&mut self.window[i]);
                    self.entries -= entries.len();
                    let b = self.cur as BucketId;
                    let out = self.extract(entries, b);
                    if !out.is_empty() {
                        self.live -= out.len();
                        return Some((b, out));
                    }
                }
                self.cur += 1;
            }
            self.advance_window();
        }
        None
    }

    /// Keep the entries whose vertex is in bucket `b`, once each, and take them out of it.
    fn extract(&self, mut entries: Vec<Vertex>, b: BucketId) -> Vec<Vertex> {
        let take = |v: &Vertex| {
            self.bkt[*v as usize]
                .compare_exchange(b, NULL_BUCKET, Relaxed, Relaxed)
                .is_ok()
        };
        if entries.len() < PAR_THRESHOLD {
            entries.retain(take);
            entries
        } else {
            let parts: Vec<Vec<Vertex>> = entries
                .par_chunks(PAR_THRESHOLD)
                .map(|c| c.iter().copied().filter(take).collect())
                .collect();
            concat(parts)
        }
    }

    /// The window is exhausted: start a new window at the lowest live bucket of the overflow
    /// and move the overflow entries that fall in it.
    fn advance_window(&mut self) {
        let overflow = std::mem::take(&mut self.overflow);
        self.entries -= overflow.len();
        // Every live vertex is in the overflow now (the window vectors were all extracted).
        // Take each one out once (a compare-and-swap to "none" drops stale and duplicate
        // entries without per-vertex marks), then put it back under the new window.
        let take = |v: &Vertex| {
            let b = self.bkt[*v as usize].load(Relaxed);
            (b != NULL_BUCKET
                && self.bkt[*v as usize]
                    .compare_exchange(b, NULL_BUCKET, Relaxed, Relaxed)
                    .is_ok())
            .then_some((*v, b))
        };
        let live: Vec<(Vertex, BucketId)> = if overflow.len() < PAR_THRESHOLD {
            overflow.iter().filter_map(take).collect()
        } else {
            let parts: Vec<Vec<(Vertex, BucketId)>> = overflow
                .par_chunks(PAR_THRESHOLD)
                .map(|c| c.iter().filter_map(take).collect())
                .collect();
            concat(parts)
        };
        drop(overflow);
        debug_assert_eq!(live.len(), self.live, "live vertices lost");
        let Some(lowest) = live
            .par_iter()
            .with_min_len(PAR_THRESHOLD)
            .map(|&(_, b)| b)
            .min()
        else {
            self.live = 0;
            return;
        };
        self.base = lowest as u64;
        self.cur = self.base;
        live.par_iter()
            .with_min_len(PAR_THRESHOLD)
            .for_each(|&(v, b)| self.bkt[v as usize].store(b, Relaxed));
        let vs: Vec<Vertex> = live
            .par_iter()
            .with_min_len(PAR_THRESHOLD)
            .map(|&(v, _)| v)
            .collect();
        self.live = 0;
        self.insert_entries(&vs);
    }

    /// Drop stale and duplicate entries once they outnumber `2n + 1024`.
    fn maybe_compact(&mut self) {
        if self.entries <= 2 * self.bkt.len() + 1024 {
            return;
        }
        self.compact();
    }

    /// Drop every stale and duplicate entry: afterwards each live vertex has one entry.
    pub fn compact(&mut self) {
        let base = self.base;
        let open = self.open();
        let mut all: Vec<Vec<Vertex>> = self.window.iter_mut().map(std::mem::take).collect();
        all.push(std::mem::take(&mut self.overflow));
        // An entry is live iff its vertex's bucket is the bucket of the vector holding it;
        // vertices at or above the window are live in the overflow. Vectors are disjoint in
        // which vertices they can validly hold, so a per-vertex mark dedups across all of them.
        let seen: Vec<AtomicBool> = (0..self.bkt.len())
            .map(|_| AtomicBool::new(false))
            .collect();
        let kept: Vec<Vec<Vertex>> = all
            .into_par_iter()
            .enumerate()
            .map(|(i, vec)| {
                let valid = |b: BucketId| {
                    b != NULL_BUCKET
                        && if (i as u64) < open {
                            b as u64 == base + i as u64
                        } else {
                            b as u64 >= base + open
                        }
                };
                let ok = |v: &Vertex| {
                    valid(self.bkt[*v as usize].load(Relaxed))
                        && !seen[*v as usize].swap(true, Relaxed)
                };
                if vec.len() < PAR_THRESHOLD {
                    vec.into_iter().filter(ok).collect()
                } else {
                    let parts: Vec<Vec<Vertex>> = vec
                        .par_chunks(PAR_THRESHOLD)
                        .map(|c| c.iter().copied().filter(ok).collect())
                        .collect();
                    concat(parts)
                }
            })
            .collect();
        let mut kept = kept;
        self.overflow = kept.pop().unwrap_or_default();
        self.window = kept;
        self.entries = self.window.iter().map(Vec::len).sum::<usize>() + self.overflow.len();
        debug_assert_eq!(self.entries, self.live);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// The sequential model: a map from vertex to bucket.
    struct Model {
        bkt: BTreeMap<Vertex, BucketId>,
        cur: BucketId,
    }

    impl Model {
        fn next_bucket(&mut self) -> Option<(BucketId, Vec<Vertex>)> {
            let b = *self.bkt.values().min()?;
            self.cur = b;
            let vs: Vec<Vertex> = self
                .bkt
                .iter()
                .filter(|&(_, &x)| x == b)
                .map(|(&v, _)| v)
                .collect();
            for v in &vs {
                self.bkt.remove(v);
            }
            Some((b, vs))
        }

        fn update(&mut self, moves: &[(Vertex, BucketId)]) {
            for &(v, b) in moves {
                if b == NULL_BUCKET {
                    self.bkt.remove(&v);
                } else {
                    self.bkt.insert(v, b.max(self.cur));
                }
            }
        }
    }

    fn sorted(mut v: Vec<Vertex>) -> Vec<Vertex> {
        v.sort_unstable();
        v
    }

    #[test]
    fn peels_in_increasing_order() {
        // Buckets: 0:{3} 2:{0,4} 5:{1} 300:{2} (300 is beyond the 4-bucket window).
        let init = [2, 5, 300, 0, 2];
        let mut b = Buckets::with_open_buckets(5, 4, |v| init[v as usize]);
        assert_eq!(b.len(), 5);
        assert_eq!(b.next_bucket(), Some((0, vec![3])));
        // Move 1 down to 3 and 4 up to 7 (from bucket 2); 0 moves below the current: clamped.
        b.update_buckets(&[(1, 3), (4, 7)]);
        let (k, vs) = b.next_bucket().unwrap();
        assert_eq!((k, sorted(vs)), (2, vec![0]));
        b.update_buckets(&[(2, 1)]); // clamped to the current bucket 2
        assert_eq!(b.bucket_of(2), Some(2));
        assert_eq!(b.next_bucket(), Some((2, vec![2])));
        assert_eq!(b.next_bucket(), Some((3, vec![1])));
        assert_eq!(b.next_bucket(), Some((7, vec![4])));
        assert_eq!(b.next_bucket(), None);
        assert!(b.is_empty());
    }

    #[test]
    fn removal_and_far_buckets() {
        let mut b = Buckets::with_open_buckets(3, 2, |v| [1_000_000, NULL_BUCKET, 5][v as usize]);
        assert_eq!(b.len(), 2);
        b.update_buckets(&[(2, NULL_BUCKET), (1, 4_000_000_000)]);
        assert_eq!(b.bucket_of(2), None);
        assert_eq!(b.next_bucket(), Some((1_000_000, vec![0])));
        assert_eq!(b.next_bucket(), Some((4_000_000_000, vec![1])));
        assert_eq!(b.next_bucket(), None);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Next,
        Compact,
        Update(Vec<(Vertex, BucketId)>),
    }

    fn op(n: u32) -> impl Strategy<Value = Op> {
        let bucket = prop_oneof![
            6 => 0u32..20,
            2 => 0u32..400,
            1 => Just(NULL_BUCKET),
        ];
        prop_oneof![
            1 => Just(Op::Next),
            1 => Just(Op::Compact),
            2 => proptest::collection::vec((0..n, bucket), 0..40).prop_map(Op::Update),
        ]
    }

    fn run_against_model(n: u32, open: usize, init: Vec<BucketId>, ops: Vec<Op>) {
        let mut b = Buckets::with_open_buckets(n as usize, open, |v| init[v as usize]);
        let mut m = Model {
            bkt: init
                .iter()
                .enumerate()
                .filter(|(_, &x)| x != NULL_BUCKET)
                .map(|(v, &x)| (v as Vertex, x))
                .collect(),
            cur: init
                .iter()
                .copied()
                .min()
                .filter(|&b| b != NULL_BUCKET)
                .unwrap_or(0),
        };
        let check = |b: &Buckets, m: &Model| {
            assert_eq!(b.len(), m.bkt.len());
            for v in 0..n {
                assert_eq!(b.bucket_of(v), m.bkt.get(&v).copied(), "vertex {v}");
            }
            assert!(b.num_entries() <= 2 * n as usize + 1024 + 40);
        };
        for o in ops {
            match o {
                Op::Next => {
                    let got = b.next_bucket().map(|(k, vs)| (k, sorted(vs)));
                    assert_eq!(got, m.next_bucket());
                }
                Op::Compact => {
                    b.compact();
                    assert_eq!(b.num_entries(), b.len());
                }
                Op::Update(mut moves) => {
                    // Each vertex at most once per call.
                    let mut seen = std::collections::HashSet::new();
                    moves.retain(|&(v, _)| seen.insert(v));
                    b.update_buckets(&moves);
                    m.update(&moves);
                }
            }
            check(&b, &m);
        }
        // Drain.
        loop {
            let got = b.next_bucket().map(|(k, vs)| (k, sorted(vs)));
            let want = m.next_bucket();
            assert_eq!(got, want);
            if got.is_none() {
                break;
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn matches_sequential_model(
            (n, init, ops) in (1u32..60).prop_flat_map(|n| (
                Just(n),
                proptest::collection::vec(prop_oneof![3 => 0u32..30, 1 => Just(NULL_BUCKET)], n as usize),
                proptest::collection::vec(op(n), 0..60),
            )),
            open in 1usize..6,
        ) {
            run_against_model(n, open, init, ops);
        }
    }

    /// Large enough to take the parallel paths (semisort, parallel filter, compaction).
    #[test]
    fn large_parallel_paths_match_model() {
        let n = 20_000u32;
        let mut state = 12345u64;
        let mut rnd = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let init: Vec<BucketId> = (0..n).map(|_| (rnd() % 50) as u32).collect();
        let mut ops = Vec::new();
        for _ in 0..30 {
            let mut moves = Vec::new();
            for v in 0..n {
                if rnd() % 2 == 0 {
                    let b = match rnd() % 10 {
                        0 => NULL_BUCKET,
                        1 => (rnd() % 5000) as u32,
                        _ => (rnd() % 60) as u32,
                    };
                    moves.push((v, b));
                }
            }
            ops.push(Op::Update(moves));
            ops.push(Op::Next);
        }
        for open in [1, 16, 128] {
            let init = init.clone();
            let ops = ops.clone();
            rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .unwrap()
                .install(|| run_against_model(n, open, init, ops));
        }
    }
}
