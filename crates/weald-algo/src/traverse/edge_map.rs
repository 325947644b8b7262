//! `edge_map`: apply a function to the arcs leaving a [`VertexSubset`], producing the subset of
//! targets it returned `true` for (Ligra's edgeMap, Shun & Blelloch, PPoPP'13).
//!
//! * **Sparse push**: for every `s` in the frontier and out-arc `s→d`, if `cond(d)` then
//!   `update_atomic(s, d, w)`; `d` is emitted when that returns `true` (deduplication is the
//!   function's job, typically a compare-and-swap, as in Ligra).
//! * **Dense pull**: for every `d` with `cond(d)`, scan its in-arcs `s→d` and call
//!   `update(s, d, w)` for `s` in the frontier, stopping as soon as `cond(d)` turns false. One
//!   task owns each `d`, so `update` needs no atomics.
//! * **Direction optimisation**: dense when `|U| + Σ out-degree(U) > m / threshold`
//!   (Beamer et al., SC'12; Ligra's rule with threshold 20). Pull needs in-arcs
//!   ([`InGraph::has_in_edges`]); without them edge_map always pushes.
//!
//! The sparse traversal uses O(n) extra memory, never an array as large as the frontier's total
//! out-degree (Sage's edgeMapChunked, Dhulipala et al., VLDB'20): the frontier is cut into groups
//! of bounded work (`1 + degree` per vertex); each group writes the ids it emits into fixed-size
//! chunks taken from a thread-local pool; one prefix sum over the chunk sizes and one parallel
//! copy produce the output, and the chunks go back to the pool. Vertices of very high degree are
//! traversed one at a time with [`Graph::par_for_each_out`] into one scratch buffer of at most
//! `n` ids.

use super::pull_in;
use super::vertex_subset::VertexSubset;
use rayon::prelude::*;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use weald_graph::parallel::{scan_exclusive, SendPtr};
use weald_graph::{Graph, InGraph, Vertex, PREFETCH_AHEAD};

/// The three-method contract of a traversal step (Ligra's functor).
pub trait EdgeMapFn<W>: Sync {
    /// Should arcs into `d` still be considered? (For BFS: "`d` is unvisited".) A pure read:
    /// the dense pull evaluates it for a word of 64 ids before visiting any of them, and for
    /// the next word to choose what to prefetch, so an update of `d` may change `cond(d)` only.
    fn cond(&self, d: Vertex) -> bool;
    /// Dense pull: apply arc `s→d`; only one task handles `d`, so no atomics are needed.
    /// Returns `true` if `d` joins the output.
    fn update(&self, s: Vertex, d: Vertex, w: W) -> bool;
    /// Sparse push: apply arc `s→d`, possibly concurrently with other arcs into `d`. Returns
    /// `true` if `d` joins the output; it must do so at most once per `d` per call of edge_map.
    fn update_atomic(&self, s: Vertex, d: Vertex, w: W) -> bool;
    /// Hint: the push will soon call `cond(d)` (and maybe `update_atomic`); start loading the
    /// state they read, so that the random reads of a frontier's arcs overlap (see
    /// [`super::for_each_out_ahead`]). Nothing by default.
    #[inline(always)]
    fn prefetch(&self, _d: Vertex) {}
}

/// Which traversal edge_map uses.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    /// Choose by the `m / threshold` rule.
    #[default]
    Auto,
    /// Always push.
    Sparse,
    /// Pull whenever the graph has in-arcs (otherwise push).
    Dense,
}

/// Options of [`edge_map`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeMapOptions {
    /// Go dense when `|U| + Σ out-degree(U) > num_arcs / threshold` (default 20).
    pub threshold: usize,
    /// Force a direction, or [`Direction::Auto`].
    pub direction: Direction,
    /// Build the output subset (`false`: return an empty subset and save the work).
    pub output: bool,
}

impl Default for EdgeMapOptions {
    fn default() -> Self {
        EdgeMapOptions {
            threshold: 20,
            direction: Direction::Auto,
            output: true,
        }
    }
}

/// Ids per output chunk.
const CHUNK: usize = 1024;
/// Chunks kept per thread between calls.
const POOL_CAP: usize = 64;
/// Smallest work (`Σ 1 + degree`) of a group.
const MIN_GROUP: usize = 2048;
/// Vertices of larger degree are traversed alone, in parallel over their arcs.
const HEAVY: usize = 1 << 14;

