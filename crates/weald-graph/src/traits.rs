//! The graph traits. Algorithms are generic over the smallest of these they need.

use crate::{Vertex, Weight};

/// Out-neighbour access to a graph snapshot with dense vertex ids `0..num_vertices()`.
///
/// For an undirected (symmetric) graph every edge `{u, v}` is stored as the two arcs `u→v` and
/// `v→u` (a self loop `v→v` once), and "out" means "incident".
pub trait Graph: Sync {
    /// The edge weight type (`()` when unweighted).
    type W: Weight;

    /// Number of vertices `n`; ids are `0..n`.
    fn num_vertices(&self) -> usize;

    /// Number of stored arcs (adjacency entries): `m` for a directed graph, about `2m` for a
    /// symmetric one.
    fn num_arcs(&self) -> usize;

    /// `true` for a directed graph, `false` for a symmetric one.
    fn is_directed(&self) -> bool;

    /// Out-degree of `v` (number of stored arcs leaving `v`).
    fn out_degree(&self, v: Vertex) -> usize;

    /// Call `f(u, w)` for every out-neighbour `u` of `v` (with the arc's weight), in increasing
    /// order of `u`, until `f` returns `false`. Returns `false` iff stopped early.
    fn for_each_out<F: FnMut(Vertex, Self::W) -> bool>(&self, v: Vertex, f: F) -> bool;

    /// Call `f(u, w)` for every out-neighbour of `v`, possibly in parallel and in any order.
    /// Backends override this for high-degree vertices.
    fn par_for_each_out<F: Fn(Vertex, Self::W) + Sync + Send>(&self, v: Vertex, f: F) {
        self.for_each_out(v, |u, w| {
            f(u, w);
            true
        });
    }

