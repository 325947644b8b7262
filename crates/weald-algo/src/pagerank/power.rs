//! PageRank by power iteration (Page, Brin, Motwani & Winograd, "The PageRank citation ranking",
//! Stanford TR 1999), pull-based as in GAPBS `pr.cc`: each vertex sums `rank[u] / outdeg(u)`
//! over its in-neighbours `u`.
//!
//! Semantics are networkx's `pagerank(G, alpha=damping, weight=None)` without personalization:
//! `PR(v) = (1 - d)/n + d · (Σ_{u→v} PR(u)/outdeg(u) + dangling/n)`, where `dangling` is the
//! rank held by vertices without out-arcs, spread uniformly. Arcs follow their direction (a
//! symmetric graph stores each edge both ways); a self loop counts in the out-degree; parallel
//! arcs count once each; edge weights are ignored. Ranks start uniform at `1/n` and sum to 1.
//!
//! **Stopping rule.** Iteration stops when the L1 change `Σ |x_k − x_{k−1}|` drops below `tol`,
//! or after `max_iter` iterations (then `l1_change` shows it did not converge). networkx stops
//! when the L1 change is below `n · tol`, n times looser: with our default `tol = 1e-6` the
//! fixpoint error is at most `d/(1−d) · tol ≈ 5.7e-6` in L1 in total, far below a per-vertex
//! comparison at 1e-6 (compare with networkx run at `tol=1e-6 / n` or smaller for a tight
//! oracle). Near-periodic graphs converge at rate `d`, needing about 90 iterations for 1e-6.
//!
//! **Precision.** An iteration's time is its random reads of the in-neighbours' contributions
//! `rank[u] / outdeg(u)`; they are stored as `f32` (half the bytes: the array of a million
//! vertices stays in cache far better, ~1.5–2.5× faster on RMAT scale 20) while rounding cannot
//! matter, and as `f64` otherwise. Sums and ranks are always `f64`. Rounding a contribution has
//! relative error ≤ 2⁻²⁴, so the rounded contributions carry a total mass off by `e`,
//! `|e| ≤ 2⁻²⁴`; `e / n` is taken back from every vertex's base term, so the ranks keep summing
//! to 1 exactly, and an iteration moves by at most `2 d · 2⁻²⁴` in L1. A run that stops on an
//! `f32` iteration (L1 change `< tol`) then leaves a fixpoint residual below
//! `d · tol + 2 d · 2⁻²⁴`, below `tol` whenever `(1 − d) · tol ≥ 4 d · 2⁻²⁴` ([`f32_converges`];
//! a 2× margin; d = 0.85: `tol ≥ 1.35e-6`). Otherwise contributions are `f32` only while the
//! last L1 change is at least [`F32_UNTIL`] `= 1e-5`, the run never stops on such an iteration,
//! and it finishes in `f64`, exactly as without rounding.
//!
//! **Passes.** An iteration reads the vertices twice: one pass computes the contributions and,
//! on the way, the dangling mass and the rounding excess; the pull writes the new ranks and
//! adds up the L1 change. (Five passes before, three of them sums over `n`: fusing them took
//! RMAT scale 20, 1 thread, tol 1e-4, from 0.47 to 0.39 s.)
//!
//! **Determinism.** Each vertex sums its in-neighbours in adjacency order; reductions (dangling
//! mass, L1 change) add fixed-size blocks in a fixed order. Without in-arcs (a directed graph
//! stored without them) the push variant streams the arcs ([`weald_graph::EdgeScan`]) and adds
//! contributions in 2⁻⁶⁰ fixed point with atomic integer adds, which are exact and so
//! order-independent. The result never depends on the thread count.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use weald_graph::{EdgeScan, InGraph, Result, WealdError, PREFETCH_AHEAD};

/// Parameters of [`run`].
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Damping factor `d` (networkx's `alpha`), in `[0, 1]`.
    pub damping: f64,
    /// Stop when the L1 change of one iteration is below this (not scaled by `n`).
    pub tol: f64,
    /// Upper bound on the number of iterations.
    pub max_iter: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            damping: 0.85,
            tol: 1e-6,
            max_iter: 100,
        }
    }
}

/// The ranks and how the iteration ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// `rank[v]`, summing to 1.
    pub rank: Vec<f64>,
    /// Iterations performed.
    pub iterations: usize,
    /// L1 change of the last iteration (`+∞` if none ran).
    pub l1_change: f64,
}

