//! # The traversal layer (Ligra / GBBS style)
//!
//! * [`VertexSubset`]: a frontier, sparse (ids) or dense (bitmap), converted on demand.
//! * [`edge_map`](fn@crate::traverse::edge_map): one traversal step over the arcs leaving a
//!   subset, with the three-method [`EdgeMapFn`] contract (`cond`, `update`,
//!   `update_atomic`), sparse push, dense pull and direction optimisation
//!   ([`EdgeMapOptions`]).
//! * [`vertex_map`], [`vertex_filter`], [`vertex_filter_all`]: per-vertex steps.
//! * [`AsInGraph`]: lets an algorithm bounded by `Graph` use edge_map on symmetric graphs.
//! * [`for_each_out_ahead`]: an adjacency scan that prefetches the state of neighbours ahead.
//! * [`frontier_scatter`]: a step over a frontier's vertices whose outputs keep its order.
//! * `visit_candidates`, `pull_in`: a loop over the vertices that satisfy a condition, by
//!   masks (pulls, Afforest's last pass).

pub mod bucket;
pub mod edge_map;
pub mod vertex_subset;

#[cfg(test)]
mod perf_tests;
#[cfg(test)]
pub(crate) mod testutil;

pub use edge_map::{edge_map, AsInGraph, Direction, EdgeMapFn, EdgeMapOptions};
pub use vertex_subset::{vertex_filter, vertex_filter_all, vertex_map, VertexSubset};

use rayon::prelude::*;
use weald_graph::parallel::concat;
use weald_graph::{Graph, InGraph, Vertex, PREFETCH_AHEAD};

/// Arcs ahead of the current one whose neighbour [`for_each_out_ahead`] hands to `ahead`.
pub const ARCS_AHEAD: usize = 16;

/// [`Graph::for_each_out_ahead`] at [`ARCS_AHEAD`]: `g.for_each_out(v, f)` over every arc
/// that also hands `ahead` the neighbour [`ARCS_AHEAD`] arcs ahead of the current one (on the
/// CSR from its slice, on the C-tree from a second decoding cursor).
///
/// For loops whose time is a random read of per-neighbour state followed by a branch on it
/// (relaxing a distance, "is `w` on the next level?"): a mispredicted branch discards the
/// loads the CPU had started past it, while a prefetch issued earlier keeps loading, so
/// `ahead` prefetches that state. (SSSP on RMAT scale 20: a third less time at 1 thread.)
#[inline]
pub fn for_each_out_ahead<G: Graph>(
    g: &G,
    v: Vertex,
    ahead: impl Fn(Vertex),
    f: impl FnMut(Vertex, G::W),
) {
    g.for_each_out_ahead(v, ARCS_AHEAD, ahead, f)
}

/// Frontier positions ahead of the current vertex at which [`frontier_scatter`] hands the
/// first [`ARCS_AHEAD`] neighbours of a vertex to `ahead`: after its adjacency was prefetched
/// ([`PREFETCH_AHEAD`] positions ahead), before its scan.
pub const HEAD_AHEAD: usize = 4;

/// `ahead(a)` for the first [`ARCS_AHEAD`] neighbours `a` of `v`, when `g` exposes `v`'s
/// neighbours as a slice: the arcs that [`for_each_out_ahead`]'s own look-ahead cannot cover.
#[inline(always)]
fn head_ahead<G: Graph>(g: &G, v: Vertex, ahead: &impl Fn(Vertex)) {
    if let Some(s) = g.out_neighbors_slice(v) {
        for &a in &s[..s.len().min(ARCS_AHEAD)] {
            ahead(a);
        }
    }
}

/// The prefetches of a loop over the vertices `vs` (in an order the hardware does not
/// follow: a frontier, a BFS level) at position `i`: the adjacency of the vertex
/// [`PREFETCH_AHEAD`] ahead ([`Graph::prefetch_out`]) and, a stage earlier, the per-vertex
/// entry that call reads of the vertex twice as far ahead ([`Graph::prefetch_out_index`]: the
/// CSR's offsets, the snapshot's tree handle), so that `prefetch_out` does not wait for it.
/// Over all vertices of RMAT scale 20 in a random order, BC's backward fold took 26 % less
/// time on a C-tree snapshot with the second stage and 7 % less on the CSR (1 thread).
#[inline(always)]
pub(crate) fn prefetch_out_along<G: Graph>(g: &G, vs: &[Vertex], i: usize) {
    let k = PREFETCH_AHEAD as usize;
    if let Some(&a) = vs.get(i + 2 * k) {
        g.prefetch_out_index(a);
    }
    if let Some(&a) = vs.get(i + k) {
        g.prefetch_out(a);
    }
}

