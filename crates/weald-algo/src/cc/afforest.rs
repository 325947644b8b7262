//! Afforest connected components (Sutton, Ben-Nun & Barak, "Optimizing Parallel Graph
//! Connectivity Computation via Subgraph Sampling", IPDPS'18), following GAPBS `cc.cc`:
//!
//! 1. link every vertex to its first `neighbor_rounds` out-neighbours (one per round, each round
//!    followed by a compress), which already joins most of a giant component;
//! 2. sample vertices to guess the largest intermediate component `c`;
//! 3. link the remaining arcs of every vertex outside `c`; compress.
//!
//! Links always point a root to a smaller id, so every tree's root is its smallest vertex and
//! the final labels are normalised: each component is labelled by its smallest vertex id.
//!
//! **Directed graphs: weakly connected components** (arc direction ignored). Linking `u` with
//! `v` for an arc `u→v` is symmetric, so linking over all arcs gives WCC, as GAPBS does. Step 3
//! may skip the vertices of `c` only if each skipped arc is seen from its other end: on a
//! symmetric graph the reverse arc does that; on a directed graph with in-arcs each vertex
//! outside `c` also links its in-neighbours (GAPBS); on a directed graph without in-arcs nothing
//! is skipped. The labels never depend on the thread count (only the work does).

use crate::traverse::visit_candidates;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use weald_graph::{InGraph, Result, Vertex, PREFETCH_AHEAD_SHORT};

/// Parameters of [`run`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Out-neighbours per vertex linked in the sampling phase (GAPBS: 2).
    pub neighbor_rounds: usize,
    /// Vertices sampled to find the largest intermediate component (GAPBS: 1024).
    pub samples: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            neighbor_rounds: 2,
            samples: 1024,
        }
    }
}

/// Component labels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// `label[v]`: the smallest vertex id in `v`'s (weakly) connected component.
    pub label: Vec<u32>,
    /// Number of components (vertices with `label[v] == v`).
    pub num_components: usize,
}

/// Graphs with at most this many vertices are labelled by the calling thread alone, with plain
/// loops and plain stores: on a few dozen vertices, rayon's splitting and the locked
/// compare-exchange of every hook were half of the call.
const SEQ_VERTICES: usize = 1024;

/// Hook the roots of `u` and `v` together (the larger root under the smaller). `SEQ`: no other
/// thread touches `comp`, so a checked store replaces the compare-exchange.
#[inline]
fn link<const SEQ: bool>(u: Vertex, v: Vertex, comp: &[AtomicU32]) {
    let get = |x: Vertex| comp[x as usize].load(Relaxed);
    let mut p1 = get(u);
    let mut p2 = get(v);
    while p1 != p2 {
        let (high, low) = if p1 > p2 { (p1, p2) } else { (p2, p1) };
        let p_high = get(high);
        // Already `low`, or we hook the root `high` under `low`.
        if p_high == low {
            break;
        }
        if p_high == high {
            let hooked = if SEQ {
                comp[high as usize].store(low, Relaxed);
                true
            } else {
                comp[high as usize]
                    .compare_exchange(high, low, Relaxed, Relaxed)
                    .is_ok()
            };
            if hooked {
                break;
            }
        }
        p1 = get(get(high));
        p2 = get(low);
    }
}

/// `f(v)` for every vertex `v < n`: a plain loop with `SEQ`, else in parallel in pieces of
/// at least `grain`.
#[inline]
fn for_each_vertex<const SEQ: bool>(n: usize, grain: usize, f: impl Fn(Vertex) + Sync + Send) {
    if SEQ {
        (0..n as Vertex).for_each(f);
    } else {
        (0..n as Vertex)
            .into_par_iter()
            .with_min_len(grain)
            .for_each(f);
    }
}

fn compress<const SEQ: bool>(comp: &[AtomicU32]) {
    for_each_vertex::<SEQ>(comp.len(), 4096, |v| {
        let c = &comp[v as usize];
        let mut x = c.load(Relaxed);
        loop {
            let y = comp[x as usize].load(Relaxed);
            if y == x {
                break;
            }
            x = y;
        }
        c.store(x, Relaxed);
    });
}

/// The `r`-th out-neighbour of `u`, if any.
#[inline]
fn nth_out<G: InGraph>(g: &G, u: Vertex, r: usize) -> Option<Vertex> {
    if g.out_degree(u) <= r {
        return None;
    }
    if let Some(s) = g.out_neighbors_slice(u) {
        return Some(s[r]);
    }
    let mut i = 0;
    let mut found = None;
    g.for_each_out(u, |v, _| {
        if i == r {
            found = Some(v);
            return false;
        }
        i += 1;
        true
    });
    found
}

fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A label to skip in the last phase: the most frequent label among a deterministic sample of
/// `samples` vertices; with no more vertices than samples, the majority label of all vertices
/// if there is one (Boyer-Moore's vote: one pass in registers), else the vote's survivor.
/// Any label is a correct choice; a large component's saves the most work.
fn sample_frequent(comp: &[AtomicU32], samples: usize) -> Option<Vertex> {
    let n = comp.len();
    if n == 0 || samples == 0 {
        return None;
    }
    if n <= samples {
        let (mut cand, mut votes) = (0, 0u32);
        for c in comp {
            let l = c.load(Relaxed);
            if votes == 0 {
                cand = l;
            }
            votes = if l == cand { votes + 1 } else { votes - 1 };
        }
        return Some(cand);
    }
    // Sort the sampled labels and take the longest run (the smallest label on ties): at most
    // 1024 integers, cheaper than hashing each into a map.
    let mut labels: Vec<Vertex> = (0..samples)
        .map(|i| comp[(splitmix64(i as u64) % n as u64) as usize].load(Relaxed))
        .collect();
    labels.sort_unstable();
    let mut best = (0, labels[0]);
    for run in labels.chunk_by(|a, b| a == b) {
        if run.len() > best.0 {
            best = (run.len(), run[0]);
        }
    }
    Some(best.1)
}

/// (Weakly) connected components; see the module docs. Never fails.
pub fn run<G: InGraph>(g: &G, params: &Params) -> Result<Output> {
    Ok(if g.num_vertices() <= SEQ_VERTICES {
        afforest::<G, true>(g, params)
    } else {
        afforest::<G, false>(g, params)
    })
}

