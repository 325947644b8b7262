//! Single-source shortest paths on weighted graphs.
//!
//! | algorithm | file | weights |
//! |---|---|---|
//! | delta-stepping (Meyer & Sanders 2003), on Julienne buckets | [`delta_stepping`] | non-negative |
//! | frontier-based parallel Bellman-Ford | [`bellman_ford`] | any; detects negative cycles |
//!
//! Both follow out-arcs, so on a directed graph they compute distances *from* the source along
//! arc directions; on a symmetric graph every edge is usable both ways. Both return an
//! [`Output`] whose `parent` array is a shortest-path tree chosen deterministically (the same
//! at every thread count): see [`shortest_path_parents`].
//!
//! [`verify`] checks an output against the graph and against a sequential Dijkstra (non-negative
//! weights) or a sequential Bellman-Ford (otherwise).

pub mod bellman_ford;
pub mod delta_stepping;

use crate::traverse::{for_each_out_ahead, frontier_scatter};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::Relaxed};
use weald_graph::parallel::{concat, pack_index};
use weald_graph::{DistValue, Graph, Result, Vertex, WealdError, Weight, NO_VERTEX};

/// Shortest-path distances and a shortest-path tree from one source.
#[derive(Clone, Debug, PartialEq)]
pub struct Output<D> {
    /// `dist[v]`: length of a shortest path from the source to `v`; `D::INF` if unreachable.
    pub dist: Vec<D>,
    /// `parent[v]`: the vertex before `v` on a shortest path (`u32::MAX` if unreachable;
    /// `parent[source] == source`).
    pub parent: Vec<Vertex>,
}

/// The distance type of a graph's weights.
pub type DistOf<G> = <<G as Graph>::W as Weight>::Dist;

/// `WealdError::WeightMismatch` for unweighted graphs.
pub(crate) fn require_weighted<G: Graph>(algorithm: &str) -> Result<()> {
    if <G::W as Weight>::WEIGHTED {
        Ok(())
    } else {
        Err(WealdError::WeightMismatch(format!(
            "sssp needs a weighted graph; this one is unweighted ({algorithm} was asked for). \
             Load the graph with weights, or run bfs for hop distances"
        )))
    }
}

/// The first arc (by source) whose weight, as f64, is `bad`, found by a parallel scan: which
/// weight a run refuses, for its error message.
pub(crate) fn first_arc_with<G: Graph>(
    g: &G,
    bad: impl Fn(f64) -> bool + Sync,
) -> Option<(Vertex, Vertex, G::W)> {
    (0..g.num_vertices() as Vertex)
        .into_par_iter()
        .find_map_first(|u| {
            let mut found = None;
            g.for_each_out(u, |v, w| {
                if bad(w.to_f64()) {
                    found = Some((u, v, w));
                    return false;
                }
                true
            });
            found
        })
}

/// Tentative distances during a run, as [`DistValue::to_ordered_bits`], lowered by atomic min,
/// and a *queued* mark per vertex: the relaxation that lowers a vertex's distance first in a
/// round queues it, so each round's improved vertices are collected once; the caller takes
/// them out ([`dequeue`](Self::dequeue)) between rounds.
///
/// A run's time is its random reads of these slots, so they are as narrow as the distances
/// allow: [`Narrow`] (4 bytes, the mark inside the slot) when every distance of the run is a
/// non-negative integer below `2³¹ − 1`, else [`Wide`] (8 bytes, any distance, marks in a
/// separate byte array).
pub(crate) trait Slots: Sync {
    /// The distance of `u`, in the form [`relax`](Self::relax) adds weights to.
    fn base(&self, u: usize) -> u64;
    /// Lower the distance of `v` to `d + w`, where `d` is the distance that `base` (from
    /// [`base`](Self::base)) stands for. `true` if this call lowered it and `v` was not queued
    /// (it is now); `false` if the distance was already at most `d + w`, or `v` was already
    /// queued.
    fn relax<W: Weight>(&self, v: usize, base: u64, w: W) -> bool;
    /// Clear the queued mark of `v` and return its distance (ordered bits). Not concurrent
    /// with [`relax`](Self::relax) on the same run.
    fn dequeue(&self, v: usize) -> u64;
    /// Start loading the slot of `v` (a hint; `v` out of range is ignored).
    fn prefetch(&self, v: usize);
}

