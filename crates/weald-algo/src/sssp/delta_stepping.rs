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
//! are not split across threads. Parents are kept during the run under a per-vertex spin lock
//! (distance first, then smallest predecessor), so they are deterministic without a second pass
//! over the arcs; only graphs with zero-weight ties need one (see
//! [`super::shortest_path_parents`]).
//!
//! Weights must be non-negative (a negative weight is an error pointing to
//! [`super::bellman_ford`]). On a directed graph, distances follow arc directions.
//! Each extraction of a vertex scans its out-arcs once; memory is `O(n)` beyond the graph.

use super::{
    finish_distances, new_distances, require_weighted, shortest_path_parents, DistOf, Output,
};
use crate::traverse::bucket::{BucketId, Buckets, NULL_BUCKET};
use rayon::prelude::*;
use std::sync::atomic::{
    AtomicBool, AtomicU32, AtomicU64,
    Ordering::{Acquire, Relaxed, Release},
};
use weald_graph::parallel::concat;
use weald_graph::{DistValue, Graph, Result, Vertex, WealdError, Weight, NO_VERTEX};

/// Parameters of delta-stepping.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    /// Bucket width. `None` picks the mean weight divided by the mean out-degree (Meyer and
    /// Sanders' `Θ(1/d)` for random weights), but at least the smallest positive weight; 1 if
    /// no weight is positive.
    pub delta: Option<f64>,
}

/// Weight statistics of the graph, gathered in one parallel pass.
#[derive(Clone, Copy, Debug)]
struct WeightStats {
    min: f64,
    min_positive: f64,
    sum: f64,
    arcs: usize,
}

impl WeightStats {
    const EMPTY: WeightStats = WeightStats {
        min: f64::INFINITY,
        min_positive: f64::INFINITY,
        sum: 0.0,
        arcs: 0,
    };

    fn merge(a: Self, b: Self) -> Self {
        WeightStats {
            min: if a.min.is_nan() || b.min.is_nan() {
                f64::NAN
            } else {
                a.min.min(b.min)
            },
            min_positive: a.min_positive.min(b.min_positive),
            sum: a.sum + b.sum,
            arcs: a.arcs + b.arcs,
        }
    }
}

fn weight_stats<G: Graph>(g: &G) -> WeightStats {
    (0..g.num_vertices() as Vertex)
        .into_par_iter()
        .with_min_len(256)
        .fold(
            || WeightStats::EMPTY,
            |mut s, u| {
                g.for_each_out(u, |_, w| {
                    let x = w.to_f64();
                    if x.is_nan() || s.min.is_nan() {
                        s.min = f64::NAN;
                    } else if x < s.min {
                        s.min = x;
                    }
                    if x > 0.0 && x < s.min_positive {
                        s.min_positive = x;
                    }
                    s.sum += x;
                    s.arcs += 1;
                    true
                });
                s
            },
        )
        .reduce(|| WeightStats::EMPTY, WeightStats::merge)
}

/// The default bucket width for these statistics (see [`Params::delta`]).
fn default_delta(s: &WeightStats, n: usize) -> f64 {
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

/// The shared arrays of a run.
struct State<'a> {
    dist: &'a [AtomicU64],
    parent: &'a [AtomicU32],
    /// Per-vertex spin locks guarding the pair (`dist`, `parent`).
    lock: &'a [AtomicBool],
    queued: &'a [AtomicBool],
}

