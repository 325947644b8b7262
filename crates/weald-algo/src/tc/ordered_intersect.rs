//! Triangle counting by degree-ordered sorted-list intersection (Shun & Tangwongsan,
//! "Multicore Triangle Computations Without Tuning", ICDE 2015; GAPBS `tc.cc`; Latapy 2008 for
//! the ordering argument).
//!
//! Vertices are ranked by `(degree, id)` and each edge `{u, v}` is oriented from the lower to
//! the higher rank. Every triangle then has exactly one vertex `u` with both others in `N+(u)`,
//! and is found once, as `w ∈ N+(u) ∩ N+(v)` for `v ∈ N+(u)`. Orienting towards higher degree
//! bounds `|N+(v)|` by `O(√m)`, so the work is `O(m^{3/2})`. Vertices are processed in parallel.
//!
//! The intersection marks `N+(u)` in a per-task bitmap (cleared after `u`) and looks up each
//! element of `N+(v)`: on an RMAT graph (1M vertices, 31M arcs) this measured 1.6 times faster
//! than merging the two sorted lists, as it has no unpredictable merge branches and reads
//! `N+(u)` once per `u` instead of once per `v`.
//!
//! The oriented lists are built once, in parallel, over vertices relabelled by rank (as GAPBS
//! relabels by degree, for locality): `2n` ids, `n + 1` offsets and `m/2` ids of extra memory,
//! plus an `n`-bit bitmap per parallel task. They are read from [`Graph::out_neighbors_slice`]
//! when the backend stores flat lists and decoded with [`Graph::for_each_out`] otherwise. Self
//! loops and duplicate arcs are skipped. `per_vertex` counts are gathered with one atomic add
//! per triangle for its top vertex and one per oriented edge for the others.
//!
//! Directed graphs are refused with `WealdError::Invalid` (load them with `--undirected`).

use super::Output;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use weald_graph::parallel::scan_exclusive;
use weald_graph::{Graph, Result, Vertex, WealdError};

/// Parameters of triangle counting (none yet).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {}

/// The graph relabelled by rank (vertex `order[r]` has rank `r`) with each edge oriented
/// towards the higher rank; `list(r)` holds sorted ranks.
struct Oriented {
    order: Vec<Vertex>,
    offsets: Vec<usize>,
    targets: Vec<Vertex>,
}

impl Oriented {
    #[inline]
    fn list(&self, r: Vertex) -> &[Vertex] {
        &self.targets[self.offsets[r as usize]..self.offsets[r as usize + 1]]
    }
}

/// Call `f(rank[v])` for each distinct neighbour `v != u` of `u` of higher rank.
#[inline]
fn for_each_higher<G: Graph>(g: &G, rank: &[Vertex], u: Vertex, mut f: impl FnMut(Vertex)) {
    let ru = rank[u as usize];
    let mut last = None;
    let mut visit = |v: Vertex| {
        if last != Some(v) {
            last = Some(v);
            let rv = rank[v as usize];
            if rv > ru {
                f(rv);
            }
        }
    };
    match g.out_neighbors_slice(u) {
        Some(s) => s.iter().for_each(|&v| visit(v)),
        None => {
            g.for_each_out(u, |v, _| {
                visit(v);
                true
            });
        }
    }
}

fn orient<G: Graph>(g: &G) -> Oriented {
    let n = g.num_vertices();
    // Rank by (degree, id); relabelling by rank also puts the high-degree vertices, which most
    // lists point to, next to each other (as GAPBS's degree relabelling does).
    let mut order: Vec<Vertex> = (0..n as Vertex).collect();
    order.par_sort_unstable_by_key(|&v| (g.out_degree(v), v));
    let mut rank = vec![0 as Vertex; n];
    for (r, &v) in order.iter().enumerate() {
        rank[v as usize] = r as Vertex;
    }
    let mut offsets: Vec<usize> = order
        .par_iter()
        .with_min_len(256)
        .map(|&u| {
            let mut c = 0;
            for_each_higher(g, &rank, u, |_| c += 1);
            c
        })
        .collect();
    offsets.push(0);
    let total = scan_exclusive(&mut offsets);
    let mut targets = vec![0 as Vertex; total];
    // Split the target array into per-rank slices and fill (then sort) them in parallel.
    let mut slices: Vec<&mut [Vertex]> = Vec::with_capacity(n);
    let mut rest = targets.as_mut_slice();
    for r in 0..n {
        let (head, tail) = rest.split_at_mut(offsets[r + 1] - offsets[r]);
        slices.push(head);
        rest = tail;
    }
    slices
        .into_par_iter()
        .zip(order.par_iter())
        .with_min_len(256)
        .for_each(|(out, &u)| {
            let mut i = 0;
            for_each_higher(g, &rank, u, |rv| {
                out[i] = rv;
                i += 1;
            });
            out.sort_unstable();
        });
    Oriented {
        order,
        offsets,
        targets,
    }
}

/// Count the triangles of a symmetric graph, in total and per vertex.
pub fn run<G: Graph>(g: &G, _params: &Params) -> Result<Output> {
    if g.is_directed() {
        return Err(WealdError::Invalid(
            "triangle counting needs a symmetric graph; load it with --undirected".into(),
        ));
    }
    let n = g.num_vertices();
    let o = orient(g);
    // Counts by rank: each triangle r < s < t is found once, at r, as t ∈ N+(r) ∩ N+(s).
    let per: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let total: u64 = (0..n as Vertex)
        .into_par_iter()
        .with_min_len(64)
        .map_init(
            || vec![0u64; n.div_ceil(64)],
            |bits, r| {
                let nr = o.list(r);
                if nr.len() < 2 {
                    return 0;
                }
                // Mark N+(r) in a bitmap (cleared again below), then look up each t ∈ N+(s).
                for &t in nr {
                    bits[t as usize / 64] |= 1 << (t % 64);
                }
                let mut tr = 0;
                for &s in &nr[..nr.len() - 1] {
                    let mut c = 0;
                    for &t in o.list(s) {
                        if bits[t as usize / 64] >> (t % 64) & 1 == 1 {
                            per[t as usize].fetch_add(1, Relaxed);
                            c += 1;
                        }
                    }
                    if c > 0 {
                        per[s as usize].fetch_add(c, Relaxed);
                        tr += c;
                    }
                }
                for &t in nr {
                    bits[t as usize / 64] = 0;
                }
                if tr > 0 {
                    per[r as usize].fetch_add(tr, Relaxed);
                }
                tr
            },
        )
        .sum();
    let mut per_vertex = vec![0u64; n];
    for (r, &v) in o.order.iter().enumerate() {
        per_vertex[v as usize] = per[r].load(Relaxed);
    }
    Ok(Output { total, per_vertex })
}