    /// Call `f(u, w)` for every out-neighbour of `v` in increasing order (every arc: `f`
    /// cannot stop the scan), and `ahead(a)` on neighbours before `f` gets them (`dist >= 1`),
    /// in increasing order. Which neighbours `ahead` gets is the backend's choice, a hint
    /// only: the CSR hands it the neighbour at position `i + dist` as `f` gets position `i`
    /// (none of the first `dist`: its callers prefetch those, see
    /// `weald_algo::traverse::frontier_scatter`); the C-tree does the same within each chunk
    /// (with `dist` at most 31), and also hands out a chunk's first `dist` elements when its
    /// scan starts (the heads of a multi-chunk tree go to `f` only).
    ///
    /// For loops whose time is a random read of per-neighbour state followed by a branch on it
    /// (relaxing a distance, "is `u` unvisited?"): a mispredicted branch discards the loads
    /// the CPU had started past it, while a prefetch issued earlier keeps loading, so `ahead`
    /// prefetches that state. The default reads the neighbours `dist` ahead from
    /// [`out_neighbors_slice`](Graph::out_neighbors_slice), and is the plain scan for a
    /// backend without slices; a compressed backend decodes `dist` ahead and keeps the
    /// elements decoded until `f` gets them.
    #[inline]
    fn for_each_out_ahead<A: Fn(Vertex), F: FnMut(Vertex, Self::W)>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        mut f: F,
    ) {
        // Two loops, so that a backend without slices runs the plain scan.
        match self.out_neighbors_slice(v).filter(|s| s.len() > dist) {
            Some(s) => {
                let next = &s[dist..];
                let mut i = 0;
                self.for_each_out(v, |u, w| {
                    if let Some(&a) = next.get(i) {
                        ahead(a);
                    }
                    i += 1;
                    f(u, w);
                    true
                });
            }
            None => {
                self.for_each_out(v, |u, w| {
                    f(u, w);
                    true
                });
            }
        }
    }

    /// [`for_each_out_ahead`](Graph::for_each_out_ahead) as a fold: `f(acc, u, w)` on every
    /// out-arc of `v` in order, from `init`, with the state by value (see
    /// [`InGraph::fold_in`] for why a sum should not be a captured variable). The default runs
    /// `for_each_out_ahead`.
    #[inline]
    fn fold_out_ahead<T: Copy, A: Fn(Vertex), F: FnMut(T, Vertex, Self::W) -> T>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        init: T,
        mut f: F,
    ) -> T {
        let mut acc = init;
        self.for_each_out_ahead(v, dist, ahead, |u, w| acc = f(acc, u, w));
        acc
    }

    /// Fold `f` over the weights of `v`'s out-arcs, in arc order, from `init`: for passes
    /// that read only weights ([`crate::WeightSummary::of_graph`]). The state goes by value
    /// from call to call, so it stays in registers (a closure that updates captured state
    /// through `&mut` stores it back after every weight: the compiler cannot tell that the
    /// weights' bytes do not alias it). The default scans the arcs; a backend that stores
    /// weights apart from the neighbours (the C-tree's chunks keep them after the packed gaps)
    /// reads them without decoding the neighbours.
    #[inline]
    fn fold_out_weights<T: Copy, F: FnMut(T, Self::W) -> T>(
        &self,
        v: Vertex,
        init: T,
        mut f: F,
    ) -> T {
        let mut acc = init;
        self.for_each_out(v, |_, w| {
            acc = f(acc, w);
            true
        });
        acc
    }

    /// [`par_for_each_out`](Graph::par_for_each_out) that also calls `ahead` on neighbours
    /// before `f` gets them, as [`for_each_out_ahead`](Graph::for_each_out_ahead) does, in
    /// each piece of the adjacency a thread scans (the CSR's pieces look ahead into the next
    /// piece; the C-tree's are its chunks). For a push from a high-degree vertex. The default
    /// ignores `ahead`.
    fn par_for_each_out_ahead<A: Fn(Vertex) + Sync, F: Fn(Vertex, Self::W) + Sync + Send>(
        &self,
        v: Vertex,
        _dist: usize,
        _ahead: A,
        f: F,
    ) {
        self.par_for_each_out(v, f)
    }

    /// Hint: `v`'s out-neighbours (or its degree) will be read soon. A loop over a run of
    /// vertices calls it a few vertices ahead of the one it works on, so that backends whose
    /// adjacency sits behind pointers (the C-tree's chunks) start the cache misses of several
    /// vertices at once instead of one after the other. It never changes a result; an `v` out
    /// of range is ignored. The default does nothing (a CSR's sequential scans are prefetched
    /// by the hardware).
    #[inline(always)]
    fn prefetch_out(&self, _v: Vertex) {}

    /// Hint: [`prefetch_out(v)`](Graph::prefetch_out) will be called soon. Starts loading the
    /// per-vertex entry that call reads to find `v`'s adjacency (the CSR's offset, the flat
    /// snapshot's tree handle). Over a frontier in random order that read misses the cache,
    /// and the prefetch that needs its value holds up the loop until it arrives; a loop that
    /// calls this some vertices before `prefetch_out` finds it loaded. Never changes a result.
    #[inline(always)]
    fn prefetch_out_index(&self, _v: Vertex) {}

    /// The sorted out-neighbours of `v` as a slice, when the backend stores them flat.
    /// Compressed backends return `None`; algorithms then fall back to [`Graph::for_each_out`].
    fn out_neighbors_slice(&self, _v: Vertex) -> Option<&[Vertex]> {
        None
    }

    /// A summary of every stored arc's weight (extremes, sum, NaNs). The default walks every
    /// adjacency; a backend that knows it (the CSR gathers it when built, from its flat weight
    /// array) returns it at once.
    fn weight_summary(&self) -> crate::WeightSummary {
        crate::WeightSummary::of_graph(self)
    }

    /// Number of undirected edges (symmetric) or arcs (directed), a self loop counting once.
    fn num_edges(&self) -> usize {
        if self.is_directed() {
            self.num_arcs()
        } else {
            (self.num_arcs() + self.num_self_loops()) / 2
        }
    }

    /// Number of self loops `v→v` (scans the graph unless the backend knows it).
    fn num_self_loops(&self) -> usize {
        count_self_loops(self)
    }
}

/// In-neighbour access. For a symmetric graph in-neighbours are the out-neighbours.
pub trait InGraph: Graph {
    /// `true` if in-neighbours can be enumerated (always for symmetric graphs; for directed
    /// graphs only if the backend stores in-arcs). Callers must check it before the others.
    fn has_in_edges(&self) -> bool;

    /// In-degree of `v`.
    fn in_degree(&self, v: Vertex) -> usize;

    /// Call `f(u, w)` for every in-neighbour `u` of `v` (arc `u→v`), in increasing order of `u`,
    /// until `f` returns `false`. Returns `false` iff stopped early.
    fn for_each_in<F: FnMut(Vertex, Self::W) -> bool>(&self, v: Vertex, f: F) -> bool;

    /// Fold `f` over the in-arcs `(u, w)` of `v` (arc `u→v`), in increasing order of `u`, from
    /// `init`: for loops that sum over in-neighbours (PageRank's pull). The state goes by
    /// value from call to call. A closure that adds to a captured variable, handed to a scan
    /// that is not inlined into the caller (the C-tree's, which recurses over tree nodes),
    /// gets a pointer to it and stores it after every arc, which puts a store and a reload
    /// on the add's dependency chain. The default runs [`for_each_in`](Self::for_each_in).
    #[inline]
    fn fold_in<T: Copy, F: FnMut(T, Vertex, Self::W) -> T>(
        &self,
        v: Vertex,
        init: T,
        mut f: F,
    ) -> T {
        let mut acc = init;
        self.for_each_in(v, |u, w| {
            acc = f(acc, u, w);
            true
        });
        acc
    }

