//! Single-source betweenness dependencies by Brandes's algorithm (U. Brandes, "A faster
//! algorithm for betweenness centrality", J. Math. Sociol. 2001), in the parallel form of Ligra
//! and GBBS: a forward BFS counts shortest paths σ level by level (sparse steps push with
//! [`edge_map`](fn@crate::traverse::edge_map), dense steps pull sums of the frontier's σ:
//! `pull_sigma`), then a backward sweep over the stored levels accumulates
//! `δ(v) = Σ_{w : v→w, depth(w) = depth(v) + 1} σ(v) / σ(w) · (1 + δ(w))`.
//!
//! Both passes choose a direction per step by the arcs each would scan (as Ligra's BC does,
//! whose backward pass is an edgeMap over the transposed graph). Forward, a pull scans the
//! in-arcs of every vertex not yet reached, with no early exit (σ needs all of them), and a
//! push the out-arcs of the frontier; a push's arc counts 4 times (`FORWARD_PUSH_COST`).
//! Backward, a pull scans the out-arcs of the level and a push the in-arcs of the next level,
//! counted 8 times (`BACKWARD_PUSH_COST`). On a power-law graph a BFS's largest level holds
//! most arcs but few successors: on RMAT scale 20 from the benchmark's source, level 3 holds
//! 542 K vertices and 15.1 M out-arcs, and level 4's 76 K vertices have 104 K in-arcs. Pushing
//! that step took BC on the CSR from 175–196 to 131–140 ms and on a C-tree snapshot from
//! 250–288 to 208–224 ms (1 thread; `docs/algorithms.md`).
//!
//! Hop counts only (edge weights are ignored). On a directed graph paths follow out-arcs; on a
//! symmetric graph δ is not halved (networkx's undirected betweenness halves the sum over all
//! sources, not a single source's dependencies). `dependency[source] = 0`, and unreached
//! vertices have 0. Parallel arcs (a multigraph) count as distinct paths.
//!
//! Determinism: the backward sweep sums each vertex's successors in adjacency order, and σ are
//! integers added exactly (up to 2⁵³), so the result does not depend on the thread count.

use crate::traverse::{
    edge_map, prefetch_out_along, pull_in, vertex_map, Direction, EdgeMapFn, EdgeMapOptions,
    VertexSubset, ARCS_AHEAD,
};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use weald_graph::{InGraph, Result, Vertex, PREFETCH_AHEAD};

const UNSEEN: u32 = u32::MAX;

/// Parameters of [`run`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Params {
    /// Push ([`Direction::Sparse`]) or pull ([`Direction::Dense`]) in every step of both
    /// passes, or choose per step by the arcs each would scan ([`Direction::Auto`]; see the
    /// module docs). Without in-arcs the forward pass only pushes and the backward only pulls.
    pub direction: Direction,
}

/// A forward push costs about this many times a pull per arc: it writes σ at random, by
/// compare-and-swap, where a pull's reads of the frontier's σ are plain (RMAT scale 20, 1
/// thread: pushing the 10.5 M out-arcs of a level took ~1.6× the time of pulling the 20.8 M
/// in-arcs of the unreached vertices, ~3× per arc).
const FORWARD_PUSH_COST: usize = 4;

/// A backward push costs about this many times a pull per arc: per arc a read of the level of
/// the in-neighbour, at random, and a pair written and summed later (RMAT scale 20, 1 thread:
/// 20–35 ns per in-arc and vertex pushed, 2.4–5 ns per arc pulled).
const BACKWARD_PUSH_COST: usize = 8;

/// Dependencies of every vertex on the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// `dependency[v] = δ_s(v) = Σ_{t ≠ s, v} σ_st(v) / σ_st`.
    pub dependency: Vec<f64>,
}

struct Count<'a> {
    sigma: &'a [AtomicU64],
    level: &'a [AtomicU32],
}

