//! Connected components (weakly connected components on directed graphs).
//!
//! * [`afforest`] — Afforest (Sutton et al., IPDPS'18), as in GAPBS.
//!
//! [`verify`] compares with a sequential union-find.

pub mod afforest;

pub use afforest::{run, Output, Params};

use weald_graph::{Graph, Vertex};

/// Check component labels: `n` labels that induce exactly the partition a sequential
/// union-find over all arcs (direction ignored) gives, each component labelled by its smallest
/// vertex id, and `num_components` equal to the number of components.
pub fn verify<G: Graph>(g: &G, out: &Output) -> Result<(), String> {
    let n = g.num_vertices();
    if out.label.len() != n {
        return Err(format!("{} labels for {n} vertices", out.label.len()));
    }
    let mut parent: Vec<Vertex> = (0..n as Vertex).collect();
    fn find(p: &mut [Vertex], mut x: Vertex) -> Vertex {
        while p[x as usize] != x {
            p[x as usize] = p[p[x as usize] as usize];
            x = p[x as usize];
        }
        x
    }
    for u in 0..n as Vertex {
        g.for_each_out(u, |v, _| {
            let (a, b) = (find(&mut parent, u), find(&mut parent, v));
            // Union by smaller id: the root stays the component's minimum.
            if a < b {
                parent[b as usize] = a;
            } else if b < a {
                parent[a as usize] = b;
            }
            true
        });
    }
    let mut count = 0;
    for v in 0..n as Vertex {
        let root = find(&mut parent, v);
        count += (root == v) as usize;
        if out.label[v as usize] != root {
            return Err(format!(
                "vertex {v}: label {} but its component's smallest vertex is {root}",
                out.label[v as usize]
            ));
        }
    }
    if out.num_components != count {
        return Err(format!(
            "{} components reported, {count} found",
            out.num_components
        ));
    }
    Ok(())
}
