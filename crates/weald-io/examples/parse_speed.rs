//! Measure edge-list parsing and building speed.
//!
//! `cargo run --release -p weald-io --example parse_speed -- [FILE] [THREADS]`
//!
//! Without an existing FILE, writes an RMAT scale-20, edge-factor-30 edge list (31.4 M lines,
//! about 450 MB) there first (default `/tmp/weald-rmat20.el`).

use std::path::PathBuf;
use std::time::Instant;
use weald_io::{gen, load, save, LoadOptions};
use weald_storage::{BuildOptions, Csr};

fn main() -> weald_graph::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = PathBuf::from(args.get(1).map_or("/tmp/weald-rmat20.el", |s| s.as_str()));
    let threads: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    if !path.exists() {
        let el = gen::rmat(&gen::RmatParams {
            scale: 20,
            edge_factor: 30,
            ..Default::default()
        });
        let (g, _) = Csr::build(
            el,
            &BuildOptions {
                directed: true,
                in_edges: false,
                dedup: None,
                ..Default::default()
            },
        )?;
        save(&g.into(), &path, None)?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| -> weald_graph::Result<()> {
        for _ in 0..2 {
            let t = Instant::now();
            let l = load(&path, &LoadOptions::default())?;
            println!(
                "threads {threads}: parse {:.2}s build {:.2}s total {:.2}s; n {} arcs {}",
                l.parse_seconds,
                l.build_seconds,
                t.elapsed().as_secs_f64(),
                l.graph.num_vertices(),
                l.graph.num_arcs()
            );
            let wgb = path.with_extension("wgb");
            save(&l.graph, &wgb, None)?;
            let t = Instant::now();
            let b = load(&wgb, &LoadOptions::default())?;
            println!(
                "  binary load {:.2}s (equal: {})",
                t.elapsed().as_secs_f64(),
                b.graph == l.graph
            );
        }
        Ok(())
    })
}
