//! The cross-backend conformance suite: every algorithm on every backend gives the same answer
//! as on the static CSR (the oracle) and passes the problem's verifier.
//!
//! Backends covered: `Csr`, `CTreeGraph` (the C-tree snapshot, with the default chunking
//! b = 256 and with b = 2 so that almost every element is a head), and `FlatSnapshot`.

use std::path::PathBuf;
use weald::algo;
use weald::graph::batch::Combine;
use weald::io::{self, LoadOptions};
use weald::storage::ctree::{CTreeGraph, FlatSnapshot};
use weald::storage::{AnyCsr, BuildOptions, Csr};
use weald::{EdgeList, InGraph, Vertex, Weight};

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/graphs")
        .join(rel)
}

/// Nibble's cluster, conductance and walk mass, as bit patterns (the same arithmetic runs on
/// every backend, so the bits must agree).
type NibbleBits = (Vec<Vertex>, u64, Vec<(Vertex, u64)>);

/// Everything the unweighted algorithms compute, for comparison across backends.
#[derive(Debug, PartialEq)]
struct Answers {
    bfs_depth: Vec<u32>,
    bc: Vec<f64>,
    pagerank: Vec<f64>,
    cc: Vec<u32>,
    tc: Option<(u64, Vec<u64>)>,
    kcore: Option<Vec<u32>>,
    mis: Option<Vec<bool>>,
    twohop: Vec<Vertex>,
    nibble: Option<NibbleBits>,
}

fn answers<G: InGraph>(g: &G, source: Vertex) -> Answers {
    let bfs = algo::bfs::run(g, source, &Default::default()).unwrap();
    algo::bfs::verify(g, source, &bfs).unwrap();
    let depth = algo::bfs::depths(g, source, &Default::default()).unwrap();
    assert_eq!(depth, bfs.depth, "depth-only BFS");
    assert_eq!(algo::bfs::tree_parents(g, source, &depth), bfs.parent);
    let bc = algo::bc::run(g, source, &Default::default()).unwrap();
    algo::bc::verify(g, source, &bc).unwrap();
    let prp = algo::pagerank::Params {
        tol: 1e-10,
        max_iter: 500,
        ..Default::default()
    };
    let pr = algo::pagerank::run(g, &prp).unwrap();
    algo::pagerank::verify(g, &pr, &prp).unwrap();
    let cc = algo::cc::run(g, &Default::default()).unwrap();
    algo::cc::verify(g, &cc).unwrap();
    let symmetric = !g.is_directed();
    let tc = symmetric.then(|| {
        let t = algo::tc::run(g, &Default::default()).unwrap();
        algo::tc::verify(g, &t).unwrap();
        (t.total, t.per_vertex)
    });
    let kcore = symmetric.then(|| {
        let k = algo::kcore::run(g, &Default::default()).unwrap();
        algo::kcore::verify(g, &k).unwrap();
        k.coreness
    });
    let mis = symmetric.then(|| {
        let m = algo::mis::run(g, &algo::mis::Params { seed: 3 }).unwrap();
        algo::mis::verify(g, &m).unwrap();
        m.in_set
    });
    let twohop = algo::twohop::run(g, source, &Default::default()).unwrap();
    algo::twohop::verify(g, source, &twohop).unwrap();
    let nibble = symmetric.then(|| {
        let p = algo::localcluster::Params::default();
        let o = algo::localcluster::run(g, source, &p).unwrap();
        algo::localcluster::verify(g, source, &p, &o).unwrap();
        let mass = o.mass.iter().map(|&(v, x)| (v, x.to_bits())).collect();
        (o.cluster, o.conductance.to_bits(), mass)
    });
    Answers {
        bfs_depth: bfs.depth,
        twohop: twohop.vertices,
        nibble,
        bc: bc.dependency,
        pagerank: pr.rank,
        cc: cc.label,
        tc,
        kcore,
        mis,
    }
}

fn assert_close(a: &[f64], b: &[f64], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= 1e-9 * x.abs().max(1.0),
            "{what}[{i}]: {x} vs {y}"
        );
    }
}

fn same(reference: &Answers, other: &Answers, backend: &str) {
    assert_eq!(
        reference.bfs_depth, other.bfs_depth,
        "{backend}: bfs depths"
    );
    assert_eq!(reference.cc, other.cc, "{backend}: cc labels");
    assert_eq!(reference.tc, other.tc, "{backend}: triangles");
    assert_eq!(reference.kcore, other.kcore, "{backend}: coreness");
    assert_eq!(reference.mis, other.mis, "{backend}: mis");
    assert_eq!(reference.twohop, other.twohop, "{backend}: two-hop");
    assert_eq!(reference.nibble, other.nibble, "{backend}: nibble");
    assert_close(&reference.bc, &other.bc, &format!("{backend}: bc"));
    assert_close(
        &reference.pagerank,
        &other.pagerank,
        &format!("{backend}: pagerank"),
    );
}

