//! Times one algorithm on the CSR of FILE and on a flat C-tree snapshot of it, in one process,
//! trials alternating between the two, as `weald run ALGO FILE [--backend ctree]` runs them
//! (the same runner, sources and parameters; loading and converting are not timed):
//! `cargo run --release --example backends_ab -p weald-cli -- ALGO FILE [TRIALS] [THREADS]`.
//! The first trial of each is a warm-up (not counted; it also gathers what a snapshot
//! remembers once asked, such as its weight summary). Prints the medians and their ratio.
//! `SOURCE=V` in the environment starts a source-based algorithm from vertex V (the user's
//! id) instead of a random one, as the benchmark harness does. `B=N` in the environment
//! builds the C-tree with chunks of expected size N instead of `DEFAULT_B` (`B=65536`: nearly
//! every vertex one prefix chunk, no edge-tree nodes).
//! Separate processes on a shared machine differ by 20–30 % from run to run; trials that
//! alternate in one process see the same machine.
use std::path::Path;
use weald::io::{load, LoadOptions};
use weald::runner::{self, median, Algorithm, RunParams};
use weald::storage::ctree::DEFAULT_B;
use weald::{AnyGraph, Backend};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The `weald` binary's purge-delay settings (only `keep_freed_memory` is used here).
#[path = "../src/purge.rs"]
#[allow(dead_code)]
mod purge;

fn main() -> weald::Result<()> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: backends_ab ALGO FILE [TRIALS] [THREADS]";
    let alg: Algorithm = args.next().expect(usage).parse()?;
    let file = args.next().expect(usage);
    let trials: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(7);
    let threads: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let csr = AnyGraph::from(load(Path::new(&file), &LoadOptions::default())?.graph);
    let b: u32 = std::env::var("B")
        .ok()
        .and_then(|b| b.parse().ok())
        .unwrap_or(DEFAULT_B);
    let ctree = AnyGraph::from(csr.to_csr()).into_backend(Backend::CTree, b)?;
    // As `weald run` does once its graph is loaded (`keep_freed_memory`): freed memory is kept
    // for a second, so each trial's arrays do not fault in fresh zeroed pages, unless
    // MIMALLOC_PURGE_DELAY says otherwise.
    purge::keep_freed_memory();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    // One trial per run: a source-based algorithm starts every trial of both from the same
    // vertex, SOURCE or one drawn with a fixed seed (random, non-isolated).
    let params = RunParams {
        source: std::env::var("SOURCE").ok().and_then(|s| s.parse().ok()),
        ..RunParams::default()
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    pool.install(|| -> weald::Result<()> {
        for t in 0..=trials {
            let x = runner::run(&csr, alg, &params)?;
            let y = runner::run(&ctree, alg, &params)?;
            if t > 0 {
                a.push(x.trials[0]);
                b.push(y.trials[0]);
            }
        }
        Ok(())
    })?;
    let (ma, mb) = (median(&a) * 1e3, median(&b) * 1e3);
    println!(
        "{} on {file}, {threads} threads, medians of {trials} alternating trials: csr {ma:.1} ms, ctree {mb:.1} ms, ratio {:.2}",
        alg.name(),
        mb / ma
    );
    Ok(())
}
