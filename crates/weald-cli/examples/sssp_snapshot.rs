//! Times delta-stepping SSSP in one process, rounds alternating, on the CSR of FILE (an
//! integer-weighted graph), on a flat C-tree snapshot made for each round, and on one snapshot
//! kept across rounds (its weight summary, gathered by the first run, is remembered): `cargo
//! run --release --example sssp_snapshot -p weald-cli -- FILE [ROUNDS] [THREADS]`. The source
//! is the vertex of highest degree; the distances of the three must agree. One process, so
//! the comparison does not suffer the run-to-run noise of separate processes.
use std::path::Path;
use std::time::Instant;
use weald::algo::sssp;
use weald::graph::{Graph, Vertex};
use weald::io::{load, LoadOptions};
use weald::storage::ctree::DEFAULT_B;
use weald::storage::{AnyCsr, CTreeGraph, FlatSnapshot};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .expect("usage: sssp_snapshot FILE [ROUNDS] [THREADS]");
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(5);
    let threads: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let loaded = load(Path::new(&file), &LoadOptions::default()).expect("load");
    let AnyCsr::Int(csr) = loaded.graph else {
        panic!("sssp_snapshot takes a graph with integer weights")
    };
    let ct = CTreeGraph::from_csr(&csr, DEFAULT_B);
    let flat = FlatSnapshot::new(&ct);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let src = (0..csr.num_vertices() as Vertex)
        .max_by_key(|&v| csr.out_degree(v))
        .unwrap();
    let p = sssp::delta_stepping::Params::default();
    let (mut a, mut b, mut c) = (vec![], vec![], vec![]);
    pool.install(|| {
        for _ in 0..rounds {
            let t = Instant::now();
            let d1 = sssp::delta_stepping::distances(&csr, src, &p).unwrap();
            a.push(t.elapsed().as_secs_f64() * 1e3);
            let fresh = FlatSnapshot::new(&ct);
            let t = Instant::now();
            let d2 = sssp::delta_stepping::distances(&fresh, src, &p).unwrap();
            b.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let d3 = sssp::delta_stepping::distances(&flat, src, &p).unwrap();
            c.push(t.elapsed().as_secs_f64() * 1e3);
            assert!(d1 == d2 && d2 == d3, "the distances differ");
        }
    });
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|x, y| x.partial_cmp(y).unwrap());
        v[v.len() / 2]
    };
    println!(
        "csr {:.1} ms, fresh flat {:.1} ms, flat (summary cached) {:.1} ms (medians of {rounds}, {threads} threads)",
        med(&mut a),
        med(&mut b),
        med(&mut c)
    );
}
