//! Times the phases of a CSR build on a synthetic edge list: `cargo run --release --example build_timing -p weald-storage -- SCALE`.
use std::time::Instant;
use weald_graph::EdgeList;
use weald_storage::{BuildOptions, Csr};

fn main() {
    let scale: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let n = 1usize << scale;
    let m = n * 16;
    let mut el = EdgeList::<()>::new(n);
    let mut x = 88172645463325252u64;
    for _ in 0..m {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let u = (x % n as u64) as u32;
        let v = ((x >> 32) % n as u64) as u32;
        el.push(u, v, ());
        el.push(v, u, ());
    }
    let t = Instant::now();
    let (g, _) = Csr::build(
        el,
        &BuildOptions {
            relabel: true,
            ..Default::default()
        },
    )
    .unwrap();
    eprintln!(
        "build: {:.3} s, {} arcs",
        t.elapsed().as_secs_f64(),
        weald_graph::Graph::num_arcs(&g)
    );
}
