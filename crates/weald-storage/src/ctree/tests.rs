//! Tests of the C-tree store against `BTreeMap` models and the CSR.

use super::*;
use crate::csr::{BuildOptions, Csr};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use weald_graph::batch::Combine;
use weald_graph::{BatchResult, EdgeList, Graph, InGraph, UpdateBatch, Vertex, Weight};

/// xorshift64*: deterministic randomness without dependencies.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn sorted_unique(mut xs: Vec<(Vertex, i32)>) -> Vec<(Vertex, i32)> {
    xs.sort_by_key(|x| x.0);
    xs.dedup_by_key(|x| x.0);
    xs
}

// ---------------------------------------------------------------- C-tree sets

#[test]
fn set_basics_and_split() {
    // b = 4: about a quarter of the keys are heads, so trees have many nodes.
    let xs: Vec<(Vertex, i32)> = (0..2000).map(|i| (i * 7 + 3, i as i32)).collect();
    let s = CTreeSet::from_sorted(500, 4, &xs);
    s.check();
    assert_eq!(s.len(), 2000);
    assert_eq!(s.to_vec(), xs);
    assert_eq!(s.find(10), Some(1));
    assert_eq!(s.find(11), None);
    let (l, f, r) = s.split(7 * 1000 + 3);
    l.check();
    r.check();
    assert_eq!(f, Some(1000));
    assert_eq!(l.to_vec(), xs[..1000].to_vec());
    assert_eq!(r.to_vec(), xs[1001..].to_vec());
    let (l, f, r) = s.split(7 * 1000 + 4);
    assert_eq!(f, None);
    assert_eq!(l.len() + r.len(), 2001 - 1);
    let sum = s.map_reduce(|_, w| w as i64, |a, b| a + b, || 0);
    assert_eq!(sum, (0..2000).sum::<i64>());
    let mut seen = vec![];
    assert!(!s.for_each(|x, _| {
        seen.push(x);
        x < 20
    }));
    assert_eq!(seen, vec![3, 10, 17, 24]);
    let count = std::sync::atomic::AtomicUsize::new(0);
    s.par_for_each(|_, _| {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(count.into_inner(), 2000);
}

fn model_set(s: &CTreeSet<i32>) -> BTreeMap<Vertex, i32> {
    s.to_vec().into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn set_ops_match_btreemap(
        a in proptest::collection::vec((0u32..3000, -50i32..50), 0..600),
        b in proptest::collection::vec((0u32..3000, -50i32..50), 0..600),
        bsz in prop_oneof![Just(1u32), Just(2), Just(8), Just(256)],
        base in 0u32..3000,
        k in 0u32..3000,
        rule_i in 0usize..5,
    ) {
        let rule = [Combine::Min, Combine::Max, Combine::Sum, Combine::First, Combine::Last][rule_i];
        let (a, b) = (sorted_unique(a), sorted_unique(b));
        let sa = CTreeSet::from_sorted(base, bsz, &a);
        let sb = CTreeSet::from_sorted(base.wrapping_add(17), bsz, &b);
        sa.check();
        sb.check();
        let ma: BTreeMap<Vertex, i32> = a.iter().copied().collect();
        let mb: BTreeMap<Vertex, i32> = b.iter().copied().collect();
        prop_assert_eq!(model_set(&sa), ma.clone());
        // union, both ways round
        let mut mu = ma.clone();
        for (&x, &w) in &mb {
            mu.entry(x).and_modify(|o| *o = o.combine(w, rule)).or_insert(w);
        }
        let u = sa.union(&sb, rule);
        u.check();
        prop_assert_eq!(model_set(&u), mu.clone());
        prop_assert_eq!(u.len(), mu.len());
        let u2 = sa.insert_sorted(&b, rule);
        u2.check();
        prop_assert_eq!(model_set(&u2), mu);
        // difference and intersection
        let d = sa.difference(&sb);
        d.check();
        let md: BTreeMap<Vertex, i32> = ma.iter().filter(|(x, _)| !mb.contains_key(x)).map(|(&x, &w)| (x, w)).collect();
        prop_assert_eq!(model_set(&d), md);
        let i = sa.intersection(&sb);
        i.check();
        let mi: BTreeMap<Vertex, i32> = ma.iter().filter(|(x, _)| mb.contains_key(x)).map(|(&x, &w)| (x, w)).collect();
        prop_assert_eq!(model_set(&i), mi);
        // split
        let (l, f, r) = sa.split(k);
        l.check();
        r.check();
        prop_assert_eq!(f, ma.get(&k).copied());
        prop_assert_eq!(model_set(&l), ma.range(..k).map(|(&x, &w)| (x, w)).collect::<BTreeMap<_, _>>());
        prop_assert_eq!(model_set(&r), ma.range(k + 1..).map(|(&x, &w)| (x, w)).collect::<BTreeMap<_, _>>());
        // finds
        for x in (0..3000).step_by(37) {
            prop_assert_eq!(sa.find(x), ma.get(&x).copied());
        }
        // the old version is untouched by all of the above
        prop_assert_eq!(sa.to_vec(), a);
    }
}

#[test]
fn set_repeated_updates() {
    let mut rng = Rng(7);
    for &b in &[1u32, 3, 16, 256] {
        let mut s = CTreeSet::<i32>::new(1000, b);
        let mut m = BTreeMap::new();
        for _ in 0..150 {
            let k = rng.below(200) as usize;
            let xs: Vec<(Vertex, i32)> = (0..k)
                .map(|_| (rng.below(5000) as Vertex, rng.below(100) as i32))
                .collect();
            let xs = sorted_unique(xs);
            if rng.below(3) == 0 {
                let ks: Vec<Vertex> = xs.iter().map(|x| x.0).collect();
                s = s.delete_sorted(&ks);
                for k in ks {
                    m.remove(&k);
                }
            } else {
                s = s.insert_sorted(&xs, Combine::Sum);
                for (x, w) in xs {
                    *m.entry(x).or_insert(0) += w;
                }
            }
            s.check();
            assert_eq!(s.len(), m.len());
        }
        assert_eq!(model_set(&s), m);
    }
}

// ---------------------------------------------------------------- graphs

/// The model: vertex set and arcs (both directions for symmetric graphs).
#[derive(Clone, Default, PartialEq, Debug)]
struct Model {
    directed: bool,
    vs: BTreeSet<Vertex>,
    arcs: BTreeMap<(Vertex, Vertex), i32>,
}

impl Model {
    fn key(&self, u: Vertex, v: Vertex) -> (Vertex, Vertex) {
        if self.directed {
            (u, v)
        } else {
            (u.min(v), u.max(v))
        }
    }

    fn apply(&mut self, b: &UpdateBatch<i32>, rule: Combine) -> BatchResult {
        let mut r = BatchResult::default();
        self.vs.extend(b.insert_vertices.iter().copied());
        // insert edges: combine duplicates in input order first
        let mut distinct: BTreeMap<(Vertex, Vertex), i32> = BTreeMap::new();
        for &(u, v, w) in &b.insert_edges {
            distinct
                .entry(self.key(u, v))
                .and_modify(|o| *o = o.combine(w, rule))
                .or_insert(w);
        }
        for ((u, v), w) in distinct {
            self.vs.insert(u);
            self.vs.insert(v);
            let nw = match self.arcs.get(&(u, v)) {
                Some(&o) => {
                    r.updated += 1;
                    o.combine(w, rule)
                }
                None => {
                    r.inserted += 1;
                    w
                }
            };
            self.arcs.insert((u, v), nw);
            if !self.directed {
                self.arcs.insert((v, u), nw);
            }
        }
        let distinct: BTreeSet<(Vertex, Vertex)> = b
            .delete_edges
            .iter()
            .map(|&(u, v)| self.key(u, v))
            .collect();
        for (u, v) in distinct {
            if self.arcs.remove(&(u, v)).is_some() {
                if !self.directed {
                    self.arcs.remove(&(v, u));
                }
                r.deleted += 1;
            } else {
                r.absent += 1;
            }
        }
        let dv: BTreeSet<Vertex> = b.delete_vertices.iter().copied().collect();
        for &v in &dv {
            if self.vs.remove(&v) {
                r.deleted += 1;
            } else {
                r.absent += 1;
            }
        }
        let before = self.arcs.len();
        let loops_before = self.arcs.keys().filter(|(u, v)| u == v).count();
        self.arcs
            .retain(|(u, v), _| !dv.contains(u) && !dv.contains(v));
        let removed = before - self.arcs.len();
        let loops_removed = loops_before - self.arcs.keys().filter(|(u, v)| u == v).count();
        r.deleted += if self.directed {
            removed
        } else {
            (removed + loops_removed) / 2
        } as u64;
        r
    }

    fn n(&self) -> usize {
        self.vs.last().map_or(0, |&m| m as usize + 1)
    }
}

fn graph_arcs<G: Graph<W = i32>>(g: &G) -> BTreeMap<(Vertex, Vertex), i32> {
    let mut m = BTreeMap::new();
    for u in 0..g.num_vertices() as Vertex {
        let mut prev = None;
        let mut deg = 0;
        let whole = g.for_each_out(u, |v, w| {
            assert!(prev.is_none_or(|p| p < v), "neighbours out of order");
            prev = Some(v);
            deg += 1;
            m.insert((u, v), w);
            true
        });
        assert!(whole, "a complete out-scan of {u} reports a stop");
        assert_eq!(deg, g.out_degree(u));
        // The look-ahead scan: the same arcs in the same order; `ahead` gets neighbours only,
        // in increasing order, each before `f` gets it (each chunk's elements: all but the
        // heads of later chunks).
        let (got, ahead) = (
            std::cell::RefCell::new(Vec::<(Vertex, i32)>::new()),
            std::cell::RefCell::new(Vec::new()),
        );
        g.for_each_out_ahead(
            u,
            3,
            |a| {
                assert!(!got.borrow().iter().any(|x| x.0 == a), "ahead({a}) after f");
                ahead.borrow_mut().push(a)
            },
            |v, w| got.borrow_mut().push((v, w)),
        );
        let want: Vec<(Vertex, i32)> = m
            .range((u, 0)..=(u, Vertex::MAX))
            .map(|(k, w)| (k.1, *w))
            .collect();
        assert_eq!(got.into_inner(), want, "look-ahead scan of {u}");
        // The look-ahead fold: the same arcs in the same order.
        let (k, all) = g.fold_out_ahead(
            u,
            3,
            |_| {},
            (0, true),
            |(i, ok), v, w| (i + 1, ok && want.get(i) == Some(&(v, w))),
        );
        assert!(
            k == want.len() && all,
            "fold_out_ahead of {u}: {k} of {}",
            want.len()
        );
        // The weights-only fold: the same weights, in arc order (the tree's heads included).
        let (k, all) = g.fold_out_weights(u, (0, true), |(i, ok), w| {
            (i + 1, ok && want.get(i).is_some_and(|x| x.1 == w))
        });
        assert!(
            k == want.len() && all,
            "weights of {u}: {k} of {}",
            want.len()
        );
        stops_early(&want, |f| g.for_each_out(u, f), &format!("out-scan of {u}"));
        let ahead = ahead.into_inner();
        assert!(ahead.windows(2).all(|p| p[0] < p[1]), "ahead out of order");
        assert!(
            ahead.iter().all(|a| want.iter().any(|x| x.0 == *a)),
            "ahead: not a neighbour"
        );
    }
    assert_eq!(m.len(), g.num_arcs());
    m
}

/// A scan (`scan(f)`, with early exit) of a vertex whose neighbours are `want`, stopped by `f`
/// after its first, second, third, last and (if it has more) one but last neighbour: it
/// reports the stop and has given exactly those neighbours, in order. (The flat snapshot gives
/// the first from the vertex's lead and the rest from its tree.)
fn stops_early<W: Copy + PartialEq + std::fmt::Debug>(
    want: &[(Vertex, W)],
    scan: impl Fn(&mut dyn FnMut(Vertex, W) -> bool) -> bool,
    what: &str,
) {
    let d = want.len();
    for k in [1, 2, 3, d.saturating_sub(1), d] {
        if k == 0 || k > d {
            continue;
        }
        let mut got = Vec::new();
        let done = scan(&mut |v, w| {
            got.push((v, w));
            got.len() < k
        });
        assert!(
            !done,
            "{what}: a scan stopped after {k} reports it ran to the end"
        );
        assert_eq!(got, want[..k], "{what}: stopped after {k}");
    }
}

/// `fold_in` of `v` gives exactly the in-arcs `want`, in order (the trees' heads included).
fn folds_in_order<G: InGraph>(g: &G, v: Vertex, want: &[(Vertex, G::W)], what: &str) {
    let (k, all) = g.fold_in(v, (0, true), |(i, ok), u, w| {
        (i + 1, ok && want.get(i) == Some(&(u, w)))
    });
    assert!(
        k == want.len() && all,
        "fold_in, {what}: {k} of {}",
        want.len()
    );
}

/// How many neighbours a look-ahead scan of every vertex hands to `ahead`.
fn ahead_count<G: Graph>(g: &G) -> usize {
    let c = std::cell::Cell::new(0);
    for u in 0..g.num_vertices() as Vertex {
        g.for_each_out_ahead(u, 3, |_| c.set(c.get() + 1), |_, _| {});
    }
    c.get()
}

fn in_arcs<G: InGraph<W = i32>>(g: &G) -> BTreeMap<(Vertex, Vertex), i32> {
    let mut m = BTreeMap::new();
    for v in 0..g.num_vertices() as Vertex {
        let mut seen = Vec::new();
        let whole = g.for_each_in(v, |u, w| {
            seen.push((u, w));
            m.insert((u, v), w);
            true
        });
        assert!(whole, "a complete in-scan of {v} reports a stop");
        assert_eq!(seen.len(), g.in_degree(v));
        stops_early(&seen, |f| g.for_each_in(v, f), &format!("in-scan of {v}"));
        folds_in_order(g, v, &seen, &format!("vertex {v}"));
    }
    m
}

fn same(got: &BTreeMap<(Vertex, Vertex), i32>, want: &BTreeMap<(Vertex, Vertex), i32>, what: &str) {
    let extra: Vec<_> = got.iter().filter(|(k, v)| want.get(k) != Some(v)).collect();
    let missing: Vec<_> = want.iter().filter(|(k, v)| got.get(k) != Some(v)).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "{what}: extra {extra:?} missing {missing:?}"
    );
}

fn check_graph(g: &CTreeGraph<i32>, m: &Model) {
    g.check();
    assert_eq!(g.num_vertices(), m.n());
    same(&graph_arcs(g), &m.arcs, "out-arcs");
    assert_eq!(g.vertices(), m.vs.iter().copied().collect::<Vec<_>>());
    if g.has_in_edges() {
        same(&in_arcs(g), &m.arcs, "in-arcs");
    }
    let f = FlatSnapshot::new(g);
    assert_eq!(f.num_vertices(), m.n());
    for v in 0..m.n() as Vertex + 2 {
        assert_eq!(f.has_vertex(v), m.vs.contains(&v), "flat presence of {v}");
        // A hint: never changes what is read, in range or not.
        f.prefetch_out(v);
        f.prefetch_in(v);
    }
    assert_eq!(graph_arcs(&f), m.arcs);
    // Self loops, counted by the vertex tree, and the edge count built on them.
    let loops = m.arcs.keys().filter(|(u, v)| u == v).count();
    assert_eq!(g.num_self_loops(), loops);
    assert_eq!(f.num_self_loops(), loops);
    assert_eq!(weald_graph::traits::count_self_loops(g), loops);
    // The weight summary, from the weights-only folds, equals the model's (integer weights:
    // sums are exact whatever their grouping); the snapshot's second answer is its cached one.
    let ws: Vec<i32> = m.arcs.values().copied().collect();
    let want = weald_graph::WeightSummary::of_weights(&ws);
    assert_eq!(g.weight_summary(), want);
    assert_eq!(f.weight_summary(), want);
    assert_eq!(f.weight_summary(), want);
    // Both C-tree views implement the look-ahead (the trait's default hands out nothing on a
    // graph without slices); only heads are never handed out: with b = 1 all are, with b >= 2
    // at most half of them on average.
    if g.options().b > 1 && m.arcs.len() >= 64 {
        assert!(
            ahead_count(g) > 0 && ahead_count(&f) > 0,
            "no neighbour handed to ahead"
        );
    }
    if f.has_in_edges() {
        assert_eq!(in_arcs(&f), m.arcs);
    }
    check_relabelled(g, m);
}

/// `g.relabelled()` holds the model's present vertices as `0..k` and its arcs (and in-arcs)
/// under the renumbering.
fn check_relabelled(g: &CTreeGraph<i32>, m: &Model) {
    let (r, ids) = g.relabelled();
    r.check();
    assert_eq!(ids, m.vs.iter().copied().collect::<Vec<_>>());
    assert_eq!(r.num_vertices(), ids.len());
    assert_eq!(r.vertices(), (0..ids.len() as Vertex).collect::<Vec<_>>());
    assert_eq!(r.num_arcs(), m.arcs.len());
    assert!(!r.ids_are_sparse());
    let back = |a: BTreeMap<(Vertex, Vertex), i32>| -> BTreeMap<(Vertex, Vertex), i32> {
        a.into_iter()
            .map(|((u, v), w)| ((ids[u as usize], ids[v as usize]), w))
            .collect()
    };
    assert_eq!(back(graph_arcs(&r)), m.arcs);
    assert_eq!(r.has_in_edges(), g.has_in_edges());
    if r.has_in_edges() {
        assert_eq!(back(in_arcs(&r)), m.arcs);
    }
}

fn random_batch(rng: &mut Rng, nv: u64, size: usize) -> UpdateBatch<i32> {
    let mut b = UpdateBatch::new();
    let k = rng.below(size as u64 + 1) as usize;
    for _ in 0..k {
        let u = rng.below(nv) as Vertex;
        // clustered neighbours, some far away, some self loops
        let v = match rng.below(4) {
            0 => u,
            1 => rng.below(nv) as Vertex,
            _ => (u as u64 + rng.below(8)).min(nv - 1) as Vertex,
        };
        b.insert_edges.push((u, v, rng.below(20) as i32 - 5));
    }
    for _ in 0..rng.below(size as u64 / 2 + 1) {
        let u = rng.below(nv) as Vertex;
        let v = if rng.below(2) == 0 {
            (u as u64 + rng.below(8)).min(nv - 1) as Vertex
        } else {
            rng.below(nv) as Vertex
        };
        b.delete_edges.push((u, v));
    }
    if rng.below(3) == 0 {
        for _ in 0..rng.below(4) {
            b.insert_vertices.push(rng.below(nv + 10) as Vertex);
        }
    }
    if rng.below(3) == 0 {
        for _ in 0..rng.below(3) {
            b.delete_vertices.push(rng.below(nv + 5) as Vertex);
        }
    }
    b
}

fn run_model_test(seed: u64, opts: CTreeOptions, rule: Combine, nv: u64, batches: usize) {
    let mut rng = Rng(seed);
    let mut g = CTreeGraph::<i32>::new(opts);
    let mut m = Model {
        directed: opts.directed,
        ..Default::default()
    };
    let mut history: Vec<(CTreeGraph<i32>, Model)> = vec![(g.clone(), m.clone())];
    // The same batches applied in place to a graph of its own, which at times a clone holds
    // (then what the clone shares must be copied, and the clone must not change).
    let mut own = CTreeGraph::<i32>::new(opts);
    let mut held: Option<(CTreeGraph<i32>, Model)> = None;
    let indexed_before = super::vtree::INDEXED_BATCHES.get();
    for i in 0..batches {
        let size = [0usize, 1, 10, 200, 2000][rng.below(5) as usize];
        let b = random_batch(&mut rng, nv, size);
        if std::env::var("CTREE_DEBUG").is_ok() {
            let mut gg = g.clone();
            let mut mm = m.clone();
            let parts = [
                UpdateBatch {
                    insert_vertices: b.insert_vertices.clone(),
                    ..Default::default()
                },
                UpdateBatch {
                    insert_edges: b.insert_edges.clone(),
                    ..Default::default()
                },
                UpdateBatch {
                    delete_edges: b.delete_edges.clone(),
                    ..Default::default()
                },
                UpdateBatch {
                    delete_vertices: b.delete_vertices.clone(),
                    ..Default::default()
                },
            ];
            for (pi, p) in parts.iter().enumerate() {
                let (g3, r3) = gg.apply(p, rule);
                let rm = mm.apply(p, rule);
                eprintln!("batch {i} part {pi}: {p:?}");
                assert_eq!(r3, rm, "part {pi}");
                check_graph(&g3, &mm);
                gg = g3;
            }
        }
        let (g2, r) = g.apply(&b, rule);
        let r_model = m.apply(&b, rule);
        assert_eq!(
            r, r_model,
            "batch {i} counts (seed {seed}, {opts:?}, {rule:?})"
        );
        check_graph(&g2, &m);
        g = g2;
        history.push((g.clone(), m.clone()));
        // Every other batch goes down the tree even when the block index is valid.
        super::vtree::INDEX_OFF.set(i % 2 == 1);
        let r_own = own.apply_mut(&b, rule);
        super::vtree::INDEX_OFF.set(false);
        assert_eq!(r_own, r_model, "batch {i} counts in place (seed {seed})");
        check_graph(&own, &m);
        if let Some((h, hm)) = &held {
            check_graph(h, hm);
        }
        match i % 5 {
            1 => held = Some((own.clone(), m.clone())),
            3 => held = None,
            _ => {}
        }
    }
    // Snapshot isolation: every old version still holds exactly its model.
    for (old, om) in &history {
        assert_eq!(graph_arcs(old), om.arcs);
        assert_eq!(old.num_vertices(), om.n());
    }
    assert!(
        super::vtree::INDEXED_BATCHES.get() > indexed_before,
        "no in-place update took the block index (seed {seed})"
    );
}

#[test]
fn graph_matches_model_symmetric() {
    for (seed, rule, b) in [
        (1, Combine::Min, 4),
        (2, Combine::Last, 256),
        (3, Combine::Sum, 1),
    ] {
        let opts = CTreeOptions {
            directed: false,
            in_edges: false,
            b,
        };
        run_model_test(seed, opts, rule, 300, 40);
    }
}

#[test]
fn graph_matches_model_directed() {
    for (seed, rule, ins, b) in [
        (4, Combine::First, true, 4),
        (5, Combine::Max, false, 256),
        (6, Combine::Min, true, 2),
    ] {
        let opts = CTreeOptions {
            directed: true,
            in_edges: ins,
            b,
        };
        run_model_test(seed, opts, rule, 300, 40);
    }
}

#[test]
fn graph_small_id_space_dense() {
    // Few vertices, many updates: dense neighbour lists, many heads with b = 2.
    let opts = CTreeOptions {
        directed: false,
        in_edges: false,
        b: 2,
    };
    run_model_test(11, opts, Combine::Min, 40, 30);
    let opts = CTreeOptions {
        directed: true,
        in_edges: true,
        b: 8,
    };
    run_model_test(12, opts, Combine::Last, 40, 30);
}

#[test]
fn ids_spread_to_the_top_of_the_id_space_are_sparse_and_relabel() {
    for directed in [false, true] {
        let opts = CTreeOptions {
            directed,
            in_edges: true,
            b: 4,
        };
        let top = weald_graph::MAX_VERTEX;
        let g = CTreeGraph::new(opts)
            .insert_edges(&[(0, 1, 5), (1, top, 7), (top, top, 9)], Combine::Min)
            .0
            .insert_vertices(&[1000])
            .0;
        assert_eq!(g.num_vertices(), top as usize + 1);
        assert!(g.ids_are_sparse());
        let (r, ids) = g.relabelled();
        r.check();
        assert_eq!(ids, vec![0, 1, 1000, top]);
        assert_eq!(r.num_self_loops(), 1);
        let mut want = vec![(0, 1, 5), (1, 3, 7), (3, 3, 9)];
        if !directed {
            want.extend([(1, 0, 5), (3, 1, 7)]);
            want.sort();
        }
        assert_eq!(r.arcs(), want);
        assert_eq!(r.out_degree(2), 0);
        assert!(r.has_vertex(2));
        // The bound: 2 present ids of 0..128 are one in 64, of 0..129 fewer.
        let e = CTreeGraph::<i32>::new(opts);
        assert!(!e.insert_vertices(&[0, 127]).0.ids_are_sparse());
        assert!(e.insert_vertices(&[0, 128]).0.ids_are_sparse());
    }
}

//   0 --- 1
//   |   / |
//   |  /  |      plus a self loop on 3
//   2     3 (o)
#[test]
fn tiny_symmetric_by_hand() {
    let g = CTreeGraph::<()>::new(CTreeOptions::default());
    let (g, r) = g.insert_edges(
        &[
            (0, 1, ()),
            (0, 2, ()),
            (1, 2, ()),
            (1, 3, ()),
            (3, 3, ()),
            (1, 0, ()),
        ],
        Combine::Min,
    );
    assert_eq!(
        r,
        BatchResult {
            inserted: 5,
            updated: 0,
            deleted: 0,
            absent: 0
        }
    );
    assert_eq!(g.num_vertices(), 4);
    assert_eq!(g.num_arcs(), 9);
    assert_eq!(g.num_edges(), 5);
    let mut n1 = vec![];
    g.for_each_out(1, |u, _| {
        n1.push(u);
        true
    });
    assert_eq!(n1, vec![0, 2, 3]);
    let (g2, r) = g.delete_edges(&[(3, 1), (0, 3), (3, 3)]);
    assert_eq!(
        r,
        BatchResult {
            inserted: 0,
            updated: 0,
            deleted: 2,
            absent: 1
        }
    );
    assert_eq!(g2.num_arcs(), 6);
    let (g3, r) = g.delete_vertices(&[1, 9]);
    // vertex 1 and its edges 0-1, 1-2, 1-3
    assert_eq!(
        r,
        BatchResult {
            inserted: 0,
            updated: 0,
            deleted: 4,
            absent: 1
        }
    );
    assert_eq!(g3.num_arcs(), 3);
    assert_eq!(g3.out_degree(1), 0);
    assert!(!g3.has_vertex(1));
    assert_eq!(g.num_arcs(), 9, "old version unchanged");
    let (g4, _) = g3.delete_vertices(&[3]);
    assert_eq!(g4.num_vertices(), 3);
    assert_eq!(g4.num_arcs(), 2);
}

#[test]
fn high_degree_vertex() {
    // One vertex with 150,000 neighbours, built in three batches, then thinned.
    let opts = CTreeOptions {
        directed: true,
        in_edges: true,
        b: 256,
    };
    let g = CTreeGraph::<i32>::new(opts);
    let hub = 77u32;
    let mut model: BTreeMap<Vertex, i32> = BTreeMap::new();
    let mut g = g;
    for part in 0..3u32 {
        let batch: Vec<(Vertex, Vertex, i32)> = (0..50_000u32)
            .map(|i| (hub, i * 3 + part, (i % 100) as i32))
            .collect();
        for &(_, v, w) in &batch {
            model.insert(v, w);
        }
        g = g.insert_edges(&batch, Combine::Min).0;
    }
    assert_eq!(g.out_degree(hub), 150_000);
    assert_eq!(g.num_arcs(), 150_000);
    let hub_arcs = |g: &CTreeGraph<i32>| {
        let mut got = Vec::new();
        g.for_each_out(hub, |v, w| {
            got.push((v, w));
            true
        });
        got
    };
    assert_eq!(
        hub_arcs(&g),
        model.iter().map(|(&v, &w)| (v, w)).collect::<Vec<_>>()
    );
    // the weights-only fold walks the tree's chunks and heads in order
    let ws = g.fold_out_weights(hub, (0u64, 0u64), |(i, h), w| {
        (i + 1, h.wrapping_mul(31).wrapping_add(w as u64))
    });
    let want = model.values().fold((0u64, 0u64), |(i, h), &w| {
        (i + 1, h.wrapping_mul(31).wrapping_add(w as u64))
    });
    assert_eq!(ws, want);
    // parallel traversal sees every neighbour once
    let sum = std::sync::atomic::AtomicU64::new(0);
    g.par_for_each_out(hub, |v, _| {
        sum.fetch_add(v as u64, std::sync::atomic::Ordering::Relaxed);
    });
    assert_eq!(
        sum.into_inner(),
        model.keys().map(|&v| v as u64).sum::<u64>()
    );
    // with look-ahead: every arc once (with its weight), and `ahead` only on neighbours, on
    // the graph, its flat snapshot and the CSR of the same arcs
    type Ahead<'a> = &'a (dyn Fn(Vertex) + Sync);
    type Visit<'a> = &'a (dyn Fn(Vertex, i32) + Sync);
    let check_par = |g: &dyn Fn(Ahead<'_>, Visit<'_>)| {
        let got = std::sync::Mutex::new(Vec::new());
        let ahead = std::sync::atomic::AtomicU64::new(0);
        g(
            &|a| {
                assert!(model.contains_key(&a), "ahead: {a} is not a neighbour");
                ahead.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            },
            &|v, w| got.lock().unwrap().push((v, w)),
        );
        let mut got = got.into_inner().unwrap();
        got.sort_unstable();
        assert_eq!(got, model.iter().map(|(&v, &w)| (v, w)).collect::<Vec<_>>());
        // All but a few neighbours are handed out: the CSR's first 16, the C-tree's heads
        // (about one in 256).
        let a = ahead.into_inner() as usize;
        assert!(
            a <= model.len() && a >= model.len() - model.len() / 64,
            "ahead got {a}"
        );
    };
    check_par(&|a, f| g.par_for_each_out_ahead(hub, 16, a, f));
    let flat = FlatSnapshot::new(&g);
    check_par(&|a, f| flat.par_for_each_out_ahead(hub, 16, a, f));
    let csr = Csr::from_graph(&g);
    check_par(&|a, f| csr.par_for_each_out_ahead(hub, 16, a, f));
    // the CSR's plain parallel scan (the look-ahead one with nothing handed ahead)
    let got = std::sync::Mutex::new(Vec::new());
    csr.par_for_each_out(hub, |v, w| got.lock().unwrap().push((v, w)));
    let mut got = got.into_inner().unwrap();
    got.sort_unstable();
    assert_eq!(got, model.iter().map(|(&v, &w)| (v, w)).collect::<Vec<_>>());
    // delete every other neighbour
    let del: Vec<(Vertex, Vertex)> = (0..150_000u32).step_by(2).map(|v| (hub, v)).collect();
    let (g2, r) = g.delete_edges(&del);
    assert_eq!(r.deleted, 75_000);
    assert_eq!(g2.out_degree(hub), 75_000);
    assert_eq!(g.out_degree(hub), 150_000);
    g2.check();
    assert_eq!(g2.in_degree(1), 1);
    assert_eq!(g2.in_degree(2), 0);
    // chunks: about 150,000 / 256 tree nodes, about one byte per gap
    let mem = g.memory_bytes();
    assert!(mem.chunk_bytes < 150_000 * 24, "{mem:?}");
    // In place, on a hub tree nothing else holds: a batch of non-heads large enough for the
    // parallel descent (nodes kept, tails spliced in place), then deletions that also take
    // heads out (those subtrees path-copied), against the model.
    drop(g);
    let mut g2 = g2;
    let heads = super::Heads::new(256);
    let mut model: BTreeMap<Vertex, i32> = model.into_iter().filter(|e| e.0 % 2 == 1).collect();
    let ins: Vec<(Vertex, Vertex, i32)> = (0..150_000u32)
        .step_by(4)
        .filter(|&v| !heads.is_head(v))
        .map(|v| (hub, v, 7))
        .collect();
    assert!(ins.len() > 30_000);
    for &(_, v, w) in &ins {
        model.insert(v, w);
    }
    let r = g2.insert_edges_mut(&ins, Combine::Min);
    assert_eq!(r.inserted, ins.len() as u64);
    let del: Vec<(Vertex, Vertex)> = (1..150_000u32).step_by(6).map(|v| (hub, v)).collect();
    for &(_, v) in &del {
        model.remove(&v);
    }
    g2.delete_edges_mut(&del);
    g2.check();
    assert_eq!(
        hub_arcs(&g2),
        model.iter().map(|(&v, &w)| (v, w)).collect::<Vec<_>>()
    );
    // In place with new heads, three batches of every `step`-th id from `from` (heads
    // included; some ids present, whose weights combine by `rule`), each run on a pool of one
    // thread so that the tree's thread-local test counters see all of its work. A new head
    // lands in a chunk that is split there, the batch's other elements are spliced in place,
    // and a node that a new subtree outranks is joined anew (`check` verifies the treap order
    // and the sizes).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut insert = |g: &mut CTreeGraph<i32>, from: u32, step: usize, rule: Combine| {
        let ins: Vec<(Vertex, Vertex, i32)> = (from..150_000u32)
            .step_by(step)
            .map(|v| (hub, v, 3 + (v % 9) as i32))
            .collect();
        let new_heads = ins
            .iter()
            .filter(|e| heads.is_head(e.1) && !model.contains_key(&e.1))
            .count();
        assert!(new_heads > 10, "{new_heads} new heads");
        let (r, below_kept, rejoins) = pool.install(|| {
            let (b, j) = (
                super::tree::HEADS_BELOW_KEPT.get(),
                super::tree::REJOINS.get(),
            );
            let r = g.insert_edges_mut(&ins, rule);
            (
                r,
                super::tree::HEADS_BELOW_KEPT.get() - b,
                super::tree::REJOINS.get() - j,
            )
        });
        let mut inserted = 0;
        for &(_, v, w) in &ins {
            inserted += u64::from(!model.contains_key(&v));
            model
                .entry(v)
                .and_modify(|o| *o = o.combine(w, rule))
                .or_insert(w);
        }
        assert_eq!(r.inserted, inserted);
        g.check();
        assert_eq!(
            hub_arcs(g),
            model.iter().map(|(&v, &w)| (v, w)).collect::<Vec<_>>()
        );
        (below_kept, rejoins)
    };
    // A clone holds the graph: the hub's block array is shared, so the first batch copies
    // the tree (`Cur::Shared`, `insert_rec`); the second then finds that copy's new nodes
    // unshared above subtrees the clone still holds, and goes in place over them. The clone
    // keeps its arcs throughout.
    let held = g2.clone();
    let held_arcs = hub_arcs(&held);
    assert_eq!(insert(&mut g2, 2, 5, Combine::Min), (0, 0));
    let (below_kept, _) = insert(&mut g2, 4, 7, Combine::Last);
    assert!(below_kept > 0);
    assert_eq!(hub_arcs(&held), held_arcs);
    drop(held);
    // Nothing else holds the tree: every new head is inserted below a node kept in place.
    let (below_kept, rejoins) = insert(&mut g2, 6, 11, Combine::First);
    assert!(below_kept > 10 && rejoins > 0, "{below_kept} {rejoins}");
    // deleting the hub removes everything
    let (g3, r) = g2.delete_vertices(&[hub]);
    assert_eq!(r.deleted, model.len() as u64 + 1);
    assert_eq!(g3.num_arcs(), 0);
    g3.check();
}