impl<W> EdgeMapFn<W> for Count<'_> {
    #[inline]
    fn cond(&self, d: Vertex) -> bool {
        self.level[d as usize].load(Relaxed) == UNSEEN
    }

    #[inline]
    fn update(&self, s: Vertex, d: Vertex, _: W) -> bool {
        let add = f64::from_bits(self.sigma[s as usize].load(Relaxed));
        let old = f64::from_bits(self.sigma[d as usize].load(Relaxed));
        self.sigma[d as usize].store((old + add).to_bits(), Relaxed);
        old == 0.0
    }

    #[inline]
    fn update_atomic(&self, s: Vertex, d: Vertex, _: W) -> bool {
        let add = f64::from_bits(self.sigma[s as usize].load(Relaxed));
        let cell = &self.sigma[d as usize];
        let mut cur = cell.load(Relaxed);
        loop {
            let new = (f64::from_bits(cur) + add).to_bits();
            match cell.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                Ok(_) => return f64::from_bits(cur) == 0.0,
                Err(c) => cur = c,
            }
        }
    }

    #[inline(always)]
    fn prefetch(&self, d: Vertex) {
        weald_graph::prefetch_at(self.level, d as usize);
        weald_graph::prefetch_at(self.sigma, d as usize);
    }
}

/// The dense forward step: every unreached vertex sums `fsig` (σ of the frontier's vertices,
/// +0.0 for every other vertex) over its in-arcs, without a branch on whether the neighbour
/// is in the frontier (an unpredictable one that also discards the loads started past it);
/// a vertex with a non-zero sum is reached, with that σ. Adding +0.0 keeps the bits of the
/// sum over the frontier's in-neighbours, in adjacency order, as edge_map's pull computed it.
/// The loop over the unreached vertices is edge_map's ([`pull_in`]).
fn pull_sigma<G: InGraph>(
    g: &G,
    fsig: &[AtomicU64],
    sigma: &[AtomicU64],
    level: &[AtomicU32],
) -> VertexSubset {
    pull_in(
        g,
        |d| level[d as usize].load(Relaxed) == UNSEEN,
        |d| {
            let mut acc = 0.0;
            g.for_each_in(d, |s, _| {
                acc += f64::from_bits(fsig[s as usize].load(Relaxed));
                true
            });
            if acc != 0.0 {
                sigma[d as usize].store(acc.to_bits(), Relaxed);
            }
            acc != 0.0
        },
    )
}

/// Does a backward step pull (scan the level's `out_arcs`) rather than push (scan the next
/// level's `next_vertices` and their `next_in_arcs`)? By the arcs each scans, a push's
/// [`BACKWARD_PUSH_COST`] times a pull's (its vertices counted as arcs too).
fn sweep_pulls(out_arcs: usize, next_vertices: usize, next_in_arcs: usize) -> bool {
    out_arcs < (next_vertices + next_in_arcs) * BACKWARD_PUSH_COST
}

/// A backward step by pull: every vertex `v` of a level sums `contrib` over all its out-arcs
/// and gets `δ(v) = σ(v) · sum`; returns each vertex's share for the level before,
/// `(1 + δ(v)) / σ(v)`. `contrib` holds the shares of the next level and +0.0 for every other
/// vertex (an out-neighbour of a vertex at level `l` is at level `l + 1` or below, or
/// unreached), so there is one random read per arc and no branch on the neighbour's level (a
/// mispredicted branch also discards the loads started past it). Adding +0.0 leaves a sum of
/// positive terms unchanged, so the bits are those of summing the successors alone.
fn sweep_pull<G: InGraph>(
    g: &G,
    vs: &[Vertex],
    sigma: &[f64],
    contrib: &[AtomicU64],
    delta: &[AtomicU64],
) -> Vec<f64> {
    (0..vs.len())
        .into_par_iter()
        .with_min_len(64)
        .map(|i| {
            // A level found by a push is in no order the hardware follows (one found by
            // a pull is in id order; on BC's own levels the second stage measured even).
            prefetch_out_along(g, vs, i);
            let v = vs[i];
            let mut acc = 0.0;
            match g.out_neighbors_slice(v) {
                // Prefetch the contribution of the neighbour ARCS_AHEAD arcs ahead (see
                // `for_each_out_ahead`; this loop needs no weights, so it reads the slice).
                Some(s) => {
                    for (j, &w) in s.iter().enumerate() {
                        if let Some(&a) = s.get(j + ARCS_AHEAD) {
                            weald_graph::prefetch_at(contrib, a as usize);
                        }
                        acc += f64::from_bits(contrib[w as usize].load(Relaxed));
                    }
                }
                // Compressed adjacency: the backend's own look-ahead (a second cursor), the
                // sum by value (`fold_out_ahead`: kept in a register through the scan).
                None => {
                    acc = g.fold_out_ahead(
                        v,
                        ARCS_AHEAD,
                        |a| weald_graph::prefetch_at(contrib, a as usize),
                        0.0,
                        |acc, w, _| acc + f64::from_bits(contrib[w as usize].load(Relaxed)),
                    );
                }
            }
            let sv = sigma[v as usize];
            let dv = sv * acc;
            delta[v as usize].store(dv.to_bits(), Relaxed);
            (1.0 + dv) / sv
        })
        .collect()
}

