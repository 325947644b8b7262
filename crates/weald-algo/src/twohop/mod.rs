//! Two-hop neighbourhood of a vertex: every vertex at distance 1 or 2 from the source, the
//! local query Aspen (PLDI'19, §7.4) runs many at a time on a snapshot.
//!
//! * [`gather`] — collect the neighbours and their neighbours, then sort and deduplicate.
//!
//! For a directed graph the hops follow out-edges. Weights are ignored. The source itself is
//! not part of the answer (even when a cycle of length 1 or 2 leads back to it).
//!
//! [`verify`] recomputes the set with a dense mark array and compares it exactly.

pub mod gather;

pub use gather::{run, Output, Params};

use weald_graph::{Graph, Vertex};

/// Check `out` against an independent computation: dense marks over the first and second
/// hop; the answer must be the marked vertices other than `source`, sorted, without repeats.
pub fn verify<G: Graph>(g: &G, source: Vertex, out: &Output) -> Result<(), String> {
    let n = g.num_vertices();
    if source as usize >= n {
        return Err(format!("source {source} out of range ({n} vertices)"));
    }
    let mut mark = vec![false; n];
    let mut first = Vec::new();
    g.for_each_out(source, |u, _| {
        if !mark[u as usize] {
            mark[u as usize] = true;
            first.push(u);
        }
        true
    });
    for &u in &first {
        g.for_each_out(u, |w, _| {
            mark[w as usize] = true;
            true
        });
    }
    mark[source as usize] = false;
    if let Some(w) = out.vertices.windows(2).find(|w| w[0] >= w[1]) {
        return Err(format!(
            "vertices not strictly increasing at {} then {}",
            w[0], w[1]
        ));
    }
    for &v in &out.vertices {
        if v as usize >= n || !mark[v as usize] {
            return Err(format!("{v} is reported but is not within two hops"));
        }
    }
    let expected = mark.iter().filter(|&&m| m).count();
    if expected != out.vertices.len() {
        let missing = (0..n as Vertex)
            .find(|&v| mark[v as usize] && out.vertices.binary_search(&v).is_err())
            .unwrap_or(source);
        return Err(format!(
            "{} vertices reported, {expected} within two hops (e.g. {missing} is missing)",
            out.vertices.len()
        ));
    }
    Ok(())
}
