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