#[test]
fn same_neighbours_as_csr() {
    let mut rng = Rng(99);
    for directed in [false, true] {
        let mut el = EdgeList::<i32>::new(2000);
        for _ in 0..20_000 {
            let u = rng.below(2000) as Vertex;
            let v = if rng.below(2) == 0 {
                rng.below(2000) as Vertex
            } else {
                (u as u64 + rng.below(30)).min(1999) as Vertex
            };
            el.push(u, v, rng.below(50) as i32);
        }
        // a hub
        for v in 0..2000 {
            el.push(5, v, 1);
        }
        let bo = BuildOptions {
            directed,
            ..Default::default()
        };
        let (csr, _) = Csr::build(el.clone(), &bo).unwrap();
        let opts = CTreeOptions {
            directed,
            in_edges: true,
            b: 16,
        };
        let a = CTreeGraph::from_edge_list(&el, opts, Combine::Min).unwrap();
        let b = CTreeGraph::from_csr(&csr, 16);
        a.check();
        b.check();
        for g in [&a, &b] {
            assert_eq!(g.num_vertices(), csr.num_vertices());
            assert_eq!(g.num_arcs(), csr.num_arcs());
            assert_eq!(g.num_self_loops(), csr.num_self_loops());
            assert_eq!(graph_arcs(g), graph_arcs(&csr));
            assert_eq!(in_arcs(g), in_arcs(&csr));
        }
    }
}

