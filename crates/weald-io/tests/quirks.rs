//! Edge-list quirks on tiny hand-written files.

use std::path::PathBuf;
use weald_graph::Graph;
use weald_io::{load, read_edges, Edges, Format, LoadOptions};
use weald_storage::AnyCsr;

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn pairs(e: &Edges) -> Vec<(u32, u32)> {
    let (s, d) = e.endpoints();
    s.iter().copied().zip(d.iter().copied()).collect()
}

#[test]
fn separators_comments_crlf_and_headers() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "a.txt",
        "# SNAP header\r\n% more\r\nsource target\r\n1\t2\r\n\r\n  2  ,  3 extra cols\r\n3,\t1\r\n# trailing comment",
    );
    let raw = read_edges(&p, &LoadOptions::default()).unwrap();
    assert_eq!(pairs(&raw.edges), vec![(1, 2), (2, 3), (3, 1)]);
    assert!(!raw.directed);
    assert_eq!(raw.edges.weight_name(), "none");
}

#[test]
fn byte_order_mark_and_lone_number() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "bom.csv", "\u{feff}1,2\n2,3\n");
    assert_eq!(
        pairs(&read_edges(&p, &LoadOptions::default()).unwrap().edges),
        vec![(1, 2), (2, 3)]
    );
    // A lone number on the first line is data (missing its target), not a header.
    let p = write(&dir, "one.txt", "5\n1 2\n");
    let e = read_edges(&p, &LoadOptions::default()).unwrap_err();
    assert!(
        matches!(e, weald_graph::WealdError::Parse { line: 1, .. }),
        "{e}"
    );
}

#[test]
fn count_line_rule() {
    let dir = tempfile::tempdir().unwrap();
    // `3 2`: 2 records follow over 3 distinct ids: a count line.
    let p = write(&dir, "c.txt", "3 2\n10 20\n20 30\n");
    assert_eq!(
        pairs(&read_edges(&p, &LoadOptions::default()).unwrap().edges),
        vec![(10, 20), (20, 30)]
    );
    // `1 1` is an edge: one record follows but it has 2 distinct ids.
    let p = write(&dir, "d.txt", "1 1\n2 3\n");
    assert_eq!(
        pairs(&read_edges(&p, &LoadOptions::default()).unwrap().edges),
        vec![(1, 1), (2, 3)]
    );
    // Weighted: the count line has too few fields for a record, and is still recognised.
    let p = write(&dir, "w.txt", "3 2\n0 1 5\n1 2 6\n");
    let opts = LoadOptions {
        weighted: Some(true),
        ..Default::default()
    };
    assert_eq!(read_edges(&p, &opts).unwrap().edges.len(), 2);
}

#[test]
fn weight_inference() {
    let dir = tempfile::tempdir().unwrap();
    let opts = LoadOptions {
        weighted: Some(true),
        ..Default::default()
    };
    let p = write(&dir, "i.txt", "0 1 5\n1 2 -7\n");
    match read_edges(&p, &opts).unwrap().edges {
        Edges::Int(e) => assert_eq!(e.weights, vec![5, -7]),
        other => panic!("{other:?}"),
    }
    let p = write(&dir, "f.txt", "0 1 5\n1 2 2.5\n2 0 1e3\n");
    match read_edges(&p, &opts).unwrap().edges {
        Edges::Float(e) => assert_eq!(e.weights, vec![5.0, 2.5, 1000.0]),
        other => panic!("{other:?}"),
    }
    // Beyond i32: floats.
    let p = write(&dir, "b.txt", "0 1 3000000000\n");
    assert_eq!(read_edges(&p, &opts).unwrap().edges.weight_name(), "f64");
}

#[test]
fn konect_header_declares_direction_and_weights() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "k.konect",
        "% asym posweighted\n% 2 3 3\n1 2 0.5\n2 3 1\n",
    );
    let raw = read_edges(&p, &LoadOptions::default()).unwrap();
    assert!(raw.directed);
    assert_eq!(raw.edges.weight_name(), "f64");
    let p = write(&dir, "s.konect", "% sym unweighted\n1 2\n");
    let raw = read_edges(&p, &LoadOptions::default()).unwrap();
    assert!(!raw.directed);
    assert_eq!(raw.edges.weight_name(), "none");
}