/// 8-byte distances (any [`DistValue`]) and a byte of queued marks per vertex.
pub(crate) struct Wide {
    dist: Vec<AtomicU64>,
    queued: Vec<AtomicBool>,
}

impl Wide {
    /// Every distance `D::INF` but the source's (`D::ZERO`); nothing queued.
    pub(crate) fn new<D: DistValue>(n: usize, source: Vertex) -> Self {
        let inf = D::INF.to_ordered_bits();
        let dist: Vec<AtomicU64> = (0..n)
            .into_par_iter()
            .with_min_len(4096)
            .map(|_| AtomicU64::new(inf))
            .collect();
        dist[source as usize].store(D::ZERO.to_ordered_bits(), Relaxed);
        let queued = (0..n)
            .into_par_iter()
            .with_min_len(4096)
            .map(|_| AtomicBool::new(false))
            .collect();
        Wide { dist, queued }
    }

    /// The distances.
    pub(crate) fn finish<D: DistValue>(self) -> Vec<D> {
        self.dist
            .into_par_iter()
            .with_min_len(4096)
            .map(|d| D::from_ordered_bits(d.into_inner()))
            .collect()
    }
}

impl Slots for Wide {
    #[inline]
    fn base(&self, u: usize) -> u64 {
        self.dist[u].load(Relaxed)
    }
    #[inline]
    fn relax<W: Weight>(&self, v: usize, base: u64, w: W) -> bool {
        let bits = W::Dist::from_ordered_bits(base)
            .plus(w.to_dist())
            .to_ordered_bits();
        let slot = &self.dist[v];
        bits < slot.load(Relaxed)
            && bits < slot.fetch_min(bits, Relaxed)
            && !self.queued[v].load(Relaxed)
            && !self.queued[v].swap(true, Relaxed)
    }
    #[inline]
    fn dequeue(&self, v: usize) -> u64 {
        self.queued[v].store(false, Relaxed);
        self.dist[v].load(Relaxed)
    }
    #[inline(always)]
    fn prefetch(&self, v: usize) {
        weald_graph::prefetch_at(&self.dist, v);
    }
}

/// The 4-byte code of non-negative integer distances: `d` itself (`bits(d) − bits(0)`), with
/// `u32::MAX` for `INF`. Order- and equality-preserving on the distances it [`fits`](Self::fits).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NarrowCode {
    zero: u64,
    inf: u64,
}

impl NarrowCode {
    pub(crate) fn new<D: DistValue>() -> Self {
        NarrowCode {
            zero: D::ZERO.to_ordered_bits(),
            inf: D::INF.to_ordered_bits(),
        }
    }

    /// `bits` (ordered bits of a distance) has a code.
    pub(crate) fn fits(self, bits: u64) -> bool {
        bits == self.inf || (bits >= self.zero && bits - self.zero < u32::MAX as u64)
    }

    #[inline]
    pub(crate) fn encode(self, bits: u64) -> u32 {
        if bits == self.inf {
            u32::MAX
        } else {
            (bits - self.zero) as u32
        }
    }

    #[inline]
    pub(crate) fn decode(self, x: u32) -> u64 {
        if x == u32::MAX {
            self.inf
        } else {
            self.zero + x as u64
        }
    }
}

