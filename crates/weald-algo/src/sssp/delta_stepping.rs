//! Delta-stepping (Meyer & Sanders, "Δ-stepping: a parallelizable shortest path algorithm",
//! J. Algorithms 2003), in the bucketed form of Julienne (Dhulipala, Blelloch & Shun, SPAA'17)
//! and GAPBS's `sssp.cc`.
//!
//! Vertices are kept in [`Buckets`] by `floor(dist / delta)`. Each step takes the lowest
//! non-empty bucket, relaxes every out-arc of its vertices in parallel (atomic min on the
//! order-preserving bits of the distance), and moves the vertices whose distance decreased to
//! the bucket of their new distance. A vertex improved by a light arc inside the current
//! bucket comes back in the same bucket and is relaxed again, so the light/heavy split of the
//! original algorithm is not needed (as in GAPBS and Julienne). Like them, high-degree vertices
//! are not split across threads.
//!
//! A run's time is its random reads of tentative distances, so the relaxation touches nothing
//! else per arc: a compare-and-swap on the neighbour's slot that lowers its distance and queues
//! it in one step (`Narrow` slots: 4 bytes, a 31-bit distance and the queued mark, when
//! integer weights give `(n − 1) · max weight < 2³¹ − 2`; GAPBS's distances are 4-byte as
//! well), else an atomic min on an 8-byte slot and a one-byte mark when the distance
//! decreased (`Wide` slots). Parents
//! are found afterwards in one pass over the arcs ([`super::shortest_path_parents`]: the
//! smallest tight predecessor at a smaller distance), so they do not depend on the schedule.
//!
//! Weights must be non-negative (a negative weight is an error pointing to
//! [`super::bellman_ford`]). On a directed graph, distances follow arc directions.
//! Each extraction of a vertex scans its out-arcs once; memory is `O(n)` beyond the graph.

use super::{
    first_arc_with, relax_frontier, require_weighted, shortest_path_parents, DistOf, Narrow,
    Output, Slots, Wide,
};
use crate::traverse::bucket::{BucketId, Buckets, NULL_BUCKET};
use rayon::prelude::*;
use weald_graph::{DistValue, Graph, Result, Vertex, WealdError, WeightSummary};

/// Parameters of delta-stepping.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    /// Bucket width. `None` picks the mean weight divided by the mean out-degree (Meyer and
    /// Sanders' `Θ(1/d)` for random weights), but at least the smallest positive weight; 1 if
    /// no weight is positive.
    pub delta: Option<f64>,
}

/// The default bucket width for these statistics (see [`Params::delta`]).
fn default_delta(s: &WeightSummary, n: usize) -> f64 {
    if s.arcs == 0 || !(s.min_positive.is_finite()) {
        return 1.0;
    }
    let mean_w = s.sum / s.arcs as f64;
    let mean_deg = s.arcs as f64 / n.max(1) as f64;
    let d = (mean_w / mean_deg.max(1.0)).max(s.min_positive);
    if d.is_finite() && d > 0.0 {
        d
    } else {
        1.0
    }
}

/// The bucketed main loop: final distances (as ordered bits) in `dist`.
fn steps<G: Graph, S: Slots + ?Sized>(
    g: &G,
    source: Vertex,
    dist: &S,
    bucket_of: impl Fn(u64) -> BucketId + Sync,
) {
    let n = g.num_vertices();
    let mut buckets = Buckets::new(n, |v| if v == source { 0 } else { NULL_BUCKET });
    while let Some((_, frontier)) = buckets.next_bucket() {
        let improved = relax_frontier(g, &frontier, dist);
        let moves: Vec<(Vertex, BucketId)> = improved
            .par_iter()
            .with_min_len(4096)
            .map(|&v| (v, bucket_of(dist.dequeue(v as usize))))
            .collect();
        buckets.update_buckets(&moves);
    }
}

/// Shortest paths from `source` by delta-stepping: the distances and a shortest-path tree
/// ([`distances`], then [`shortest_path_parents`]: the smallest tight predecessor at a smaller
/// distance, then a tree over zero-weight ties).
///
/// Errors: as [`distances`].
pub fn run<G: Graph>(g: &G, source: Vertex, params: &Params) -> Result<Output<DistOf<G>>> {
    let dist = distances(g, source, params)?;
    let parent = shortest_path_parents(g, source, &dist, true);
    Ok(Output { dist, parent })
}

/// The distances alone (`D::INF` for unreached vertices): [`run`] without the tree, whose pass
/// over the arcs costs about a fifth of the run on an RMAT graph.
///
/// Errors: `WeightMismatch` on an unweighted graph, `VertexOutOfRange` for a bad source,
/// `Invalid` for a negative (or NaN) weight or a `delta` that is not positive and finite.
pub fn distances<G: Graph>(g: &G, source: Vertex, params: &Params) -> Result<Vec<DistOf<G>>> {
    require_weighted::<G>("delta-stepping")?;
    crate::require_vertex(g, source)?;
    let n = g.num_vertices();
    let stats = g.weight_summary();
    if stats.nan || stats.min < 0.0 {
        let bad = first_arc_with(g, |x| x.is_nan() || x < 0.0);
        let (u, v, w) = bad.expect("a negative weight was seen");
        return Err(WealdError::Invalid(format!(
            "delta-stepping needs non-negative weights, but arc {u}→{v} has weight {w:?}; \
             use bellman-ford for graphs with negative weights"
        )));
    }
    let delta = match params.delta {
        Some(d) if d.is_finite() && d > 0.0 => d,
        Some(d) => {
            return Err(WealdError::Invalid(format!(
                "delta must be positive and finite, got {d}"
            )))
        }
        None => default_delta(&stats, n),
    };
    let inv_delta = 1.0 / delta;
    // Monotone in the distance, as the buckets need (float rounding keeps it monotone).
    let bucket_of = |bits: u64| -> BucketId {
        let b = DistOf::<G>::from_ordered_bits(bits).to_f64() * inv_delta;
        if b >= (NULL_BUCKET - 1) as f64 {
            NULL_BUCKET - 1
        } else {
            b as BucketId
        }
    };
    Ok(if Narrow::fits::<DistOf<G>>(stats.max, n) {
        let store = Narrow::new::<DistOf<G>>(n, source);
        steps(g, source, &store, bucket_of);
        store.finish()
    } else {
        let store = Wide::new::<DistOf<G>>(n, source);
        steps(g, source, &store, bucket_of);
        store.finish()
    })
}
