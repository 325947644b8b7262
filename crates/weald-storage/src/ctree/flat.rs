//! [`FlatSnapshot`]: one version flattened into an array of per-vertex edge trees, so global
//! algorithms look a vertex up in O(1) instead of O(log n).

use super::graph::CTreeGraph;
use super::tree::CTree;
use super::vtree::{self, VLink};
use rayon::prelude::*;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use weald_graph::parallel::SendPtr;
use weald_graph::{Graph, InGraph, Vertex, Weight, WeightSummary};

/// An `n`-element array of the edge trees of one version, plus the version itself, which keeps
/// every tree alive. Building it is O(n) and parallel.
///
/// Each vertex also has a `Lead` (8 bytes unweighted): its degree, and its first neighbour
/// with its weight. A tree's length is its prefix chunk's count plus its root's size, so
/// reading it costs the cache miss of the chunk's header, and traversals ask for degrees of
/// whole frontiers (edge_map's direction choice, the sparse push's output sizes) before they
/// scan anything. The first neighbour serves scans that stop early: a pull (a bottom-up BFS
/// step) stops at the first neighbour in the frontier, which on RMAT scale 20 is the first
/// neighbour for four pulls in five that find one; those read neither the slot nor the chunk,
/// nor decode the chunk's header, and [`InGraph::prefetch_in`] loads no chunk for a vertex of
/// degree one. (One 24-byte record per vertex instead of the slot and the lead was slower:
/// BFS 41.6–42.4 ms against 39.3–40.4, the code before 42.8–43.4.)
///
/// Each slot is a bitwise copy of the vertex's `CTree` (its prefix-chunk pointer and its root
/// pointer, 16 bytes) rather than a pointer to the vertex node: reading a vertex's edges costs
/// one cache miss fewer (the vertex node), and [`Graph::prefetch_out`] can start loading the
/// chunk straight from the array. The copies own no reference counts (they are never dropped);
/// `graph` owns the trees.
pub struct FlatSnapshot<W: Weight = ()> {
    graph: CTreeGraph<W>,
    out: Vec<ManuallyDrop<CTree<W>>>,
    inn: Option<Vec<ManuallyDrop<CTree<W>>>>,
    out_lead: Vec<Lead<W>>,
    /// Leads of the in-trees of a directed graph whose in-trees are kept (`None`: `out_lead`
    /// serves).
    in_lead: Option<Vec<Lead<W>>>,
    /// Bit `v` set iff vertex `v` is present (absent vertices have empty slots).
    present: Vec<u64>,
    /// The number of self loops, counted (by a scan) when first asked for.
    self_loops: std::sync::OnceLock<usize>,
    /// The weight summary, gathered (by a scan of the weights) when first asked for.
    weights: std::sync::OnceLock<WeightSummary>,
}

// SAFETY: the slots alias immutable `Arc`-owned data of `graph`, which this struct owns (so it
// outlives them), and `CTree<W>` is `Send + Sync` for `W: Weight`.
unsafe impl<W: Weight> Send for FlatSnapshot<W> {}
// SAFETY: as above; nothing is ever written through the slots.
unsafe impl<W: Weight> Sync for FlatSnapshot<W> {}

/// A vertex's degree and first neighbour with its weight (`first` and `w` are meaningless
/// when `deg` is 0).
#[derive(Clone, Copy, Default)]
struct Lead<W: Weight> {
    deg: u32,
    first: Vertex,
    w: W,
}

/// The slots of `t`'s vertices (empty trees for absent ids) and their leads, and if `present`
/// is given, the presence bits.
#[allow(clippy::type_complexity)]
fn flatten<W: Weight>(
    t: &VLink<W>,
    n: usize,
    present: Option<&[AtomicU64]>,
) -> (Vec<ManuallyDrop<CTree<W>>>, Vec<Lead<W>>) {
    let mut v: Vec<ManuallyDrop<CTree<W>>> = Vec::with_capacity(n);
    let mut leads: Vec<Lead<W>> = vec![Lead::default(); n];
    let p = SendPtr(v.as_mut_ptr());
    // Empty trees first (no allocation: two null pointers), in parallel.
    (0..n).into_par_iter().with_min_len(4096).for_each(|i| {
        let p = &p;
        // SAFETY: i < n = capacity; each slot is written once here.
        unsafe { p.0.add(i).write(ManuallyDrop::new(CTree::default())) };
    });
    // SAFETY: all n slots were initialised above.
    unsafe { v.set_len(n) };
    let p = SendPtr(v.as_mut_ptr());
    let d = SendPtr(leads.as_mut_ptr());
    vtree::par_for_each_node(t, &|node| {
        let (p, d) = (&p, &d);
        // A lead is read from the header of the tree's prefix chunk (a cache miss each; a
        // walk down the root's left spine when the prefix is empty, one tree in b): start
        // loading all of the block's at once.
        node.prefetch_trees();
        node.for_each_tree(|k, tree| {
            let k = k as usize;
            debug_assert!(k < n);
            let (deg, first, w) = tree.first(k as Vertex).unwrap_or_default();
            // SAFETY: ids are distinct and < n, so each slot and lead is written by one node
            // only (the old slot is an empty tree, which owns nothing). The copy aliases the
            // node's tree without taking counts; it is never dropped, and the snapshot keeps
            // the node alive. A degree fits u32: at most one arc to each u32 id.
            unsafe {
                p.0.add(k).write(ManuallyDrop::new(std::ptr::read(tree)));
                d.0.add(k).write(Lead {
                    deg: deg as u32,
                    first,
                    w,
                });
            }
        });
        if let Some(bits) = present {
            // Blocks are aligned to their size (a power of two at most 64): one word.
            let b = node.base() as usize;
            bits[b / 64].fetch_or((node.present() as u64) << (b % 64), Relaxed);
        }
    });
    (v, leads)
}

