//! Direction-optimising breadth-first search (Beamer, Asanović & Patterson, "Direction-Optimizing
//! Breadth-First Search", SC'12), written as a loop of
//! [`edge_map`](fn@crate::traverse::edge_map) steps as in Ligra (Shun & Blelloch, PPoPP'13):
//! small frontiers push (top-down), large ones pull (bottom-up) with an early exit as soon as a
//! vertex finds a parent.
//!
//! The switch is Beamer's (as in GAPBS), not edge_map's one-sided `m / 20` rule, because it
//! has hysteresis: go bottom-up when the frontier's out-degree sum exceeds the arcs not yet
//! scanned top-down divided by `alpha` (15); stay bottom-up while the frontier grows or holds
//! more than `n / beta` (18) vertices, then take at least one top-down step. The difference is
//! the level after the peak: on RMAT its frontier often holds 2-3·10⁵ low-degree vertices whose
//! out-degree sum is below `m / 20`, so edge_map's rule would push their ~10⁶ arcs (11-16 ms at
//! scale 20, 1 thread) where a pull only scans the few vertices still unvisited.
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
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use weald_graph::{InGraph, Result, Vertex, NO_VERTEX};

/// Depth of a vertex the search did not reach.
pub const UNREACHED: u32 = u32::MAX;

/// Parameters of [`run`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// Go bottom-up (pull) when the frontier's out-degree sum exceeds the arcs not yet scanned
    /// top-down divided by `alpha` (Beamer's α; GAPBS's default 15).
    pub alpha: usize,
    /// Go back top-down when a bottom-up step's frontier is smaller than the one before and
    /// holds at most `n / beta` vertices (Beamer's β; GAPBS's default 18).
    pub beta: usize,
    /// Force push or pull (pull only where in-arcs exist), or choose per step (`alpha`, `beta`).
    pub direction: Direction,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            alpha: 15,
            beta: 18,
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

    #[inline(always)]
    fn prefetch(&self, d: Vertex) {
        weald_graph::prefetch_at(self.state, d as usize);
    }
}

/// The depth-only step: 4 bytes per vertex instead of 8, and a push claims a vertex with one
/// compare-and-swap (any claim of the step writes the same depth), so the steps' random reads
/// touch half the memory. The tree, if wanted, comes after: [`tree_parents`].
struct DepthStep<'a> {
    depth: &'a [AtomicU32],
    level: u32,
}

impl<W> EdgeMapFn<W> for DepthStep<'_> {
    #[inline]
    fn cond(&self, d: Vertex) -> bool {
        self.depth[d as usize].load(Relaxed) == UNREACHED
    }

    #[inline]
    fn update(&self, _: Vertex, d: Vertex, _: W) -> bool {
        // Pull: `d` is this thread's; the depth ends the scan of its in-neighbours.
        self.depth[d as usize].store(self.level, Relaxed);
        true
    }

    #[inline]
    fn update_atomic(&self, _: Vertex, d: Vertex, _: W) -> bool {
        self.depth[d as usize]
            .compare_exchange(UNREACHED, self.level, Relaxed, Relaxed)
            .is_ok()
    }

    #[inline(always)]
    fn prefetch(&self, d: Vertex) {
        weald_graph::prefetch_at(self.depth, d as usize);
    }
}

/// The direction-optimising level loop of [`run`] and [`depths`]: level `1, 2, …` is one
/// [`edge_map`] of `step(level)` from the previous level's frontier, then `after(frontier)`,
/// until a level is empty; the direction of each step is chosen as the module docs say. Levels
/// must stay below `limit` (the steps' encoding of a depth).
fn levels<G: InGraph, S: EdgeMapFn<G::W>>(
    g: &G,
    source: Vertex,
    params: &Params,
    limit: u32,
    step: impl Fn(u32) -> S,
    after: impl Fn(&VertexSubset),
) {
    let n = g.num_vertices();
    let mut frontier = VertexSubset::from_vertex(n, source);
    let mut level = 0u32;
    // Arcs not yet scanned by a push, whether the last step pulled, and its input's size.
    let mut unexplored = g.num_arcs();
    let mut pulled = false;
    let mut before = 0usize;
    while !frontier.is_empty() {
        level += 1;
        assert!(level < limit, "BFS depth exceeds {}", limit - 1);
        let direction = match params.direction {
            Direction::Auto if g.has_in_edges() => {
                let len = frontier.len();
                let pull = if pulled {
                    len >= before || len > n / params.beta.max(1)
                } else {
                    let scout = frontier.par_sum(|v| g.out_degree(v));
                    let pull = scout > unexplored / params.alpha.max(1);
                    if !pull {
                        unexplored = unexplored.saturating_sub(scout);
                    }
                    pull
                };
                pulled = pull;
                before = len;
                if pull {
                    Direction::Dense
                } else {
                    Direction::Sparse
                }
            }
            // Forced, or push only (no in-arcs to pull).
            other => other,
        };
        let opts = EdgeMapOptions {
            direction,
            ..Default::default()
        };
        frontier = edge_map(g, &frontier, &step(level), &opts);
        after(&frontier);
    }
}