impl Output {
    /// Whether the iteration stopped by the tolerance `tol` (the L1 change of its last
    /// iteration below it, or none at all), not by running out of iterations.
    pub fn converged(&self, tol: f64) -> bool {
        self.l1_change < tol || self.l1_change == 0.0
    }

    /// Why the ranks are not the answer asked for (`None` if [`converged`](Self::converged)):
    /// what each front end reports, with its own hint of the option to raise.
    pub fn not_converged(&self, tol: f64) -> Option<String> {
        (!self.converged(tol)).then(|| {
            format!(
                "PageRank did not converge: the L1 change of the last of {} iterations is {:e}, \
                 not below the tolerance {tol:e}",
                self.iterations, self.l1_change
            )
        })
    }
}

/// Relative rounding error of a contribution stored as `f32` (2⁻²⁴).
const F32_ROUNDING: f64 = f32::EPSILON as f64 / 2.0;

/// `true` if a run may stop on an iteration with `f32` contributions: the residual bound
/// `d · tol + 2 d · 2⁻²⁴` is then below `tol` with a 2× margin (see the module docs).
pub fn f32_converges(damping: f64, tol: f64) -> bool {
    (1.0 - damping) * tol >= 4.0 * damping * F32_ROUNDING
}

/// When [`f32_converges`] is false, contributions are `f32` while the last L1 change is at
/// least this (then `f64` to the end).
pub const F32_UNTIL: f64 = 1e-5;

/// Block size of the deterministic reductions (independent of the thread count), and of the
/// pull's tasks. Blocks of 1024 for the pull (to balance skewed in-degrees) measured 7 %
/// slower on uniform scale 20 and no faster on RMAT.
const BLOCK: usize = 4096;
/// Fixed-point scale of the push variant.
const FIXED: f64 = (1u64 << 60) as f64;

/// PageRank of every vertex; see the module docs. Errors: a damping factor outside `[0, 1]`
/// or a negative or non-finite tolerance.
pub fn run<G: InGraph>(g: &G, params: &Params) -> Result<Output> {
    let d = params.damping;
    if !(0.0..=1.0).contains(&d) {
        return Err(WealdError::Invalid(format!(
            "damping factor {d} is not in [0, 1]"
        )));
    }
    if !(params.tol >= 0.0 && params.tol.is_finite()) {
        return Err(WealdError::Invalid(format!(
            "tolerance {} must be finite and >= 0",
            params.tol
        )));
    }
    let n = g.num_vertices();
    if n == 0 {
        return Ok(Output {
            rank: Vec::new(),
            iterations: 0,
            l1_change: 0.0,
        });
    }
    let pull = g.has_in_edges();
    let inv_deg: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|v| match g.out_degree(v as u32) {
            0 => 0.0,
            k => 1.0 / k as f64,
        })
        .collect();
    let nf = n as f64;
    let mut rank = vec![1.0 / nf; n];
    let mut next = vec![0.0; n];
    let mut contrib32: Vec<f32> = Vec::new();
    let mut contrib64: Vec<f64> = Vec::new();
    let mut contrib_fixed: Vec<u64> = Vec::new();
    let fixed: Vec<AtomicU64> = if pull {
        Vec::new()
    } else {
        (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect()
    };
    let mut iterations = 0;
    let mut l1_change = f64::INFINITY;
    let f32_ok = f32_converges(d, params.tol);
    // Every vertex's share of the teleport and of `mass` (the dangling vertices' rank, less
    // any rounding excess), spread uniformly.
    let base = |mass: f64| (1.0 - d) / nf + d * mass / nf;
    while iterations < params.max_iter {
        iterations += 1;
        let rounded = pull && (f32_ok || l1_change >= F32_UNTIL);
        l1_change = if rounded {
            let (dangling, excess) = contributions(
                &mut contrib32,
                &rank,
                &inv_deg,
                |c| c as f32,
                Some(f64::from),
            );
            // The mass the rounded contributions carry beyond the ranks they stand for is
            // taken back evenly, so the ranks keep summing to 1.
            pull_step(g, &contrib32, &rank, &mut next, base(dangling - excess), d)
        } else if pull {
            let no_excess = None::<fn(f64) -> f64>;
            let (dangling, _) = contributions(&mut contrib64, &rank, &inv_deg, |c| c, no_excess);
            pull_step(g, &contrib64, &rank, &mut next, base(dangling), d)
        } else {
            // The contributions in fixed point, for exact (order-independent) atomic sums.
            let no_excess = None::<fn(u64) -> f64>;
            let (dangling, _) = contributions(
                &mut contrib_fixed,
                &rank,
                &inv_deg,
                |c| (c * FIXED).round() as u64,
                no_excess,
            );
            let base = base(dangling);
            g.par_scan_arcs(|u, v, _| {
                fixed[v as usize].fetch_add(contrib_fixed[u as usize], Relaxed);
            });
            det_blocks(&mut next, |b, xs| {
                let mut l1 = 0.0;
                for (i, x) in xs.iter_mut().enumerate() {
                    let v = b * BLOCK + i;
                    *x = base + d * (fixed[v].swap(0, Relaxed) as f64 / FIXED);
                    l1 += (*x - rank[v]).abs();
                }
                l1
            })
        };
        std::mem::swap(&mut rank, &mut next);
        if l1_change < params.tol && (f32_ok || !rounded) {
            break;
        }
    }
    Ok(Output {
        rank,
        iterations,
        l1_change,
    })
}