#[test]
fn edge_list_out_of_range_is_an_error() {
    let mut el = EdgeList::<()>::new(2);
    el.push(0, 5, ());
    assert!(CTreeGraph::from_edge_list(&el, CTreeOptions::default(), Combine::Min).is_err());
}

#[test]
fn directed_without_in_trees() {
    let opts = CTreeOptions {
        directed: true,
        in_edges: false,
        b: 4,
    };
    let g = CTreeGraph::<()>::new(opts);
    let (g, _) = g.insert_edges(&[(0, 1, ()), (2, 1, ()), (1, 3, ())], Combine::Min);
    assert!(!g.has_in_edges());
    assert_eq!(g.num_vertices(), 4);
    assert!(g.has_vertex(3));
    let (g2, r) = g.delete_vertices(&[1]);
    assert_eq!(r.deleted, 4);
    assert_eq!(g2.num_arcs(), 0);
}

#[test]
fn deleting_a_sink_removes_its_in_arcs() {
    // Vertex 1 has in-arcs but no out-arcs (no out-tree): its in-arcs must still go.
    let opts = CTreeOptions {
        directed: true,
        in_edges: true,
        b: 4,
    };
    let g = CTreeGraph::<()>::new(opts);
    let (g, _) = g.insert_edges(&[(0, 1, ()), (2, 1, ()), (0, 2, ())], Combine::Min);
    assert_eq!(g.out_degree(1), 0);
    let (g2, r) = g.delete_vertices(&[1, 4]);
    assert_eq!(
        (r.deleted, r.absent),
        (3, 1),
        "vertex 1 and its two in-arcs"
    );
    assert_eq!(g2.num_arcs(), 1);
    assert_eq!(g2.arcs(), vec![(0, 2, ())]);
    assert!(!g2.has_vertex(1) && g2.has_vertex(0) && g2.has_vertex(2));
    assert_eq!(g2.in_degree(2), 1);
    g2.check();
    // Back as a new vertex: no edge of the old one returns.
    let (g3, _) = g2.insert_vertices(&[1]);
    assert!(g3.has_vertex(1));
    assert_eq!(
        (g3.out_degree(1), g3.in_degree(1), g3.num_arcs()),
        (0, 0, 1)
    );
    // A present vertex without any edge is deleted as a vertex only.
    let (g4, r) = g3.delete_vertices(&[1]);
    assert_eq!((r.deleted, r.absent), (1, 0));
    assert!(!g4.has_vertex(1));
    g4.check();
}