/// Distances of at most 31 bits and their queued marks, one `u32` per vertex: the
/// [`NarrowCode`] of the distance (`HALF_INF` for `INF`) shifted left by one, and bit 0 set
/// while the vertex is *not* queued. Distances compare by the upper 31 bits; queuing a vertex
/// is part of the compare-and-swap that lowers its distance, so a relaxation reads and writes
/// one slot and nothing else (no second random access for the mark).
pub(crate) struct Narrow {
    slots: Vec<AtomicU32>,
    code: NarrowCode,
}

/// The 31-bit code of `INF` in a [`Narrow`] slot.
const HALF_INF: u32 = u32::MAX >> 1;

impl Narrow {
    /// Does every distance of a run fit, when no arc weighs more than `max_weight` and a
    /// shortest path has at most `n − 1` arcs? (Integer distances only; and every weight
    /// below `2³¹`, which [`relax`](Slots::relax) needs even where `n = 1`.)
    pub(crate) fn fits<D: DistValue>(max_weight: f64, n: usize) -> bool {
        !is_float::<D>()
            && max_weight < HALF_INF as f64
            && max_weight * (n.saturating_sub(1) as f64) < (HALF_INF - 1) as f64
    }

    /// Every distance `INF` but the source's (zero); nothing queued.
    pub(crate) fn new<D: DistValue>(n: usize, source: Vertex) -> Self {
        let code = NarrowCode::new::<D>();
        let idle_inf = HALF_INF << 1 | 1;
        let slots: Vec<AtomicU32> = (0..n)
            .into_par_iter()
            .with_min_len(4096)
            .map(|_| AtomicU32::new(idle_inf))
            .collect();
        slots[source as usize].store(1, Relaxed); // distance 0, not queued
        Narrow { slots, code }
    }

    /// The ordered bits of the distance in `slot`.
    #[inline]
    fn bits(&self, slot: u32) -> u64 {
        match slot >> 1 {
            HALF_INF => self.code.decode(u32::MAX),
            c => self.code.decode(c),
        }
    }

    /// The distances.
    pub(crate) fn finish<D: DistValue>(self) -> Vec<D> {
        let this = &self;
        self.slots
            .par_iter()
            .with_min_len(4096)
            .map(|x| D::from_ordered_bits(this.bits(x.load(Relaxed))))
            .collect()
    }
}

impl Slots for Narrow {
    /// The 31-bit code of `u`'s distance.
    #[inline]
    fn base(&self, u: usize) -> u64 {
        (self.slots[u].load(Relaxed) >> 1) as u64
    }
    /// The sum in codes, in 32 bits: a weight's code is the weight itself (non-negative
    /// integers below `2³¹` only come here, see [`fits`](Narrow::fits)), `base` is at most
    /// `HALF_INF`, so the sum does not overflow. A sum at or above `HALF_INF` (as from `INF`)
    /// lowers no slot, whose code is at most `HALF_INF`; and the slots never need it: every
    /// lowering is the length of a simple path, below `HALF_INF − 1` by `fits`. A few
    /// instructions per arc (the code of the weight folds to the weight) instead of a
    /// saturating 64-bit add and the conversions around it: delta-stepping's loop is short
    /// enough to notice (RMAT scale 20: 9 % less time).
    #[inline]
    fn relax<W: Weight>(&self, v: usize, base: u64, w: W) -> bool {
        let zero = W::Dist::ZERO.to_ordered_bits();
        let wc = w.to_dist().to_ordered_bits().wrapping_sub(zero) as u32;
        let x = base as u32 + wc;
        let slot = &self.slots[v];
        let mut cur = slot.load(Relaxed);
        while x < cur >> 1 {
            // The new distance, queued (bit 0 clear).
            match slot.compare_exchange_weak(cur, x << 1, Relaxed, Relaxed) {
                Ok(_) => return cur & 1 == 1,
                Err(now) => cur = now,
            }
        }
        false
    }
    #[inline]
    fn dequeue(&self, v: usize) -> u64 {
        self.bits(self.slots[v].fetch_or(1, Relaxed))
    }
    #[inline(always)]
    fn prefetch(&self, v: usize) {
        weald_graph::prefetch_at(&self.slots, v);
    }
}