/// Apply `f` to the arcs leaving `u` (see the module docs); returns the targets emitted.
///
/// The output is sparse after a push and dense after a pull. Panics if `u` is a subset of a
/// different number of vertices than `g` has.
pub fn edge_map<G: InGraph, F: EdgeMapFn<G::W>>(
    g: &G,
    u: &VertexSubset,
    f: &F,
    opts: &EdgeMapOptions,
) -> VertexSubset {
    let n = g.num_vertices();
    assert_eq!(
        u.num_vertices(),
        n,
        "vertex subset and graph differ in size"
    );
    if u.is_empty() {
        return VertexSubset::empty(n);
    }
    if pulls(g, u, opts) {
        dense_pull(g, &u.bits(), f, opts.output)
    } else {
        sparse_push(g, &u.ids(), f, opts.output)
    }
}

/// Does [`edge_map`] pull (dense) rather than push from the non-empty `u`? Only with in-arcs;
/// by `opts.direction`, and for `Auto` when `|u| + Σ out-degree > m / threshold`.
pub(crate) fn pulls<G: InGraph>(g: &G, u: &VertexSubset, opts: &EdgeMapOptions) -> bool {
    match opts.direction {
        _ if !g.has_in_edges() => false,
        Direction::Sparse => false,
        Direction::Dense => true,
        Direction::Auto => {
            let work = u.len() + u.par_sum(|v| g.out_degree(v));
            work > g.num_arcs() / opts.threshold.max(1)
        }
    }
}

/// A view of a [`Graph`] as an [`InGraph`] whose in-arcs are its out-arcs, which is right for
/// symmetric graphs. For a directed graph it reports no in-arcs, so [`edge_map`] only pushes.
/// Lets algorithms that need only out-arcs (bounded by [`Graph`]) call [`edge_map`].
#[derive(Clone, Copy, Debug)]
pub struct AsInGraph<'a, G>(pub &'a G);

impl<G: Graph> Graph for AsInGraph<'_, G> {
    type W = G::W;
    fn num_vertices(&self) -> usize {
        self.0.num_vertices()
    }
    fn num_arcs(&self) -> usize {
        self.0.num_arcs()
    }
    fn is_directed(&self) -> bool {
        self.0.is_directed()
    }
    #[inline]
    fn out_degree(&self, v: Vertex) -> usize {
        self.0.out_degree(v)
    }
    #[inline]
    fn for_each_out<F: FnMut(Vertex, Self::W) -> bool>(&self, v: Vertex, f: F) -> bool {
        self.0.for_each_out(v, f)
    }
    #[inline(always)]
    fn prefetch_out(&self, v: Vertex) {
        self.0.prefetch_out(v)
    }
    #[inline(always)]
    fn prefetch_out_index(&self, v: Vertex) {
        self.0.prefetch_out_index(v)
    }
    fn par_for_each_out<F: Fn(Vertex, Self::W) + Sync + Send>(&self, v: Vertex, f: F) {
        self.0.par_for_each_out(v, f)
    }
    #[inline]
    fn for_each_out_ahead<A: Fn(Vertex), F: FnMut(Vertex, Self::W)>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        f: F,
    ) {
        self.0.for_each_out_ahead(v, dist, ahead, f)
    }

    fn par_for_each_out_ahead<A: Fn(Vertex) + Sync, F: Fn(Vertex, Self::W) + Sync + Send>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        f: F,
    ) {
        self.0.par_for_each_out_ahead(v, dist, ahead, f)
    }
    fn out_neighbors_slice(&self, v: Vertex) -> Option<&[Vertex]> {
        self.0.out_neighbors_slice(v)
    }
    #[inline]
    fn fold_out_ahead<T: Copy, A: Fn(Vertex), F: FnMut(T, Vertex, Self::W) -> T>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        init: T,
        f: F,
    ) -> T {
        self.0.fold_out_ahead(v, dist, ahead, init, f)
    }
    #[inline]
    fn fold_out_weights<T: Copy, F: FnMut(T, Self::W) -> T>(&self, v: Vertex, init: T, f: F) -> T {
        self.0.fold_out_weights(v, init, f)
    }
    fn weight_summary(&self) -> weald_graph::WeightSummary {
        self.0.weight_summary()
    }
    fn num_self_loops(&self) -> usize {
        self.0.num_self_loops()
    }
}