#[test]
fn memory_report_is_small() {
    // 20,000 vertices, ~16 clustered neighbours each.
    let mut rng = Rng(5);
    let n = 20_000u32;
    let mut edges = Vec::new();
    for u in 0..n {
        for _ in 0..8 {
            let v = (u as u64 + 1 + rng.below(64)).min(n as u64 - 1) as Vertex;
            edges.push((u, v, ()));
        }
    }
    let g = CTreeGraph::<()>::new(CTreeOptions::default())
        .insert_edges(&edges, Combine::Min)
        .0;
    let m = g.memory_bytes();
    assert_eq!(m.total, m.vertex_tree + m.edge_tree_nodes + m.chunk_bytes);
    let bpe = m.bytes_per_arc(g.num_arcs());
    // Chunks alone are close to one byte per arc (gaps < 128) plus headers.
    assert!(m.chunk_bytes < g.num_arcs() * 2, "{m:?}");
    assert!(bpe < 12.0, "{bpe} bytes per arc: {m:?}");
}

// ---------------------------------------------------------------- versions

#[test]
fn versioned_acquire_set_release() {
    let vg = VersionedGraph::new(CTreeGraph::<()>::new(CTreeOptions::default()));
    let s0 = vg.acquire();
    assert_eq!(s0.version(), 0);
    let (v1, r) = vg.apply(
        &UpdateBatch {
            insert_edges: vec![(0, 1, ()), (1, 2, ())],
            ..Default::default()
        },
        Combine::Min,
    );
    assert_eq!((v1, r.inserted), (1, 2));
    let s1 = vg.acquire();
    assert_eq!(s1.version(), 1);
    assert_eq!(s1.num_arcs(), 4);
    assert_eq!(s0.num_arcs(), 0, "old snapshot unchanged");
    let g2 = s1.graph().insert_edges(&[(5, 6, ())], Combine::Min).0;
    assert_eq!(vg.set(g2), 2);
    assert_eq!(vg.version(), 2);
    let flat = vg.acquire().flat();
    assert_eq!(flat.num_vertices(), 7);
    assert_eq!(flat.out_degree(5), 1);
    drop((s0, s1));
    assert_eq!(vg.reclaim(), 0);
}

