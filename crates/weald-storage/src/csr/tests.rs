use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use weald_graph::batch::Combine;
use weald_graph::EdgeList;

fn neighbors<W: Weight>(g: &Csr<W>, v: Vertex) -> Vec<(Vertex, W)> {
    let mut out = vec![];
    g.for_each_out(v, |u, w| {
        out.push((u, w));
        true
    });
    out
}

//   0 --- 1
//   |   / |
//   |  /  |      plus a self loop on 3 and a duplicate 1-0
//   2     3 (o)
#[test]
fn symmetric_small() {
    let el = EdgeList::from_triples([
        (0, 1, ()),
        (0, 2, ()),
        (1, 2, ()),
        (1, 3, ()),
        (3, 3, ()),
        (1, 0, ()),
    ]);
    let (g, st) = Csr::build(el.clone(), &BuildOptions::default()).unwrap();
    assert_eq!(g.num_vertices(), 4);
    assert_eq!(g.num_arcs(), 9);
    assert_eq!(g.num_self_loops(), 1);
    assert_eq!(g.num_edges(), 5);
    assert_eq!(st.duplicates_merged, 2);
    assert_eq!(g.out_neighbors_slice(1).unwrap(), &[0, 2, 3]);
    assert_eq!(g.out_neighbors_slice(3).unwrap(), &[1, 3]);
    let opts = BuildOptions {
        drop_self_loops: true,
        ..Default::default()
    };
    let (g, st) = Csr::build(el, &opts).unwrap();
    assert_eq!(st.self_loops_dropped, 1);
    assert_eq!(g.num_edges(), 4);
    assert_eq!(g.num_self_loops(), 0);
}

#[test]
fn directed_with_in_edges_and_relabel() {
    // ids 10 -> 30 -> 20, 10 -> 20
    let el = EdgeList::from_triples([(10, 30, 5i32), (30, 20, 7), (10, 20, 1)]);
    let opts = BuildOptions {
        directed: true,
        relabel: true,
        ..Default::default()
    };
    let (g, st) = Csr::build(el, &opts).unwrap();
    assert_eq!(g.num_vertices(), 3);
    assert_eq!(st.ids_squeezed, 28);
    assert_eq!(g.original_ids().unwrap(), &[10, 20, 30]);
    assert_eq!(neighbors(&g, 0), vec![(1, 1), (2, 5)]);
    let mut ins = vec![];
    g.for_each_in(1, |u, w| {
        ins.push((u, w));
        true
    });
    assert_eq!(ins, vec![(0, 1), (2, 7)]);
    assert_eq!(g.internal_id(30), Some(2));
    assert_eq!(g.internal_id(11), None);
}

#[test]
fn combine_rules() {
    let el = EdgeList::from_triples([(0, 1, 5.0), (0, 1, 2.0), (0, 1, 9.0)]);
    let run = |rule| {
        let opts = BuildOptions {
            directed: true,
            dedup: Some(rule),
            ..Default::default()
        };
        neighbors(&Csr::build(el.clone(), &opts).unwrap().0, 0)
    };
    assert_eq!(run(Combine::Min), vec![(1, 2.0)]);
    assert_eq!(run(Combine::Max), vec![(1, 9.0)]);
    assert_eq!(run(Combine::Sum), vec![(1, 16.0)]);
    assert_eq!(run(Combine::First), vec![(1, 5.0)]);
    assert_eq!(run(Combine::Last), vec![(1, 9.0)]);
    let opts = BuildOptions {
        directed: true,
        dedup: None,
        ..Default::default()
    };
    assert_eq!(Csr::build(el, &opts).unwrap().0.num_arcs(), 3);
}

#[test]
fn out_of_range_is_an_error() {
    let mut el = EdgeList::<()>::new(2);
    el.push(0, 5, ());
    assert!(matches!(
        Csr::build(el, &BuildOptions::default()),
        Err(WealdError::VertexOutOfRange { vertex: 5, .. })
    ));
}

use weald_graph::WealdError;

proptest! {
    #[test]
    fn matches_btreemap_model(
        arcs in proptest::collection::vec((0u32..60, 0u32..60, -5i32..20), 0..3000),
        directed in any::<bool>(),
        drop_loops in any::<bool>(),
    ) {
        let el = EdgeList::from_triples(arcs.iter().copied());
        let opts = BuildOptions { directed, drop_self_loops: drop_loops, dedup: Some(Combine::Min), ..Default::default() };
        let (g, _) = Csr::build(el.clone(), &opts).unwrap();
        let mut model: BTreeMap<(u32, u32), i32> = BTreeMap::new();
        for &(u, v, w) in &arcs {
            if drop_loops && u == v { continue; }
            let mut add = |a, b| { let e = model.entry((a, b)).or_insert(w); *e = (*e).min(w); };
            add(u, v);
            if !directed { add(v, u); }
        }
        let got: BTreeMap<(u32, u32), i32> = g.arcs().map(|(u, v, w)| ((u, v), w)).collect();
        prop_assert_eq!(got.len(), g.num_arcs());
        prop_assert_eq!(&got, &model);
        if directed {
            let mut ins = BTreeMap::new();
            for v in 0..g.num_vertices() as u32 {
                g.for_each_in(v, |u, w| { ins.insert((u, v), w); true });
            }
            prop_assert_eq!(&ins, &model);
        }
        prop_assert!(g.out_adjacency().validate(g.num_vertices()).is_ok());
    }
}

#[test]
fn atomic_and_private_scatter_agree() {
    use std::sync::atomic::Ordering;
    let arcs: Vec<(u32, u32, i32)> = (0..20_000u32)
        .map(|i| ((i * 7919) % 500, (i * 104_729) % 500, (i % 13) as i32))
        .collect();
    for rule in [Combine::Min, Combine::First, Combine::Last, Combine::Sum] {
        for directed in [false, true] {
            let opts = BuildOptions {
                directed,
                dedup: Some(rule),
                ..Default::default()
            };
            let el = EdgeList::from_triples(arcs.iter().copied());
            let (a, _) = Csr::build(el.clone(), &opts).unwrap();
            super::build::FORCE_ATOMIC.store(true, Ordering::Relaxed);
            let (b, _) = Csr::build(el, &opts).unwrap();
            super::build::FORCE_ATOMIC.store(false, Ordering::Relaxed);
            assert_eq!(a, b, "{rule:?} directed={directed}");
        }
    }
}
