//! read → write → read gives the identical CSR, for every writable format.

use std::path::Path;
use weald_graph::EdgeList;
use weald_io::{gen, load, save, Format, LoadOptions};
use weald_storage::{AnyCsr, BuildOptions, Csr};

fn build<W: weald_graph::Weight>(e: EdgeList<W>, directed: bool, relabel: bool) -> Csr<W> {
    Csr::build(
        e,
        &BuildOptions {
            directed,
            relabel,
            ..Default::default()
        },
    )
    .unwrap()
    .0
}

/// Test graphs: every combination of weight type, directedness and id map.
fn graphs() -> Vec<(&'static str, AnyCsr)> {
    let grid = gen::grid(4, 5);
    let sparse = |el: &EdgeList<()>| {
        // Spread the ids out so relabelling produces an id map.
        EdgeList {
            num_vertices: el.num_vertices * 7 + 3,
            src: el.src.iter().map(|&v| v * 7 + 3).collect(),
            dst: el.dst.iter().map(|&v| v * 7 + 3).collect(),
            weights: el.weights.clone(),
        }
    };
    let mut loops = gen::uniform(30, 200, 5);
    loops.push(4, 4, ());
    let r = gen::rmat(&gen::RmatParams {
        scale: 7,
        edge_factor: 4,
        ..Default::default()
    });
    let ints = gen::add_weights_int(&loops, -5, 100, 9);
    let floats = gen::add_weights_float(&grid, 0.0, 3.5, 2);
    let int_floats = {
        // Floats that happen to be integral must come back as floats.
        let mut f = gen::add_weights_float(&grid, 0.0, 3.0, 4);
        f.weights.iter_mut().for_each(|w| *w = w.floor());
        f
    };
    vec![
        (
            "unweighted symmetric",
            build(grid.clone(), false, false).into(),
        ),
        (
            "unweighted directed",
            build(loops.clone(), true, false).into(),
        ),
        (
            "unweighted symmetric id-map",
            build(sparse(&grid), false, true).into(),
        ),
        (
            "unweighted directed id-map rmat",
            build(sparse(&r), true, true).into(),
        ),
        (
            "int directed loops",
            build(ints.clone(), true, false).into(),
        ),
        ("int symmetric loops", build(ints, false, false).into()),
        (
            "float symmetric",
            build(floats.clone(), false, false).into(),
        ),
        ("float directed", build(floats, true, false).into()),
        ("integral floats", build(int_floats, true, false).into()),
        (
            "float symmetric id-map",
            build(
                gen::add_weights_float(&sparse(&grid), -1.0, 1.0, 3),
                false,
                true,
            )
            .into(),
        ),
        ("directed without in-arcs", {
            let (g, _) = Csr::build(
                gen::uniform(40, 300, 11),
                &BuildOptions {
                    directed: true,
                    in_edges: false,
                    ..Default::default()
                },
            )
            .unwrap();
            g.into()
        }),
    ]
}

fn has_in(g: &AnyCsr) -> bool {
    match g {
        AnyCsr::Unweighted(g) => g.in_adjacency().is_some(),
        AnyCsr::Int(g) => g.in_adjacency().is_some(),
        AnyCsr::Float(g) => g.in_adjacency().is_some(),
    }
}

fn without_ids(g: &AnyCsr) -> AnyCsr {
    let mut g = g.clone();
    match &mut g {
        AnyCsr::Unweighted(g) => g.forget_original_ids(),
        AnyCsr::Int(g) => g.forget_original_ids(),
        AnyCsr::Float(g) => g.forget_original_ids(),
    }
    g
}

fn reload(g: &AnyCsr, path: &Path, format: Format) -> AnyCsr {
    save(g, path, Some(format)).unwrap();
    let opts = LoadOptions {
        format: Some(format),
        directed: Some(g.is_directed()),
        weighted: Some(g.is_weighted()),
        in_edges: has_in(g),
        ..Default::default()
    };
    load(path, &opts).unwrap().graph
}

#[test]
fn binary_round_trip_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    for (name, g) in graphs() {
        let p = dir.path().join("g.wgb");
        let back = reload(&g, &p, Format::Binary);
        assert_eq!(back, g, "{name}");
        // By extension too.
        save(&g, &p, None).unwrap();
        assert_eq!(
            load(&p, &LoadOptions::default()).unwrap().graph,
            g,
            "{name}"
        );
    }
}

#[test]
fn edgelist_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for (name, g) in graphs() {
        for file in ["g.txt", "g.txt.gz"] {
            let p = dir.path().join(file);
            let back = reload(&g, &p, Format::EdgeList);
            assert_eq!(back, g, "{name} via {file}");
        }
    }
}

#[test]
fn ligra_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    for (name, g) in graphs() {
        let p = dir.path().join("g.adj");
        let back = reload(&g, &p, Format::Ligra);
        // Ligra has no id map: the graph comes back in internal ids.
        assert_eq!(back, without_ids(&g), "{name}");
        assert_eq!(back.num_arcs(), g.num_arcs());
    }
}

