//! k-core decomposition by bucketed parallel peeling: Julienne's k-core (Dhulipala, Blelloch &
//! Shun, "Julienne: A Framework for Parallel Graph Algorithms using Work-efficient Bucketing",
//! SPAA 2017), after Matula & Beck's sequential peeling.
//!
//! Every vertex sits in the [`Buckets`] bucket of its current induced degree. Each step takes
//! the lowest non-empty bucket `k`: its vertices have coreness `k` and are removed; their live
//! neighbours lose one degree per removed neighbour (atomic decrements) and move to the bucket
//! of their new degree, but never below `k` (a vertex whose degree falls below `k` is still in
//! the `k`-core and is peeled in the same bucket next). Each arc is scanned once when its
//! source is peeled, so the work is `O(n + m)` plus the bucket structure's; the number of
//! parallel rounds is the number of peeling steps. Memory `O(n)` beyond the graph.
//!
//! The time is the random accesses to the neighbours' degrees (an atomic decrement each, which
//! on x86 waits for its cache line before anything after it proceeds), so a neighbour costs
//! one cache line: a peeled vertex is marked by `PEELED` in its degree slot, and a vertex
//! queued to move buckets by a bit of it, rather than either being looked up in a second
//! array; and the slot [`ARCS_AHEAD`](crate::traverse::ARCS_AHEAD) arcs ahead is prefetched
//! ([`for_each_out_ahead`]: from the CSR's slice, or by the C-tree's second decoding cursor),
//! as is the adjacency of the peeled vertex
//! [`PREFETCH_AHEAD`](weald_graph::PREFETCH_AHEAD) ahead ([`frontier_scatter`]).
//!
//! Self loops are ignored and duplicate arcs count once. Directed graphs are refused with
//! `WealdError::Invalid` (load them with `--undirected`).

use super::Output;
use crate::traverse::bucket::{BucketId, Buckets};
use crate::traverse::{for_each_out_ahead, frontier_scatter};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use weald_graph::{prefetch_at, Graph, Result, Vertex, WealdError};

/// Parameters of k-core peeling (none yet).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {}

/// Call `f(u)` for each distinct neighbour `u != v` of `v`, and `ahead(a)` for the neighbour
/// `a` [`ARCS_AHEAD`](crate::traverse::ARCS_AHEAD) arcs ahead where the graph allows it
/// ([`for_each_out_ahead`]).
#[inline]
fn for_each_neighbor<G: Graph>(
    g: &G,
    v: Vertex,
    ahead: impl Fn(Vertex),
    mut f: impl FnMut(Vertex),
) {
    let mut last = None;
    for_each_out_ahead(g, v, ahead, |u, _| {
        if u != v && last != Some(u) {
            last = Some(u);
            f(u);
        }
    });
}

/// A peeled vertex's degree slot (degrees stay below `2³¹ − 1`).
const PEELED: u32 = u32::MAX;
/// Set in a live vertex's degree slot while the vertex is queued to move buckets this round.
const QUEUED: u32 = 1 << 31;
const UNSET: u32 = u32::MAX;

/// Coreness of every vertex of a symmetric graph.
pub fn run<G: Graph>(g: &G, _params: &Params) -> Result<Output> {
    if g.is_directed() {
        return Err(WealdError::Invalid(
            "k-core decomposition needs a symmetric graph; load it with --undirected".into(),
        ));
    }
    let n = g.num_vertices();
    let deg: Vec<AtomicU32> = (0..n as Vertex)
        .into_par_iter()
        .with_min_len(256)
        .map(|v| {
            let mut d = 0;
            for_each_neighbor(g, v, |_| {}, |_| d += 1);
            AtomicU32::new(d)
        })
        .collect();
    let core: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|_| AtomicU32::new(UNSET))
        .collect();
    let mut buckets = Buckets::new(n, |v| deg[v as usize].load(Relaxed));
    let mut max_core = 0;
    while let Some((k, peeled)) = buckets.next_bucket() {
        max_core = k;
        peeled.par_iter().with_min_len(4096).for_each(|&v| {
            core[v as usize].store(k, Relaxed);
            deg[v as usize].store(PEELED, Relaxed);
        });
        // Decrement the live neighbours; collect each once (the first to set its QUEUED bit:
        // the slot's line is already loaded, where a separate array of marks cost a second
        // random access). Live degrees only decrease and never reach 0 here (a live vertex
        // counts the neighbour being peeled), so the decrement never borrows from QUEUED; a
        // peeled slot is never decremented (the round's peeled set is fixed before this
        // phase).
        let ahead = |a: Vertex| prefetch_at(&deg, a as usize);
        let decrement = |v: Vertex, out: &mut Vec<Vertex>| {
            for_each_neighbor(g, v, ahead, |u| {
                let slot = &deg[u as usize];
                let cur = slot.load(Relaxed);
                if cur != PEELED {
                    let old = slot.fetch_sub(1, Relaxed);
                    if old & QUEUED == 0 && old > k && slot.fetch_or(QUEUED, Relaxed) & QUEUED == 0
                    {
                        out.push(u);
                    }
                }
            });
        };
        let touched = frontier_scatter(g, &peeled, 16, ahead, decrement);
        let moves: Vec<(Vertex, BucketId)> = touched
            .par_iter()
            .with_min_len(4096)
            .map(|&u| {
                let d = deg[u as usize].fetch_and(!QUEUED, Relaxed) & !QUEUED;
                (u, d.max(k))
            })
            .collect();
        buckets.update_buckets(&moves);
    }
    Ok(Output {
        coreness: core.into_iter().map(AtomicU32::into_inner).collect(),
        max_core,
    })
}