impl<G: Graph> InGraph for AsInGraph<'_, G> {
    fn has_in_edges(&self) -> bool {
        !self.0.is_directed()
    }
    fn in_degree(&self, v: Vertex) -> usize {
        assert!(
            !self.0.is_directed(),
            "AsInGraph has no in-arcs for a directed graph"
        );
        self.0.out_degree(v)
    }
    #[inline]
    fn for_each_in<F: FnMut(Vertex, Self::W) -> bool>(&self, v: Vertex, f: F) -> bool {
        assert!(
            !self.0.is_directed(),
            "AsInGraph has no in-arcs for a directed graph"
        );
        self.0.for_each_out(v, f)
    }
    #[inline(always)]
    fn prefetch_in(&self, v: Vertex) {
        self.0.prefetch_out(v)
    }
}

// ---------------------------------------------------------------------------------------------
// Dense pull

fn dense_pull<G: InGraph, F: EdgeMapFn<G::W>>(
    g: &G,
    frontier: &[u64],
    f: &F,
    output: bool,
) -> VertexSubset {
    let in_frontier = |s: Vertex| frontier[s as usize / 64] >> (s % 64) & 1 == 1;
    let out = pull_in(
        g,
        |d| f.cond(d),
        |d| {
            let mut hit = false;
            // Only an update of `d` (by this thread: a pull owns its `d`) can change
            // `cond(d)`, so it is re-checked after updates, not after every in-neighbour.
            g.for_each_in(d, |s, w| {
                if !in_frontier(s) {
                    return true;
                }
                hit |= f.update(s, d, w);
                f.cond(d)
            });
            hit
        },
    );
    if output {
        out
    } else {
        VertexSubset::empty(g.num_vertices())
    }
}

// ---------------------------------------------------------------------------------------------
// Sparse push (chunked)

thread_local! {
    static POOL: RefCell<Vec<Vec<Vertex>>> = const { RefCell::new(Vec::new()) };
}

fn take_chunk() -> Vec<Vertex> {
    POOL.with(|p| p.borrow_mut().pop())
        .unwrap_or_else(|| Vec::with_capacity(CHUNK))
}

fn give_chunk(mut c: Vec<Vertex>) {
    c.clear();
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < POOL_CAP {
            p.push(c);
        }
    });
}

/// Output of one group: a list of chunks, all full but the last.
#[derive(Default)]
struct ChunkWriter {
    chunks: Vec<Vec<Vertex>>,
}

impl ChunkWriter {
    #[inline]
    fn push(&mut self, v: Vertex) {
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK => c.push(v),
            _ => {
                let mut c = take_chunk();
                c.push(v);
                self.chunks.push(c);
            }
        }
    }

    fn extend(&mut self, vs: &[Vertex]) {
        for &v in vs {
            self.push(v);
        }
    }
}