#[test]
fn concurrent_readers_one_writer() {
    concurrent_readers_one_writer_with(false);
}

/// The same with batches applied in place whenever no reader holds the version: readers that
/// arrive during such a batch wait for it and still see whole versions only, in order.
#[test]
fn concurrent_readers_one_writer_in_place() {
    concurrent_readers_one_writer_with(true);
}

fn concurrent_readers_one_writer_with(in_place: bool) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let vg = Arc::new(VersionedGraph::new(CTreeGraph::<()>::new(
        CTreeOptions::default(),
    )));
    let done = Arc::new(AtomicBool::new(false));
    // Version k holds exactly the edges {i, i+1} for i < 10 k: 20 k arcs.
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let vg = vg.clone();
            let done = done.clone();
            std::thread::spawn(move || {
                let mut last = 0;
                let mut seen = 0u64;
                while !done.load(Ordering::Acquire) || seen < 10 {
                    let s = vg.acquire();
                    let v = s.version();
                    assert!(v >= last, "versions went backwards");
                    last = v;
                    assert_eq!(s.num_arcs() as u64, 20 * v);
                    let f = s.flat();
                    assert_eq!(f.num_arcs() as u64, 20 * v);
                    assert_eq!(graph_arcs_unit(&f), 20 * v as usize);
                    seen += 1;
                }
                last
            })
        })
        .collect();
    for k in 1..=100u32 {
        let edges: Vec<(Vertex, Vertex, ())> =
            (10 * (k - 1)..10 * k).map(|i| (i, i + 1, ())).collect();
        let b = UpdateBatch {
            insert_edges: edges,
            ..Default::default()
        };
        let (v, r) = if in_place {
            vg.apply_in_place(&b, Combine::Min)
        } else {
            vg.apply(&b, Combine::Min)
        };
        assert_eq!(v, k as u64);
        assert_eq!(r.inserted, 10);
    }
    done.store(true, Ordering::Release);
    for r in readers {
        let last = r.join().unwrap();
        assert!(last <= 100);
    }
    assert_eq!(vg.reclaim(), 0);
    assert_eq!(vg.acquire().num_arcs(), 2000);
}

/// `apply_in_place` updates the version in place only when no snapshot holds it: a held
/// snapshot never changes, versions are numbered as by `apply`, and the results (graph and
/// counts) are those of `apply` on a model run beside it.
#[test]
fn apply_in_place_keeps_held_snapshots() {
    let mut rng = Rng(31);
    let opts = CTreeOptions {
        directed: false,
        in_edges: false,
        b: 4,
    };
    let vg = VersionedGraph::new(CTreeGraph::<i32>::new(opts));
    let model = VersionedGraph::new(CTreeGraph::<i32>::new(opts));
    let mut held: Vec<(Snapshot<i32>, Vec<WeightedArc>)> = Vec::new();
    // Where the latest version's graph lives, and whether a snapshot still holds it: a batch
    // applied in place leaves the graph where it was, a copy is a new allocation made while
    // the old one is still alive.
    let mut prev: Option<(*const CTreeGraph<i32>, bool)> = None;
    let mut in_place = 0;
    for k in 1..=60u64 {
        let mut b = UpdateBatch::new();
        for _ in 0..rng.below(40) {
            let (u, v) = (rng.below(50) as Vertex, rng.below(50) as Vertex);
            if rng.below(3) == 0 {
                b.delete_edges.push((u, v));
            } else {
                b.insert_edges.push((u, v, rng.below(9) as i32));
            }
        }
        if k % 7 == 0 {
            b.delete_vertices.push(rng.below(50) as Vertex);
        }
        let (v, r) = vg.apply_in_place(&b, Combine::Sum);
        let (mv, mr) = model.apply(&b, Combine::Sum);
        assert_eq!((v, r), (mv, mr), "batch {k}");
        assert_eq!(v, k);
        let (s, m) = (vg.acquire(), model.acquire());
        assert_eq!(s.version(), k);
        let here: *const CTreeGraph<i32> = s.graph();
        if let Some((there, was_held)) = prev {
            assert_eq!(
                here == there,
                !was_held,
                "batch {k}: in place iff nothing held"
            );
            in_place += usize::from(here == there);
        }
        assert_eq!(
            weighted_arcs(&s.flat()),
            weighted_arcs(&m.flat()),
            "batch {k}"
        );
        // Hold every third version (the next batches must copy around it) and let go of
        // some of the older ones (later batches may then update in place again).
        if k % 3 == 0 {
            let arcs = weighted_arcs(&s.flat());
            held.push((s, arcs));
        }
        if k % 5 == 0 && !held.is_empty() {
            held.remove(0);
        }
        for (s, arcs) in &held {
            assert_eq!(&weighted_arcs(&s.flat()), arcs, "a held snapshot changed");
        }
        prev = Some((here, held.iter().any(|(h, _)| h.version() == k)));
    }
    assert!(
        in_place >= 30,
        "only {in_place} of 59 batches applied in place"
    );
    drop(held);
    assert_eq!(vg.reclaim(), 0);
}

/// A batch of edge insertions only or deletions only (what `VersionedGraph::apply` copies
/// lending), small or, one time in six, past the parallel cut-offs.
fn one_kind_batch(rng: &mut Rng, nv: u64) -> UpdateBatch<i32> {
    let mut b = UpdateBatch::new();
    let k = if rng.below(6) == 0 {
        100 + rng.below(600)
    } else {
        1 + rng.below(30)
    };
    let insert = rng.below(3) != 0;
    for _ in 0..k {
        let u = rng.below(nv) as Vertex;
        let v = if rng.below(3) == 0 {
            (u as u64 + rng.below(8)).min(nv - 1) as Vertex
        } else {
            rng.below(nv) as Vertex
        };
        if insert {
            b.insert_edges.push((u, v, rng.below(9) as i32));
        } else {
            b.delete_edges.push((u, v));
        }
    }
    b
}

/// A line of versions made by lending path copies (`VersionedGraph::apply` on batches of one
/// kind; see `vtree::Lending`) while snapshots of random versions are held and released in
/// any order, branches are made from them (copied, and updated in place where they are
/// their own) and a reader thread reads along: every holder keeps exactly its graph, the
/// newest version its model, and after all is released nothing is parked.
#[test]
fn lending_versions_keep_held_snapshots_and_branches() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for (seed, opts) in [
        (5u64, CTreeOptions::default()),
        (
            6,
            CTreeOptions {
                directed: true,
                in_edges: true,
                b: 4,
            },
        ),
    ] {
        let nv = 3000;
        let mut rng = Rng(seed);
        let rule = Combine::Sum;
        let mut m = Model {
            directed: opts.directed,
            ..Default::default()
        };
        let mut g0 = CTreeGraph::<i32>::new(opts);
        for _ in 0..4 {
            let b = one_kind_batch(&mut rng, nv);
            g0.apply_mut(&b, rule);
            m.apply(&b, rule);
        }
        let vg = VersionedGraph::new(g0);
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|sc| {
            // A reader reading whatever version is newest, all the while.
            sc.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let s = vg.acquire();
                    let arcs: usize = (0..s.num_vertices() as Vertex)
                        .map(|v| s.out_degree(v))
                        .sum();
                    assert_eq!(arcs, s.num_arcs());
                }
            });
            pool.install(|| {
                let mut held: Vec<(Snapshot<i32>, Model)> = Vec::new();
                let mut branches: Vec<(CTreeGraph<i32>, Model)> = Vec::new();
                for step in 0..240 {
                    let b = one_kind_batch(&mut rng, nv);
                    let want = m.apply(&b, rule);
                    let (_, got) = vg.apply(&b, rule);
                    assert_eq!(got, want, "step {step}");
                    if rng.below(4) == 0 {
                        held.push((vg.acquire(), m.clone()));
                    }
                    if rng.below(6) == 0 && !held.is_empty() {
                        let (s, sm) = &held[rng.below(held.len() as u64) as usize];
                        let mut bm = sm.clone();
                        let bb = one_kind_batch(&mut rng, nv);
                        bm.apply(&bb, rule);
                        let (mut bg, _) = s.graph().apply(&bb, rule);
                        // The branch is its own now: a second batch goes in place.
                        let bb = one_kind_batch(&mut rng, nv);
                        bm.apply(&bb, rule);
                        bg.apply_mut(&bb, rule);
                        branches.push((bg, bm));
                    }
                    if rng.below(5) == 0 && !held.is_empty() {
                        held.swap_remove(rng.below(held.len() as u64) as usize);
                    }
                    if rng.below(9) == 0 && !branches.is_empty() {
                        branches.swap_remove(rng.below(branches.len() as u64) as usize);
                    }
                    if step % 40 == 39 {
                        for (s, sm) in &held {
                            s.graph().check();
                            same(&graph_arcs(s.graph()), &sm.arcs, "held snapshot");
                        }
                        for (bg, bm) in &branches {
                            bg.check();
                            same(&graph_arcs(bg), &bm.arcs, "branch");
                        }
                    }
                }
                let newest = vg.acquire();
                check_graph(newest.graph(), &m);
                for (s, sm) in &held {
                    check_graph(s.graph(), sm);
                }
                for (bg, bm) in &branches {
                    check_graph(bg, bm);
                }
            });
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(vg.reclaim(), 0);
        check_graph(vg.acquire().graph(), &m);
    }
}

