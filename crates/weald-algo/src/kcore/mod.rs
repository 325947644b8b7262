//! k-core decomposition (coreness of every vertex) of symmetric graphs.
//!
//! | algorithm | file |
//! |---|---|
//! | bucketed parallel peeling (Dhulipala, Blelloch & Shun, Julienne, SPAA'17) | [`peel`] |
//!
//! The coreness of `v` is the largest `k` such that `v` belongs to a subgraph in which every
//! vertex has at least `k` neighbours. Self loops are ignored (networkx's `core_number` refuses
//! graphs with self loops; Weald ignores them instead) and duplicate arcs count once. Directed
//! graphs are refused (`WealdError::Invalid`): load them with `--undirected` first.
//!
//! [`verify`] compares with the sequential `O(n + m)` peeling of Batagelj & Zaversnik (2003).

pub mod peel;

pub use peel::{run, Params};

use weald_graph::{Graph, Vertex};

/// Coreness of every vertex.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// `coreness[v]`: the largest `k` such that `v` is in the `k`-core.
    pub coreness: Vec<u32>,
    /// The largest coreness (0 for a graph without edges or vertices).
    pub max_core: u32,
}

/// Sequential coreness by Batagelj & Zaversnik's bin-sorted peeling ("An O(m) Algorithm for
/// Cores Decomposition of Networks", 2003), on the simple graph (no self loops, no duplicates).
fn batagelj_zaversnik<G: Graph>(g: &G) -> Vec<u32> {
    let n = g.num_vertices();
    let adj: Vec<Vec<Vertex>> = (0..n as Vertex)
        .map(|u| {
            let mut a = Vec::new();
            g.for_each_out(u, |v, _| {
                if v != u && a.last() != Some(&v) {
                    a.push(v);
                }
                true
            });
            a
        })
        .collect();
    let mut deg: Vec<usize> = adj.iter().map(Vec::len).collect();
    let max_deg = deg.iter().copied().max().unwrap_or(0);
    // bin[d]: start of the vertices of degree d in `vert`.
    let mut bin = vec![0usize; max_deg + 1];
    for &d in &deg {
        bin[d] += 1;
    }
    let mut start = 0;
    for b in bin.iter_mut() {
        let c = *b;
        *b = start;
        start += c;
    }
    let mut pos = vec![0usize; n];
    let mut vert = vec![0 as Vertex; n];
    for v in 0..n {
        pos[v] = bin[deg[v]];
        vert[pos[v]] = v as Vertex;
        bin[deg[v]] += 1;
    }
    for d in (1..=max_deg).rev() {
        bin[d] = bin[d - 1];
    }
    bin[0] = 0;
    for i in 0..n {
        let v = vert[i] as usize;
        for &u in &adj[v] {
            let u = u as usize;
            if deg[u] > deg[v] {
                let du = deg[u];
                let pu = pos[u];
                let pw = bin[du];
                let w = vert[pw] as usize;
                if u != w {
                    pos[u] = pw;
                    vert[pu] = w as Vertex;
                    pos[w] = pu;
                    vert[pw] = u as Vertex;
                }
                bin[du] += 1;
                deg[u] -= 1;
            }
        }
    }
    deg.into_iter().map(|d| d as u32).collect()
}

/// Check `out` against the sequential Batagelj–Zaversnik peeling: same length, every coreness
/// equal, and `max_core` the maximum.
pub fn verify<G: Graph>(g: &G, out: &Output) -> Result<(), String> {
    if g.is_directed() {
        return Err("k-core decomposition is defined here for symmetric graphs only".into());
    }
    let n = g.num_vertices();
    if out.coreness.len() != n {
        return Err(format!(
            "coreness has {} entries for {n} vertices",
            out.coreness.len()
        ));
    }
    let expected = batagelj_zaversnik(g);
    if let Some(v) = (0..n).find(|&v| expected[v] != out.coreness[v]) {
        return Err(format!(
            "coreness of {v} is {}, but sequential peeling gives {}",
            out.coreness[v], expected[v]
        ));
    }
    let max = expected.iter().copied().max().unwrap_or(0);
    if out.max_core != max {
        return Err(format!("max_core is {}, not {max}", out.max_core));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