fn sparse_push<G: Graph, F: EdgeMapFn<G::W>>(
    g: &G,
    ids: &[Vertex],
    f: &F,
    output: bool,
) -> VertexSubset {
    let n = g.num_vertices();
    let k = ids.len();
    // Work of each light vertex (1 + degree), 1 for a heavy one; prefix sums in `prefix`.
    let ahead = PREFETCH_AHEAD as usize;
    let mut prefix: Vec<usize> = (0..k)
        .into_par_iter()
        .with_min_len(1024)
        .map(|i| {
            // This pass reads only the degrees (on the CSR, the index); the adjacency comes
            // later, in the groups' own loop, which prefetches it.
            if let Some(&a) = ids.get(i + ahead) {
                g.prefetch_out_index(a);
            }
            let s = ids[i];
            let d = g.out_degree(s);
            if d > HEAVY {
                1
            } else {
                1 + d
            }
        })
        .collect();
    let total = scan_exclusive(&mut prefix);
    let threads = rayon::current_num_threads().max(1);
    let group = (total / (threads * 32)).max(MIN_GROUP);
    let num_groups = total.div_ceil(group);
    let heavy: Vec<Vertex> =
        if k > 0 && (0..k).into_par_iter().any(|i| g.out_degree(ids[i]) > HEAVY) {
            ids.iter()
                .copied()
                .filter(|&s| g.out_degree(s) > HEAVY)
                .collect()
        } else {
            Vec::new()
        };

    let run_group = |j: usize| -> ChunkWriter {
        let a = prefix.partition_point(|&x| x < j * group);
        let b = prefix.partition_point(|&x| x < (j + 1) * group);
        let mut out = ChunkWriter::default();
        let upto = &ids[..b];
        for (i, &s) in upto.iter().enumerate().skip(a) {
            super::prefetch_out_along(g, upto, i);
            if g.out_degree(s) > HEAVY {
                continue;
            }
            super::for_each_out_ahead(
                g,
                s,
                |a| f.prefetch(a),
                |d, w| {
                    if f.cond(d) && f.update_atomic(s, d, w) && output {
                        out.push(d);
                    }
                },
            );
        }
        out
    };
    let run_heavy = || -> ChunkWriter {
        let mut out = ChunkWriter::default();
        if heavy.is_empty() {
            return out;
        }
        let cap = heavy.iter().map(|&s| g.out_degree(s)).max().unwrap().min(n);
        let mut scratch: Vec<Vertex> = if output {
            Vec::with_capacity(cap)
        } else {
            Vec::new()
        };
        for &s in &heavy {
            let cursor = AtomicUsize::new(0);
            let ptr = SendPtr(scratch.as_mut_ptr());
            g.par_for_each_out_ahead(
                s,
                super::ARCS_AHEAD,
                |a| f.prefetch(a),
                |d, w| {
                    if f.cond(d) && f.update_atomic(s, d, w) && output {
                        let i = cursor.fetch_add(1, Ordering::Relaxed);
                        let ptr = &ptr;
                        assert!(i < cap, "update_atomic returned true twice for one vertex");
                        // SAFETY: each i is taken once and is below the capacity.
                        unsafe { ptr.0.add(i).write(d) };
                    }
                },
            );
            if output {
                // SAFETY: slots 0..cursor were written above.
                unsafe { scratch.set_len(cursor.into_inner()) };
                out.extend(&scratch);
                scratch.clear();
            }
        }
        out
    };
    let (mut parts, heavy_out): (Vec<ChunkWriter>, ChunkWriter) = rayon::join(
        || {
            (0..num_groups)
                .into_par_iter()
                .with_min_len(1)
                .map(run_group)
                .collect()
        },
        run_heavy,
    );
    if !output {
        return VertexSubset::empty(n);
    }
    parts.push(heavy_out);
    let chunks: Vec<Vec<Vertex>> = parts.into_iter().flat_map(|p| p.chunks).collect();
    let mut offsets: Vec<usize> = chunks.iter().map(Vec::len).collect();
    let len = scan_exclusive(&mut offsets);
    let mut ids_out: Vec<Vertex> = Vec::with_capacity(len);
    let ptr = SendPtr(ids_out.as_mut_ptr());
    chunks
        .into_par_iter()
        .zip(offsets)
        .with_min_len(4)
        .for_each(|(c, o)| {
            let ptr = &ptr;
            // SAFETY: the ranges [o, o + c.len()) are disjoint and within the capacity.
            unsafe { std::ptr::copy_nonoverlapping(c.as_ptr(), ptr.0.add(o), c.len()) };
            give_chunk(c);
        });
    // SAFETY: every slot in 0..len was written above.
    unsafe { ids_out.set_len(len) };
    VertexSubset::from_sparse(n, ids_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traverse::testutil::*;
    use crate::traverse::DENSE_WORDS;
    use proptest::prelude::*;
    use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32};

    /// Claims unclaimed targets: emits every unclaimed vertex with an in-neighbour in U.
    struct Claim(Vec<AtomicBool>);
    impl<W> EdgeMapFn<W> for Claim {
        fn cond(&self, d: Vertex) -> bool {
            !self.0[d as usize].load(Ordering::Relaxed)
        }
        fn update(&self, _: Vertex, d: Vertex, _: W) -> bool {
            self.0[d as usize].store(true, Ordering::Relaxed);
            true
        }
        fn update_atomic(&self, _: Vertex, d: Vertex, _: W) -> bool {
            !self.0[d as usize].swap(true, Ordering::Relaxed)
        }
    }

    /// Counts arcs from U into every vertex and sums their weights (cond always true).
    struct Count(Vec<AtomicU32>, Vec<AtomicI64>);
    impl EdgeMapFn<i32> for Count {
        fn cond(&self, _: Vertex) -> bool {
            true
        }
        fn update(&self, _: Vertex, d: Vertex, w: i32) -> bool {
            self.1[d as usize].fetch_add(w as i64, Ordering::Relaxed);
            self.0[d as usize].fetch_add(1, Ordering::Relaxed) == 0
        }
        fn update_atomic(&self, s: Vertex, d: Vertex, w: i32) -> bool {
            self.update(s, d, w)
        }
    }

    fn claim(n: usize, claimed: &[Vertex]) -> Claim {
        let c = Claim((0..n).map(|_| AtomicBool::new(false)).collect());
        for &v in claimed {
            c.0[v as usize].store(true, Ordering::Relaxed);
        }
        c
    }

    fn opts(direction: Direction) -> EdgeMapOptions {
        EdgeMapOptions {
            direction,
            ..Default::default()
        }
    }

    //   0 → 1 → 3
    //   ↓   ↓
    //   2 → 4    5 (isolated)
    #[test]
    fn small_directed_both_ways() {
        let g = csr(6, &[(0, 1), (0, 2), (1, 3), (1, 4), (2, 4)], true);
        for dir in [Direction::Sparse, Direction::Dense, Direction::Auto] {
            let u = VertexSubset::from_vertex(6, 0);
            let f = claim(6, &[0]);
            let next = edge_map(&g, &u, &f, &opts(dir));
            assert_eq!(next.to_sorted_vec(), vec![1, 2], "{dir:?}");
            assert_eq!(next.is_dense(), dir != Direction::Sparse);
            let next2 = edge_map(&g, &next, &f, &opts(dir));
            assert_eq!(next2.to_sorted_vec(), vec![3, 4], "{dir:?}");
            let none = edge_map(&g, &next2, &f, &opts(dir));
            assert!(none.is_empty());
        }
        // Without in-arcs a forced pull pushes instead.
        let g = csr_no_in(6, &[(0, 1), (0, 2), (1, 3), (1, 4), (2, 4)]);
        let out = edge_map(
            &g,
            &VertexSubset::from_vertex(6, 0),
            &claim(6, &[0]),
            &opts(Direction::Dense),
        );
        assert!(!out.is_dense());
        assert_eq!(out.to_sorted_vec(), vec![1, 2]);
        // No output requested.
        let f = claim(6, &[0]);
        let o = EdgeMapOptions {
            output: false,
            ..opts(Direction::Sparse)
        };
        assert!(edge_map(&g, &VertexSubset::from_vertex(6, 0), &f, &o).is_empty());
        assert!(!EdgeMapFn::<()>::cond(&f, 2));
    }

    #[test]
    fn heavy_vertex_and_many_groups() {
        // A star with a centre of degree 40_000 plus a long path: exercises the heavy path, many
        // groups and several chunks per group.
        let n = 100_000u32;
        let mut arcs: Vec<(u32, u32)> = (1..40_001).map(|v| (0, v)).collect();
        arcs.extend((40_001..n - 1).map(|v| (v, v + 1)));
        let g = csr(n as usize, &arcs, false);
        let all: Vec<Vertex> = (0..n).collect();
        let u = VertexSubset::from_sparse(n as usize, all.clone());
        let mut results = vec![];
        for dir in [Direction::Sparse, Direction::Dense] {
            let f = claim(n as usize, &[]);
            results.push(edge_map(&g, &u, &f, &opts(dir)));
        }
        let f = claim(n as usize, &[]);
        let only_centre = edge_map(
            &g,
            &VertexSubset::from_vertex(n as usize, 0),
            &f,
            &opts(Direction::Sparse),
        );
        assert_eq!(only_centre.len(), 40_000);
        assert_eq!(results[0].len(), n as usize);
        assert_eq!(results[0], results[1]);
    }

    #[test]
    fn pull_over_many_tasks_with_scattered_candidates() {
        // n spans many pull tasks (DENSE_WORDS words each) and ends inside a word; claimed
        // vertices, isolated ones and frontier members are scattered, so every word's
        // candidate mask is irregular. Pull and push must both give the brute-force answer,
        // at 1 and 2 threads.
        let n = 64 * DENSE_WORDS * 7 + 37;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let arcs: Vec<(Vertex, Vertex)> = (0..2 * n)
            .map(|_| ((next() % n as u64) as Vertex, (next() % n as u64) as Vertex))
            // Vertex 1 (in the frontier) reaches both ends of every word and the last vertex.
            .chain(
                (0..n as Vertex)
                    .filter(|v| v % 64 == 0 || v % 64 == 63 || *v == n as Vertex - 1)
                    .map(|v| (1, v)),
            )
            .collect();
        let g = csr(n, &arcs, true);
        let ids: Vec<Vertex> = (0..n as Vertex)
            .filter(|v| v % 5 == 1 || v % 7 == 0)
            .collect();
        let pre: Vec<Vertex> = (0..n as Vertex).filter(|v| v % 3 == 0).collect();
        let mut expect: Vec<Vertex> = arcs
            .iter()
            .filter(|&&(s, d)| ids.binary_search(&s).is_ok() && d % 3 != 0)
            .map(|&(_, d)| d)
            .collect();
        expect.sort_unstable();
        expect.dedup();
        assert!(expect.len() > n / 4, "the test needs a large output");
        for threads in [1, 2] {
            for dir in [Direction::Sparse, Direction::Dense] {
                let u = VertexSubset::from_sparse(n, ids.clone());
                let out = with_threads(threads, || edge_map(&g, &u, &claim(n, &pre), &opts(dir)));
                assert_eq!(out.to_sorted_vec(), expect, "{dir:?}, {threads} threads");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn sparse_and_dense_agree(
            (n, arcs) in arb_graph(200),
            directed in any::<bool>(),
            picks in proptest::collection::vec(any::<u32>(), 0..40),
            pre in proptest::collection::vec(any::<u32>(), 0..40),
        ) {
            let g = csr(n, &arcs, directed);
            let mut ids: Vec<Vertex> = picks.iter().map(|&p| p % n as u32).collect();
            ids.sort_unstable();
            ids.dedup();
            let pre: Vec<Vertex> = pre.iter().map(|&p| p % n as u32).collect();
            // Expected: unclaimed vertices with an arc from U.
            let mut expect: Vec<Vertex> = arcs.iter()
                .flat_map(|&(s, d)| if directed { vec![(s, d)] } else { vec![(s, d), (d, s)] })
                .filter(|&(s, d)| ids.contains(&s) && !pre.contains(&d))
                .map(|(_, d)| d)
                .collect();
            expect.sort_unstable();
            expect.dedup();
            let mut outs = vec![];
            for dir in [Direction::Sparse, Direction::Dense, Direction::Auto] {
                for dense_input in [false, true] {
                    let mut u = VertexSubset::from_sparse(n, ids.clone());
                    if dense_input {
                        u.to_dense();
                    }
                    let out = edge_map(&g, &u, &claim(n, &pre), &opts(dir));
                    prop_assert_eq!(out.to_sorted_vec(), expect.clone());
                    outs.push(out);
                }
            }
            // Counting functor with weights: per-vertex counts and weight sums agree too.
            let gw = csr_weighted(n, &arcs, directed);
            let mut counts = vec![];
            for dir in [Direction::Sparse, Direction::Dense] {
                let c = Count((0..n).map(|_| AtomicU32::new(0)).collect(), (0..n).map(|_| AtomicI64::new(0)).collect());
                let out = edge_map(&gw, &VertexSubset::from_sparse(n, ids.clone()), &c, &opts(dir));
                let cs: Vec<(u32, i64)> = c.0.iter().zip(&c.1).map(|(a, b)| (a.load(Ordering::Relaxed), b.load(Ordering::Relaxed))).collect();
                prop_assert_eq!(out.len(), cs.iter().filter(|x| x.0 > 0).count());
                counts.push(cs);
            }
            prop_assert_eq!(&counts[0], &counts[1]);
        }
    }
}