/// `Σ f(b, block)` over the blocks of [`BLOCK`] elements of `xs` (`b` the block's index),
/// each block's value computed in parallel, the values added in block order: a sum that does
/// not depend on the thread count.
fn det_blocks<T: Send>(xs: &mut [T], f: impl Fn(usize, &mut [T]) -> f64 + Sync) -> f64 {
    let parts: Vec<f64> = xs
        .par_chunks_mut(BLOCK)
        .enumerate()
        .map(|(b, xs)| f(b, xs))
        .collect();
    parts.iter().sum()
}

/// `contrib[u] = rank[u] / outdeg(u)` (0 for dangling vertices), stored by `store`; returns
/// the dangling mass `Σ rank[u]` over vertices without out-arcs and, with `load`, the excess
/// of the stored contributions, `Σ (load(contrib[u]) · outdeg(u) − rank[u])` over the others
/// (0 without), both summed as [`det_blocks`] does, in the same pass.
fn contributions<C: Copy + Default + Send>(
    contrib: &mut Vec<C>,
    rank: &[f64],
    inv_deg: &[f64],
    store: impl Fn(f64) -> C + Sync,
    load: Option<impl Fn(C) -> f64 + Sync>,
) -> (f64, f64) {
    contrib.resize(rank.len(), C::default());
    let parts: Vec<(f64, f64)> = contrib
        .par_chunks_mut(BLOCK)
        .zip(rank.par_chunks(BLOCK).zip(inv_deg.par_chunks(BLOCK)))
        .map(|(cs, (rs, is))| {
            let (mut dangling, mut excess) = (0.0, 0.0);
            for ((c, &r), &i) in cs.iter_mut().zip(rs).zip(is) {
                *c = store(r * i);
                if i == 0.0 {
                    dangling += r;
                } else if let Some(load) = &load {
                    excess += load(*c) / i - r;
                }
            }
            (dangling, excess)
        })
        .collect();
    parts
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x, b + y))
}