impl<W: Weight> FlatSnapshot<W> {
    /// [`FlatSnapshot::new`], or [`weald_graph::WealdError::OutOfMemory`] if its arrays
    /// (O(n), n = 1 + the largest vertex id, present or not) certainly cannot fit in memory.
    pub fn try_new(graph: &CTreeGraph<W>) -> weald_graph::Result<Self> {
        let n = graph.num_vertices() as u64;
        let per_vertex = (std::mem::size_of::<CTree<W>>() + std::mem::size_of::<Lead<W>>()) as u64;
        weald_graph::mem::ensure_fits(weald_graph::mem::bytes_for(n, per_vertex), || {
            format!(
                "a flat snapshot of a graph with vertex ids up to {}",
                n.saturating_sub(1)
            )
        })?;
        Ok(Self::new(graph))
    }

    /// Flatten `graph` (an O(1) clone of it is kept).
    pub fn new(graph: &CTreeGraph<W>) -> Self {
        let n = graph.num_vertices();
        let (out, inn) = graph.vertex_roots();
        let bits: Vec<AtomicU64> = (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let (out, out_lead) = flatten(out, n, Some(&bits));
        let (inn, in_lead) = inn.map(|i| flatten(i, n, None)).unzip();
        FlatSnapshot {
            out_lead,
            in_lead,
            out,
            inn,
            present: bits.into_iter().map(AtomicU64::into_inner).collect(),
            graph: graph.clone(),
            self_loops: std::sync::OnceLock::new(),
            weights: std::sync::OnceLock::new(),
        }
    }

    /// The version this snapshot flattens.
    pub fn graph(&self) -> &CTreeGraph<W> {
        &self.graph
    }

    #[inline]
    fn out_tree(&self, v: Vertex) -> Option<&CTree<W>> {
        self.out.get(v as usize).map(|t| &**t)
    }

    /// The leads and trees of the in-side (the out-side's when no in-trees are kept).
    #[inline]
    fn in_side(&self) -> (&[Lead<W>], &[ManuallyDrop<CTree<W>>]) {
        match (&self.in_lead, &self.inn) {
            (Some(l), Some(i)) => (l, i),
            _ => (&self.out_lead, &self.out),
        }
    }

    #[inline]
    fn in_tree(&self, v: Vertex) -> Option<&CTree<W>> {
        self.in_side().1.get(v as usize).map(|t| &**t)
    }

    #[inline]
    fn in_lead(&self, v: Vertex) -> Option<&Lead<W>> {
        self.in_side().0.get(v as usize)
    }

    /// Is vertex `v` present?
    pub fn has_vertex(&self, v: Vertex) -> bool {
        let v = v as usize;
        v < self.out.len() && self.present[v / 64] >> (v % 64) & 1 == 1
    }
}

/// The value in `cell`, or `scan()`'s, stored there for the next call. Not through
/// `OnceLock::get_or_init`: a pool thread waiting inside a parallel scan can pick up another
/// caller's job, which would then wait for the initialisation its own thread runs; two
/// concurrent first calls may both scan instead.
fn remembered<T: Copy>(cell: &std::sync::OnceLock<T>, scan: impl FnOnce() -> T) -> T {
    if let Some(&x) = cell.get() {
        return x;
    }
    let x = scan();
    let _ = cell.set(x);
    x
}

/// `f` on `v`'s neighbours in order until it returns `false` (`false` iff stopped), the first
/// from `v`'s lead, so that a scan that stops there reads neither the slot nor the chunk.
#[inline]
fn for_each_led<W: Weight>(
    lead: &[Lead<W>],
    trees: &[ManuallyDrop<CTree<W>>],
    v: Vertex,
    mut f: impl FnMut(Vertex, W) -> bool,
) -> bool {
    let Some(l) = lead.get(v as usize) else {
        return true;
    };
    if l.deg == 0 {
        return true;
    }
    f(l.first, l.w) && (l.deg == 1 || trees[v as usize].for_each_after_first(v, f))
}

impl<W: Weight> Graph for FlatSnapshot<W> {
    type W = W;

    #[inline]
    fn num_vertices(&self) -> usize {
        self.out.len()
    }

    #[inline]
    fn num_arcs(&self) -> usize {
        self.graph.num_arcs()
    }

    #[inline]
    fn is_directed(&self) -> bool {
        self.graph.is_directed()
    }