#[test]
fn temporal_times() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        &dir,
        "t.csv",
        "src,dst,rating,time\n1,2,-3,10.5\n2,3,4,11\n",
    );
    let opts = LoadOptions {
        format: Some(Format::Temporal),
        weighted: Some(true),
        ..Default::default()
    };
    let raw = read_edges(&p, &opts).unwrap();
    assert_eq!(raw.times, Some(vec![10.5, 11.0]));
    assert_eq!(raw.edges.weight_name(), "i32");
    let g = load(&p, &opts).unwrap();
    assert_eq!(g.graph.num_edges(), 2);
}

#[test]
fn relabel_keeps_user_ids() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "r.txt", "100 7\n7 55\n");
    let g = load(&p, &LoadOptions::default()).unwrap().graph;
    assert_eq!(g.num_vertices(), 3);
    assert_eq!(g.original_ids(), Some(&[7, 55, 100][..]));
    let g = load(
        &p,
        &LoadOptions {
            relabel: Some(false),
            ..Default::default()
        },
    )
    .unwrap()
    .graph;
    assert_eq!(g.num_vertices(), 101);
}

#[test]
fn options_reach_the_builder() {
    let dir = tempfile::tempdir().unwrap();
    //  0 -> 1 (twice), 1 -> 1 (loop)
    let p = write(&dir, "o.txt", "0 1\n0 1\n1 1\n");
    let opts = LoadOptions {
        directed: Some(true),
        drop_self_loops: true,
        dedup: None,
        in_edges: false,
        ..Default::default()
    };
    let l = load(&p, &opts).unwrap();
    let AnyCsr::Unweighted(g) = &l.graph else {
        panic!()
    };
    assert_eq!(g.num_arcs(), 2);
    assert!(g.in_adjacency().is_none());
    assert_eq!(l.stats.self_loops_dropped, 1);
    assert_eq!(l.format, Format::EdgeList);
}

#[test]
fn other_formats_by_extension() {
    let dir = tempfile::tempdir().unwrap();
    // Matrix Market symmetric, read as directed: both arcs.
    let p = write(
        &dir,
        "m.mtx",
        "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n",
    );
    let g = load(
        &p,
        &LoadOptions {
            directed: Some(true),
            ..Default::default()
        },
    )
    .unwrap()
    .graph;
    assert_eq!(g.num_arcs(), 3);
    let g = load(&p, &LoadOptions::default()).unwrap().graph;
    assert_eq!(
        (g.num_vertices(), g.num_edges(), g.is_directed()),
        (3, 2, false)
    );
    // METIS with vertex weights (fmt 10) and an isolated vertex.
    //  1 - 2   3
    let p = write(&dir, "v.graph", "3 1 10\n7 2\n8 1\n9\n");
    let g = load(&p, &LoadOptions::default()).unwrap().graph;
    assert_eq!((g.num_vertices(), g.num_edges()), (3, 1));
    // Ligra, weighted.
    let p = write(&dir, "l.adj", "WeightedAdjacencyGraph\n2\n1\n0\n1\n1\n9\n");
    let g = load(&p, &LoadOptions::default()).unwrap().graph;
    assert_eq!(
        (g.weight_name(), g.num_arcs(), g.is_directed()),
        ("i32", 1, true)
    );
    // DIMACS.
    let p = write(&dir, "d.gr", "c hi\np sp 2 1\na 2 1 4\n");
    let g = load(&p, &LoadOptions::default()).unwrap().graph;
    assert_eq!((g.weight_name(), g.num_arcs()), ("i32", 1));
    assert_eq!(
        Format::from_path(std::path::Path::new("x.TXT.gz")),
        Some(Format::EdgeList)
    );
    assert_eq!("weald".parse::<Format>(), Ok(Format::Binary));
    for f in Format::ALL {
        assert_eq!(f.name().parse::<Format>(), Ok(f));
    }
}

#[test]
fn progress_is_reported() {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "p.txt", "1 2\n2 3\n");
    let seen = Arc::new(AtomicU64::new(0));
    let s2 = seen.clone();
    let opts = LoadOptions {
        progress: Some(Arc::new(move |done, total| {
            assert!(done <= total);
            s2.store(done, Ordering::SeqCst);
        })),
        ..Default::default()
    };
    load(&p, &opts).unwrap();
    assert_eq!(seen.load(Ordering::SeqCst), 8);
    assert!(format!("{opts:?}").contains("<callback>"));
}