/// One pull iteration: `next[v] = base + d · Σ_{u→v} contrib[u]`, summed in `f64` in
/// adjacency order; returns the L1 change `Σ |next[v] − rank[v]|` (summed as [`det_blocks`]).
fn pull_step<G: InGraph, C: Copy + Into<f64> + Sync>(
    g: &G,
    contrib: &[C],
    rank: &[f64],
    next: &mut [f64],
    base: f64,
    d: f64,
) -> f64 {
    det_blocks(next, |b, xs| {
        let mut l1 = 0.0;
        for (i, x) in xs.iter_mut().enumerate() {
            let v = b * BLOCK + i;
            g.prefetch_in((v as u32).saturating_add(PREFETCH_AHEAD));
            let sum = g.fold_in(v as u32, 0.0, |s, u, _| s + contrib[u as usize].into());
            *x = base + d * sum;
            l1 += (*x - rank[v]).abs();
        }
        l1
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pagerank::verify;
    use crate::traverse::testutil::*;
    use proptest::prelude::*;
    use weald_graph::Vertex;

    //   0 → 1 → 2        3 (isolated, dangling)
    //   ↑_______|        2 → 0 closes the cycle
    // A 3-cycle plus an isolated vertex. By symmetry r0 = r1 = r2 = a and r3 = b with
    // a = 0.15/4 + 0.85 (a + b/4),  b = 0.15/4 + 0.85 b/4,  so b = 0.0375 / 0.7875 = 1/21
    // and a = (1 - b)/3 = 20/63.
    #[test]
    fn hand_checked_cycle_with_dangling() {
        let arcs = [(0, 1), (1, 2), (2, 0)];
        let g = csr(4, &arcs, true);
        let p = Params {
            tol: 1e-12,
            max_iter: 1000,
            ..Default::default()
        };
        let out = run(&g, &p).unwrap();
        let expect = [20.0 / 63.0, 20.0 / 63.0, 20.0 / 63.0, 1.0 / 21.0];
        for (r, e) in out.rank.iter().zip(expect) {
            assert!((r - e).abs() < 1e-10, "{:?}", out.rank);
        }
        verify(&g, &out, &p).unwrap();
        // Same numbers from the push variant (no in-arcs).
        let out2 = run(&csr_no_in(4, &arcs), &p).unwrap();
        for (r, e) in out2.rank.iter().zip(expect) {
            assert!((r - e).abs() < 1e-10);
        }
    }

    //   0 → 1, 0 → 2, 1 → 2, 2 → 0   (networkx: {0: 0.38778, 1: 0.21481, 2: 0.39741})
    // Solving by hand: r1 = 0.05 + 0.425 r0, r2 = 0.05 + 0.425 r0 + 0.85 r1, r0 = 0.05 + 0.85 r2
    // gives r0 = 0.3877897..., r1 = 0.2148106..., r2 = 0.3973997...
    #[test]
    fn hand_checked_small_digraph() {
        let g = csr(3, &[(0, 1), (0, 2), (1, 2), (2, 0)], true);
        let p = Params {
            tol: 1e-12,
            max_iter: 1000,
            ..Default::default()
        };
        let out = run(&g, &p).unwrap();
        // Exact solution of the 3x3 system.
        // r2 = 0.0925 + 0.78625 r0, so r0 = (0.05 + 0.85 · 0.0925) / (1 − 0.85 · 0.78625).
        let r0 = (0.05 + 0.85 * 0.0925) / (1.0 - 0.85 * 0.78625);
        let r1 = 0.05 + 0.425 * r0;
        let r2 = 0.05 + 0.425 * r0 + 0.85 * r1;
        let expect = [r0, r1, r2];
        for v in 0..3 {
            assert!(
                (out.rank[v] - expect[v]).abs() < 1e-10,
                "{:?} vs {expect:?}",
                out.rank
            );
        }
        assert!((r0 - 0.38778).abs() < 1e-5 && (r1 - 0.21481).abs() < 1e-5);
        assert!(out.l1_change < 1e-12);
    }

    #[test]
    fn defaults_bad_params_and_empty() {
        let g = csr(2, &[(0, 1)], false);
        let out = run(&g, &Params::default()).unwrap();
        assert_eq!(out.rank, vec![0.5, 0.5]);
        // Already a fixpoint, but the default tol (1e-6 at d = 0.85) may not stop on the first
        // iteration's f32 contributions: one f64 iteration confirms it.
        assert_eq!(out.iterations, 2);
        assert!(run(
            &g,
            &Params {
                damping: 1.5,
                ..Default::default()
            }
        )
        .is_err());
        assert!(run(
            &g,
            &Params {
                tol: f64::NAN,
                ..Default::default()
            }
        )
        .is_err());
        let stop = run(
            &csr(3, &[(0, 1), (1, 2)], true),
            &Params {
                max_iter: 2,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(stop.iterations, 2);
        assert!(stop.l1_change > 1e-6);
        assert!(!stop.converged(1e-6));
        let done = run(&csr(3, &[(0, 1), (1, 2)], true), &Params::default()).unwrap();
        assert!(done.converged(1e-6) && done.iterations < 100, "{done:?}");
        assert!(
            verify(&csr(3, &[(0, 1), (1, 2)], true), &stop, &Params::default()).is_err(),
            "not converged"
        );
    }

    #[test]
    fn verifier_rejects_perturbed_ranks() {
        let g = csr(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 2)], true);
        let p = Params::default();
        let good = run(&g, &p).unwrap();
        verify(&g, &good, &p).unwrap();
        let mut bad = good.clone();
        bad.rank[0] += 1e-4;
        bad.rank[1] -= 1e-4; // still sums to 1, but not a fixpoint
        assert!(verify(&g, &bad, &p).is_err());
        let mut bad = good.clone();
        bad.rank[2] += 1e-6;
        assert!(verify(&g, &bad, &p).is_err(), "sum off by 1e-6");
        let mut bad = good.clone();
        bad.rank[3] = -bad.rank[3];
        assert!(verify(&g, &bad, &p).is_err());
        let mut bad = good;
        bad.rank[4] = f64::NAN;
        assert!(verify(&g, &bad, &p).is_err());
    }

    #[test]
    fn f32_rule_follows_the_residual_bound() {
        assert!(f32_converges(0.85, 1e-4) && f32_converges(0.85, 1.4e-6));
        assert!(!f32_converges(0.85, 1e-6) && !f32_converges(0.99, 1e-6));
        assert!(f32_converges(0.99, 1e-4) && !f32_converges(1.0, 1.0));
    }

    /// Graphs of several blocks (of the pull and of the other passes), so that the block
    /// indexing and the in-order sums are exercised: pull (symmetric, and directed with
    /// in-arcs) and push (directed without), each verified and equal at 1, 2 and 3 threads.
    #[test]
    fn many_blocks_verify_and_are_deterministic() {
        let n = 3 * BLOCK + 17;
        let mut x = 7u64;
        let arcs: Vec<(Vertex, Vertex)> = (0..8 * n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let u = (x >> 33) as usize % n;
                // Skewed targets: a few hubs with long in-lists, as on RMAT.
                let v = if x & 7 == 0 {
                    (x >> 13) as usize % 8
                } else {
                    (x >> 7) as usize % n
                };
                (u as Vertex, v as Vertex)
            })
            .collect();
        let p = Params {
            tol: 1e-9,
            ..Default::default()
        };
        for g in [
            csr(n, &arcs, false),
            csr(n, &arcs, true),
            csr_no_in(n, &arcs),
        ] {
            let one = with_threads(1, || run(&g, &p).unwrap());
            assert_eq!(verify(&g, &one, &p), Ok(()));
            assert!(one.iterations > 2, "{}", one.iterations);
            assert_eq!(one, with_threads(2, || run(&g, &p).unwrap()));
            assert_eq!(one, with_threads(3, || run(&g, &p).unwrap()));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        // Every tolerance/damping regime: all-f32 (1e-3), f32 then f64 (1e-6, 5e-7, 1e-9), and a
        // damping close to 1 where f32 must not decide convergence. The ranks sum to 1 and pass
        // the verifier's residual check in each.
        #[test]
        fn verifies_at_every_tolerance_and_damping(
            (n, arcs) in arb_graph(200), directed in any::<bool>(), t in 0usize..4, k in 0usize..3
        ) {
            let p = Params {
                damping: [0.5, 0.85, 0.99][k],
                tol: [1e-3, 1e-6, 5e-7, 1e-9][t],
                max_iter: 100_000,
            };
            let g = csr(n, &arcs, directed);
            let out = run(&g, &p).unwrap();
            prop_assert_eq!(verify(&g, &out, &p), Ok(()));
        }

        #[test]
        fn random_graphs_verify_and_are_deterministic(
            (n, arcs) in arb_graph(200), directed in any::<bool>()
        ) {
            let g = csr(n, &arcs, directed);
            let p = Params { max_iter: 1000, ..Default::default() };
            let out = with_threads(1, || run(&g, &p).unwrap());
            prop_assert_eq!(verify(&g, &out, &p), Ok(()));
            let out2 = with_threads(2, || run(&g, &p).unwrap());
            prop_assert_eq!(&out, &out2);
            if directed {
                let g2 = csr_no_in(n, &arcs);
                let a = with_threads(1, || run(&g2, &p).unwrap());
                let b = with_threads(2, || run(&g2, &p).unwrap());
                prop_assert_eq!(verify(&g2, &a, &p), Ok(()));
                prop_assert_eq!(&a, &b);
                // Push (exact fixed-point sums) and pull (f32 contributions while far from
                // converged, then f64) reach the same fixpoint when run to a tight tolerance.
                let tight = Params { tol: 1e-14, max_iter: 5000, ..p.clone() };
                let x = run(&g, &tight).unwrap();
                let y = run(&g2, &tight).unwrap();
                for v in 0..n {
                    prop_assert!((x.rank[v] - y.rank[v]).abs() < 1e-12);
                }
            }
        }
    }
}
