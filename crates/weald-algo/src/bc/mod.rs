//! Betweenness centrality from one source: the dependencies δ_s(v) of every vertex.
//!
//! * [`brandes`] — Brandes's algorithm with an edge_map forward pass (as in Ligra / GBBS BC).
//!
//! [`verify`] compares with a sequential Brandes.

pub mod brandes;

pub use brandes::{run, Output, Params};

use std::collections::VecDeque;
use weald_graph::{Graph, Vertex};

/// Check dependencies from `source`: `n` finite values, each within 1e-9 relative error of a
/// sequential Brandes (BFS with a queue, σ counted per arc, dependencies accumulated in reverse
/// BFS order; `δ(source) = 0`).
pub fn verify<G: Graph>(g: &G, source: Vertex, out: &Output) -> Result<(), String> {
    let n = g.num_vertices();
    if out.dependency.len() != n {
        return Err(format!(
            "{} dependencies for {n} vertices",
            out.dependency.len()
        ));
    }
    if source as usize >= n {
        return Err(format!("source {source} out of range"));
    }
    let expect = brandes_sequential(g, source);
    for (v, (&a, &b)) in out.dependency.iter().zip(&expect).enumerate() {
        if !a.is_finite() || (a - b).abs() > 1e-9 * a.abs().max(b.abs()) {
            return Err(format!("vertex {v}: dependency {a} but Brandes gives {b}"));
        }
    }
    Ok(())
}

fn brandes_sequential<G: Graph>(g: &G, s: Vertex) -> Vec<f64> {
    let n = g.num_vertices();
    let mut dist = vec![u32::MAX; n];
    let mut sigma = vec![0f64; n];
    let mut order = Vec::with_capacity(n);
    dist[s as usize] = 0;
    sigma[s as usize] = 1.0;
    let mut queue = VecDeque::from([s]);
    while let Some(u) = queue.pop_front() {
        order.push(u);
        let du = dist[u as usize];
        g.for_each_out(u, |v, _| {
            let v = v as usize;
            if dist[v] == u32::MAX {
                dist[v] = du + 1;
                queue.push_back(v as Vertex);
            }
            if dist[v] == du + 1 {
                sigma[v] += sigma[u as usize];
            }
            true
        });
    }
    let mut delta = vec![0f64; n];
    for &u in order.iter().rev() {
        let du = dist[u as usize];
        let mut acc = 0.0;
        g.for_each_out(u, |v, _| {
            if dist[v as usize] == du + 1 {
                acc += sigma[u as usize] / sigma[v as usize] * (1.0 + delta[v as usize]);
            }
            true
        });
        delta[u as usize] = acc;
    }
    delta[s as usize] = 0.0;
    delta
}
