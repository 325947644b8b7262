//! Local clustering by Nibble (Spielman & Teng, STOC'04), serial version as in Shun et al.,
//! "Parallel Local Graph Clustering" (VLDB'16) and Aspen's local-query experiment: a
//! truncated lazy random walk from the seed, then a sweep cut over the walk's mass.
//!
//! Walk: `r₀ = 1 at the seed`; each of `iterations` steps spreads the mass by the lazy walk
//! (`r(u)/2` stays at `u`, `r(u)/(2·d(u))` goes to each neighbour) and then truncates: a
//! vertex keeps its mass only if `r(u) ≥ ε·d(u)`. The mass stays on O(1/ε) vertices, so the
//! work is local (sparse maps, nothing of size n). Sweep: vertices by `r(u)/d(u)` decreasing
//! (ties by id); of the prefixes `S`, the one of least conductance
//! `cut(S) / min(vol(S), vol(V) − vol(S))` is the cluster.
//!
//! Undirected graphs only; weights are ignored (degrees count arcs, with multiplicity).

use super::sweep;
use std::collections::HashMap;
use weald_graph::{Graph, Result, Vertex, WealdError};

/// Parameters of [`run`] (Aspen's: ε = 1e-6, T = 10).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Truncation threshold ε: mass below `ε·d(u)` is dropped.
    pub epsilon: f64,
    /// Walk steps T.
    pub iterations: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            epsilon: 1e-6,
            iterations: 10,
        }
    }
}

/// The cluster found from a seed.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// The best sweep prefix, in increasing vertex order (empty if no prefix has positive
    /// volume on both sides, e.g. an isolated seed).
    pub cluster: Vec<Vertex>,
    /// Its conductance (NaN when `cluster` is empty).
    pub conductance: f64,
    /// Sum of the cluster's degrees.
    pub volume: u64,
    /// Arcs from the cluster to the rest of the graph.
    pub cut: u64,
    /// The walk's mass after the last step, `(vertex, mass)` in increasing vertex order.
    pub mass: Vec<(Vertex, f64)>,
    /// Walk steps taken (fewer than asked if all mass was truncated away).
    pub iterations: usize,
}

/// Check the inputs shared by [`run`] and the verifier.
pub(super) fn check_args<G: Graph>(g: &G, seed: Vertex, p: &Params) -> Result<()> {
    if g.is_directed() {
        return Err(WealdError::Invalid(
            "local clustering (nibble) needs an undirected graph (load it with --undirected)"
                .into(),
        ));
    }
    crate::require_vertex(g, seed)?;
    if !(p.epsilon > 0.0 && p.epsilon.is_finite()) {
        return Err(WealdError::Invalid(format!(
            "epsilon must be positive and finite, not {}",
            p.epsilon
        )));
    }
    Ok(())
}

