//! Times one pass over every neighbour list (summing the neighbour ids, 1 thread) on the CSR
//! and on a C-tree snapshot of the same unweighted graph, the decode cost that the C-tree's
//! global kernels pay on top of the CSR's:
//! `cargo run --release --example scan_timing -p weald-io -- FILE [ROUNDS]`.
use std::path::Path;
use std::time::Instant;
use weald_graph::{Graph, Vertex};
use weald_io::{load, LoadOptions};
use weald_storage::ctree::DEFAULT_B;
use weald_storage::{AnyCsr, CTreeGraph, FlatSnapshot};

fn sum<G: Graph>(g: &G) -> u64 {
    let mut s = 0u64;
    for v in 0..g.num_vertices() as Vertex {
        g.prefetch_out(v + 8);
        g.for_each_out(v, |u, _| {
            s += u as u64;
            true
        });
    }
    s
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args.next().expect("usage: scan_timing FILE [ROUNDS]");
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(9);
    let loaded = load(Path::new(&file), &LoadOptions::default()).expect("load");
    let AnyCsr::Unweighted(csr) = loaded.graph else {
        panic!("scan_timing takes an unweighted graph");
    };
    let ct = CTreeGraph::from_csr(&csr, DEFAULT_B);
    let flat = FlatSnapshot::new(&ct);
    let (mut tc, mut tt) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = Instant::now();
        let a = sum(&csr);
        tc.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let b = sum(&flat);
        tt.push(t.elapsed().as_secs_f64());
        assert_eq!(a, b, "the C-tree's neighbours differ from the CSR's");
    }
    let arcs = csr.num_arcs() as f64;
    let (c, t) = (median(tc), median(tt));
    println!(
        "{} arcs: csr {:.1} ms ({:.2} ns/arc), ctree {:.1} ms ({:.2} ns/arc); medians of {rounds}",
        csr.num_arcs(),
        c * 1e3,
        c * 1e9 / arcs,
        t * 1e3,
        t * 1e9 / arcs
    );
}
