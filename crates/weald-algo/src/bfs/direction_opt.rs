//! Direction-optimising breadth-first search (Beamer, Asanović & Patterson, "Direction-Optimizing
//! Breadth-First Search", SC'12), written as a loop of [`edge_map`] steps as in Ligra (Shun &
//! Blelloch, PPoPP'13): small frontiers push (top-down), large ones pull (bottom-up) with an
//! early exit as soon as a vertex finds a parent. The switch is edge_map's `m / threshold` rule.
//!
//! On a directed graph BFS follows out-arcs; pulling needs the in-arcs, and without them every
//! step pushes.
//!
//! The tree is canonical: every reached vertex's parent is its **smallest** in-neighbour on the
//! previous level, whatever the thread count or direction (the pull scans in-neighbours in
//! increasing order and stops at the first; the push keeps the minimum with an atomic min and
//! emits the vertex only on its first claim).

use crate::traverse::{edge_map, vertex_map, Direction, EdgeMapFn, EdgeMapOptions, VertexSubset};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use weald_graph::{InGraph, Result, Vertex, NO_VERTEX};

/// Depth of a vertex the search did not reach.
pub const UNREACHED: u32 = u32::MAX;

/// Parameters of [`run`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// edge_map's switch: pull when the frontier's `|U| + Σ out-degree > m / threshold`.
    pub threshold: usize,
    /// Force push or pull (pull only where in-arcs exist), or choose per step.
    pub direction: Direction,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            threshold: 20,
            direction: Direction::Auto,
        }
    }
}

/// The BFS tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// `parent[v]`: the tree parent of `v`, `parent[source] = source`, [`NO_VERTEX`] if unreached.
    pub parent: Vec<u32>,
    /// `depth[v]`: hops from the source, [`UNREACHED`] (`u32::MAX`) if unreached.
    pub depth: Vec<u32>,
}

/// Per-vertex state packed in one word, so a step touches one cache line per arc:
/// high half the depth, low half the parent; `u64::MAX` while unvisited. A push claims a vertex
/// tentatively, with [`TENTATIVE`] set in the depth, so that later arcs of the same step still
/// compete for the smallest parent (an atomic min on the word); after the step the flag is
/// cleared. Depths therefore stay below 2³¹ − 1.
struct Step<'a> {
    state: &'a [AtomicU64],
    level: u32,
}

const UNVISITED: u64 = u64::MAX;
const TENTATIVE: u32 = 1 << 31;

#[inline]
fn pack(depth: u32, parent: Vertex) -> u64 {
    (depth as u64) << 32 | parent as u64
}

impl<W> EdgeMapFn<W> for Step<'_> {
    #[inline]
    fn cond(&self, d: Vertex) -> bool {
        let x = self.state[d as usize].load(Relaxed);
        x == UNVISITED || (x >> 32) as u32 == self.level | TENTATIVE
    }

    #[inline]
    fn update(&self, s: Vertex, d: Vertex, _: W) -> bool {
        // Pull: the first frontier in-neighbour found is the smallest; the final depth ends the
        // scan of d's in-neighbours.
        self.state[d as usize].store(pack(self.level, s), Relaxed);
        true
    }

    #[inline]
    fn update_atomic(&self, s: Vertex, d: Vertex, _: W) -> bool {
        // Push: atomic min, so the smallest frontier in-neighbour wins; emit d only on the claim
        // that found it unvisited.
        let cell = &self.state[d as usize];
        let new = pack(self.level | TENTATIVE, s);
        let mut cur = cell.load(Relaxed);
        while new < cur {
            match cell.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                Ok(_) => return cur == UNVISITED,
                Err(c) => cur = c,
            }
        }
        false
    }
}