fn afforest<G: InGraph, const SEQ: bool>(g: &G, params: &Params) -> Output {
    let n = g.num_vertices();
    let comp: Vec<AtomicU32> = if SEQ {
        (0..n as Vertex).map(AtomicU32::new).collect()
    } else {
        (0..n as Vertex)
            .into_par_iter()
            .with_min_len(4096)
            .map(AtomicU32::new)
            .collect()
    };
    let rounds = params.neighbor_rounds;
    for r in 0..rounds {
        for_each_vertex::<SEQ>(n, 1024, |u| {
            g.prefetch_out(u.saturating_add(PREFETCH_AHEAD_SHORT));
            if let Some(v) = nth_out(g, u, r) {
                link::<SEQ>(u, v, &comp);
            }
        });
        compress::<SEQ>(&comp);
    }
    let directed = g.is_directed();
    let skip = if directed && !g.has_in_edges() {
        None
    } else {
        sample_frequent(&comp, params.samples)
    };
    // Which vertices are outside `c` is unpredictable (on RMAT, 40 % of the ids are isolated
    // and most others in `c`), so the loop goes over masks of them (edge_map's pull loop): a
    // branch per vertex cost more than the work. A vertex that joins or leaves `c` during the
    // pass (only roots are relinked) may be judged by its label from before: either way its
    // arcs to outside `c` are seen, from its end or from the other.
    visit_candidates(
        n,
        |u| skip != Some(comp[u as usize].load(Relaxed)),
        None::<fn(Vertex)>,
        |u| g.prefetch_out(u),
        |u| {
            let mut i = 0;
            g.for_each_out(u, |v, _| {
                if i >= rounds {
                    link::<SEQ>(u, v, &comp);
                }
                i += 1;
                true
            });
            if directed && skip.is_some() {
                g.for_each_in(u, |v, _| {
                    link::<SEQ>(u, v, &comp);
                    true
                });
            }
            false
        },
    );
    compress::<SEQ>(&comp);
    let label: Vec<u32> = comp.into_iter().map(AtomicU32::into_inner).collect();
    let is_root = |(v, &l): (usize, &u32)| v as u32 == l;
    let num_components = if SEQ {
        label.iter().enumerate().filter(|&x| is_root(x)).count()
    } else {
        label
            .par_iter()
            .with_min_len(4096)
            .enumerate()
            .filter(|&x| is_root(x))
            .count()
    };
    Output {
        label,
        num_components,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::verify;
    use crate::traverse::testutil::*;
    use proptest::prelude::*;

    //   0 --- 3     1 --- 5 --- 6     2     4 --- 7
    //         |                       (isolated)
    //         8
    #[test]
    fn hand_drawn_symmetric() {
        let g = csr(9, &[(3, 0), (3, 8), (5, 1), (6, 5), (7, 4)], false);
        let out = run(&g, &Params::default()).unwrap();
        assert_eq!(out.label, vec![0, 1, 2, 0, 4, 1, 1, 4, 0]);
        assert_eq!(out.num_components, 4);
        verify(&g, &out).unwrap();
    }

    //   5 → 0 ← 3      1 → 4      2
    //   (weakly: {0, 3, 5}, {1, 4}, {2})
    #[test]
    fn hand_drawn_directed_is_weak() {
        let arcs = [(5, 0), (3, 0), (1, 4)];
        let expect = vec![0, 1, 2, 0, 1, 0];
        for g in [csr(6, &arcs, true), csr_no_in(6, &arcs)] {
            let out = run(&g, &Params::default()).unwrap();
            assert_eq!(out.label, expect);
            assert_eq!(out.num_components, 3);
            verify(&g, &out).unwrap();
        }
    }

    #[test]
    fn verifier_rejects_wrong_labels() {
        let g = csr(9, &[(3, 0), (3, 8), (5, 1), (6, 5), (7, 4)], false);
        let good = run(&g, &Params::default()).unwrap();
        let mut bad = good.clone();
        bad.label[8] = 8; // split a component (labels still minimal per part)
        bad.num_components += 1;
        assert!(verify(&g, &bad).is_err());
        let mut bad = good.clone();
        bad.label[2] = 0; // merge two components
        bad.num_components -= 1;
        assert!(verify(&g, &bad).is_err());
        let mut bad = good.clone();
        for l in bad.label.iter_mut() {
            if *l == 1 {
                *l = 6; // right partition, label not the minimum
            }
        }
        assert!(verify(&g, &bad).is_err());
        let mut bad = good;
        bad.num_components = 5;
        assert!(verify(&g, &bad).is_err());
    }

    /// A graph above every piece size of the parallel path (so that at 2 threads its hooks
    /// race): many small components and a large one, symmetric and directed.
    #[test]
    fn parallel_path_races_and_agrees() {
        let n = 20_000u32;
        let mut x = 7u64;
        let mut next = || {
            x = splitmix64(x);
            x
        };
        let mut arcs = Vec::new();
        for _ in 0..30_000 {
            let u = (next() % n as u64) as Vertex;
            // Most arcs stay within a group of 8 ids; some join the first half into one part.
            let v = if next() % 4 == 0 && u < n / 2 {
                (next() % (n as u64 / 2)) as Vertex
            } else {
                (u & !7) | (next() % 8) as Vertex
            };
            arcs.push((u, v));
        }
        for directed in [false, true] {
            let g = csr(n as usize, &arcs, directed);
            let p = Params::default();
            let seq = afforest::<_, true>(&g, &p);
            verify(&g, &seq).unwrap();
            for t in [1, 2] {
                assert_eq!(with_threads(t, || run(&g, &p).unwrap()), seq);
            }
        }
    }

    #[test]
    fn skipped_label_is_the_majority() {
        let comp = |ls: &[u32]| ls.iter().map(|&l| AtomicU32::new(l)).collect::<Vec<_>>();
        // Counted exactly when every vertex can be looked at: 3 of 5 carry label 2.
        assert_eq!(sample_frequent(&comp(&[0, 2, 2, 3, 2]), 1024), Some(2));
        assert_eq!(sample_frequent(&comp(&[1, 1, 1, 0]), 4), Some(1));
        assert_eq!(sample_frequent(&comp(&[]), 1024), None);
        assert_eq!(sample_frequent(&comp(&[0, 0]), 0), None);
        // Sampled otherwise: a label held by nine vertices in ten wins.
        let ls: Vec<u32> = (0..5000).map(|v| if v % 10 == 3 { v } else { 7 }).collect();
        assert_eq!(sample_frequent(&comp(&ls), 1024), Some(7));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn random_graphs_verify_and_are_deterministic(
            (n, arcs) in arb_graph(200), directed in any::<bool>(), rounds in 0usize..4
        ) {
            // These graphs are small enough for the one-thread path that `run` takes; the
            // parallel path must give the same labels on them (at 1 and 2 threads, though in
            // one piece at this size: `parallel_path_races_and_agrees` makes its hooks race).
            let p = Params { neighbor_rounds: rounds, samples: 64 };
            let g = csr(n, &arcs, directed);
            let out = with_threads(1, || run(&g, &p).unwrap());
            prop_assert_eq!(verify(&g, &out), Ok(()));
            prop_assert_eq!(&afforest::<_, true>(&g, &p), &out);
            for t in [1, 2] {
                let par = with_threads(t, || afforest::<_, false>(&g, &p));
                prop_assert_eq!(&par, &out);
            }
            if directed {
                let g2 = csr_no_in(n, &arcs);
                prop_assert_eq!(&run(&g2, &p).unwrap(), &out);
                prop_assert_eq!(&with_threads(2, || afforest::<_, false>(&g2, &p)), &out);
            }
        }
    }
}