/// Call `f(v, out)` on every vertex of `frontier` and return what the calls pushed to `out`:
/// in parallel over runs of `grain` vertices (sequentially for fewer than 64), each run in
/// order. The outputs keep the runs' order. For a frontier's scatter step whose per-vertex
/// work is a scan of its arcs with [`for_each_out_ahead`] and the same `ahead` (delta-stepping's
/// relaxation, k-core's decrements).
///
/// A frontier in random order is not a scan the hardware follows, so each run prefetches the
/// adjacency of the vertex [`PREFETCH_AHEAD`] ahead, and calls `ahead` on the first
/// [`ARCS_AHEAD`] neighbours of the vertex [`HEAD_AHEAD`] ahead: for_each_out_ahead looks
/// [`ARCS_AHEAD`] arcs ahead within one vertex, so without this the first arcs of every
/// vertex (all of a low-degree vertex's) would wait for their neighbour's state.
pub fn frontier_scatter<G: Graph>(
    g: &G,
    frontier: &[Vertex],
    grain: usize,
    ahead: impl Fn(Vertex) + Sync,
    f: impl Fn(Vertex, &mut Vec<Vertex>) + Sync,
) -> Vec<Vertex> {
    let run = |part: &[Vertex], out: &mut Vec<Vertex>| {
        for (i, &v) in part.iter().enumerate() {
            prefetch_out_along(g, part, i);
            if let Some(&a) = part.get(i + HEAD_AHEAD) {
                head_ahead(g, a, &ahead);
            }
            f(v, out);
        }
    };
    if frontier.len() < 64 {
        let mut out = Vec::new();
        run(frontier, &mut out);
        out
    } else {
        let parts: Vec<Vec<Vertex>> = frontier
            .par_chunks(grain.max(1))
            .fold(Vec::new, |mut out, part| {
                run(part, &mut out);
                out
            })
            .collect();
        concat(parts)
    }
}

/// The vertices `d` with `cond(d)` for which `visit(d)` returned `true`, as a dense subset:
/// [`visit_candidates`] with the in-arcs of the candidates ahead prefetched. The loop of the
/// pulls (edge_map's dense pull, Brandes' dense forward step, MIS's dense release step).
#[inline(always)]
pub(crate) fn pull_in<G: InGraph>(
    g: &G,
    cond: impl Fn(Vertex) -> bool + Sync,
    visit: impl Fn(Vertex) -> bool + Sync,
) -> VertexSubset {
    let n = g.num_vertices();
    let index = G::PULL_INDEX_AHEAD.then_some(|d| g.prefetch_in_index(d));
    let bits = visit_candidates(n, cond, index, |d| g.prefetch_in(d), visit);
    let count = vertex_subset::popcount(&bits);
    VertexSubset::from_bits(n, bits, count)
}

/// Bitmap words per task of [`visit_candidates`].
pub(crate) const DENSE_WORDS: usize = 8;
/// [`visit_candidates`] over at most this many words runs sequentially (1024 vertices).
const SEQ_WORDS: usize = 16;

