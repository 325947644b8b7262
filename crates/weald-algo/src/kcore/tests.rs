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

fn kcore(g: &Csr<()>) -> Output {
    let out = run(g, &Params::default()).unwrap();
    assert_eq!(verify(g, &out), Ok(()));
    out
}

/// ```text
///   0 --- 1
///   | \ / |
///   | / \ |
///   3 --- 2 --- 4 --- 5        8 (isolated)
///                \   /
///                  6 --- 7     9 (self loop only)
/// ```
/// K4 on {0,1,2,3}: coreness 3; the triangle {4,5,6} hanging off 2: 2; the pendant 7: 1;
/// 8 and 9: 0.
const PICTURE: &[(Vertex, Vertex)] = &[
    (0, 1),
    (0, 2),
    (0, 3),
    (1, 2),
    (1, 3),
    (2, 3),
    (2, 4),
    (4, 5),
    (5, 6),
    (6, 4),
    (6, 7),
    (9, 9),
];

#[test]
fn hand_drawn_coreness() {
    let g = graph(false, true, 10, PICTURE);
    let out = kcore(&g);
    assert_eq!(out.coreness, vec![3, 3, 3, 3, 2, 2, 2, 1, 0, 0]);
    assert_eq!(out.max_core, 3);
    // Extra self loops and duplicate arcs (a multigraph) change nothing.
    let mut e = PICTURE.to_vec();
    e.extend_from_slice(&[(0, 0), (7, 7), (6, 7), (7, 6), (2, 4)]);
    let out = kcore(&graph(false, false, 10, &e));
    assert_eq!(out.coreness, vec![3, 3, 3, 3, 2, 2, 2, 1, 0, 0]);
}

#[test]
fn empty_graphs() {
    assert_eq!(kcore(&graph(false, true, 0, &[])), Output::default());
    let out = kcore(&graph(false, true, 3, &[]));
    assert_eq!(
        out,
        Output {
            coreness: vec![0; 3],
            max_core: 0
        }
    );
}

/// A clique K_150 (coreness 149, beyond the 128 open buckets) with a path 150-151-152
/// attached to vertex 0 (coreness 1).
#[test]
fn large_clique_uses_overflow_buckets() {
    let mut e = Vec::new();
    for u in 0..150 {
        for v in u + 1..150 {
            e.push((u, v));
        }
    }
    e.extend_from_slice(&[(0, 150), (150, 151), (151, 152)]);
    let out = kcore(&graph(false, true, 153, &e));
    assert_eq!(out.max_core, 149);
    assert!(out.coreness[..150].iter().all(|&c| c == 149));
    assert_eq!(&out.coreness[150..], &[1, 1, 1]);
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
            coreness: vec![1; 3],
            max_core: 1
        }
    )
    .is_err());
}

#[test]
fn verifier_rejects_wrong_coreness() {
    let g = graph(false, true, 10, PICTURE);
    let good = kcore(&g);
    let mut bad = Vec::new();
    let mut o = good.clone();
    o.coreness[4] = 3;
    bad.push(o);
    let mut o = good.clone();
    o.coreness[7] = 0;
    bad.push(o);
    let mut o = good.clone();
    o.max_core = 2;
    bad.push(o);
    let mut o = good.clone();
    o.coreness.pop();
    bad.push(o);
    let mut o = good.clone();
    o.coreness[9] = 1; // the self loop does not count
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
            let density = 1usize..10;
            (Just(n), density.prop_flat_map(move |d| proptest::collection::vec((0..n, 0..n), 0..d * n as usize)))
        }),
        dedup in any::<bool>(),
        pick in any::<u32>(),
    ) {
        let g = graph(false, dedup, n as usize, &edges);
        let a = in_pool(1, || run(&g, &Params::default()).unwrap());
        let b = in_pool(2, || run(&g, &Params::default()).unwrap());
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(verify(&g, &a), Ok(()));
        let v = (pick % n) as usize;
        let mut m = a.clone();
        m.coreness[v] += 1;
        prop_assert!(verify(&g, &m).is_err());
        if a.coreness[v] > 0 {
            let mut m = a.clone();
            m.coreness[v] -= 1;
            prop_assert!(verify(&g, &m).is_err());
        }
    }
}
