//! Breadth-first search: the tree of shortest hop paths from a source along out-arcs.
//!
//! * [`direction_opt`] — direction-optimising BFS via edge_map (Beamer et al., SC'12).
//!
//! [`verify`] checks any BFS output against a simple sequential BFS.

pub mod direction_opt;

pub use direction_opt::{depths, run, tree_parents, Output, Params, UNREACHED};

use std::collections::VecDeque;
use weald_graph::{Graph, Vertex, NO_VERTEX};

/// Depths as signed numbers, `-1` for a vertex the search did not reach: what the front ends
/// hand out (the command's per-vertex output, the Python package's arrays).
pub fn signed_depths(depth: &[u32]) -> Vec<i64> {
    depth
        .iter()
        .map(|&d| if d == UNREACHED { -1 } else { i64::from(d) })
        .collect()
}

/// Check a BFS output from `source` (as GAPBS's BFS verifier, plus exact depths):
///
/// * the arrays have `n` entries, `parent[source] = source` and `depth[source] = 0`;
/// * the reached set (`depth != UNREACHED`, equivalently `parent != NO_VERTEX`) is exactly the
///   set a sequential BFS reaches, and every depth equals the sequential BFS distance;
/// * every other reached `v` has a parent `p` with an arc `p→v` and `depth[p] + 1 = depth[v]`.
pub fn verify<G: Graph>(g: &G, source: Vertex, out: &Output) -> Result<(), String> {
    let n = g.num_vertices();
    if out.parent.len() != n || out.depth.len() != n {
        return Err(format!(
            "output has {} parents and {} depths for {n} vertices",
            out.parent.len(),
            out.depth.len()
        ));
    }
    if source as usize >= n {
        return Err(format!("source {source} out of range"));
    }
    // Sequential BFS.
    let mut dist = vec![UNREACHED; n];
    dist[source as usize] = 0;
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        let du = dist[u as usize];
        g.for_each_out(u, |v, _| {
            if dist[v as usize] == UNREACHED {
                dist[v as usize] = du + 1;
                queue.push_back(v);
            }
            true
        });
    }
    if out.parent[source as usize] != source || out.depth[source as usize] != 0 {
        return Err(format!("source {source} must be its own parent at depth 0"));
    }
    for (v, &dv) in dist.iter().enumerate() {
        if out.depth[v] != dv {
            return Err(format!(
                "vertex {v}: depth {} but the BFS distance is {}",
                show(out.depth[v]),
                show(dv)
            ));
        }
        if (out.parent[v] == NO_VERTEX) != (dv == UNREACHED) {
            return Err(format!(
                "vertex {v}: parent {} disagrees with reachability",
                show(out.parent[v])
            ));
        }
        let p = out.parent[v];
        if v != source as usize && p != NO_VERTEX {
            if p as usize >= n {
                return Err(format!("vertex {v}: parent {p} out of range"));
            }
            if out.depth[p as usize].wrapping_add(1) != out.depth[v] {
                return Err(format!(
                    "vertex {v}: parent {p} is not on the previous level"
                ));
            }
        }
    }
    // Every tree arc exists: one pass over all arcs marks the vertices whose parent arc is seen.
    let mut seen = vec![false; n];
    seen[source as usize] = true;
    for u in 0..n as Vertex {
        g.for_each_out(u, |v, _| {
            if out.parent[v as usize] == u {
                seen[v as usize] = true;
            }
            true
        });
    }
    if let Some(v) = (0..n).find(|&v| out.parent[v] != NO_VERTEX && !seen[v]) {
        return Err(format!(
            "vertex {v}: no arc from its parent {}",
            out.parent[v]
        ));
    }
    Ok(())
}

fn show(x: u32) -> String {
    if x == u32::MAX {
        "none".into()
    } else {
        x.to_string()
    }
}
