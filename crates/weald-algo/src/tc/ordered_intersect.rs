//! Triangle counting by degree-ordered sorted-list intersection (Shun & Tangwongsan,
//! "Multicore Triangle Computations Without Tuning", ICDE 2015; GAPBS `tc.cc`; Latapy 2008 for
//! the ordering argument).
//!
//! Vertices are ranked by `(degree, id)` and each edge `{u, v}` is oriented from the lower to
//! the higher rank. Every triangle then has exactly one vertex `u` with both others in `N+(u)`,
//! and is found once, as `w ∈ N+(u) ∩ N+(v)` for `v ∈ N+(u)`, by merging the two sorted
//! oriented lists. Orienting towards higher degree bounds `|N+(v)|` by `O(√m)`, so the work is
//! `O(m^{3/2})`. Vertices are processed in parallel; each intersection is a sequential merge.
//!
//! The oriented lists are built once, in parallel (`n + 1` offsets and `m/2` ids of extra
//! memory), from [`Graph::out_neighbors_slice`] when the backend stores flat lists and by
//! decoding with [`Graph::for_each_out`] otherwise. Self loops and duplicate arcs are skipped.
//! `per_vertex` counts are gathered with one atomic add per triangle for its top vertex and one
//! per oriented edge for the others.
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

/// The graph with each edge oriented towards the higher `(degree, id)` rank, lists sorted by id.
struct Oriented {
    offsets: Vec<usize>,
    targets: Vec<Vertex>,
}

impl Oriented {
    #[inline]
    fn list(&self, u: Vertex) -> &[Vertex] {
        &self.targets[self.offsets[u as usize]..self.offsets[u as usize + 1]]
    }
}

/// Call `f(v)` for each distinct neighbour `v != u` of `u` of higher rank, in increasing order.
#[inline]
fn for_each_higher<G: Graph>(g: &G, deg: &[usize], u: Vertex, mut f: impl FnMut(Vertex)) {
    let key_u = (deg[u as usize], u);
    let mut last = None;
    let mut visit = |v: Vertex| {
        if last != Some(v) {
            last = Some(v);
            if (deg[v as usize], v) > key_u {
                f(v);
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
    let deg: Vec<usize> = (0..n as Vertex)
        .into_par_iter()
        .with_min_len(4096)
        .map(|v| g.out_degree(v))
        .collect();
    let mut offsets: Vec<usize> = (0..n as Vertex)
        .into_par_iter()
        .with_min_len(256)
        .map(|u| {
            let mut c = 0;
            for_each_higher(g, &deg, u, |_| c += 1);
            c
        })
        .collect();
    offsets.push(0);
    let total = scan_exclusive(&mut offsets);
    let mut targets = vec![0 as Vertex; total];
    // Split the target array into per-vertex slices and fill them in parallel.
    let mut slices: Vec<&mut [Vertex]> = Vec::with_capacity(n);
    let mut rest = targets.as_mut_slice();
    for u in 0..n {
        let (head, tail) = rest.split_at_mut(offsets[u + 1] - offsets[u]);
        slices.push(head);
        rest = tail;
    }
    slices
        .into_par_iter()
        .with_min_len(256)
        .enumerate()
        .for_each(|(u, out)| {
            let mut i = 0;
            for_each_higher(g, &deg, u as Vertex, |v| {
                out[i] = v;
                i += 1;
            });
        });
    Oriented { offsets, targets }
}

/// Count the common elements of two sorted lists, calling `f` on each.
#[inline]
fn intersect(a: &[Vertex], b: &[Vertex], mut f: impl FnMut(Vertex)) -> u64 {
    let (mut i, mut j, mut c) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x < y {
            i += 1;
        } else if x > y {
            j += 1;
        } else {
            f(x);
            c += 1;
            i += 1;
            j += 1;
        }
    }
    c
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
    let per: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let total: u64 = (0..n as Vertex)
        .into_par_iter()
        .with_min_len(64)
        .map(|u| {
            let nu = o.list(u);
            let mut tu = 0;
            for &v in nu {
                let c = intersect(nu, o.list(v), |w| {
                    per[w as usize].fetch_add(1, Relaxed);
                });
                if c > 0 {
                    per[v as usize].fetch_add(c, Relaxed);
                    tu += c;
                }
            }
            if tu > 0 {
                per[u as usize].fetch_add(tu, Relaxed);
            }
            tu
        })
        .sum();
    Ok(Output {
        total,
        per_vertex: per.into_iter().map(AtomicU64::into_inner).collect(),
    })
}
