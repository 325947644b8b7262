//! [`batch_updates`] — Aspen's batch-update experiment (PLDI'19, §7.3): batches of
//!   RMAT-sampled edges are inserted into the C-tree graph (each edge in both directions for a
//!   symmetric graph), then deleted again; throughput is batch edges per second.

use crate::runner::median;
use std::time::Instant;
use weald_graph::batch::Combine;
use weald_graph::{Graph, Result, UpdateBatch, Vertex, WealdError, Weight};
use weald_io::gen;
use weald_storage::ctree::{CTreeGraph, FlatSnapshot, VersionedGraph};

/// Throughput at one batch size.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchTiming {
    /// Edges per batch (undirected edges for a symmetric graph: each stored both ways).
    pub size: usize,
    /// Median over the trials of `size / insert seconds`.
    pub insert_eps: f64,
    /// Median over the trials of `size / delete seconds`.
    pub delete_eps: f64,
    /// `size / mean insert seconds` (Aspen's tool reports the mean time of its trials).
    pub insert_eps_mean: f64,
    /// `size / mean delete seconds`.
    pub delete_eps_mean: f64,
    pub insert_seconds: Vec<f64>,
    pub delete_seconds: Vec<f64>,
    /// Bytes the store kept besides its versions once this size's trials were done: the
    /// writer's free allocations for its next batch ([`VersionedGraph::spare_bytes`]); 0 in
    /// place, where no version is copied.
    pub held_bytes: usize,
}

/// Where the experiment's batches come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// RMAT arcs (Graph500 parameters) over the graph's id range whose vertex permutation is
    /// independent of the graph's: the batches' hubs are unrelated to the graph's, as in Aspen's
    /// experiment (RMAT batches into real graphs). The seed picks the stream; it is salted so
    /// that it never coincides with `weald generate rmat --seed S` for the same S.
    Independent(u64),
    /// The continuation of the stream that generated the graph with `weald generate rmat
    /// --seed S` (same scale, ids kept): the same vertex permutation, stream positions past the
    /// graph's own. Updates land on the graph's hubs, where each touched chunk is a long one
    /// to rewrite: the costlier case. (RMAT repeats edges, so part of a batch re-inserts edges
    /// the graph has, and the deletion then removes some of the graph's own.)
    GraphStream(u64),
    /// The protocol of Aspen's own tool (`run_batch_updates`), for a like-for-like comparison
    /// with its published figures. It differs from the experiment as Weald runs it in four
    /// ways. Each batch's arcs are inserted as given, one direction each: the graph is taken as
    /// its stored arcs ([`CTreeGraph::into_out_arcs`]), as Aspen's symmetric graph takes
    /// them. Every trial of a size inserts and deletes the same batch. There is no warm-up
    /// batch: the first, cold trial is timed with the others. The arcs are drawn from an
    /// unpermuted RMAT over the lower half of the ids (`2^(s-1)` for a graph of at most `2^s`
    /// vertices), with the probabilities its sampler gives the quadrants: 0.25, 0.05, 0.05 and
    /// 0.65 (its parameters are a = 0.5, b = c = 0.1, but it divides a 32-bit hash by
    /// `INT_MAX`, so its uniform draw spans [0, 2)). The seed picks the batch.
    AspenTool(u64),
}

impl Sampling {
    /// The name reports give it: `independent`, `graph-stream` or `aspen-tool`.
    pub fn name(self) -> &'static str {
        match self {
            Sampling::Independent(_) => "independent",
            Sampling::GraphStream(_) => "graph-stream",
            Sampling::AspenTool(_) => "aspen-tool",
        }
    }
}

/// Median seconds of taking a [`FlatSnapshot`] of `g` (the per-vertex array global kernels
/// read; freeing it is not timed), over `trials` snapshots.
pub fn flat_snapshot_seconds<W: Weight>(g: &CTreeGraph<W>, trials: usize) -> f64 {
    let secs: Vec<f64> = (0..trials.max(1))
        .map(|_| {
            let t = Instant::now();
            let f = FlatSnapshot::new(g);
            let s = t.elapsed().as_secs_f64();
            drop(f);
            s
        })
        .collect();
    median(&secs)
}