/// Hop distances from `source` alone (the [`Output::depth`] of [`run`], [`UNREACHED`] for
/// unreached vertices), by the same direction-optimising steps over a 4-byte depth per vertex:
/// for callers that do not need the tree (the tree of [`run`] is [`tree_parents`] of these).
/// Errors: `source` out of range.
pub fn depths<G: InGraph>(g: &G, source: Vertex, params: &Params) -> Result<Vec<u32>> {
    crate::require_vertex(g, source)?;
    let n = g.num_vertices();
    let depth: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .with_min_len(4096)
        .map(|_| AtomicU32::new(UNREACHED))
        .collect();
    depth[source as usize].store(0, Relaxed);
    levels(
        g,
        source,
        params,
        UNREACHED,
        |level| DepthStep {
            depth: &depth,
            level,
        },
        |_| {},
    );
    Ok(depth.into_iter().map(AtomicU32::into_inner).collect())
}

/// The canonical BFS tree of hop distances `depth` from `source` (as [`depths`] returns them):
/// every reached vertex's parent is its smallest in-neighbour one level up, exactly the tree
/// [`run`] builds. One pass over the arcs: a pull that stops at the first such in-neighbour
/// where in-arcs are available (neighbours come in increasing order), else a push with an
/// atomic min.
pub fn tree_parents<G: InGraph>(g: &G, source: Vertex, depth: &[u32]) -> Vec<Vertex> {
    let n = g.num_vertices();
    assert_eq!(depth.len(), n, "one depth per vertex");
    let mut parent: Vec<Vertex> = if g.has_in_edges() {
        (0..n as Vertex)
            .into_par_iter()
            .with_min_len(256)
            .map(|v| {
                let dv = depth[v as usize];
                let mut p = NO_VERTEX;
                if dv != UNREACHED && dv != 0 {
                    g.for_each_in(v, |u, _| {
                        if depth[u as usize].wrapping_add(1) == dv {
                            p = u;
                            return false;
                        }
                        true
                    });
                }
                p
            })
            .collect()
    } else {
        let parent: Vec<AtomicU32> = (0..n)
            .into_par_iter()
            .with_min_len(4096)
            .map(|_| AtomicU32::new(NO_VERTEX))
            .collect();
        (0..n as Vertex)
            .into_par_iter()
            .with_min_len(256)
            .for_each(|u| {
                let du = depth[u as usize];
                if du == UNREACHED {
                    return;
                }
                g.for_each_out(u, |v, _| {
                    if depth[v as usize] == du + 1 {
                        parent[v as usize].fetch_min(u, Relaxed);
                    }
                    true
                });
            });
        parent.into_iter().map(AtomicU32::into_inner).collect()
    };
    parent[source as usize] = source;
    parent
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
    levels(
        g,
        source,
        params,
        TENTATIVE - 1,
        |level| Step {
            state: &state,
            level,
        },
        |frontier| {
            if !frontier.is_dense() {
                vertex_map(frontier, |v| {
                    state[v as usize].fetch_and(!((TENTATIVE as u64) << 32), Relaxed);
                });
            }
        },
    );
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
            for direction in [Direction::Sparse, Direction::Dense, Direction::Auto] {
                let prm = Params { direction, ..Default::default() };
                let o = run(&g, s, &prm).unwrap();
                prop_assert_eq!(&o, &out);
                // The depth-only search and the tree built from its depths give the same.
                let d = depths(&g, s, &prm).unwrap();
                prop_assert_eq!(&d, &out.depth);
                prop_assert_eq!(&tree_parents(&g, s, &d), &out.parent);
            }
            let d2 = with_threads(2, || depths(&g, s, &Params::default()).unwrap());
            prop_assert_eq!(&d2, &out.depth);
            // Any switching thresholds: (1, 1) pulls only when a frontier's arcs exceed all
            // the unexplored ones and goes back as soon as a frontier shrinks; (1, MAX) never
            // goes back once pulling; (MAX, 18) pulls from the first frontier with an arc.
            for (alpha, beta) in [(1, 1), (1, usize::MAX), (4, 2), (usize::MAX, 18)] {
                let prm = Params { alpha, beta, ..Default::default() };
                prop_assert_eq!(&run(&g, s, &prm).unwrap(), &out);
            }
            if directed {
                let g2 = csr_no_in(n, &arcs);
                prop_assert_eq!(&run(&g2, s, &Params::default()).unwrap(), &out);
                // Without in-arcs: push steps only, and the tree by an atomic-min push.
                let d = depths(&g2, s, &Params::default()).unwrap();
                prop_assert_eq!(&d, &out.depth);
                prop_assert_eq!(&tree_parents(&g2, s, &d), &out.parent);
            }
        }
    }
}