/// A backward step by push, for a level whose successors have few in-arcs: every vertex `w`
/// of the next level `ws` (in increasing order) hands its share to its in-neighbours `v` on
/// level `l`, and each `v` sums the shares it gets into `acc[v]` (+0.0 before) in increasing
/// order of `w`, its adjacency order: the same bits as by [`sweep_pull`], with any number of
/// threads. In parallel, runs of `ws` each emit their `(v, share)` pairs into buckets by
/// range of `v`; then each bucket is summed by one task, taking the runs in order.
fn sweep_push<G: InGraph>(
    g: &G,
    ws: &[Vertex],
    l: u32,
    level: &[AtomicU32],
    contrib: &[AtomicU64],
    acc: &[AtomicU64],
) {
    let n = level.len();
    let buckets = (4 * rayon::current_num_threads()).min(n.max(1));
    let bucket = |v: Vertex| v as usize * buckets / n;
    let ahead = PREFETCH_AHEAD as usize;
    let runs: Vec<Vec<Vec<(Vertex, f64)>>> = ws
        .par_chunks(4096)
        .map(|part| {
            let mut out = vec![Vec::new(); buckets];
            for (i, &w) in part.iter().enumerate() {
                if let Some(&a) = part.get(i + ahead) {
                    g.prefetch_in(a);
                }
                let c = f64::from_bits(contrib[w as usize].load(Relaxed));
                g.for_each_in(w, |v, _| {
                    if level[v as usize].load(Relaxed) == l {
                        out[bucket(v)].push((v, c));
                    }
                    true
                });
            }
            out
        })
        .collect();
    (0..buckets).into_par_iter().with_min_len(1).for_each(|b| {
        for run in &runs {
            for &(v, c) in &run[b] {
                let a = &acc[v as usize];
                a.store((f64::from_bits(a.load(Relaxed)) + c).to_bits(), Relaxed);
            }
        }
    });
}