/// Salt of [`Sampling::Independent`] seeds.
const SALT: u64 = 0x9e37_79b9_7f4a_7c15;

/// Run the batch-update experiment as Aspen's tool does (`run_batch_updates`, PLDI'19 §7.3):
/// `base` becomes version 0 of a [`VersionedGraph`], and each batch is inserted into the
/// latest version and then deleted from the next by [`VersionedGraph::apply`], a line of
/// versions. Each timed call acquires the latest version, copies the paths the batch touches,
/// publishes the result and releases the version it replaced, which nothing else holds, so
/// the nodes the batch replaced are freed inside the call, as Aspen's `insert_edges_batch`
/// frees them when it releases the version it acquired. (A graph that a caller still holds
/// elsewhere keeps its nodes, and only the versions made here are freed.) Each trial samples a
/// fresh batch and at each size one untimed warm-up batch runs first, except with
/// [`Sampling::AspenTool`] (one batch repeated, every trial timed, the graph taken as its
/// arcs). As in Aspen's run, a batch's edges that the graph already had are deleted with it,
/// so the graph loses a few edges per trial, and later sizes run on the graph the earlier
/// ones left.
pub fn batch_updates<W: Weight>(
    base: CTreeGraph<W>,
    sizes: &[usize],
    trials: usize,
    sampling: Sampling,
) -> Result<Vec<BatchTiming>> {
    let n = base.num_vertices();
    let vg = VersionedGraph::new(for_sampling(base, sampling));
    versioned_run(&vg, n, sizes, trials, sampling)
}

/// The graph a run of `sampling` updates: Aspen's tool's protocol takes it as its arcs
/// ([`CTreeGraph::into_out_arcs`]), so that a batch's pairs go in one direction each.
fn for_sampling<W: Weight>(g: CTreeGraph<W>, sampling: Sampling) -> CTreeGraph<W> {
    match sampling {
        Sampling::AspenTool(_) => g.into_out_arcs(),
        _ => g,
    }
}

/// [`batch_updates`] on the line of versions `vg`, batches drawn over ids `0..n`.
fn versioned_run<W: Weight>(
    vg: &VersionedGraph<W>,
    n: usize,
    sizes: &[usize],
    trials: usize,
    sampling: Sampling,
) -> Result<Vec<BatchTiming>> {
    run(
        n,
        sizes,
        trials,
        sampling,
        |batch, pairs| versioned_trial(vg, batch, pairs),
        || vg.spare_bytes(),
    )
}

/// One trial of [`batch_updates`]: `batch` inserted into the latest version of `vg`, then
/// `pairs` deleted from the next, each a timed [`VersionedGraph::apply`] (the batches are
/// built before the clock starts). Returns (insert, delete) seconds.
fn versioned_trial<W: Weight>(
    vg: &VersionedGraph<W>,
    batch: &[(Vertex, Vertex, W)],
    pairs: &[(Vertex, Vertex)],
) -> (f64, f64) {
    let ins = UpdateBatch {
        insert_edges: batch.to_vec(),
        ..UpdateBatch::default()
    };
    let del = UpdateBatch {
        delete_edges: pairs.to_vec(),
        ..UpdateBatch::default()
    };
    let t = Instant::now();
    vg.apply(&ins, Combine::Min);
    let ti = t.elapsed().as_secs_f64();
    let t = Instant::now();
    vg.apply(&del, Combine::Min);
    (ti, t.elapsed().as_secs_f64())
}

/// The experiment on a graph nobody else holds: each batch is inserted into `g` itself and
/// then deleted from it ([`CTreeGraph::insert_edges_mut`], [`CTreeGraph::delete_edges_mut`]),
/// in place wherever `g` shares nothing (all of it, unless the caller keeps a clone or a
/// snapshot). A batch's edges that `g` already had are deleted with it, so `g` loses a few
/// edges per trial (RMAT batches rarely repeat a graph's edges).
pub fn batch_updates_in_place<W: Weight>(
    g: &mut CTreeGraph<W>,
    sizes: &[usize],
    trials: usize,
    sampling: Sampling,
) -> Result<Vec<BatchTiming>> {
    let n = g.num_vertices();
    let taken = std::mem::replace(g, CTreeGraph::new(g.options()));
    *g = for_sampling(taken, sampling);
    let trial = |batch: &[(Vertex, Vertex, W)], pairs: &[(Vertex, Vertex)]| {
        let t = Instant::now();
        g.insert_edges_mut(batch, Combine::Min);
        let ti = t.elapsed().as_secs_f64();
        let t = Instant::now();
        g.delete_edges_mut(pairs);
        (ti, t.elapsed().as_secs_f64())
    };
    run(n, sizes, trials, sampling, trial, || 0)
}