/// Nibble from `seed`.
pub fn run<G: Graph>(g: &G, seed: Vertex, p: &Params) -> Result<Output> {
    check_args(g, seed, p)?;
    let mut r: Vec<(Vertex, f64)> = vec![(seed, 1.0)];
    let mut steps = 0;
    for _ in 0..p.iterations {
        if r.is_empty() {
            break;
        }
        steps += 1;
        // Contributions arrive in increasing order of the giving vertex, then of the
        // receiving neighbour: the sums do not depend on the map's internal order.
        let mut acc: HashMap<Vertex, f64> = HashMap::with_capacity(r.len() * 4);
        for &(u, x) in &r {
            let d = g.out_degree(u);
            if d == 0 {
                *acc.entry(u).or_insert(0.0) += x;
                continue;
            }
            *acc.entry(u).or_insert(0.0) += x / 2.0;
            let share = x / (2.0 * d as f64);
            g.for_each_out(u, |w, _| {
                *acc.entry(w).or_insert(0.0) += share;
                true
            });
        }
        r = acc
            .into_iter()
            .filter(|&(u, x)| x >= p.epsilon * g.out_degree(u) as f64)
            .collect();
        r.sort_unstable_by_key(|e| e.0);
    }
    let sparse = |ord: &[Vertex]| -> HashMap<Vertex, usize> {
        ord.iter().enumerate().map(|(i, &u)| (u, i)).collect()
    };
    let s = sweep::best_prefix(g, &r, sparse, |at, w| at.get(&w).copied());
    Ok(Output {
        cluster: s.cluster,
        conductance: s.conductance,
        volume: s.volume,
        cut: s.cut,
        mass: r,
        iterations: steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localcluster::verify;
    use crate::traverse::testutil::*;
    use proptest::prelude::*;

    /// Two 5-cliques, {0..4} and {5..9}, joined by the edge 4–5.
    fn barbell() -> weald_storage::Csr<()> {
        let mut e = vec![(4, 5)];
        for base in [0, 5] {
            for a in 0..5 {
                for b in a + 1..5 {
                    e.push((base + a, base + b));
                }
            }
        }
        csr(10, &e, false)
    }

    #[test]
    fn finds_the_clique_of_the_seed() {
        let g = barbell();
        let p = Params::default();
        for seed in [0, 2] {
            let out = run(&g, seed, &p).unwrap();
            verify(&g, seed, &p, &out).unwrap();
            assert_eq!(out.cluster, vec![0, 1, 2, 3, 4]);
            assert_eq!((out.cut, out.volume), (1, 21));
            assert!((out.conductance - 1.0 / 21.0).abs() < 1e-15);
            assert_eq!(out.iterations, 10);
        }
        let out = run(&g, 7, &p).unwrap();
        assert_eq!(out.cluster, vec![5, 6, 7, 8, 9]);
    }

    #[test]
    fn truncation_isolated_seed_and_errors() {
        let g = barbell();
        // A large epsilon drops everything after the first step: no mass, no cluster.
        let p = Params {
            epsilon: 0.5,
            iterations: 10,
        };
        let out = run(&g, 0, &p).unwrap();
        verify(&g, 0, &p, &out).unwrap();
        assert!(out.mass.is_empty() && out.cluster.is_empty() && out.conductance.is_nan());
        assert_eq!(out.iterations, 1);
        // An isolated seed keeps its mass but no prefix has positive volume.
        let h = csr(3, &[(0, 1)], false);
        let out = run(&h, 2, &Params::default()).unwrap();
        verify(&h, 2, &Params::default(), &out).unwrap();
        assert_eq!(out.mass, vec![(2, 1.0)]);
        assert!(out.cluster.is_empty());
        let d = csr(3, &[(0, 1)], true);
        assert!(
            matches!(run(&d, 0, &Params::default()), Err(WealdError::Invalid(m)) if m.contains("undirected"))
        );
        for epsilon in [0.0, -1.0, f64::NAN] {
            let p = Params {
                epsilon,
                iterations: 3,
            };
            assert!(run(&g, 0, &p).is_err());
        }
        assert!(run(&g, 10, &Params::default()).is_err());
    }

    #[test]
    fn verifier_rejects_tampering() {
        let g = barbell();
        let p = Params::default();
        let good = run(&g, 0, &p).unwrap();
        let mut bad = good.clone();
        bad.cluster.push(5);
        assert!(verify(&g, 0, &p, &bad).is_err());
        let mut bad = good.clone();
        bad.conductance *= 1.5;
        assert!(verify(&g, 0, &p, &bad).is_err());
        let mut bad = good.clone();
        bad.mass[0].1 *= 1.001;
        assert!(verify(&g, 0, &p, &bad).is_err());
        let mut bad = good.clone();
        bad.cut += 1;
        assert!(verify(&g, 0, &p, &bad).is_err());
        let mut bad = good;
        bad.iterations = 9;
        assert!(verify(&g, 0, &p, &bad).is_err());
    }

    proptest! {
        /// On random graphs: the verifier (dense walk, dense sweep, direct counts) agrees, the
        /// mass never exceeds 1, and every prefix of the sweep is no better than the cluster.
        #[test]
        fn verified_on_random_graphs((n, arcs) in arb_graph(40), s in 0u32..40, steps in 0usize..12) {
            let g = csr(n, &arcs, false);
            let s = s % n as Vertex;
            let p = Params { epsilon: 1e-4, iterations: steps };
            let out = run(&g, s, &p).unwrap();
            prop_assert!(verify(&g, s, &p, &out).is_ok(), "{:?}", verify(&g, s, &p, &out));
            let total = g.num_arcs() as f64;
            let ord = crate::localcluster::sweep::order(&g, &out.mass);
            let mut inside = vec![false; n];
            for (j, &u) in ord.iter().enumerate() {
                inside[u as usize] = true;
                let (mut vol, mut cut) = (0.0, 0.0);
                for &x in &ord[..=j] {
                    vol += g.out_degree(x) as f64;
                    g.for_each_out(x, |w, _| {
                        cut += (!inside[w as usize]) as u8 as f64;
                        true
                    });
                }
                let denom = vol.min(total - vol);
                if denom > 0.0 {
                    prop_assert!(cut / denom >= out.conductance - 1e-12);
                }
            }
        }
    }
}