/// A weight whose sum panics when either side is -7: a bug inside a batch, on demand.
#[derive(Clone, Copy, Default, PartialEq, PartialOrd, Debug)]
struct Boom(i32);

impl Weight for Boom {
    const WEIGHTED: bool = true;
    const NAME: &'static str = "boom";
    type Dist = i64;
    fn parse(text: &str) -> Option<Self> {
        text.parse().ok().map(Boom)
    }
    fn to_f64(self) -> f64 {
        self.0 as f64
    }
    fn to_dist(self) -> i64 {
        self.0 as i64
    }
    fn add(self, other: Self) -> Self {
        assert!(self.0 != -7 && other.0 != -7, "boom");
        Boom(self.0 + other.0)
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
    }
    const BYTES: usize = 4;
    fn read_le(bytes: &[u8]) -> Self {
        Boom(i32::from_le_bytes(bytes.try_into().expect("4 bytes")))
    }
}

/// A batch that panics while applied in place leaves the version published again (readers
/// neither hang nor crash), and the graph poisoned: further batches panic until a whole new
/// graph is set.
#[test]
fn apply_in_place_panic_poisons() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let opts = CTreeOptions {
        directed: true,
        in_edges: false,
        b: 4,
    };
    let vg = VersionedGraph::new(CTreeGraph::<Boom>::new(opts));
    let insert = |u, v, w| UpdateBatch {
        insert_edges: vec![(u, v, Boom(w))],
        ..Default::default()
    };
    assert_eq!(vg.apply_in_place(&insert(0, 1, 5), Combine::Sum).0, 1);
    let bug = catch_unwind(AssertUnwindSafe(|| {
        vg.apply_in_place(&insert(0, 1, -7), Combine::Sum)
    }));
    assert!(bug.is_err(), "the sum with -7 must panic");
    let s = vg.acquire();
    assert_eq!((s.version(), s.num_vertices()), (1, 2));
    drop(s);
    for in_place in [false, true] {
        let again = catch_unwind(AssertUnwindSafe(|| {
            if in_place {
                vg.apply_in_place(&insert(1, 0, 1), Combine::Sum)
            } else {
                vg.apply(&insert(1, 0, 1), Combine::Sum)
            }
        }));
        assert!(
            again.is_err(),
            "a poisoned graph takes no batch (in place: {in_place})"
        );
    }
    let fresh = CTreeGraph::<Boom>::new(opts);
    let (v, _) = vg.set_deferred(fresh);
    let (w, r) = vg.apply_in_place(&insert(1, 0, 3), Combine::Sum);
    assert_eq!((w, r.inserted), (v + 1, 1));
    assert_eq!(vg.acquire().num_arcs(), 1);
}

/// A weight of another crate may panic (`Weight::CANNOT_PANIC` is false), so
/// `VersionedGraph::apply` copies its batches counting, not lending, and a panic inside one
/// unwinds to the caller with nothing published and the store intact.
#[test]
fn a_panicking_weight_unwinds_out_of_a_copied_batch() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    const {
        assert!(
            !Boom::CANNOT_PANIC && <i32 as Weight>::CANNOT_PANIC && <() as Weight>::CANNOT_PANIC
        )
    };
    let vg = VersionedGraph::new(CTreeGraph::<Boom>::new(CTreeOptions::default()));
    let insert = |u, v, w| UpdateBatch {
        insert_edges: vec![(u, v, Boom(w))],
        ..Default::default()
    };
    for u in 0..100 {
        vg.apply(&insert(u, u + 1, 5), Combine::Sum);
    }
    let held = vg.acquire();
    let bug = catch_unwind(AssertUnwindSafe(|| {
        vg.apply(&insert(3, 4, -7), Combine::Sum)
    }));
    assert!(bug.is_err(), "the sum with -7 must panic");
    assert_eq!(vg.version(), 100);
    let (v, r) = vg.apply(&insert(3, 4, 1), Combine::Sum);
    assert_eq!((v, r.updated), (101, 1));
    let s = vg.acquire();
    assert_eq!((s.num_arcs(), s.find_edge(3, 4)), (200, Some(Boom(6))));
    assert_eq!(held.find_edge(3, 4), Some(Boom(5)));
}

type WeightedArc = (Vertex, Vertex, i32);

fn weighted_arcs<G: Graph<W = i32>>(g: &G) -> Vec<WeightedArc> {
    let mut out = Vec::new();
    for u in 0..g.num_vertices() as Vertex {
        g.for_each_out(u, |v, w| {
            out.push((u, v, w));
            true
        });
    }
    out
}

/// The flat snapshot's scans with early exit, its in-scans and its in-fold, unweighted and
/// with `f64` weights (the models above are `i32`; a lead holds no weight, or an 8-byte one):
/// vertices of degree 0 to 5, a hub of 300 out-arcs and a vertex of 300 in-arcs, with every
/// element a head (b = 1: empty prefixes), some (b = 2) or few (b = 256).
#[test]
fn flat_snapshot_scans_of_every_weight_type() {
    fn check<W: Weight>(weight: impl Fn(Vertex, Vertex) -> W) {
        let mut arcs = BTreeMap::new();
        for u in 1..=30u32 {
            for k in 0..u % 6 {
                let v = (u * 7 + k * 13) % 40;
                arcs.insert((u, v), weight(u, v));
            }
        }
        for v in 40..340u32 {
            arcs.insert((0, v), weight(0, v));
            arcs.insert((v, 340), weight(v, 340));
        }
        let edges: Vec<(Vertex, Vertex, W)> = arcs.iter().map(|(&(u, v), &w)| (u, v, w)).collect();
        for b in [1, 2, 256] {
            let g = CTreeGraph::<W>::new(CTreeOptions {
                directed: true,
                in_edges: true,
                b,
            });
            let (g, _) = g.insert_edges(&edges, Combine::Last);
            let f = FlatSnapshot::new(&g);
            for u in 0..f.num_vertices() as Vertex {
                let out: Vec<(Vertex, W)> = arcs
                    .range((u, 0)..=(u, Vertex::MAX))
                    .map(|(k, &w)| (k.1, w))
                    .collect();
                let inn: Vec<(Vertex, W)> = arcs
                    .iter()
                    .filter(|(k, _)| k.1 == u)
                    .map(|(k, &w)| (k.0, w))
                    .collect();
                let what = format!("b = {b}, vertex {u}");
                for (want, inward) in [(&out, false), (&inn, true)] {
                    let side = if inward { "in" } else { "out" };
                    let scan = |h: &mut dyn FnMut(Vertex, W) -> bool| {
                        if inward {
                            f.for_each_in(u, h)
                        } else {
                            f.for_each_out(u, h)
                        }
                    };
                    let mut got = Vec::new();
                    let whole = scan(&mut |v, w| {
                        got.push((v, w));
                        true
                    });
                    assert!(whole, "a complete {side}-scan, {what}, reports a stop");
                    assert_eq!(&got, want, "{side}-scan, {what}");
                    stops_early(want, scan, &format!("{side}-scan, {what}"));
                }
                assert_eq!(f.in_degree(u), inn.len(), "{what}");
                folds_in_order(&f, u, &inn, &what);
            }
        }
    }
    check::<()>(|_, _| ());
    check::<f64>(|u, v| u as f64 + v as f64 / 1024.0);
}

fn graph_arcs_unit<G: Graph<W = ()>>(g: &G) -> usize {
    (0..g.num_vertices() as Vertex)
        .map(|u| {
            let mut c = 0;
            g.for_each_out(u, |_, _| {
                c += 1;
                true
            });
            c
        })
        .sum()
}

#[test]
fn weights_are_stored() {
    let g = CTreeGraph::<f64>::new(CTreeOptions {
        directed: true,
        in_edges: false,
        b: 2,
    });
    let (g, _) = g.insert_edges(&[(1, 2, 0.5), (1, 3, 1.5), (1, 2, 0.25)], Combine::Sum);
    assert_eq!(g.find_edge(1, 2), Some(0.75));
    let (g, r) = g.insert_edges(&[(1, 3, 2.0)], Combine::Max);
    assert_eq!(
        r,
        BatchResult {
            inserted: 0,
            updated: 1,
            deleted: 0,
            absent: 0
        }
    );
    assert_eq!(g.find_edge(1, 3), Some(2.0));
}

/// Batches large enough to be radix-sorted (20,000 arcs, above the comparison-sort cutoff)
/// with many duplicates: `First` and `Last` keep the batch's input order, on a directed graph
/// with in-trees (whose reversed arcs are sorted the same way) and a symmetric one. Sources
/// of ~67 arcs each (sorted by target with the stable sort), and of ~4 arcs over 4 targets
/// (the insertion sort, with duplicates inside most runs).
#[test]
fn large_batches_combine_duplicates_in_input_order() {
    for (sources, targets) in [(300, 300), (5000, 4)] {
        large_batch_duplicates(sources, targets);
    }
}