/// The loop of a pull ([`pull_in`]) and of Afforest's last pass: `visit(d)` for every vertex
/// `d < n` with `cond(d)`, in parallel over words of 64 ids (sequentially when there are at
/// most [`SEQ_WORDS`]); bit `d` of the result is set when `visit(d)` returned `true`.
/// `prefetch(d)` is called ahead of `visit(d)` (see below), and `prefetch_index(d)`, if
/// given, ahead of `prefetch(d)` (see [`InGraph::PULL_INDEX_AHEAD`]). `visit(d)` may change
/// `cond(d)`; if it changes another vertex's, that vertex may be visited or skipped by a value
/// of `cond` read before the change.
///
/// `cond` is evaluated for a whole word at once, into a mask, without a branch per vertex, and
/// the loop runs over the mask's set bits: which vertices still pull is unpredictable (on RMAT,
/// after the first pull of a BFS, ~40 % of the ids are isolated and the rest visited), and a
/// mispredicted branch per vertex was most of the cost of a late pull that finds little (a BFS
/// on RMAT scale 20 went from 30 to 20 ms). While a word's candidates are visited, the next
/// word's are prefetched, one per candidate, and with `prefetch_index` the candidates of the
/// word after are handed to it.
#[inline(always)]
pub(crate) fn visit_candidates(
    n: usize,
    cond: impl Fn(Vertex) -> bool + Sync,
    prefetch_index: Option<impl Fn(Vertex) + Sync>,
    prefetch: impl Fn(Vertex) + Sync,
    visit: impl Fn(Vertex) -> bool + Sync,
) -> Vec<u64> {
    let words = n.div_ceil(64);
    // Eight ids at a time, so that the shifts are constants once the inner loop is unrolled.
    let candidates = |i: usize| -> u64 {
        let lo = i * 64;
        let hi = (n - lo).min(64);
        let mut m = 0u64;
        let mut b = 0;
        while b + 8 <= hi {
            let mut byte = 0u64;
            for j in 0..8 {
                byte |= (cond((lo + b + j) as Vertex) as u64) << j;
            }
            m |= byte << b;
            b += 8;
        }
        for j in b..hi {
            m |= (cond((lo + j) as Vertex) as u64) << j;
        }
        m
    };
    let word = |i: usize| if i < words { candidates(i) } else { 0 };
    // `prefetch_index` on the vertices of mask `m` of the word from id `base`.
    let index = |mut m: u64, base: usize| {
        if let Some(p) = &prefetch_index {
            while m != 0 {
                p((base + m.trailing_zeros() as usize) as Vertex);
                m &= m - 1;
            }
        }
    };
    let deep = prefetch_index.is_some();
    // One task: the words `first..` (as many as `out` holds), in order.
    let task = |first: usize, out: &mut [u64]| {
        let mut next = word(first);
        // With `prefetch_index`, the word after `next` (its candidates' entries loading).
        let mut after = if deep { word(first + 1) } else { 0 };
        index(next, first * 64);
        index(after, first * 64 + 64);
        for (k, slot) in out.iter_mut().enumerate() {
            let i = first + k;
            let base = (i * 64) as Vertex;
            let mut todo = next;
            if deep {
                next = after;
                after = word(i + 2);
                index(after, i * 64 + 128);
            } else {
                next = word(i + 1);
            }
            let mut ahead = next;
            let mut bits = 0u64;
            while todo != 0 {
                if ahead != 0 {
                    prefetch(base + 64 + ahead.trailing_zeros());
                    ahead &= ahead - 1;
                }
                let b = todo.trailing_zeros();
                todo &= todo - 1;
                bits |= (visit(base + b) as u64) << b;
            }
            while ahead != 0 {
                prefetch(base + 64 + ahead.trailing_zeros());
                ahead &= ahead - 1;
            }
            *slot = bits;
        }
    };
    let mut bits = vec![0u64; words];
    if words <= SEQ_WORDS {
        task(0, &mut bits);
    } else {
        bits.par_chunks_mut(DENSE_WORDS)
            .enumerate()
            .for_each(|(c, out)| task(c * DENSE_WORDS, out));
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traverse::testutil::csr;
    use std::cell::RefCell;

    /// A star: vertex 0 joined to 1..=40 (40 arcs out of 0, more than ARCS_AHEAD), and a short
    /// list (vertex 1: one arc). Every arc reaches `f` once, in adjacency order; `ahead` sees
    /// the neighbours from position ARCS_AHEAD on, in order, and nothing on a short list.
    #[test]
    fn every_arc_once_and_the_right_neighbours_ahead() {
        let arcs: Vec<(Vertex, Vertex)> = (1..=40).map(|v| (0, v)).collect();
        let g = csr(41, &arcs, false);
        let seen = RefCell::new(Vec::new());
        let mut got = Vec::new();
        for_each_out_ahead(&g, 0, |a| seen.borrow_mut().push(a), |u, _| got.push(u));
        let expect: Vec<Vertex> = (1..=40).collect();
        assert_eq!(got, expect);
        assert_eq!(*seen.borrow(), expect[ARCS_AHEAD..].to_vec());
        seen.borrow_mut().clear();
        got.clear();
        for_each_out_ahead(&g, 1, |a| seen.borrow_mut().push(a), |u, _| got.push(u));
        assert_eq!(got, vec![0]);
        assert!(seen.borrow().is_empty());
    }

    /// `frontier_scatter` hands `ahead` the first ARCS_AHEAD neighbours of every frontier
    /// vertex from position HEAD_AHEAD on, in frontier order (a short frontier: one run), and
    /// each vertex's own scan still sees all its arcs. Vertex `v < 10` has 20 out-arcs, to
    /// `100 + 20 v ..= 100 + 20 v + 19`.
    #[test]
    fn frontier_scatter_hands_ahead_the_heads_of_the_vertices_ahead() {
        let arcs: Vec<(Vertex, Vertex)> = (0..10)
            .flat_map(|v| (0..20).map(move |j| (v, 100 + 20 * v + j)))
            .collect();
        let g = csr(300, &arcs, true);
        let frontier: Vec<Vertex> = vec![3, 1, 4, 0, 9, 2, 6, 5, 8, 7];
        let seen = std::sync::Mutex::new(Vec::new());
        let out = frontier_scatter(
            &g,
            &frontier,
            64,
            |a| seen.lock().unwrap().push(a),
            |v, out| {
                let mut k = 0;
                g.for_each_out(v, |_, _| {
                    k += 1;
                    true
                });
                out.push(k);
            },
        );
        assert_eq!(out, vec![20; frontier.len()]);
        let want: Vec<Vertex> = frontier[HEAD_AHEAD..]
            .iter()
            .flat_map(|&v| (0..ARCS_AHEAD as Vertex).map(move |j| 100 + 20 * v + j))
            .collect();
        assert_eq!(seen.into_inner().unwrap(), want);
    }

    /// `visit_candidates` visits exactly the candidates (`cond`), returns the bits of those
    /// whose visit returned `true`, and hands every candidate to `prefetch_index` (when given;
    /// on one thread over few words: each once, in order) and those after the first word to
    /// `prefetch` (each once, in order), with and without `prefetch_index`; over many words at
    /// 1 and 2 threads the result is the same and every candidate reaches `prefetch_index`.
    #[test]
    fn visit_candidates_visits_and_prefetches_the_candidates() {
        use crate::traverse::testutil::with_threads;
        use std::sync::Mutex;
        for n in [0usize, 5, 64, 130, 300, 64 * 40 + 7] {
            let cond = |d: Vertex| d.is_multiple_of(3) || d % 7 == 1;
            let want: Vec<Vertex> = (0..n as Vertex).filter(|&d| cond(d)).collect();
            let mut want_bits = vec![0u64; n.div_ceil(64)];
            for &d in want.iter().filter(|&&d| d % 2 == 0) {
                want_bits[d as usize / 64] |= 1 << (d % 64);
            }
            for (threads, deep) in [(1, false), (1, true), (2, false), (2, true)] {
                let (indexed, fetched, visited) =
                    (Mutex::new(vec![]), Mutex::new(vec![]), Mutex::new(vec![]));
                let bits = with_threads(threads, || {
                    visit_candidates(
                        n,
                        cond,
                        deep.then_some(|d| indexed.lock().unwrap().push(d)),
                        |d| fetched.lock().unwrap().push(d),
                        |d| {
                            visited.lock().unwrap().push(d);
                            d % 2 == 0
                        },
                    )
                });
                let case = format!("n = {n}, {threads} threads, index {deep}");
                assert_eq!(bits, want_bits, "{case}");
                let mut visited = visited.into_inner().unwrap();
                visited.sort_unstable();
                assert_eq!(visited, want, "{case}");
                let (indexed, fetched) =
                    (indexed.into_inner().unwrap(), fetched.into_inner().unwrap());
                if threads == 1 && n <= SEQ_WORDS * 64 {
                    let later: Vec<Vertex> = want.iter().copied().filter(|&d| d >= 64).collect();
                    assert_eq!(fetched, later, "{case}");
                    assert_eq!(indexed, if deep { want.clone() } else { vec![] }, "{case}");
                } else if deep {
                    let mut indexed = indexed;
                    indexed.sort_unstable();
                    indexed.dedup();
                    assert_eq!(indexed, want, "{case}");
                }
            }
        }
    }

    /// Every frontier vertex is handed to `f` once and the outputs come back in frontier
    /// order, for a short (sequential) and a long (parallel) frontier, at 1 and 2 threads.
    #[test]
    fn frontier_scatter_visits_each_vertex_once_in_order() {
        use crate::traverse::testutil::with_threads;
        let g = csr(1000, &[(0, 1)], false);
        for len in [0, 5, 63, 64, 1000] {
            let frontier: Vec<Vertex> = (0..len as Vertex).rev().collect();
            for threads in [1, 2] {
                let out = with_threads(threads, || {
                    frontier_scatter(
                        &g,
                        &frontier,
                        7,
                        |_| {},
                        |v, out| {
                            if v % 3 == 0 {
                                out.push(v);
                                out.push(v + 1);
                            }
                        },
                    )
                });
                let want: Vec<Vertex> = frontier
                    .iter()
                    .filter(|&&v| v % 3 == 0)
                    .flat_map(|&v| [v, v + 1])
                    .collect();
                assert_eq!(out, want, "frontier of {len} at {threads} threads");
            }
        }
    }
}