    /// Counted by the version's vertex tree and remembered (`remembered`): the snapshot never
    /// changes.
    fn num_self_loops(&self) -> usize {
        remembered(&self.self_loops, || self.graph.num_self_loops())
    }

    /// Gathered in parallel by [`fold_out_weights`](Graph::fold_out_weights), which reads only
    /// the weights, and remembered (`remembered`): the snapshot never changes, and each
    /// delta-stepping run asks for it. (RMAT scale 20, 31 M weights, 1 thread: 100–125 ms for
    /// the first call, against 145–190 ms for a scan of the arcs; a fifth of a delta-stepping
    /// run, which later runs no longer pay.)
    fn weight_summary(&self) -> WeightSummary {
        remembered(&self.weights, || WeightSummary::of_graph(self))
    }

    #[inline]
    fn fold_out_ahead<T: Copy, A: Fn(Vertex), F: FnMut(T, Vertex, W) -> T>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        init: T,
        f: F,
    ) -> T {
        match self.out_tree(v) {
            Some(t) => t.fold_ahead(v, dist, &ahead, init, f),
            None => init,
        }
    }

    #[inline]
    fn fold_out_weights<T: Copy, F: FnMut(T, W) -> T>(&self, v: Vertex, init: T, f: F) -> T {
        match self.out_tree(v) {
            Some(t) => t.fold_weights(v, init, f),
            None => init,
        }
    }

    #[inline]
    fn out_degree(&self, v: Vertex) -> usize {
        self.out_lead.get(v as usize).map_or(0, |l| l.deg as usize)
    }

    #[inline]
    fn prefetch_out(&self, v: Vertex) {
        if let Some(t) = self.out_tree(v) {
            t.prefetch();
        }
    }

    #[inline(always)]
    fn prefetch_out_index(&self, v: Vertex) {
        weald_graph::prefetch_at(&self.out, v as usize);
    }

    #[inline]
    fn for_each_out<F: FnMut(Vertex, W) -> bool>(&self, v: Vertex, f: F) -> bool {
        for_each_led(&self.out_lead, &self.out, v, f)
    }

    #[inline]
    fn for_each_out_ahead<A: Fn(Vertex), F: FnMut(Vertex, W)>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        f: F,
    ) {
        if let Some(t) = self.out_tree(v) {
            t.for_each_ahead(v, dist, &ahead, f);
        }
    }

    fn par_for_each_out<F: Fn(Vertex, W) + Sync + Send>(&self, v: Vertex, f: F) {
        if let Some(t) = self.out_tree(v) {
            t.par_for_each(v, &f);
        }
    }

    fn par_for_each_out_ahead<A: Fn(Vertex) + Sync, F: Fn(Vertex, W) + Sync + Send>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        f: F,
    ) {
        if let Some(t) = self.out_tree(v) {
            t.par_for_each_ahead(v, dist, &ahead, &f);
        }
    }
}

impl<W: Weight> InGraph for FlatSnapshot<W> {
    fn has_in_edges(&self) -> bool {
        self.graph.has_in_edges()
    }

    fn in_degree(&self, v: Vertex) -> usize {
        assert!(
            self.has_in_edges(),
            "in-trees of a directed C-tree graph were not kept"
        );
        self.in_lead(v).map_or(0, |l| l.deg as usize)
    }

    fn for_each_in<F: FnMut(Vertex, W) -> bool>(&self, v: Vertex, f: F) -> bool {
        assert!(
            self.has_in_edges(),
            "in-trees of a directed C-tree graph were not kept"
        );
        let (lead, trees) = self.in_side();
        for_each_led(lead, trees, v, f)
    }

    #[inline]
    fn fold_in<T: Copy, F: FnMut(T, Vertex, W) -> T>(&self, v: Vertex, init: T, mut f: F) -> T {
        assert!(
            self.has_in_edges(),
            "in-trees of a directed C-tree graph were not kept"
        );
        match self.in_lead(v) {
            None => init,
            Some(l) if l.deg == 0 => init,
            // A vertex of degree one is all in its lead (`prefetch_in` loads no chunk for it).
            Some(l) if l.deg == 1 => f(init, l.first, l.w),
            Some(_) => self.in_tree(v).map_or(init, |t| t.fold(v, init, f)),
        }
    }

    /// The lead and the tree handle (`prefetch_in` reads both), which a pull's candidates,
    /// scattered over the ids, find out of cache: BFS on RMAT scale 20 7–12 % faster at 1
    /// thread, 4–7 % at 2 (one process alternating with and without; see `ctree/mod.rs`).
    const PULL_INDEX_AHEAD: bool = true;

    #[inline(always)]
    fn prefetch_in_index(&self, v: Vertex) {
        let (lead, trees) = self.in_side();
        weald_graph::prefetch_at(lead, v as usize);
        weald_graph::prefetch_at(trees, v as usize);
    }

    #[inline]
    fn prefetch_in(&self, v: Vertex) {
        // A vertex of degree one is read from its lead alone (`for_each_in`, `fold_in`).
        if self.in_lead(v).is_some_and(|l| l.deg > 1) {
            if let Some(t) = self.in_tree(v) {
                t.prefetch();
            }
        }
    }
}
