use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use weald_graph::batch::Combine;
use weald_graph::{EdgeList, MAX_VERTEX};

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

/// Ids spread up to 2^32 - 2 are relabelled by sorting the endpoints (the bitmap of every id
/// up to the largest would take 512 MiB, and the graph was refused as needing 32 GiB): the
/// result is the graph the same edges give with dense ids, with the spread ids as its map.
#[test]
fn relabel_of_ids_spread_to_the_top_of_the_id_space() {
    let mut x = 12345u64;
    let mut next = |k: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % k
    };
    let arcs: Vec<(Vertex, Vertex, i32)> = (0..300)
        .map(|_| (next(50) as Vertex, next(50) as Vertex, next(9) as i32))
        .collect();
    let spread = |v: Vertex| {
        if v == 49 {
            MAX_VERTEX
        } else {
            v * 80_000_000 + 7
        }
    };
    for directed in [false, true] {
        let opts = BuildOptions {
            directed,
            relabel: true,
            ..Default::default()
        };
        let (dense, _) = Csr::build(EdgeList::from_triples(arcs.clone()), &opts).unwrap();
        let far = arcs.iter().map(|&(u, v, w)| (spread(u), spread(v), w));
        let (g, st) = Csr::build(EdgeList::from_triples(far), &opts).unwrap();
        let ids: Vec<u32> = (0..dense.num_vertices() as Vertex)
            .map(|v| spread(dense.original_id(v) as Vertex))
            .collect();
        assert_eq!(g.original_ids().unwrap(), &ids[..]);
        assert_eq!(*ids.last().unwrap(), MAX_VERTEX);
        assert_eq!(st.ids_squeezed, MAX_VERTEX as u64 + 1 - ids.len() as u64);
        let mut expect = dense.clone();
        expect.forget_original_ids();
        let mut got = g;
        got.forget_original_ids();
        assert_eq!(got, expect, "directed {directed}");
    }
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