/// Relax every out-arc of the `frontier` vertices. Returns the vertices whose distance
/// decreased, each once (queued in `dist`: the caller must [`Slots::dequeue`] them).
///
/// The time goes to the random reads of the neighbours' slots: the slot of the neighbour
/// [`ARCS_AHEAD`](crate::traverse::ARCS_AHEAD) arcs ahead is prefetched
/// ([`for_each_out_ahead`]), and [`frontier_scatter`] prefetches, for the frontier vertices
/// ahead, their index entry, their adjacency and the slots of their first neighbours.
pub(crate) fn relax_frontier<G: Graph, S: Slots + ?Sized>(
    g: &G,
    frontier: &[Vertex],
    dist: &S,
) -> Vec<Vertex> {
    let ahead = |a: Vertex| dist.prefetch(a as usize);
    let relax = |u: Vertex, out: &mut Vec<Vertex>| {
        let du = dist.base(u as usize);
        for_each_out_ahead(g, u, ahead, |v, w| {
            if dist.relax(v as usize, du, w) {
                out.push(v);
            }
        });
    };
    frontier_scatter(g, frontier, 32, ahead, relax)
}

/// A deterministic shortest-path tree for final distances `dist`.
///
/// An arc `u→v` is *tight* when `dist[u] + w == dist[v]` (exactly: both algorithms compute the
/// final `dist[v]` as such a sum). With `strict_first` (non-negative weights), `parent[v]` is the
/// smallest `u` with a tight arc and `dist[u] < dist[v]`: one parallel pass, and acyclic since
/// distances strictly grow along the chosen arcs. Vertices left without a parent (only tight
/// arcs of equal distance reach them: zero weights) and, without `strict_first`, all vertices,
/// get one by a breadth-first search over tight arcs from the vertices already assigned: the
/// smallest tight predecessor assigned in the previous round. This is a tree even with
/// zero-weight cycles (where "smallest tight predecessor" alone could form a cycle).
pub fn shortest_path_parents<G: Graph>(
    g: &G,
    source: Vertex,
    dist: &[DistOf<G>],
    strict_first: bool,
) -> Vec<Vertex> {
    // The pass is random reads of the distances' keys: 4-byte keys (the distance itself) when
    // every finite distance is a non-negative integer below u32::MAX, else the 8-byte ordered
    // bits. (On a 1M-vertex graph the 4 MB array stays in cache where 8 MB does not: ~2.5x.)
    let code = NarrowCode::new::<DistOf<G>>();
    let narrow = !is_float::<DistOf<G>>()
        && dist
            .par_iter()
            .with_min_len(4096)
            .all(|d| code.fits(d.to_ordered_bits()));
    if narrow {
        let (key, unkey) = (|b| code.encode(b), |k| code.decode(k));
        parents_by_key(g, source, dist, strict_first, key, unkey)
    } else {
        parents_by_key(g, source, dist, strict_first, |b| b, |k| k)
    }
}

