//! A timing run on an RMAT graph (ignored by default; speed is measured by benchmarks, never
//! asserted). Run: `cargo test -p weald-algo timing_traversal -- --ignored --nocapture`
//! (`WEALD_PERF_SCALE` sets log2 n, default 20; 16 arcs per vertex before symmetrising).

use crate::{bc, bfs, cc, mis, pagerank};
use std::time::Instant;
use weald_graph::{EdgeList, Graph};
use weald_storage::{BuildOptions, Csr};

fn rmat(scale: u32, edges: usize) -> EdgeList<()> {
    let mut el = EdgeList::new(1 << scale);
    let mut x: u64 = 0x1234_5678_9abc_def0;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    for _ in 0..edges {
        let (mut u, mut v) = (0u32, 0u32);
        for _ in 0..scale {
            let r = next();
            let (a, b) = if r < 0.57 {
                (0, 0)
            } else if r < 0.76 {
                (0, 1)
            } else if r < 0.95 {
                (1, 0)
            } else {
                (1, 1)
            };
            u = u << 1 | a;
            v = v << 1 | b;
        }
        el.push(u, v, ());
    }
    el
}

#[test]
#[ignore]
fn timing_traversal_algorithms_rmat() {
    let scale: u32 = std::env::var("WEALD_PERF_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let t = Instant::now();
    let el = rmat(scale, 16 << scale);
    let (g, _) = Csr::build(el, &BuildOptions::default()).unwrap();
    println!(
        "rmat scale {scale}: n = {}, arcs = {}, built in {:?}, threads = {}",
        g.num_vertices(),
        g.num_arcs(),
        t.elapsed(),
        rayon::current_num_threads()
    );
    let src = (0..g.num_vertices() as u32)
        .max_by_key(|&v| g.out_degree(v))
        .unwrap();
    for threads in [1, 2] {
        crate::traverse::testutil::with_threads(threads, || {
            let t = Instant::now();
            let out = bfs::run(&g, src, &bfs::Params::default()).unwrap();
            let reached = out.depth.iter().filter(|&&d| d != u32::MAX).count();
            println!("[{threads}t] bfs: {:?} (reached {reached})", t.elapsed());
            let t = Instant::now();
            let p = bfs::Params {
                direction: crate::traverse::Direction::Sparse,
                ..Default::default()
            };
            bfs::run(&g, src, &p).unwrap();
            println!("[{threads}t] bfs push-only: {:?}", t.elapsed());
            let t = Instant::now();
            bc::run(&g, src, &bc::Params::default()).unwrap();
            println!("[{threads}t] bc: {:?}", t.elapsed());
            let t = Instant::now();
            let pr = pagerank::run(&g, &pagerank::Params::default()).unwrap();
            println!(
                "[{threads}t] pagerank: {:?} ({} iterations)",
                t.elapsed(),
                pr.iterations
            );
            let t = Instant::now();
            let c = cc::run(&g, &cc::Params::default()).unwrap();
            println!(
                "[{threads}t] cc: {:?} ({} components)",
                t.elapsed(),
                c.num_components
            );
            let t = Instant::now();
            let m = mis::run(&g, &mis::Params::default()).unwrap();
            println!("[{threads}t] mis: {:?} (size {})", t.elapsed(), m.size);
        });
    }
}