/// Sample the batches over ids `0..n` and time `trial(batch, its pairs)` -> (insert,
/// delete seconds) for each; `held()` gives each size's [`BatchTiming::held_bytes`].
fn run<W: Weight>(
    n: usize,
    sizes: &[usize],
    trials: usize,
    sampling: Sampling,
    mut trial: impl FnMut(&[(Vertex, Vertex, W)], &[(Vertex, Vertex)]) -> (f64, f64),
    held: impl Fn() -> usize,
) -> Result<Vec<BatchTiming>> {
    if sizes.is_empty() || sizes.contains(&0) {
        return Err(WealdError::Invalid("batch sizes must be positive".into()));
    }
    let trials = trials.max(1);
    let max = *sizes.iter().max().unwrap();
    let n = n.max(2);
    let scale = (usize::BITS - (n - 1).leading_zeros()).max(1);
    // One more sample than trials: the last is the warm-up batch (a batch of its own, so the
    // timed ones do not find their paths already in cache). Aspen's tool repeats one batch and
    // times every trial.
    let (count, warm_up) = match sampling {
        Sampling::AspenTool(_) => (1, false),
        _ => (trials as u64 + 1, true),
    };
    let samples: Vec<Vec<(Vertex, Vertex, W)>> = (0..count)
        .map(|t| {
            let el = match sampling {
                Sampling::AspenTool(seed) => {
                    let p = gen::RmatParams {
                        scale: scale - 1,
                        a: 0.25,
                        b: 0.05,
                        c: 0.05,
                        seed: seed ^ SALT,
                        ..Default::default()
                    };
                    gen::rmat_arcs_unpermuted(&p, max)
                }
                Sampling::Independent(seed) => {
                    let p = gen::RmatParams {
                        scale,
                        seed: (seed ^ SALT).wrapping_add(t),
                        ..Default::default()
                    };
                    gen::rmat_arcs(&p, max)
                }
                Sampling::GraphStream(seed) => {
                    let p = gen::RmatParams {
                        scale,
                        seed,
                        ..Default::default()
                    };
                    // Past the graph's stream positions for any edge factor up to 64.
                    let first = (64u64 << scale) + t * max as u64;
                    gen::rmat_arcs_from(&p, first, max)
                }
            };
            el.src
                .iter()
                .zip(&el.dst)
                .map(|(&u, &v)| (u, v, W::default()))
                .collect()
        })
        .collect();
    // The order of the batches (sample index, timed?): the warm-up (untimed) first, then the
    // timed ones.
    let order: Vec<(usize, bool)> = if warm_up {
        std::iter::once((trials, false))
            .chain((0..trials).map(|t| (t, true)))
            .collect()
    } else {
        (0..trials).map(|_| (0, true)).collect()
    };
    let mut out = Vec::with_capacity(sizes.len());
    for &size in sizes {
        let (mut ins, mut del) = (Vec::new(), Vec::new());
        for &(k, timed) in &order {
            let sample = &samples[k];
            let batch = &sample[..size.min(sample.len())];
            let pairs: Vec<(Vertex, Vertex)> = batch.iter().map(|&(u, v, _)| (u, v)).collect();
            let (ti, td) = trial(batch, &pairs);
            if timed {
                ins.push(ti);
                del.push(td);
            }
        }
        let eps = |secs: &[f64]| median(&secs.iter().map(|s| size as f64 / s).collect::<Vec<_>>());
        let mean_eps = |secs: &[f64]| size as f64 * secs.len() as f64 / secs.iter().sum::<f64>();
        out.push(BatchTiming {
            size,
            insert_eps: eps(&ins),
            delete_eps: eps(&del),
            insert_eps_mean: mean_eps(&ins),
            delete_eps_mean: mean_eps(&del),
            insert_seconds: ins,
            delete_seconds: del,
            held_bytes: held(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn arcs(g: &CTreeGraph<()>) -> BTreeSet<(Vertex, Vertex)> {
        let mut out = BTreeSet::new();
        for v in 0..g.num_vertices() as Vertex {
            g.for_each_out(v, |u, _| {
                out.insert((v, u));
                true
            });
        }
        out
    }

    /// A trial makes two versions: the batch inserted (both directions of each edge), then
    /// deleted, so the latest version is the graph before it less the batch's edges it
    /// already had. The work is done, not only timed.
    #[test]
    fn a_versioned_trial_inserts_then_deletes_in_a_line_of_versions() {
        let mut el = weald_graph::EdgeList::new(8);
        for (u, v) in [(0, 1), (1, 2), (2, 3), (4, 5)] {
            el.push(u, v, ());
        }
        let base = CTreeGraph::from_edge_list(&el, Default::default(), Combine::Min).unwrap();
        let before = arcs(&base);
        let vg = VersionedGraph::new(base);
        let batch = [(0, 1, ()), (5, 6, ()), (6, 7, ()), (3, 3, ())];
        let pairs: Vec<_> = batch.iter().map(|&(u, v, _)| (u, v)).collect();
        versioned_trial(&vg, &batch, &pairs);
        assert_eq!(vg.version(), 2);
        let after = arcs(vg.acquire().graph());
        let gone: BTreeSet<_> = [(0, 1), (1, 0)].into();
        assert_eq!(after, &before - &gone);
        // A second trial continues the line from there.
        versioned_trial(&vg, &batch[1..2], &pairs[1..2]);
        assert_eq!(vg.version(), 4);
        assert_eq!(arcs(vg.acquire().graph()), after);
    }

    /// Aspen's tool's protocol: the batch's arcs go in one direction each (the graph is taken
    /// as its arcs), the same batch every trial, all of them timed, ids in the lower half.
    #[test]
    fn the_aspen_tool_protocol_inserts_arcs_one_way_and_repeats_its_batch() {
        let n = 1 << 10;
        let mut el = weald_graph::EdgeList::new(n);
        for v in 1..n as Vertex {
            el.push(v - 1, v, ());
        }
        let base = CTreeGraph::from_edge_list(&el, Default::default(), Combine::Min).unwrap();
        let before = arcs(&base);
        // What the protocol inserts: record each trial's batch, and check that inserting it
        // into the graph taken as arcs adds exactly those arcs, none reversed.
        let mut seen: Vec<Vec<(Vertex, Vertex)>> = Vec::new();
        let mut g = base.clone().into_out_arcs();
        let rows = run(
            n,
            &[50],
            5,
            Sampling::AspenTool(3),
            |batch: &[(Vertex, Vertex, ())], pairs| {
                seen.push(pairs.to_vec());
                let prev = arcs(&g);
                let (h, r) = g.insert_edges(batch, Combine::Min);
                let new: BTreeSet<_> = pairs
                    .iter()
                    .copied()
                    .filter(|p| !prev.contains(p))
                    .collect();
                let now = arcs(&h);
                assert!(now.is_superset(&prev));
                assert_eq!(&now - &prev, new);
                assert_eq!(r.inserted, new.len() as u64);
                g = h.delete_edges(pairs).0;
                // Deleting removes the batch's arcs, one direction each: the path's reverse
                // arcs stay.
                let left = arcs(&g);
                assert!(pairs.iter().all(|p| !left.contains(p)));
                assert!(pairs.iter().all(|&(u, v)| u == v
                    || pairs.contains(&(v, u))
                    || !before.contains(&(v, u))
                    || left.contains(&(v, u))));
                (1e-6, 1e-6)
            },
            || 0,
        )
        .unwrap();
        assert_eq!(seen.len(), 5, "no warm-up batch");
        assert!(seen.iter().all(|b| b == &seen[0]), "one batch, repeated");
        assert!(seen[0]
            .iter()
            .all(|&(u, v)| u < n as Vertex / 2 && v < n as Vertex / 2));
        assert!(seen[0].iter().any(|&(u, v)| u > v) && seen[0].iter().any(|&(u, v)| u < v));
        assert_eq!(rows[0].insert_seconds.len(), 5);
        assert!((rows[0].insert_eps_mean - 50.0 / 1e-6).abs() < 1.0);
        // And the experiment itself, through versions.
        let timed = batch_updates(base, &[10, 50], 3, Sampling::AspenTool(3)).unwrap();
        assert_eq!(timed.len(), 2);
        assert!(timed.iter().all(|t| t.insert_seconds.len() == 3));
    }

    /// The batches' ids: Aspen's sampler sets a bit of either end with probability 0.7
    /// (quadrants 0.25 / 0.05 / 0.05 / 0.65), over the lower half of the ids.
    #[test]
    fn the_aspen_tool_protocol_draws_as_its_sampler_does() {
        let n = 1 << 13;
        let mut drawn = Vec::new();
        run::<()>(
            n,
            &[4000],
            1,
            Sampling::AspenTool(5),
            |_, pairs| {
                drawn = pairs.to_vec();
                (1.0, 1.0)
            },
            || 0,
        )
        .unwrap();
        assert_eq!(drawn.len(), 4000);
        let bits = 12.0 * drawn.len() as f64;
        let share = |f: &dyn Fn(&(Vertex, Vertex)) -> Vertex| {
            drawn.iter().map(|p| f(p).count_ones() as f64).sum::<f64>() / bits
        };
        for s in [share(&|p| p.0), share(&|p| p.1)] {
            assert!((s - 0.7).abs() < 0.015, "share of set bits {s}");
        }
        assert!(drawn
            .iter()
            .all(|&(u, v)| u < n as Vertex / 2 && v < n as Vertex / 2));
        // Both ends in the same quadrant half the time or more (0.25 + 0.65 = 0.9 per level
        // that the two bits agree).
        let agree = drawn
            .iter()
            .map(|&(u, v)| (!(u ^ v) & 0xfff).count_ones() as f64)
            .sum::<f64>()
            / bits;
        assert!((agree - 0.9).abs() < 0.015, "bits that agree {agree}");
    }

    /// Both runners of the protocol update the graph as its arcs: a batch over a complete
    /// graph deletes the arcs it names and leaves their reverses.
    #[test]
    fn the_aspen_tool_protocol_deletes_one_direction_in_both_runners() {
        let n = 128usize;
        let mut el = weald_graph::EdgeList::new(n);
        for u in 0..64 as Vertex {
            for v in u + 1..64 {
                el.push(u, v, ());
            }
        }
        let base = CTreeGraph::from_edge_list(&el, Default::default(), Combine::Min).unwrap();
        let one_way = |g: &CTreeGraph<()>| {
            let a = arcs(g);
            assert!(g.options().directed, "taken as arcs");
            a.iter().filter(|&&(u, v)| !a.contains(&(v, u))).count()
        };
        let mut g = base.clone();
        batch_updates_in_place(&mut g, &[30], 2, Sampling::AspenTool(1)).unwrap();
        assert!(
            one_way(&g) > 0,
            "in place: some arcs deleted without their reverse"
        );
        let vg = VersionedGraph::new(for_sampling(base.clone(), Sampling::AspenTool(1)));
        versioned_run(&vg, n, &[30], 2, Sampling::AspenTool(1)).unwrap();
        let latest = vg.acquire();
        assert_eq!(one_way(latest.graph()), one_way(&g));
        assert_eq!(arcs(latest.graph()), arcs(&g));
        // The symmetric protocol deletes both directions.
        let before = arcs(&base).len();
        let mut h = base;
        batch_updates_in_place(&mut h, &[30], 2, Sampling::Independent(1)).unwrap();
        assert!(!h.options().directed);
        let a = arcs(&h);
        assert!(
            a.len() < before,
            "the batches deleted some of the graph's edges"
        );
        assert!(a.iter().all(|&(u, v)| a.contains(&(v, u))));
    }
}
