//! Triangle counting on symmetric graphs.
//!
//! | algorithm | file |
//! |---|---|
//! | degree-ordered sorted-list intersection (Shun & Tangwongsan, ICDE'15; GAPBS `tc.cc`) | [`ordered_intersect`] |
//!
//! A triangle is a set of three distinct vertices pairwise joined by an edge; self loops and
//! duplicate arcs are ignored. Directed graphs are refused (`WealdError::Invalid`): load them
//! with `--undirected` (symmetrised) first.
//!
//! [`verify`] recounts sequentially: for each edge `u < v`, the common neighbours `w > v`.

pub mod ordered_intersect;

pub use ordered_intersect::{run, Params};

use weald_graph::{Graph, Vertex};

/// Triangle counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// Number of triangles in the graph.
    pub total: u64,
    /// `per_vertex[v]`: number of triangles containing `v` (as `networkx.triangles`); sums to
    /// `3 * total`.
    pub per_vertex: Vec<u64>,
}

/// Sorted, deduplicated neighbour lists without self loops.
fn simple_adjacency<G: Graph>(g: &G) -> Vec<Vec<Vertex>> {
    (0..g.num_vertices() as Vertex)
        .map(|u| {
            let mut a = Vec::with_capacity(g.out_degree(u));
            g.for_each_out(u, |v, _| {
                if v != u && a.last() != Some(&v) {
                    a.push(v);
                }
                true
            });
            a
        })
        .collect()
}

/// Check `out` against a simple sequential count: for every edge `u < v`, the common
/// neighbours `w > v` (each triangle once). Checks the total, the length of `per_vertex`, that
/// it sums to `3 * total`, and every per-vertex count.
pub fn verify<G: Graph>(g: &G, out: &Output) -> Result<(), String> {
    if g.is_directed() {
        return Err("triangle counting is defined here for symmetric graphs only".into());
    }
    let n = g.num_vertices();
    if out.per_vertex.len() != n {
        return Err(format!(
            "per_vertex has {} entries for {n} vertices",
            out.per_vertex.len()
        ));
    }
    let adj = simple_adjacency(g);
    let mut total = 0u64;
    let mut per = vec![0u64; n];
    for u in 0..n {
        for &v in adj[u].iter().filter(|&&v| v as usize > u) {
            let (a, b) = (&adj[u], &adj[v as usize]);
            let (mut i, mut j) = (0, 0);
            while i < a.len() && j < b.len() {
                if a[i] < b[j] {
                    i += 1;
                } else if a[i] > b[j] {
                    j += 1;
                } else {
                    let w = a[i];
                    if w > v {
                        total += 1;
                        per[u] += 1;
                        per[v as usize] += 1;
                        per[w as usize] += 1;
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
    }
    if out.total != total {
        return Err(format!(
            "total is {}, but a sequential count finds {total} triangles",
            out.total
        ));
    }
    let sum: u64 = out.per_vertex.iter().sum();
    if sum != 3 * total {
        return Err(format!(
            "per_vertex sums to {sum}, not 3 * {total} (each triangle has three vertices)"
        ));
    }
    if let Some(v) = (0..n).find(|&v| per[v] != out.per_vertex[v]) {
        return Err(format!(
            "vertex {v} is in {} triangles, not {}",
            per[v], out.per_vertex[v]
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