/// BFS from `source`; see the module docs. Errors: `source` out of range.
pub fn run<G: InGraph>(g: &G, source: Vertex, params: &Params) -> Result<Output> {
    crate::require_vertex(g, source)?;
    let n = g.num_vertices();
    let state: Vec<AtomicU64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU64::new(UNVISITED))
        .collect();
    state[source as usize].store(pack(0, source), Relaxed);
    let opts = EdgeMapOptions {
        threshold: params.threshold,
        direction: params.direction,
        output: true,
    };
    let mut frontier = VertexSubset::from_vertex(n, source);
    let mut level = 0u32;
    while !frontier.is_empty() {
        level += 1;
        assert!(level < TENTATIVE - 1, "BFS depth exceeds 2^31 - 2");
        let step = Step {
            state: &state,
            level,
        };
        frontier = edge_map(g, &frontier, &step, &opts);
        if !frontier.is_dense() {
            vertex_map(&frontier, |v| {
                state[v as usize].fetch_and(!((TENTATIVE as u64) << 32), Relaxed);
            });
        }
    }
    let (parent, depth) = state
        .into_par_iter()
        .map(|x| match x.into_inner() {
            UNVISITED => (NO_VERTEX, UNREACHED),
            x => (x as u32, (x >> 32) as u32),
        })
        .unzip();
    Ok(Output { parent, depth })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfs::verify;
    use crate::traverse::testutil::*;
    use proptest::prelude::*;
    use weald_graph::WealdError;

    const U: u32 = UNREACHED;

    //   0 --- 1 --- 2         7 --- 8
    //   |     |     |
    //   3 --- 4     5 --- 6
    #[test]
    fn hand_drawn_symmetric() {
        let g = csr(
            9,
            &[
                (0, 1),
                (1, 2),
                (0, 3),
                (1, 4),
                (3, 4),
                (2, 5),
                (5, 6),
                (7, 8),
            ],
            false,
        );
        for direction in [Direction::Sparse, Direction::Dense, Direction::Auto] {
            let out = run(
                &g,
                0,
                &Params {
                    direction,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(out.depth, vec![0, 1, 2, 1, 2, 3, 4, U, U]);
            // 4 has parents 1 and 3 on level 1: the smaller wins.
            assert_eq!(out.parent, vec![0, 0, 1, 0, 1, 2, 5, NO_VERTEX, NO_VERTEX]);
            verify(&g, 0, &out).unwrap();
        }
        let out = run(&g, 8, &Params::default()).unwrap();
        assert_eq!(out.depth, vec![U, U, U, U, U, U, U, 1, 0]);
    }

    //   0 → 1 → 2 → 0      3 → 1   (3 unreachable from 0)
    #[test]
    fn hand_drawn_directed() {
        let arcs = [(0, 1), (1, 2), (2, 0), (3, 1)];
        let g = csr(4, &arcs, true);
        let out = run(&g, 0, &Params::default()).unwrap();
        assert_eq!(out.depth, vec![0, 1, 2, U]);
        assert_eq!(out.parent, vec![0, 0, 1, NO_VERTEX]);
        verify(&g, 0, &out).unwrap();
        let out3 = run(&g, 3, &Params::default()).unwrap();
        assert_eq!(out3.depth, vec![3, 1, 2, 0]);
        let g2 = csr_no_in(4, &arcs);
        assert_eq!(run(&g2, 3, &Params::default()).unwrap(), out3);
        assert!(matches!(
            run(&g, 4, &Params::default()),
            Err(WealdError::VertexOutOfRange {
                vertex: 4,
                num_vertices: 4
            })
        ));
    }

    #[test]
    fn verifier_rejects_wrong_trees() {
        let g = csr(
            9,
            &[
                (0, 1),
                (1, 2),
                (0, 3),
                (1, 4),
                (3, 4),
                (2, 5),
                (5, 6),
                (7, 8),
            ],
            false,
        );
        let good = run(&g, 0, &Params::default()).unwrap();
        let mut bad = good.clone();
        bad.depth[6] = 5;
        assert!(verify(&g, 0, &bad).is_err(), "wrong depth");
        let mut bad = good.clone();
        bad.parent[4] = 2; // 2-4 is not an edge
        assert!(verify(&g, 0, &bad).is_err(), "non-edge parent");
        let mut bad = good.clone();
        bad.parent[5] = 4; // depth[4] + 1 != depth[5], and no edge
        assert!(verify(&g, 0, &bad).is_err());
        let mut bad = good.clone();
        bad.parent[7] = 8;
        bad.depth[7] = 1;
        assert!(verify(&g, 0, &bad).is_err(), "extra reached vertex");
        let mut bad = good.clone();
        bad.parent[6] = NO_VERTEX;
        bad.depth[6] = U;
        assert!(verify(&g, 0, &bad).is_err(), "missing vertex");
        let mut bad = good;
        bad.parent[0] = 1;
        assert!(verify(&g, 0, &bad).is_err(), "source parent");
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
                let o = run(&g, s, &Params { direction, ..Default::default() }).unwrap();
                prop_assert_eq!(&o, &out);
            }
            if directed {
                let g2 = csr_no_in(n, &arcs);
                prop_assert_eq!(&run(&g2, s, &Params::default()).unwrap(), &out);
            }
        }
    }
}