/// Relax every out-arc of the `frontier`, keeping for each vertex the smallest distance and,
/// among the arcs attaining it, the smallest predecessor (so the parents do not depend on the
/// schedule: every arc tight at the end is relaxed with the final distance of its source, at
/// that source's last extraction). Returns the vertices whose distance decreased, each once.
fn relax<G: Graph>(g: &G, frontier: &[Vertex], s: &State<'_>) -> Vec<Vertex> {
    let relax_one = |u: Vertex, out: &mut Vec<Vertex>| {
        let du = DistOf::<G>::from_ordered_bits(s.dist[u as usize].load(Relaxed));
        g.for_each_out(u, |v, w| {
            let nd = du.plus(w.to_dist()).to_ordered_bits();
            let vi = v as usize;
            // Acquire pairs with the Release below: seeing a distance implies seeing the
            // parent written with it (within one distance, the parent only decreases).
            let d = s.dist[vi].load(Acquire);
            if nd < d || (nd == d && u < s.parent[vi].load(Relaxed)) {
                while s.lock[vi]
                    .compare_exchange_weak(false, true, Acquire, Relaxed)
                    .is_err()
                {
                    std::hint::spin_loop();
                }
                let d = s.dist[vi].load(Relaxed);
                let improved = nd < d;
                if improved || (nd == d && u < s.parent[vi].load(Relaxed)) {
                    s.parent[vi].store(u, Relaxed);
                    s.dist[vi].store(nd, Release);
                }
                s.lock[vi].store(false, Release);
                if improved && !s.queued[vi].load(Relaxed) && !s.queued[vi].swap(true, Relaxed) {
                    out.push(v);
                }
            }
            true
        });
    };
    if frontier.len() < 64 {
        let mut out = Vec::new();
        for &u in frontier {
            relax_one(u, &mut out);
        }
        out
    } else {
        let parts: Vec<Vec<Vertex>> = frontier
            .par_iter()
            .with_min_len(16)
            .fold(Vec::new, |mut out, &u| {
                relax_one(u, &mut out);
                out
            })
            .collect();
        concat(parts)
    }
}

/// Shortest paths from `source` by delta-stepping.
///
/// Errors: `WeightMismatch` on an unweighted graph, `VertexOutOfRange` for a bad source,
/// `Invalid` for a negative (or NaN) weight or a `delta` that is not positive and finite.
pub fn run<G: Graph>(g: &G, source: Vertex, params: &Params) -> Result<Output<DistOf<G>>> {
    require_weighted::<G>("delta-stepping")?;
    crate::require_vertex(g, source)?;
    let n = g.num_vertices();
    let stats = weight_stats(g);
    if (stats.min.is_nan() || stats.min < 0.0) && stats.arcs > 0 {
        let bad = (0..n as Vertex).into_par_iter().find_map_first(|u| {
            let mut found = None;
            g.for_each_out(u, |v, w| {
                let x = w.to_f64();
                if x.is_nan() || x < 0.0 {
                    found = Some((u, v, w));
                    return false;
                }
                true
            });
            found
        });
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
    let bucket_of = |d: DistOf<G>| -> BucketId {
        let b = d.to_f64() * inv_delta;
        if b >= (NULL_BUCKET - 1) as f64 {
            NULL_BUCKET - 1
        } else {
            b as BucketId
        }
    };

    let dist = new_distances::<DistOf<G>>(n, source);
    let parent: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|_| AtomicU32::new(NO_VERTEX))
        .collect();
    parent[source as usize].store(source, Relaxed);
    let lock: Vec<AtomicBool> = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|_| AtomicBool::new(false))
        .collect();
    let queued: Vec<AtomicBool> = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|_| AtomicBool::new(false))
        .collect();
    let state = State {
        dist: &dist,
        parent: &parent,
        lock: &lock,
        queued: &queued,
    };
    let mut buckets = Buckets::new(n, |v| if v == source { 0 } else { NULL_BUCKET });
    while let Some((_, frontier)) = buckets.next_bucket() {
        let improved = relax(g, &frontier, &state);
        let moves: Vec<(Vertex, BucketId)> = improved
            .par_iter()
            .with_min_len(4096)
            .map(|&v| {
                queued[v as usize].store(false, Relaxed);
                let d = DistOf::<G>::from_ordered_bits(dist[v as usize].load(Relaxed));
                (v, bucket_of(d))
            })
            .collect();
        buckets.update_buckets(&moves);
    }
    let dist = finish_distances::<DistOf<G>>(dist);
    let mut parent: Vec<Vertex> = parent.into_iter().map(AtomicU32::into_inner).collect();
    // The parent of each vertex is now its smallest tight predecessor. If that one is at the
    // same distance (zero weights), parents could form a cycle: recompute them as a tree.
    let plateau = (0..n).into_par_iter().with_min_len(4096).any(|v| {
        let p = parent[v];
        v != source as usize
            && p != NO_VERTEX
            && dist[p as usize].to_ordered_bits() >= dist[v].to_ordered_bits()
    });
    if plateau {
        parent = shortest_path_parents(g, source, &dist, true);
    }
    Ok(Output { dist, parent })
}
