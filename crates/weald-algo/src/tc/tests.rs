use super::*;
use proptest::prelude::*;
use weald_graph::batch::Combine;
use weald_graph::{EdgeList, WealdError};
use weald_storage::{BuildOptions, Csr};

fn graph(directed: bool, dedup: bool, n: usize, edges: &[(Vertex, Vertex)]) -> Csr<()> {
    let mut e = EdgeList::from_triples(edges.iter().map(|&(u, v)| (u, v, ())));
    e.num_vertices = e.num_vertices.max(n);
    let opts = BuildOptions {
        directed,
        in_edges: false,
        dedup: dedup.then_some(Combine::Min),
        ..Default::default()
    };
    Csr::build(e, &opts).unwrap().0
}

/// A view of a graph without `out_neighbors_slice`, as a compressed backend would be.
struct NoSlice<'a>(&'a Csr<()>);

impl Graph for NoSlice<'_> {
    type W = ();
    fn num_vertices(&self) -> usize {
        self.0.num_vertices()
    }
    fn num_arcs(&self) -> usize {
        self.0.num_arcs()
    }
    fn is_directed(&self) -> bool {
        self.0.is_directed()
    }
    fn out_degree(&self, v: Vertex) -> usize {
        self.0.out_degree(v)
    }
    fn for_each_out<F: FnMut(Vertex, ()) -> bool>(&self, v: Vertex, f: F) -> bool {
        self.0.for_each_out(v, f)
    }
}

fn tc(g: &Csr<()>) -> Output {
    let a = run(g, &Params::default()).unwrap();
    assert_eq!(verify(g, &a), Ok(()));
    let b = run(&NoSlice(g), &Params::default()).unwrap();
    assert_eq!(a, b);
    a
}

/// K4:
/// ```text
///   0 --- 1
///   | \ / |
///   | / \ |
///   3 --- 2
/// ```
fn k4(dedup: bool, extra: &[(Vertex, Vertex)]) -> Csr<()> {
    let mut e = vec![(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    e.extend_from_slice(extra);
    graph(false, dedup, 4, &e)
}

#[test]
fn k4_has_four_triangles() {
    let out = tc(&k4(true, &[]));
    assert_eq!(out.total, 4);
    assert_eq!(out.per_vertex, vec![3, 3, 3, 3]);
    // Self loops and duplicate arcs (kept by building a multigraph) change nothing.
    let g = k4(false, &[(0, 0), (2, 2), (0, 1), (1, 0), (3, 2)]);
    assert!(g.num_self_loops() > 0);
    let out = tc(&g);
    assert_eq!(out.total, 4);
    assert_eq!(out.per_vertex, vec![3, 3, 3, 3]);
}

/// The bowtie: two triangles sharing vertex 2, plus a pendant 5 and an isolated 6.
/// ```text
///   0         3
///   | \     / |
///   |  2 ---  |        2 - 5
///   | /     \ |
///   1         4        6
/// ```
#[test]
fn bowtie() {
    let g = graph(
        false,
        true,
        7,
        &[(0, 1), (0, 2), (1, 2), (2, 3), (2, 4), (3, 4), (2, 5)],
    );
    let out = tc(&g);
    assert_eq!(out.total, 2);
    assert_eq!(out.per_vertex, vec![1, 1, 2, 1, 1, 0, 0]);
}

#[test]
fn empty_and_triangle_free() {
    let out = tc(&graph(false, true, 0, &[]));
    assert_eq!(
        out,
        Output {
            total: 0,
            per_vertex: vec![]
        }
    );
    // A 4-cycle and a star: no triangles.
    let out = tc(&graph(
        false,
        true,
        8,
        &[(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (4, 6), (4, 7)],
    ));
    assert_eq!(out.total, 0);
    assert_eq!(out.per_vertex, vec![0; 8]);
}

#[test]
fn directed_graphs_are_refused() {
    let g = graph(true, true, 3, &[(0, 1), (1, 2), (2, 0)]);
    let err = run(&g, &Params::default()).unwrap_err();
    assert!(
        matches!(&err, WealdError::Invalid(m) if m.contains("--undirected")),
        "{err}"
    );
    assert!(verify(
        &g,
        &Output {
            total: 0,
            per_vertex: vec![0; 3]
        }
    )
    .is_err());
}

#[test]
fn verifier_rejects_wrong_counts() {
    let g = k4(true, &[]);
    let good = tc(&g);
    let mut bad = Vec::new();
    let mut o = good.clone();
    o.total = 3;
    bad.push(o);
    let mut o = good.clone();
    o.per_vertex[1] = 2;
    bad.push(o);
    let mut o = good.clone();
    o.per_vertex[1] = 2;
    o.per_vertex[2] = 4; // sums right, per-vertex wrong
    bad.push(o);
    let mut o = good.clone();
    o.per_vertex.push(0);
    bad.push(o);
    let mut o = good.clone();
    o.total = 5;
    o.per_vertex = vec![4, 4, 4, 3];
    bad.push(o);
    for o in bad {
        assert!(verify(&g, &o).is_err(), "{o:?} accepted");
    }
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_graphs(
        (n, edges) in (1u32..200).prop_flat_map(|n| {
            let density = 1usize..8;
            (Just(n), density.prop_flat_map(move |d| proptest::collection::vec((0..n, 0..n), 0..d * n as usize)))
        }),
        dedup in any::<bool>(),
        pick in any::<u32>(),
    ) {
        let g = graph(false, dedup, n as usize, &edges);
        let a = in_pool(1, || run(&g, &Params::default()).unwrap());
        let b = in_pool(2, || run(&g, &Params::default()).unwrap());
        let c = in_pool(2, || run(&NoSlice(&g), &Params::default()).unwrap());
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(&a, &c);
        prop_assert_eq!(verify(&g, &a), Ok(()));
        let mut m = a.clone();
        m.total += 1;
        prop_assert!(verify(&g, &m).is_err());
        let v = (pick % n) as usize;
        let mut m = a.clone();
        m.per_vertex[v] += 1;
        prop_assert!(verify(&g, &m).is_err());
        if a.total > 0 {
            let mut m = a.clone();
            m.total -= 1;
            prop_assert!(verify(&g, &m).is_err());
        }
    }
}