/// [`shortest_path_parents`] comparing distances by `key(ordered bits)`, an order- and
/// equality-preserving map on the run's distances with inverse `unkey`.
fn parents_by_key<G: Graph, K: Copy + Ord + Send + Sync>(
    g: &G,
    source: Vertex,
    dist: &[DistOf<G>],
    strict_first: bool,
    key: impl Fn(u64) -> K + Sync,
    unkey: impl Fn(K) -> u64 + Sync,
) -> Vec<Vertex> {
    let n = g.num_vertices();
    let keys: Vec<K> = dist
        .par_iter()
        .with_min_len(4096)
        .map(|d| key(d.to_ordered_bits()))
        .collect();
    let inf = key(DistOf::<G>::INF.to_ordered_bits());
    // `u→v` with weight `w` is tight and strictly increasing. Non-short-circuit `&`: one rarely
    // taken branch per arc instead of a mispredicted one on `ku < kv` (which would serialise
    // the random reads of `keys`).
    let tight = |ku: K, w: G::W, kv: K| {
        let via = DistOf::<G>::from_ordered_bits(unkey(ku)).plus(w.to_dist());
        (ku < kv) & (key(via.to_ordered_bits()) == kv)
    };
    let parent: Vec<AtomicU32> = if strict_first && !g.is_directed() {
        // Pull (symmetric: the out-arcs are the in-arcs): each reached `v` takes its first
        // tight neighbour, the smallest since neighbours come in increasing order. No
        // atomics, and the scan stops there (about 2x faster than the push on RMAT).
        (0..n as Vertex)
            .into_par_iter()
            .with_min_len(256)
            .map(|v| {
                let kv = keys[v as usize];
                let mut p = NO_VERTEX;
                if kv != inf {
                    g.for_each_out(v, |u, w| {
                        if tight(keys[u as usize], w, kv) {
                            p = u;
                            return false;
                        }
                        true
                    });
                }
                AtomicU32::new(p)
            })
            .collect()
    } else {
        (0..n)
            .into_par_iter()
            .with_min_len(4096)
            .map(|_| AtomicU32::new(NO_VERTEX))
            .collect()
    };
    // (No tight arc enters the source at a smaller distance, so the pull left it unassigned.)
    parent[source as usize].store(source, Relaxed);
    if strict_first && g.is_directed() {
        // Push: each reached `u` offers itself to its tight out-neighbours.
        (0..n as Vertex)
            .into_par_iter()
            .with_min_len(256)
            .for_each(|u| {
                let ku = keys[u as usize];
                if ku == inf {
                    return;
                }
                g.for_each_out(u, |v, w| {
                    if (v != source) & tight(ku, w, keys[v as usize]) {
                        parent[v as usize].fetch_min(u, Relaxed);
                    }
                    true
                });
            });
    }
    let frontier: Vec<Vertex> = if !strict_first {
        vec![source]
    } else if (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .any(|v| keys[v] != inf && parent[v].load(Relaxed) == NO_VERTEX)
    {
        pack_index(n, |v| parent[v].load(Relaxed) != NO_VERTEX)
    } else {
        Vec::new()
    };
    tight_bfs(g, &keys, &key, dist, &parent, frontier);
    parent.into_iter().map(AtomicU32::into_inner).collect()
}

/// Breadth-first search over tight arcs from `frontier`, giving each unassigned reached vertex
/// the smallest tight predecessor of the previous round.
fn tight_bfs<G: Graph, K: Copy + Eq + Sync>(
    g: &G,
    keys: &[K],
    key: &(impl Fn(u64) -> K + Sync),
    dist: &[DistOf<G>],
    parent: &[AtomicU32],
    mut frontier: Vec<Vertex>,
) {
    if frontier.is_empty() {
        return;
    }
    let n = g.num_vertices();
    let cand: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(NO_VERTEX)).collect();
    while !frontier.is_empty() {
        let parts: Vec<Vec<Vertex>> = frontier
            .par_iter()
            .with_min_len(64)
            .fold(Vec::new, |mut out, &u| {
                let du = dist[u as usize];
                g.for_each_out(u, |v, w| {
                    if parent[v as usize].load(Relaxed) == NO_VERTEX
                        && key(du.plus(w.to_dist()).to_ordered_bits()) == keys[v as usize]
                        && cand[v as usize].fetch_min(u, Relaxed) == NO_VERTEX
                    {
                        out.push(v);
                    }
                    true
                });
                out
            })
            .collect();
        frontier = concat(parts);
        frontier.par_iter().with_min_len(4096).for_each(|&v| {
            parent[v as usize].store(cand[v as usize].load(Relaxed), Relaxed);
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Verification

fn is_float<D: 'static>() -> bool {
    std::any::TypeId::of::<D>() == std::any::TypeId::of::<f64>()
}

/// `a == b` (exactly for integers; within relative 1e-9 for floats).
fn same<D: DistValue>(a: D, b: D) -> bool {
    if a.to_ordered_bits() == b.to_ordered_bits() {
        return true;
    }
    if !is_float::<D>() {
        return false;
    }
    let (x, y) = (a.to_f64(), b.to_f64());
    x.is_finite() && y.is_finite() && (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
}

/// `a <= b` (with the same tolerance as [`same`]).
fn at_most<D: DistValue>(a: D, b: D) -> bool {
    a.to_ordered_bits() <= b.to_ordered_bits() || same(a, b)
}

/// Sequential Dijkstra with a binary heap (non-negative weights).
fn dijkstra<G: Graph>(g: &G, source: Vertex) -> Vec<DistOf<G>> {
    use std::cmp::Reverse;
    let n = g.num_vertices();
    let inf = DistOf::<G>::INF;
    let mut dist = vec![inf; n];
    let mut done = vec![false; n];
    let mut heap = std::collections::BinaryHeap::new();
    dist[source as usize] = DistOf::<G>::ZERO;
    heap.push(Reverse((DistOf::<G>::ZERO.to_ordered_bits(), source)));
    while let Some(Reverse((b, u))) = heap.pop() {
        if done[u as usize] {
            continue;
        }
        done[u as usize] = true;
        let du = DistOf::<G>::from_ordered_bits(b);
        g.for_each_out(u, |v, w| {
            let nd = du.plus(w.to_dist());
            if nd.to_ordered_bits() < dist[v as usize].to_ordered_bits() {
                dist[v as usize] = nd;
                heap.push(Reverse((nd.to_ordered_bits(), v)));
            }
            true
        });
    }
    dist
}

/// Sequential queue-based Bellman-Ford; `None` if a negative cycle is reachable.
fn bellman_ford_seq<G: Graph>(g: &G, source: Vertex) -> Option<Vec<DistOf<G>>> {
    let n = g.num_vertices();
    let mut dist = vec![DistOf::<G>::INF; n];
    let mut in_queue = vec![false; n];
    // Rounds as in the textbook algorithm: `round` holds the vertices changed in the previous
    // round; after n rounds with changes there is a negative cycle.
    dist[source as usize] = DistOf::<G>::ZERO;
    let mut round = vec![source];
    for _ in 0..n {
        let mut next = Vec::new();
        for &u in &round {
            in_queue[u as usize] = false;
        }
        for &u in &round {
            let du = dist[u as usize];
            g.for_each_out(u, |v, w| {
                let nd = du.plus(w.to_dist());
                if nd.to_ordered_bits() < dist[v as usize].to_ordered_bits() {
                    dist[v as usize] = nd;
                    if !in_queue[v as usize] {
                        in_queue[v as usize] = true;
                        next.push(v);
                    }
                }
                true
            });
        }
        round = next;
        if round.is_empty() {
            return Some(dist);
        }
    }
    None
}

/// Check a shortest-path output from `source`:
///
/// * array lengths; `dist[source] == 0` and `parent[source] == source`;
/// * every arc `u→v` out of a reached `u` is relaxed: `v` is reached and `dist[v] <= dist[u] + w`;
/// * every reached `v` other than the source has a reached parent with an arc `parent→v`
///   attaining `dist[v]`, and following parents from `v` leads to the source (no cycle);
/// * every unreached vertex has distance `INF` and parent `u32::MAX` (and, by the arc check,
///   no reached in-neighbour);
/// * the distances equal those of a sequential Dijkstra (all weights non-negative) or of a
///   sequential Bellman-Ford (otherwise; a reachable negative cycle makes any output wrong).
///
/// Float distances are compared with a relative tolerance of 1e-9, integers exactly.
pub fn verify<G: Graph>(
    g: &G,
    source: Vertex,
    out: &Output<DistOf<G>>,
) -> std::result::Result<(), String> {
    type D<G> = DistOf<G>;
    let n = g.num_vertices();
    if (source as usize) >= n {
        return Err(format!("source {source} out of range (n = {n})"));
    }
    if out.dist.len() != n || out.parent.len() != n {
        return Err(format!(
            "output has {} distances and {} parents for {n} vertices",
            out.dist.len(),
            out.parent.len()
        ));
    }
    let inf = D::<G>::INF.to_ordered_bits();
    let reached = |v: Vertex| out.dist[v as usize].to_ordered_bits() != inf;
    if out.dist[source as usize].to_ordered_bits() != D::<G>::ZERO.to_ordered_bits() {
        return Err(format!(
            "distance of the source {source} is {:?}, not 0",
            out.dist[source as usize]
        ));
    }
    if out.parent[source as usize] != source {
        return Err(format!(
            "parent of the source {source} is {}, not itself",
            out.parent[source as usize]
        ));
    }
    let mut negative = false;
    for u in 0..n as Vertex {
        let du = out.dist[u as usize];
        let mut err = None;
        g.for_each_out(u, |v, w| {
            let x = w.to_f64();
            if x.is_nan() || x < 0.0 {
                negative = true;
            }
            if reached(u) {
                if !reached(v) {
                    err = Some(format!("arc {u}→{v}: {u} is reached but {v} is not"));
                    return false;
                }
                let via = du.plus(w.to_dist());
                if !at_most(out.dist[v as usize], via) {
                    err = Some(format!(
                        "arc {u}→{v} (weight {w:?}) not relaxed: dist[{v}] = {:?} > {:?} + {w:?}",
                        out.dist[v as usize], du
                    ));
                    return false;
                }
            }
            true
        });
        if let Some(e) = err {
            return Err(e);
        }
    }
    for v in 0..n as Vertex {
        let p = out.parent[v as usize];
        if !reached(v) {
            if p != NO_VERTEX {
                return Err(format!("unreached vertex {v} has parent {p}"));
            }
            continue;
        }
        if v == source {
            continue;
        }
        if p as usize >= n || !reached(p) {
            return Err(format!(
                "reached vertex {v} has parent {p}, which is not reached"
            ));
        }
        let dp = out.dist[p as usize];
        let mut attained = false;
        g.for_each_out(p, |x, w| {
            if x == v && same(dp.plus(w.to_dist()), out.dist[v as usize]) {
                attained = true;
            }
            x <= v
        });
        if !attained {
            return Err(format!(
                "dist[{v}] = {:?} is not attained by an arc from its parent {p} (dist {:?})",
                out.dist[v as usize], dp
            ));
        }
    }
    // Parent chains end at the source: 0 = unknown, 1 = on the current chain, 2 = good.
    let mut state = vec![0u8; n];
    state[source as usize] = 2;
    let mut chain = Vec::new();
    for v in 0..n as Vertex {
        if !reached(v) || state[v as usize] == 2 {
            continue;
        }
        let mut x = v;
        while state[x as usize] == 0 {
            state[x as usize] = 1;
            chain.push(x);
            x = out.parent[x as usize];
        }
        if state[x as usize] == 1 {
            return Err(format!(
                "the parent pointers from {v} form a cycle through {x}"
            ));
        }
        for y in chain.drain(..) {
            state[y as usize] = 2;
        }
    }
    let expected = if negative {
        match bellman_ford_seq(g, source) {
            Some(d) => d,
            None => {
                return Err(format!(
                    "a negative cycle is reachable from {source}: no distances are correct"
                ))
            }
        }
    } else {
        dijkstra(g, source)
    };
    for (v, (&e, &d)) in expected.iter().zip(&out.dist).enumerate() {
        if !same(e, d) {
            return Err(format!(
                "dist[{v}] = {:?}, but the sequential {} gives {:?}",
                d,
                if negative { "Bellman-Ford" } else { "Dijkstra" },
                e
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod perf_tests;
#[cfg(test)]
mod tests;
