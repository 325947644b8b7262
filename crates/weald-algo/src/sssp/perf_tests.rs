//! Timing runs of the bucket-based algorithms (delta-stepping, Bellman-Ford, k-core) and of
//! triangle counting on an RMAT graph, ignored by default (speed is measured by benchmarks,
//! never asserted). Run:
//! `cargo test -p weald-algo sssp::perf -- --ignored --nocapture --test-threads 1`
//! (`WEALD_PERF_SCALE` sets log2 n, default 20; `WEALD_PERF_THREADS` the thread count,
//! default 1; `WEALD_PERF_VERIFY=1` also times the verifier; `WEALD_PERF_ONLY=tc` times only triangle
//! counting). With scale 20 this is the graph of GAPBS's bar: about 1M vertices and 31M arcs
//! (16 edges per vertex, symmetrised, duplicates merged), integer weights 1..255, delta 2.

use crate::{kcore, sssp, tc};
use std::time::Instant;
use weald_graph::{EdgeList, Graph};
use weald_storage::{BuildOptions, Csr};

fn rmat(scale: u32, edges: usize) -> EdgeList<i32> {
    let mut el = EdgeList::new(1 << scale);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..edges {
        let (mut u, mut v) = (0u32, 0u32);
        for _ in 0..scale {
            let r = (next() >> 11) as f64 / (1u64 << 53) as f64;
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
        el.push(u, v, (next() % 255) as i32 + 1);
    }
    el
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

#[test]
#[ignore]
fn perf_rmat_weighted() {
    let scale = env("WEALD_PERF_SCALE", 20) as u32;
    let threads = env("WEALD_PERF_THREADS", 1);
    let t = Instant::now();
    let (g, _) = Csr::build(rmat(scale, 16 << scale), &BuildOptions::default()).unwrap();
    println!(
        "rmat scale {scale}: n = {}, arcs = {}, built in {:.2?}",
        g.num_vertices(),
        g.num_arcs(),
        t.elapsed()
    );
    let src = (0..g.num_vertices() as u32)
        .max_by_key(|&v| g.out_degree(v))
        .unwrap();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| {
            let only = std::env::var("WEALD_PERF_ONLY").unwrap_or_default();
            if only == "tc" {
                let t = Instant::now();
                let c = tc::run(&g, &Default::default()).unwrap();
                println!("tc, {threads} threads: {:.3?} ({} triangles)", t.elapsed(), c.total);
                return;
            }
            for delta in [Some(2.0), None] {
                for _ in 0..3 {
                    let t = Instant::now();
                    let p = sssp::delta_stepping::Params { delta };
                    let out = sssp::delta_stepping::run(&g, src, &p).unwrap();
                    let reached = out.dist.iter().filter(|&&d| d != i64::MAX).count();
                    println!(
                        "delta-stepping delta {delta:?}, {threads} threads: {:.3?} ({reached} reached)",
                        t.elapsed()
                    );
                }
            }
            let out = sssp::delta_stepping::run(&g, src, &Default::default()).unwrap();
            let t = Instant::now();
            sssp::shortest_path_parents(&g, src, &out.dist, true);
            println!("(a separate parents pass, needed only with zero-weight ties: {:.3?})", t.elapsed());
            let t = Instant::now();
            let out = sssp::bellman_ford::run(&g, src, &Default::default()).unwrap();
            println!("bellman-ford, {threads} threads: {:.3?}", t.elapsed());
            if env("WEALD_PERF_VERIFY", 0) == 1 {
                let t = Instant::now();
                assert_eq!(sssp::verify(&g, src, &out), Ok(()));
                println!("sssp verify: {:.3?}", t.elapsed());
            }
            let t = Instant::now();
            let k = kcore::run(&g, &Default::default()).unwrap();
            println!(
                "kcore, {threads} threads: {:.3?} (max core {})",
                t.elapsed(),
                k.max_core
            );
            let t = Instant::now();
            let c = tc::run(&g, &Default::default()).unwrap();
            println!(
                "tc, {threads} threads: {:.3?} ({} triangles)",
                t.elapsed(),
                c.total
            );
        });
}