/// Dependencies of all vertices on `source`; see the module docs. Errors: `source` out of range.
pub fn run<G: InGraph>(g: &G, source: Vertex, params: &Params) -> Result<Output> {
    crate::require_vertex(g, source)?;
    let n = g.num_vertices();
    let sigma: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
    let level: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(UNSEEN))
        .collect();
    sigma[source as usize].store(1f64.to_bits(), Relaxed);
    level[source as usize].store(0, Relaxed);
    // Forward: levels[l] holds the vertices at distance l. A sparse step pushes with
    // edge_map; a dense step pulls sums of `fsig` (`pull_sigma`).
    let mut levels: Vec<Vec<Vertex>> = vec![vec![source]];
    let mut frontier = VertexSubset::from_vertex(n, source);
    let fsig: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
    let push = EdgeMapOptions {
        direction: Direction::Sparse,
        ..EdgeMapOptions::default()
    };
    let has_in = g.has_in_edges();
    // The work of a pull: the vertices not reached yet and their in-arcs.
    let (mut unreached, mut unreached_in) = if has_in {
        (n - 1, g.num_arcs().saturating_sub(g.in_degree(source)))
    } else {
        (0, 0)
    };
    // Each level's out-arcs (when the forward pass chooses directions) and in-arcs (when the
    // graph has them), which the backward pass's choices read again.
    let (mut out_arcs, mut in_arcs) = (Vec::new(), vec![0]);
    let mut l = 0u32;
    loop {
        l += 1;
        let pull = match params.direction {
            _ if !has_in => false,
            Direction::Sparse => false,
            Direction::Dense => true,
            Direction::Auto => {
                let out = frontier.par_sum(|v| g.out_degree(v));
                out_arcs.push(out);
                unreached + unreached_in < (frontier.len() + out) * FORWARD_PUSH_COST
            }
        };
        frontier = if pull {
            let cur = levels.last().expect("the source's level");
            cur.par_iter().with_min_len(1024).for_each(|&s| {
                fsig[s as usize].store(sigma[s as usize].load(Relaxed), Relaxed);
            });
            let next = pull_sigma(g, &fsig, &sigma, &level);
            cur.par_iter()
                .with_min_len(1024)
                .for_each(|&s| fsig[s as usize].store(0, Relaxed));
            next
        } else {
            let count = Count {
                sigma: &sigma,
                level: &level,
            };
            edge_map(g, &frontier, &count, &push)
        };
        if frontier.is_empty() {
            break;
        }
        vertex_map(&frontier, |v| level[v as usize].store(l, Relaxed));
        if has_in {
            // Saturating: only the choice of direction rests on these counts.
            let inn = frontier.par_sum(|v| g.in_degree(v));
            in_arcs.push(inn);
            unreached = unreached.saturating_sub(frontier.len());
            unreached_in = unreached_in.saturating_sub(inn);
        }
        levels.push(frontier.to_vec());
    }
    // Backward, level by level from the deepest: a successor `w` contributes its share
    // `(1 + δ(w)) / σ(w)` to each of its predecessors, held in `contrib` for the level after
    // the current one (+0.0 for every other vertex). A step pulls (`sweep_pull`: every vertex
    // of the level scans its out-arcs) or pushes (`sweep_push`: every vertex of the next
    // level scans its in-arcs), whichever scans fewer arcs.
    let sigma: Vec<f64> = sigma
        .into_iter()
        .map(|x| f64::from_bits(x.into_inner()))
        .collect();
    let delta: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
    let contrib: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();
    if let Some(last) = levels.last() {
        // The last level has no successors: δ = 0.
        last.par_iter().with_min_len(1024).for_each(|&w| {
            contrib[w as usize].store((1.0 / sigma[w as usize]).to_bits(), Relaxed);
        });
    }
    // δ(source) = 0 by definition: level 0 is not swept.
    for l in (1..levels.len().saturating_sub(1)).rev() {
        let pull = match params.direction {
            _ if !has_in => true,
            Direction::Sparse => false,
            Direction::Dense => true,
            // The forward pass chose directions too, so it counted every level's arcs.
            Direction::Auto => sweep_pulls(out_arcs[l], levels[l + 1].len(), in_arcs[l + 1]),
        };
        let shares: Vec<f64> = if pull {
            sweep_pull(g, &levels[l], &sigma, &contrib, &delta)
        } else {
            if !levels[l + 1].is_sorted() {
                levels[l + 1].par_sort_unstable();
            }
            // `delta` holds +0.0 for the vertices of level `l` (none was swept yet): the sums.
            sweep_push(g, &levels[l + 1], l as u32, &level, &contrib, &delta);
            levels[l]
                .par_iter()
                .with_min_len(1024)
                .map(|&v| {
                    let (d, sv) = (&delta[v as usize], sigma[v as usize]);
                    let dv = sv * f64::from_bits(d.load(Relaxed));
                    d.store(dv.to_bits(), Relaxed);
                    (1.0 + dv) / sv
                })
                .collect()
        };
        // Level `l + 1` is done; level `l` contributes to level `l − 1`.
        levels[l + 1]
            .par_iter()
            .with_min_len(1024)
            .for_each(|&w| contrib[w as usize].store(0, Relaxed));
        levels[l]
            .par_iter()
            .zip(&shares)
            .with_min_len(1024)
            .for_each(|(&v, &x)| contrib[v as usize].store(x.to_bits(), Relaxed));
    }
    let mut dependency: Vec<f64> = delta
        .into_iter()
        .map(|x| f64::from_bits(x.into_inner()))
        .collect();
    dependency[source as usize] = 0.0;
    Ok(Output { dependency })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bc::verify;
    use crate::traverse::testutil::*;
    use proptest::prelude::*;
    use weald_graph::Graph;

    //       1
    //      / \
    //     0   3 --- 4
    //      \ /
    //       2
    // From 0: σ = [1, 1, 1, 2, 2]. δ(3) = σ3/σ4 · (1 + 0) = 1; δ(1) = δ(2) = 1/2 · (1 + 1) = 1.
    #[test]
    fn hand_drawn_diamond() {
        let g = csr(5, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], false);
        for direction in [Direction::Sparse, Direction::Dense] {
            let out = run(&g, 0, &Params { direction }).unwrap();
            assert_eq!(out.dependency, vec![0.0, 1.0, 1.0, 1.0, 0.0]);
            verify(&g, 0, &out).unwrap();
        }
        // From 4: the path 4-3 then splits: δ(3) = 1 (for 1) + 1 (for 2) + 1 (for 0) = 3,
        // δ(1) = δ(2) = 1/2 (half the paths to 0).
        let out = run(&g, 4, &Params::default()).unwrap();
        assert_eq!(out.dependency, vec![0.0, 0.5, 0.5, 3.0, 0.0]);
    }

    //   0 → 1 → 2      (directed path; 2 → 0 closes a cycle)
    #[test]
    fn hand_drawn_directed_cycle() {
        let g = csr(3, &[(0, 1), (1, 2), (2, 0)], true);
        let out = run(&g, 0, &Params::default()).unwrap();
        assert_eq!(out.dependency, vec![0.0, 1.0, 0.0]);
        let g2 = csr_no_in(3, &[(0, 1), (1, 2), (2, 0)]);
        assert_eq!(run(&g2, 0, &Params::default()).unwrap(), out);
        assert!(run(&g, 3, &Params::default()).is_err());
    }

    // Level 1 is a clique of 10 around the source, one of them with a leaf (level 2): the
    // sweep into level 1 pulls 10 · 10 + 1 arcs or pushes the leaf's one, so Auto pushes it,
    // and the forward pass pulls level 2 (the leaf, 1 in-arc, against 10 · 10 + 1 out-arcs).
    #[test]
    fn a_level_with_few_successors_is_swept_by_push() {
        let mut arcs: Vec<(Vertex, Vertex)> = (1..=10).map(|v| (0, v)).collect();
        for u in 1..=10 {
            arcs.extend((u + 1..=10).map(|v| (u, v)));
        }
        arcs.push((1, 11));
        let g = csr(12, &arcs, false);
        let out = |vs: &[Vertex]| vs.iter().map(|&v| g.out_degree(v)).sum::<usize>();
        let level1: Vec<Vertex> = (1..=10).collect();
        assert_eq!(out(&level1), 10 * 10 + 1);
        assert!(!sweep_pulls(out(&level1), 1, g.in_degree(11)));
        assert!(sweep_pulls(out(&[0]), level1.len(), out(&level1)));
        let auto = run(&g, 0, &Params::default()).unwrap();
        verify(&g, 0, &auto).unwrap();
        // δ(1) = 1 (the leaf); every other vertex lies on no shortest path.
        let mut expect = vec![0.0; 12];
        expect[1] = 1.0;
        assert_eq!(auto.dependency, expect);
        for direction in [Direction::Sparse, Direction::Dense] {
            let forced = run(&g, 0, &Params { direction }).unwrap();
            assert_eq!(forced, auto);
        }
    }

    #[test]
    fn verifier_rejects_wrong_dependencies() {
        let g = csr(5, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], false);
        let good = run(&g, 0, &Params::default()).unwrap();
        let mut bad = good.clone();
        bad.dependency[3] += 1e-6;
        assert!(verify(&g, 0, &bad).is_err());
        let mut bad = good.clone();
        bad.dependency.pop();
        assert!(verify(&g, 0, &bad).is_err());
        let mut bad = good;
        bad.dependency[4] = f64::NAN;
        assert!(verify(&g, 0, &bad).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn random_graphs_verify_and_are_deterministic(
            (n, arcs) in arb_graph(200), directed in any::<bool>(), src in any::<u32>()
        ) {
            let g = csr(n, &arcs, directed);
            let s = src % n as u32;
            let out = with_threads(1, || run(&g, s, &Params::default()).unwrap());
            prop_assert_eq!(verify(&g, s, &out), Ok(()));
            let out2 = with_threads(2, || run(&g, s, &Params::default()).unwrap());
            prop_assert_eq!(&out, &out2);
            for direction in [Direction::Sparse, Direction::Dense] {
                let o = run(&g, s, &Params { direction }).unwrap();
                prop_assert_eq!(&o, &out);
            }
        }
    }
}