#[test]
fn unwritable_formats_are_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    let (_, g) = graphs().remove(0);
    for f in [
        Format::Csv,
        Format::MatrixMarket,
        Format::Dimacs,
        Format::Metis,
        Format::Temporal,
    ] {
        let e = save(&g, &dir.path().join("x"), Some(f)).unwrap_err();
        assert!(
            matches!(e, weald_graph::WealdError::Unsupported(_)),
            "{f}: {e}"
        );
    }
    let e = save(&g, &dir.path().join("x.unknown"), None).unwrap_err();
    assert!(matches!(e, weald_graph::WealdError::Unsupported(_)));
}

#[test]
fn empty_graph_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let g: AnyCsr = build(EdgeList::<()>::new(0), false, false).into();
    for (f, file) in [
        (Format::Binary, "e.wgb"),
        (Format::Ligra, "e.adj"),
        (Format::EdgeList, "e.txt"),
    ] {
        let back = reload(&g, &dir.path().join(file), f);
        assert_eq!(back.num_vertices(), 0, "{f}");
        assert_eq!(back.num_arcs(), 0, "{f}");
    }
    let g: AnyCsr = build(EdgeList::<()>::new(5), true, false).into();
    assert_eq!(reload(&g, &dir.path().join("e5.wgb"), Format::Binary), g);
    assert_eq!(reload(&g, &dir.path().join("e5.adj"), Format::Ligra), g);
}

/// Every arc of `g` in the user's ids, with its weight as f64 (1 when unweighted), sorted.
fn user_arcs(g: &AnyCsr) -> Vec<(u64, u64, f64)> {
    use weald_graph::Weight;
    let mut v: Vec<(u64, u64, f64)> = weald_storage::with_csr!(g, c => c
        .arcs()
        .map(|(a, b, w)| (c.original_id(a), c.original_id(b), w.to_f64()))
        .collect());
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v
}

/// A binary file honours the options that shape a graph as it is read: `--undirected`
/// symmetrises a directed graph (the two directions of an edge merged by `dedup`),
/// `--directed` makes an undirected graph's edges two arcs each, `--unweighted` drops the
/// weights, `--drop-self-loops` the loops; the vertices and their ids stay. They were
/// ignored: the graph came back as stored.
#[test]
fn binary_files_honour_direction_weight_and_loop_options() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("g.wgb");
    for (name, g) in graphs() {
        save(&g, &p, Some(Format::Binary)).unwrap();
        let arcs = user_arcs(&g);
        let n = g.num_vertices();
        let with = |f: &dyn Fn(&mut LoadOptions)| {
            let mut o = LoadOptions::default();
            f(&mut o);
            let l = load(&p, &o).unwrap();
            assert_eq!(l.graph.num_vertices(), n, "{name}");
            assert_eq!(l.graph.original_ids(), g.original_ids(), "{name}");
            l.graph
        };
        // The direction flipped.
        let h = with(&|o| o.directed = Some(!g.is_directed()));
        assert_eq!(h.is_directed(), !g.is_directed(), "{name}");
        let want = if g.is_directed() {
            // The symmetric closure; an edge stored both ways keeps the smaller weight.
            let mut m = std::collections::BTreeMap::new();
            for &(a, b, w) in &arcs {
                let e = m.entry((a.min(b), a.max(b))).or_insert(w);
                *e = f64::min(*e, w);
            }
            let mut v: Vec<_> = m
                .iter()
                .flat_map(|(&(a, b), &w)| {
                    let both = [(a, b, w), (b, a, w)];
                    both.into_iter().take(if a == b { 1 } else { 2 })
                })
                .collect();
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            v
        } else {
            arcs.clone()
        };
        assert_eq!(user_arcs(&h), want, "{name}: direction");
        // Without weights.
        if g.is_weighted() {
            let h = with(&|o| o.weighted = Some(false));
            assert!(!h.is_weighted(), "{name}");
            let want: Vec<_> = arcs.iter().map(|&(a, b, _)| (a, b, 1.0)).collect();
            let mut got = user_arcs(&h);
            got.iter_mut().for_each(|x| x.2 = 1.0);
            assert_eq!(got, want, "{name}: unweighted");
        } else {
            let o = LoadOptions {
                weighted: Some(true),
                ..Default::default()
            };
            let e = load(&p, &o).unwrap_err().to_string();
            assert!(e.contains("no weights"), "{name}: {e}");
        }
        // Without self loops.
        let h = with(&|o| o.drop_self_loops = true);
        let want: Vec<_> = arcs.iter().copied().filter(|a| a.0 != a.1).collect();
        assert_eq!(user_arcs(&h), want, "{name}: loops");
        // Asking for what the file is changes nothing.
        let same = with(&|o| {
            o.directed = Some(g.is_directed());
            o.weighted = Some(g.is_weighted());
            o.in_edges = has_in(&g);
        });
        assert_eq!(same, g, "{name}: as stored");
    }
}