    /// Hint: `v`'s in-neighbours will be read soon; see [`Graph::prefetch_out`].
    #[inline(always)]
    fn prefetch_in(&self, _v: Vertex) {}

    /// Hint: [`prefetch_in(v)`](InGraph::prefetch_in) will be called soon: starts loading
    /// the per-vertex entries that call reads (see [`Graph::prefetch_out_index`]). Called
    /// only when [`PULL_INDEX_AHEAD`](InGraph::PULL_INDEX_AHEAD) is set. Never changes a
    /// result.
    #[inline(always)]
    fn prefetch_in_index(&self, _v: Vertex) {}

    /// Whether a pull (a loop over the vertices whose `cond` holds, in id order, each
    /// scanning its in-arcs: edge_map's dense pull) calls [`prefetch_in_index`] one stage
    /// before [`prefetch_in`] (on the candidates of the word of 64 ids after the next, while
    /// `prefetch_in` runs on the next word's). For backends whose `prefetch_in` reads a
    /// per-vertex entry that misses the cache: the candidates skip unpredictably through the
    /// ids, so those entries are not streamed in by the hardware, and `prefetch_in` waits for
    /// them. Off by default: a CSR's offsets are dense enough to be streamed, and the deeper
    /// pipeline cost its BFS 4–5 %.
    ///
    /// [`prefetch_in_index`]: InGraph::prefetch_in_index
    /// [`prefetch_in`]: InGraph::prefetch_in
    const PULL_INDEX_AHEAD: bool = false;
}

/// How many vertices ahead of the current one a scan over a run of vertices calls
/// [`Graph::prefetch_out`] / [`InGraph::prefetch_in`]: enough to overlap a few cache misses
/// with the decoding of the vertices in between, few enough that the lines are still there.
pub const PREFETCH_AHEAD: Vertex = 8;

/// [`PREFETCH_AHEAD`] for scans that read few or no arcs of most vertices (edge_map's dense
/// pull, which skips vertices whose `cond` fails and BFS's stops at the first parent;
/// Afforest's neighbour rounds, and its last pass, which skips the largest component): the
/// vertices in between take less time, so the hint must run further ahead to land in time.
/// BFS, CC and BC measured faster at 16; full scans (PageRank, k-core, SSSP) slower.
pub const PREFETCH_AHEAD_SHORT: Vertex = 16;

/// Ask the CPU to start loading the cache line at `p` (a hint; no effect on correctness, never
/// faults, whatever the address). For accesses known ahead but not sequential: the C-trees'
/// path copying, the adjacency of vertices a few ahead in a scan, the per-vertex state of the
/// neighbours a few arcs ahead in a relaxation.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// [`prefetch`] of element `i` of `xs` (a hint: `i` out of range is harmless). For the
/// per-vertex state of a neighbour a few arcs ahead, or the start of a vertex's adjacency.
#[inline(always)]
pub fn prefetch_at<T>(xs: &[T], i: usize) {
    prefetch(xs.as_ptr().wrapping_add(i));
}

/// Streaming over every arc, in no particular order, in parallel. Enough for PageRank-style
/// algorithms; implemented for every [`Graph`] and by edge-centric engines.
pub trait EdgeScan: Sync {
    type W: Weight;
    fn scan_num_vertices(&self) -> usize;
    /// Call `f(src, dst, w)` once for each stored arc, in parallel.
    fn par_scan_arcs<F: Fn(Vertex, Vertex, Self::W) + Sync + Send>(&self, f: F);
}

impl<G: Graph> EdgeScan for G {
    type W = G::W;
    fn scan_num_vertices(&self) -> usize {
        self.num_vertices()
    }
    fn par_scan_arcs<F: Fn(Vertex, Vertex, Self::W) + Sync + Send>(&self, f: F) {
        use rayon::prelude::*;
        (0..self.num_vertices() as Vertex)
            .into_par_iter()
            .with_min_len(256)
            .for_each(|v| {
                self.prefetch_out(v.saturating_add(PREFETCH_AHEAD));
                self.for_each_out(v, |u, w| {
                    f(v, u, w);
                    true
                });
            });
    }
}

/// Count the self loops `v→v` of `g` by scanning every vertex's neighbours up to `v`, in
/// parallel: what [`Graph::num_self_loops`] does unless a backend knows the count.
pub fn count_self_loops<G: Graph + ?Sized>(g: &G) -> usize {
    use rayon::prelude::*;
    (0..g.num_vertices() as Vertex)
        .into_par_iter()
        .map(|v| {
            let mut c = 0;
            g.for_each_out(v, |u, _| {
                if u == v {
                    c += 1;
                }
                u <= v
            });
            c
        })
        .sum()
}
