//! Two-hop neighbourhood by gathering: the source's neighbours, then theirs, into one list
//! that is sorted and deduplicated. Work O(D log D) for D = the number of arcs read (the
//! source's degree plus its neighbours' degrees), memory O(D) — nothing proportional to the
//! graph, so many queries can run at once on a snapshot (as in Aspen's local-query
//! experiment). One query runs sequentially; parallelism comes from running many.

use weald_graph::{Graph, Result, Vertex};

/// Parameters of [`run`] (none yet; kept for the uniform `run(g, source, &Params)` shape).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Params {}

/// The two-hop neighbourhood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Output {
    /// Every vertex at distance 1 or 2 from the source, increasing, the source excluded.
    pub vertices: Vec<Vertex>,
    /// Arcs read (the source's degree plus the degrees of its distinct neighbours).
    pub arcs_read: u64,
}

/// The vertices within two hops of `source` (out-edges for a directed graph).
pub fn run<G: Graph>(g: &G, source: Vertex, _p: &Params) -> Result<Output> {
    crate::require_vertex(g, source)?;
    let mut first = Vec::with_capacity(g.out_degree(source));
    g.for_each_out(source, |u, _| {
        first.push(u);
        true
    });
    // Multigraph neighbour lists may repeat a neighbour: expand each one once.
    first.sort_unstable();
    first.dedup();
    let mut arcs_read = g.out_degree(source) as u64;
    let mut all = first.clone();
    for &u in &first {
        arcs_read += g.out_degree(u) as u64;
        g.for_each_out(u, |w, _| {
            all.push(w);
            true
        });
    }
    all.sort_unstable();
    all.dedup();
    if let Ok(i) = all.binary_search(&source) {
        all.remove(i);
    }
    Ok(Output {
        vertices: all,
        arcs_read,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traverse::testutil::*;
    use crate::twohop::verify;
    use proptest::prelude::*;
    use weald_graph::WealdError;

    //   0 --- 1 --- 2 --- 3 --- 4
    #[test]
    fn path_directed_and_errors() {
        let g = csr(5, &[(0, 1), (1, 2), (2, 3), (3, 4)], false);
        let out = run(&g, 0, &Params::default()).unwrap();
        assert_eq!(out.vertices, vec![1, 2]);
        verify(&g, 0, &out).unwrap();
        let out = run(&g, 2, &Params::default()).unwrap();
        assert_eq!(out.vertices, vec![0, 1, 3, 4]);
        assert_eq!(out.arcs_read, 2 + 2 + 2);
        verify(&g, 2, &out).unwrap();
        // Directed: out-edges only; 3 → 4 is not followed backwards.
        let d = csr(5, &[(0, 1), (1, 2), (2, 3), (4, 3)], true);
        assert_eq!(run(&d, 1, &Params::default()).unwrap().vertices, vec![2, 3]);
        assert_eq!(run(&d, 4, &Params::default()).unwrap().vertices, vec![3]);
        assert!(matches!(
            run(&g, 5, &Params::default()),
            Err(WealdError::VertexOutOfRange { vertex: 5, .. })
        ));
    }

    #[test]
    fn verifier_rejects_wrong_sets() {
        let g = csr(5, &[(0, 1), (1, 2), (2, 3), (3, 4)], false);
        let bad = |vs: Vec<Vertex>| Output {
            vertices: vs,
            arcs_read: 0,
        };
        assert!(verify(&g, 0, &bad(vec![1])).is_err()); // 2 missing
        assert!(verify(&g, 0, &bad(vec![1, 2, 3])).is_err()); // 3 is three hops away
        assert!(verify(&g, 0, &bad(vec![0, 1, 2])).is_err()); // the source itself
        assert!(verify(&g, 0, &bad(vec![2, 1])).is_err()); // not sorted
        assert!(verify(&g, 0, &bad(vec![1, 1, 2])).is_err()); // repeated
    }

    proptest! {
        /// Against BFS: exactly the vertices at depth 1 or 2.
        #[test]
        fn matches_bfs_depths((n, arcs) in arb_graph(60), directed in any::<bool>(), s in 0u32..60) {
            let g = csr(n, &arcs, directed);
            let s = s % n as Vertex;
            let out = run(&g, s, &Params::default()).unwrap();
            verify(&g, s, &out).unwrap();
            let bfs = crate::bfs::run(&g, s, &Default::default()).unwrap();
            let want: Vec<Vertex> = (0..n as Vertex)
                .filter(|&v| v != s && matches!(bfs.depth[v as usize], 1 | 2))
                .collect();
            prop_assert_eq!(out.vertices, want);
        }
    }
}
