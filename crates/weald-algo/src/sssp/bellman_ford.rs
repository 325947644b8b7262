//! Frontier-based parallel Bellman-Ford (Bellman 1958, Ford 1956; the frontier form of Ligra's
//! `BellmanFord.C` and GBBS's `GeneralWeightSSSP`).
//!
//! Round `i` relaxes, in parallel, the out-arcs of the vertices whose distance decreased in
//! round `i - 1` (round 1: the source). After round `i` every vertex has at most the length of
//! its shortest path of at most `i` arcs, so without a negative cycle the distances are final
//! after `n - 1` rounds and round `n` changes nothing. If distances still change in round `n`,
//! a negative cycle is reachable from the source and the result is
//! `Err(WealdError::NegativeCycle)`: the algorithm never loops forever and never returns wrong
//! distances. Work `O(n·m)` in the worst case, usually far less; memory `O(n)`.
//!
//! Negative weights are allowed. On a directed graph, distances follow arc directions; on a
//! symmetric graph a negative edge is a negative cycle (`u→v→u`), so only non-negative weights
//! make sense there.

use super::{
    first_arc_with, relax_frontier, require_weighted, shortest_path_parents, DistOf, Output, Slots,
    Wide,
};
use rayon::prelude::*;
use weald_graph::{Graph, Result, Vertex, WealdError};

/// Parameters of Bellman-Ford (none yet).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {}

/// Shortest paths from `source` by frontier-based Bellman-Ford: the distances and a
/// shortest-path tree ([`distances`], then [`shortest_path_parents`] over tight arcs).
///
/// Errors: as [`distances`].
pub fn run<G: Graph>(g: &G, source: Vertex, params: &Params) -> Result<Output<DistOf<G>>> {
    let dist = distances(g, source, params)?;
    let parent = shortest_path_parents(g, source, &dist, false);
    Ok(Output { dist, parent })
}

/// The distances alone (`D::INF` for unreached vertices): [`run`] without the tree.
///
/// Errors: `WeightMismatch` on an unweighted graph, `VertexOutOfRange` for a bad source,
/// `Invalid` for a NaN weight (no distance through it would be defined), `NegativeCycle` if a
/// negative cycle is reachable from the source.
pub fn distances<G: Graph>(g: &G, source: Vertex, _params: &Params) -> Result<Vec<DistOf<G>>> {
    require_weighted::<G>("bellman-ford")?;
    crate::require_vertex(g, source)?;
    let n = g.num_vertices();
    if g.weight_summary().nan {
        let (u, v, _) = first_arc_with(g, f64::is_nan).expect("a NaN weight was seen");
        return Err(WealdError::Invalid(format!(
            "bellman-ford needs numeric weights, but arc {u}→{v} has weight NaN"
        )));
    }
    let dist = Wide::new::<DistOf<G>>(n, source);
    let mut frontier = vec![source];
    for _round in 0..n {
        if frontier.is_empty() {
            break;
        }
        frontier = relax_frontier(g, &frontier, &dist);
        frontier.par_iter().with_min_len(4096).for_each(|&v| {
            dist.dequeue(v as usize);
        });
    }
    if !frontier.is_empty() {
        return Err(WealdError::NegativeCycle {
            source_vertex: source as u64,
        });
    }
    Ok(dist.finish::<DistOf<G>>())
}