fn source_of<G: InGraph>(g: &G) -> Vertex {
    (0..g.num_vertices() as Vertex)
        .max_by_key(|&v| (g.out_degree(v), std::cmp::Reverse(v)))
        .unwrap_or(0)
}

/// Run every unweighted algorithm on the CSR and on each C-tree form; all must agree.
fn conform<W: Weight>(csr: &Csr<W>) {
    let s = source_of(csr);
    let reference = answers(csr, s);
    for b in [256, 2] {
        let ct = CTreeGraph::from_csr(csr, b);
        same(&reference, &answers(&ct, s), &format!("ctree b={b}"));
        let flat = FlatSnapshot::new(&ct);
        same(&reference, &answers(&flat, s), &format!("flat b={b}"));
    }
}

fn sssp_conform<W: Weight>(csr: &Csr<W>) {
    let s = source_of(csr);
    let want = algo::sssp::delta_stepping::run(csr, s, &Default::default()).unwrap();
    algo::sssp::verify(csr, s, &want).unwrap();
    let bf = algo::sssp::bellman_ford::run(csr, s, &Default::default()).unwrap();
    algo::sssp::verify(csr, s, &bf).unwrap();
    let to_f = |d: &[<W as Weight>::Dist]| {
        d.iter()
            .map(|x| weald::graph::DistValue::to_f64(*x))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        to_f(&want.dist),
        to_f(&bf.dist),
        "delta-stepping vs bellman-ford"
    );
    for b in [256, 2] {
        let ct = CTreeGraph::from_csr(csr, b);
        let got = algo::sssp::delta_stepping::run(&ct, s, &Default::default()).unwrap();
        algo::sssp::verify(&ct, s, &got).unwrap();
        assert_eq!(to_f(&want.dist), to_f(&got.dist), "ctree b={b}: sssp");
        let flat = FlatSnapshot::new(&ct);
        let got = algo::sssp::bellman_ford::run(&flat, s, &Default::default()).unwrap();
        assert_eq!(
            to_f(&want.dist),
            to_f(&got.dist),
            "flat b={b}: bellman-ford"
        );
    }
}

fn load(rel: &str, directed: bool, weighted: bool) -> AnyCsr {
    let opts = LoadOptions {
        directed: Some(directed),
        weighted: Some(weighted),
        ..Default::default()
    };
    io::load(&data(rel), &opts).unwrap().graph
}

#[test]
fn real_undirected_graphs() {
    for rel in [
        "static/facebook_combined.txt.gz",
        "static/CA-GrQc.txt",
        "static/dimacs10/jazz.graph",
        "static/mtx/chesapeake.mtx",
    ] {
        match load(rel, false, false) {
            AnyCsr::Unweighted(g) => conform(&g),
            other => panic!("{rel}: expected unweighted, got {}", other.weight_name()),
        }
    }
}

#[test]
fn real_directed_graphs() {
    for rel in [
        "static/wiki-Vote.txt",
        "static/email-Eu-core.txt.gz",
        "static/C-elegans-frontal.txt",
    ] {
        match load(rel, true, false) {
            AnyCsr::Unweighted(g) => conform(&g),
            other => panic!("{rel}: expected unweighted, got {}", other.weight_name()),
        }
    }
}

#[test]
fn weighted_road_graphs() {
    for (rel, directed) in [
        ("weighted/rome99.gr", true),
        ("weighted/street/monaco.tsv", false),
        ("weighted/minnesota_road.tsv", false),
    ] {
        match load(rel, directed, true) {
            AnyCsr::Int(g) => {
                sssp_conform(&g);
                conform(&g);
            }
            AnyCsr::Float(g) => {
                sssp_conform(&g);
                conform(&g);
            }
            AnyCsr::Unweighted(_) => panic!("{rel}: expected weights"),
        }
    }
}

#[test]
fn generated_graphs() {
    let rmat = io::gen::rmat(&io::gen::RmatParams {
        scale: 11,
        edge_factor: 8,
        seed: 5,
        ..Default::default()
    });
    let opts = BuildOptions {
        drop_self_loops: true,
        ..Default::default()
    };
    conform(&Csr::build(rmat.clone(), &opts).unwrap().0);
    let directed = BuildOptions {
        directed: true,
        ..Default::default()
    };
    conform(&Csr::build(rmat.clone(), &directed).unwrap().0);
    let w = io::gen::add_weights_int(&rmat, 1, 255, 5);
    sssp_conform(&Csr::build(w, &opts).unwrap().0);
    let wf = io::gen::add_weights_float(&rmat, 0.5, 2.0, 5);
    sssp_conform(&Csr::build(wf, &directed).unwrap().0);
    for el in [
        io::gen::grid(20, 30),
        io::gen::star(50),
        io::gen::path(100),
        io::gen::complete(12),
    ] {
        conform(&Csr::build(el, &BuildOptions::default()).unwrap().0);
    }
    // An empty graph and a graph with only isolated vertices.
    conform(
        &Csr::build(EdgeList::<()>::new(5), &BuildOptions::default())
            .unwrap()
            .0,
    );
    let _ = Combine::Min;
}