fn large_batch_duplicates(sources: u64, targets: u64) {
    let mut rng = Rng(7);
    let batch: Vec<(Vertex, Vertex, f64)> = (0..20_000)
        .map(|i| {
            let u = rng.below(sources) as Vertex;
            (u, rng.below(targets) as Vertex, i as f64)
        })
        .collect();
    for directed in [true, false] {
        for rule in [Combine::First, Combine::Last] {
            let mut model: BTreeMap<(Vertex, Vertex), f64> = BTreeMap::new();
            for &(u, v, w) in &batch {
                let mut put = |a: Vertex, b: Vertex| {
                    let e = model.entry((a, b)).or_insert(w);
                    if rule == Combine::Last {
                        *e = w;
                    }
                };
                put(u, v);
                if !directed {
                    put(v, u);
                }
            }
            let g = CTreeGraph::<f64>::new(CTreeOptions {
                directed,
                in_edges: true,
                b: 16,
            });
            let (g, _) = g.insert_edges(&batch, rule);
            g.check();
            let got: BTreeMap<(Vertex, Vertex), f64> =
                g.arcs().into_iter().map(|(u, v, w)| ((u, v), w)).collect();
            assert_eq!(
                got, model,
                "{sources}x{targets}, directed {directed}, {rule:?}"
            );
            if directed {
                for (&(u, v), &w) in model.iter().take(500) {
                    let mut seen = None;
                    g.in_tree(v).unwrap().for_each(v, |x, wx: f64| {
                        if x == u {
                            seen = Some(wx);
                        }
                        true
                    });
                    assert_eq!(seen, Some(w), "in-arc {u}->{v}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------- measurement (not a test)

/// RMAT edges (a, b, c) = (0.57, 0.19, 0.19) over `2^scale` vertices.
fn rmat(scale: u32, m: usize, rng: &mut Rng) -> Vec<(Vertex, Vertex, ())> {
    (0..m)
        .map(|_| {
            let (mut u, mut v) = (0u32, 0u32);
            for _ in 0..scale {
                let r = rng.below(100);
                let (bu, bv) = if r < 57 {
                    (0, 0)
                } else if r < 76 {
                    (0, 1)
                } else if r < 95 {
                    (1, 0)
                } else {
                    (1, 1)
                };
                u = (u << 1) | bu;
                v = (v << 1) | bv;
            }
            (u, v, ())
        })
        .collect()
}

/// Bytes per edge and batch-insert throughput on an RMAT graph. Run with
/// `CTREE_SCALE=20 cargo test -p weald-storage --lib -- --ignored ctree_measure --nocapture`.
#[test]
#[ignore]
fn ctree_measure() {
    let scale: u32 = std::env::var("CTREE_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16);
    let directed = std::env::var("CTREE_DIRECTED").is_ok();
    let mut rng = Rng(42);
    let edges = rmat(scale, 16 << scale, &mut rng);
    let opts = CTreeOptions {
        directed,
        in_edges: false,
        b: DEFAULT_B,
    };
    let t = std::time::Instant::now();
    let g = CTreeGraph::<()>::new(opts)
        .insert_edges(&edges, Combine::Min)
        .0;
    let build = t.elapsed().as_secs_f64();
    let mem = g.memory_bytes();
    eprintln!(
        "RMAT scale {scale}: {} vertices present, {} arcs, built in {build:.2}s ({} threads)",
        g.num_present_vertices(),
        g.num_arcs(),
        rayon::current_num_threads()
    );
    eprintln!(
        "{mem:?}: {:.3} bytes per arc",
        mem.bytes_per_arc(g.num_arcs())
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let only: Option<usize> = std::env::var("CTREE_ONLY")
        .ok()
        .and_then(|s| s.parse().ok());
    for bs in [10usize, 1000, 100_000, 1_000_000] {
        if only.is_some_and(|o| o != bs) {
            continue;
        }
        let reps = (2_000_000 / bs).clamp(1, 2000);
        let batches: Vec<_> = (0..reps).map(|_| rmat(scale, bs, &mut rng)).collect();
        let t = std::time::Instant::now();
        pool.install(|| {
            for b in &batches {
                std::hint::black_box(g.insert_edges(b, Combine::Min));
            }
        });
        let s = t.elapsed().as_secs_f64();
        eprintln!(
            "batch {bs:>8}: {:.3e} edges/s (1 thread)",
            (bs * reps) as f64 / s
        );
    }
}

#[test]
#[ignore]
fn ctree_measure_small() {
    let mut rng = Rng(42);
    let scale = 14;
    let edges = rmat(scale, 16 << scale, &mut rng);
    let g = CTreeGraph::<()>::new(CTreeOptions::default())
        .insert_edges(&edges, Combine::Min)
        .0;
    let reps = 5000;
    let (mx, tot, nodes) = super::vtree::depth_stats(g.vertex_roots().0, 0);
    eprintln!(
        "vertex tree: {nodes} block nodes, max depth {mx}, mean depth {:.1}",
        tot as f64 / nodes as f64
    );
    let t = std::time::Instant::now();
    for i in 0..reps {
        std::hint::black_box(g.insert_vertices(&[(i % 12000) as Vertex + 20_000]));
    }
    eprintln!(
        "new vertex: {:.2} us",
        t.elapsed().as_secs_f64() * 1e6 / reps as f64
    );
    let vs = g.vertices();
    let t = std::time::Instant::now();
    let reps2: usize = std::env::var("CTREE_REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(reps);
    for i in 0..reps2 {
        let u = vs[(i * 7919) % vs.len()];
        std::hint::black_box(g.insert_edges(&[(u, u, ())], Combine::Min));
    }
    eprintln!(
        "self loop on random vertex: {:.2} us",
        t.elapsed().as_secs_f64() * 1e6 / reps2 as f64
    );
    let t = std::time::Instant::now();
    for i in 0..reps {
        let u = (i % 12000) as Vertex;
        std::hint::black_box(g.insert_edges(&[(0, u, ())], Combine::Min));
    }
    eprintln!(
        "edge at hub 0: {:.2} us (deg {})",
        t.elapsed().as_secs_f64() * 1e6 / reps as f64,
        g.out_degree(0)
    );
}

/// A symmetric graph of two blocks (`2·K` ids) built from a CSR: in block 0, ids 0..4 have
/// edges (0-1, 2-3) and the others none; `more` edges are added (all of weight 1).
fn two_built_blocks(more: impl IntoIterator<Item = (Vertex, Vertex)>) -> CTreeGraph<i32> {
    let k = vtree::K as Vertex;
    let mut el = EdgeList::<i32>::new(2 * k as usize);
    for (u, v) in [(0, 1), (2, 3)].into_iter().chain(more) {
        el.push(u, v, 1);
    }
    let bo = BuildOptions {
        directed: false,
        ..Default::default()
    };
    let (csr, _) = Csr::build(el, &bo).unwrap();
    CTreeGraph::from_csr(&csr, 16)
}

/// The tree array (address, length) of block `key` of `g`.
fn array(g: &CTreeGraph<i32>, key: u32) -> (*const tree::CTree<i32>, usize) {
    vtree::block_array(g.vertex_roots().0, key).unwrap()
}

/// A graph built from a CSR gives each block with an id without edges one spare slot in its
/// tree array, so that the id's first edge is added in place; a block whose ids all have
/// edges is exact.
#[test]
fn built_blocks_keep_a_slot_for_the_first_edge_of_an_edgeless_id() {
    let k = vtree::K as Vertex;
    // Block 1: every id has an edge.
    let mut g = two_built_blocks((k..2 * k).step_by(2).map(|v| (v, v + 1)));
    assert_eq!(array(&g, 0).1, 5, "four trees and a spare");
    assert_eq!(
        array(&g, 1).1,
        k as usize,
        "no spare where every id has edges"
    );
    // Id 5's first edge takes the spare, in place.
    let before = array(&g, 0);
    let r = g.insert_edges_mut(&[(5, k, 7)], Combine::Min);
    assert_eq!(r.inserted, 1);
    assert_eq!(array(&g, 0), before, "the first edge of id 5: in place");
    // Id 9's has no slot left: a new array, with a spare again.
    g.insert_edges_mut(&[(9, k + 2, 8)], Combine::Min);
    assert_ne!(array(&g, 0).0, before.0);
    assert_eq!(array(&g, 0).1, 7, "six trees and a spare");
    // Id 4 ranks below ids 5 and 9: their trees move up a slot into the spare, in place
    // (`update_in_slot`; k + 4 has edges already).
    let before = array(&g, 0);
    let hits = vtree::EDGELESS_IN_SLOT.get();
    g.insert_edges_mut(&[(4, k + 4, 6)], Combine::Min);
    assert_eq!(array(&g, 0), before, "the first edge of id 4: in place");
    assert_eq!(vtree::EDGELESS_IN_SLOT.get(), hits + 1);
    for (u, v, w) in [
        (4, k + 4, 6),
        (5, k, 7),
        (9, k + 2, 8),
        (0, 1, 1),
        (2, 3, 1),
    ] {
        assert_eq!(g.find_edge(u, v), Some(w));
        assert_eq!(g.find_edge(v, u), Some(w));
    }
    assert_eq!(g.num_edges(), 5 + k as usize / 2);
    g.check();
}

#[test]
fn one_id_without_a_tree_is_updated_in_its_blocks_array() {
    // Block 1: no id has edges. Both arrays have a spare slot.
    let k = vtree::K as Vertex;
    let mut g = two_built_blocks([]);
    let (a0, a1) = (array(&g, 0), array(&g, 1));
    assert_eq!((a0.1, a1.1), (5, 1), "trees and a spare each");
    let hits = || vtree::EDGELESS_IN_SLOT.get();
    let h = hits();
    // Deleting an absent edge of two ids without edges: nothing changes.
    let r = g.delete_edges_mut(&[(6, k + 1)]);
    assert_eq!((r.deleted, r.absent), (0, 1));
    assert_eq!(hits(), h + 2);
    // Deleting an id without edges, then inserting it again.
    g.delete_vertices_mut(&[5]);
    assert!(!g.has_vertex(5) && g.has_vertex(4) && g.has_vertex(6));
    g.insert_vertices_mut(&[5]);
    assert!(g.has_vertex(5));
    assert_eq!(g.out_degree(5), 0);
    assert_eq!(hits(), h + 4);
    g.check();
    // Its first edge fills the spare slots of both blocks, in place.
    g.insert_edges_mut(&[(5, k + 2, 9)], Combine::Min);
    assert_eq!(hits(), h + 6);
    assert_eq!((array(&g, 0), array(&g, 1)), (a0, a1));
    // No spare left: the next first edges take the general path (new arrays).
    g.insert_edges_mut(&[(7, k + 3, 4)], Combine::Min);
    assert_eq!(hits(), h + 6);
    assert_ne!(array(&g, 0).0, a0.0);
    for (u, v, w) in [(0, 1, 1), (2, 3, 1), (5, k + 2, 9), (7, k + 3, 4)] {
        assert_eq!(g.find_edge(u, v), Some(w));
        assert_eq!(g.find_edge(v, u), Some(w));
    }
    assert_eq!(g.num_edges(), 4);
    assert_eq!(g.num_vertices(), 2 * k as usize);
    g.check();
}

#[test]
fn apply_mut_reuses_unshared_nodes_and_copies_shared_ones() {
    let opts = CTreeOptions::default();
    let edges: Vec<(Vertex, Vertex, ())> = (0..1000).map(|v| (v, (v * 7 + 1) % 1000, ())).collect();
    let (mut g, _) = CTreeGraph::<()>::new(opts).insert_edges(&edges, Combine::Min);
    let root =
        |g: &CTreeGraph<()>| super::counted::Counted::as_ptr(g.vertex_roots().0.as_ref().unwrap());
    // Nothing else holds `g`: the vertex tree is edited where it is.
    let before = root(&g);
    let r = g.insert_edges_mut(&[(3, 500, ())], Combine::Min);
    assert_eq!(r.inserted, 1);
    assert_eq!(root(&g), before, "an unshared root is kept");
    assert!(g.find_edge(500, 3).is_some());
    // A clone holds it: the update copies the path, and the clone does not change.
    let snap = g.clone();
    let r = g.delete_edges_mut(&[(3, 500)]);
    assert_eq!(r.deleted, 1);
    assert_ne!(root(&g), root(&snap), "a shared root is copied");
    assert!(snap.find_edge(3, 500).is_some() && snap.find_edge(500, 3).is_some());
    assert!(g.find_edge(3, 500).is_none() && g.find_edge(500, 3).is_none());
    assert_eq!(snap.num_edges(), g.num_edges() + 1);
    snap.check();
    g.check();
    // With the clone gone, the copied root is the graph's alone again.
    drop(snap);
    let before = root(&g);
    g.delete_vertices_mut(&[7]);
    assert_eq!(root(&g), before);
    assert!(!g.has_vertex(7));
    g.check();
    // A whole block (ids 16..32) goes: its node leaves the tree, whose other nodes stay.
    let block: Vec<Vertex> = (16..32).collect();
    let m = g.num_edges();
    let r = g.delete_vertices_mut(&block);
    assert_eq!(root(&g), before);
    assert!(block.iter().all(|&v| !g.has_vertex(v)));
    assert_eq!(r.deleted as usize, 16 + m - g.num_edges());
    g.check();
    assert!(g
        .arcs()
        .iter()
        .all(|a| !(16..32).contains(&a.0) && !(16..32).contains(&a.1)));
}

#[test]
fn from_csr_merges_the_parallel_arcs_of_a_multigraph() {
    for directed in [false, true] {
        let mut el = EdgeList::<i32>::new(4);
        for (u, v, w) in [
            (0, 1, 5),
            (0, 1, 2),
            (0, 1, 9),
            (2, 2, 4),
            (2, 2, 1),
            (1, 3, 7),
        ] {
            el.push(u, v, w);
        }
        let multi = BuildOptions {
            directed,
            dedup: None,
            ..Default::default()
        };
        let (csr, _) = Csr::build(el.clone(), &multi).unwrap();
        assert_eq!(csr.out_degree(0), 3, "the CSR keeps the parallel arcs");
        let opts = CTreeOptions {
            directed,
            in_edges: true,
            b: 16,
        };
        // (First and Last follow the CSR's order of parallel arcs, not the input's.)
        for rule in [Combine::Min, Combine::Max, Combine::Sum] {
            let got = CTreeGraph::from_csr_merging(&csr, 16, rule);
            got.check();
            let want = CTreeGraph::from_edge_list(&el, opts, rule).unwrap();
            assert_eq!(
                graph_arcs(&got),
                graph_arcs(&want),
                "{rule:?} directed={directed}"
            );
            assert_eq!(
                in_arcs(&got),
                in_arcs(&want),
                "{rule:?} directed={directed}"
            );
            assert_eq!(got.num_arcs(), want.num_arcs());
        }
    }
}

/// Small in-place batches on a graph of 256 blocks go through the block index: the graph
/// matches a model after each; a clone held over batches never changes (the index is not
/// used, the updates path-copy, which drops it) and the index is rebuilt once the clone is
/// gone; a snapshot taken and released between two batches leaves it in use.
#[test]
fn in_place_batches_through_the_block_index() {
    let mut rng = Rng(21);
    let n: Vertex = 4096;
    let mut g = CTreeGraph::<()>::new(CTreeOptions::default());
    g.insert_vertices_mut(&(0..n).collect::<Vec<_>>());
    g.insert_edges_mut(&rmat(12, 20_000, &mut rng), Combine::Min);
    type Arcs = BTreeSet<(Vertex, Vertex)>;
    let arcs_of = |g: &CTreeGraph<()>| -> Arcs { g.arcs().iter().map(|a| (a.0, a.1)).collect() };
    // An inserted batch, both directions, into the model.
    let add = |model: &mut Arcs, batch: &[(Vertex, Vertex, ())]| {
        for a in batch {
            model.insert((a.0, a.1));
            model.insert((a.1, a.0));
        }
    };
    let mut model: Arcs = arcs_of(&g);
    let count = || super::vtree::INDEXED_BATCHES.get();
    let start = count();
    let mut clone: Option<(CTreeGraph<()>, Arcs)> = None;
    for round in 0..400 {
        let batch = rmat(12, 10, &mut rng);
        let before = count();
        if round % 3 == 2 {
            let pairs: Vec<(Vertex, Vertex)> = batch.iter().map(|a| (a.0, a.1)).collect();
            let r = g.delete_edges_mut(&pairs);
            let mut gone = 0;
            for &(u, v) in &pairs {
                gone += model.remove(&(u, v)) as u64;
                model.remove(&(v, u));
            }
            assert_eq!(r.deleted, gone, "round {round}");
        } else {
            g.insert_edges_mut(&batch, Combine::Min);
            add(&mut model, &batch);
        }
        if round % 50 == 26 && !(100..200).contains(&round) {
            assert_eq!(count(), before + 1, "round {round} did not take the index");
        }
        if round % 40 == 0 {
            g.check();
            let got = arcs_of(&g);
            assert_eq!(got, model, "round {round}");
            assert_eq!(g.num_arcs(), model.len());
        }
        if round % 50 == 25 && clone.is_none() {
            // A snapshot that comes and goes between batches: the next batch still takes the
            // index (checked after it).
            let f = FlatSnapshot::new(&g);
            assert_eq!(f.num_arcs(), model.len());
            drop(f);
        }
        match round {
            100 => clone = Some((g.clone(), model.clone())),
            200 => {
                let (c, cm) = clone.take().unwrap();
                c.check();
                let got = arcs_of(&c);
                assert_eq!(got, cm, "the clone changed");
            }
            _ => {}
        }
    }
    g.check();
    let got = arcs_of(&g);
    assert_eq!(got, model);
    // Rounds 0..100 and, once the clone is gone and the credit rebuilt it, most of 200..400.
    let indexed = count() - start;
    assert!(indexed >= 150, "only {indexed} batches took the index");

    // Deleting every id of a block (32..48) through the index removes its node (which drops
    // the index).
    let before = count();
    let block: Vec<Vertex> = (32..48).collect();
    g.delete_vertices_mut(&block);
    model.retain(|&(u, v)| !(32..48).contains(&u) && !(32..48).contains(&v));
    assert!(
        count() > before,
        "the block's deletion did not take the index"
    );
    g.check();
    assert!(block.iter().all(|&v| !g.has_vertex(v)));
    let got = arcs_of(&g);
    assert_eq!(got, model);
    // RMAT edges that stay clear of the deleted block (and of the blocks before it).
    let past_block = |m: usize, rng: &mut Rng| -> Vec<(Vertex, Vertex, ())> {
        rmat(12, m, rng)
            .into_iter()
            .filter(|a| a.0 >= 48 && a.1 >= 48)
            .collect()
    };
    // Batches until the credit rebuilds it (255 nodes; a batch has up to 20 arcs), then a batch of
    // 300 edges on two threads, which the indexed update splits between them.
    for _ in 0..60 {
        let batch = past_block(10, &mut rng);
        g.insert_edges_mut(&batch, Combine::Min);
        add(&mut model, &batch);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let batch = past_block(300, &mut rng);
    pool.install(|| {
        let before = count();
        g.insert_edges_mut(&batch, Combine::Min);
        assert_eq!(
            count(),
            before + 1,
            "the two-thread batch did not take the index"
        );
    });
    add(&mut model, &batch);
    g.check();
    let got = arcs_of(&g);
    assert_eq!(got, model);

    // A new block (ids 4096..4112, past every block) in a batch with known ones: the known
    // blocks take the index, the new one goes down the tree, where it is made in an empty
    // subtree (it ranks below the root, block 255, whose right side is empty), which leaves
    // the index in use for the next batch. (A second new block, 257, would outrank 256 and
    // rebuild its level: that drops the index.)
    let known = |rng: &mut Rng| -> Vec<(Vertex, Vertex, ())> {
        let b = past_block(10, rng);
        if b.is_empty() {
            vec![(100, 200, ())]
        } else {
            b
        }
    };
    let mut batch: Vec<(Vertex, Vertex, ())> = (0..16).map(|i| (n + i, 100 + 7 * i, ())).collect();
    batch.extend(known(&mut rng));
    let before = count();
    g.insert_edges_mut(&batch, Combine::Min);
    assert!(
        count() > before,
        "the known blocks of a mixed batch did not take the index"
    );
    let batch2 = known(&mut rng);
    let before = count();
    g.insert_edges_mut(&batch2, Combine::Min);
    assert_eq!(
        count(),
        before + 1,
        "a new block made at the edge dropped the index"
    );
    add(&mut model, &batch);
    add(&mut model, &batch2);
    g.check();
    assert!(g.has_vertex(n + 15));
    let got = arcs_of(&g);
    assert_eq!(got, model);
}
