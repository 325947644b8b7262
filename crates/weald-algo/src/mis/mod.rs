//! Maximal independent set (symmetric graphs).
//!
//! * [`rootset`] — the rootset-based parallel greedy MIS (Blelloch, Fineman & Shun, SPAA'12).
//!
//! [`verify`] checks independence and maximality.

pub mod rootset;

pub use rootset::{run, Output, Params};

use weald_graph::{Graph, Vertex};

/// Check a maximal independent set: `n` flags; no edge joins two members (self loops ignored);
/// every non-member has a member neighbour; `size` is the number of members.
pub fn verify<G: Graph>(g: &G, out: &Output) -> Result<(), String> {
    let n = g.num_vertices();
    if out.in_set.len() != n {
        return Err(format!("{} flags for {n} vertices", out.in_set.len()));
    }
    let size = out.in_set.iter().filter(|&&b| b).count();
    if size != out.size {
        return Err(format!("size {} reported, {size} members", out.size));
    }
    for v in 0..n as Vertex {
        let member = out.in_set[v as usize];
        let mut member_neighbour = None;
        g.for_each_out(v, |u, _| {
            if u != v && out.in_set[u as usize] {
                member_neighbour = Some(u);
                return false;
            }
            true
        });
        match (member, member_neighbour) {
            (true, Some(u)) => return Err(format!("members {v} and {u} are adjacent")),
            (false, None) => {
                return Err(format!(
                    "vertex {v} is out but has no member neighbour (not maximal)"
                ))
            }
            _ => {}
        }
    }
    Ok(())
}
