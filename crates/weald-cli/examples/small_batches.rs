//! Times many small batches (insert, then delete the same edges) on a C-tree graph loaded from
//! FILE, 1 thread, with the allocator of the `weald` command, for profiling the per-batch
//! cost: `cargo run --release --example small_batches -p weald-cli -- FILE [SIZE] [ROUNDS]
//! [chain|in-place]`. By default every batch applies to the loaded graph and freeing the
//! versions is not timed (what `weald bench updates` did until 2026-12-02). With `chain`,
//! each batch applies to the newest version and replaces it, as `VersionedGraph::apply` did
//! until it began to copy lending (2026-12-02; `vtree::Lending`: this counts every shared
//! reference, as `CTreeGraph::insert_edges` does), and freeing the replaced version is timed
//! on its own. With `in-place`, each batch updates the one graph in place
//! (`insert_edges_mut`, `delete_edges_mut`: nothing to free), as
//! `VersionedGraph::apply_in_place` and Python's `DynamicGraph` do when no snapshot holds the
//! version. The batches cycle through min(ROUNDS, 1000) distinct ones, or through `DISTINCT`
//! ones if that is set in the environment (`DISTINCT=1`: one batch repeated, every line it
//! touches in cache: what a batch costs beyond its cache misses).
use std::path::Path;
use std::time::Instant;
use weald::graph::batch::Combine;
use weald::io::{gen, load, LoadOptions};
use weald::storage::ctree::DEFAULT_B;
use weald::storage::{AnyCsr, CTreeGraph};
use weald::Vertex;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The `weald` binary's purge-delay settings (only `keep_freed_memory` is used here).
#[path = "../src/purge.rs"]
#[allow(dead_code)]
mod purge;

fn main() {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .expect("usage: small_batches FILE [SIZE] [ROUNDS] [chain|in-place]");
    let size: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(10);
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20000);
    let mode = args.next();
    let chain = mode.as_deref() == Some("chain");
    let in_place = mode.as_deref() == Some("in-place");
    // As the `weald` commands that apply batches do (`keep_freed_memory`): freed memory is
    // kept for a second, unless MIMALLOC_PURGE_DELAY says otherwise.
    purge::keep_freed_memory();
    let loaded = load(Path::new(&file), &LoadOptions::default()).expect("load");
    let AnyCsr::Unweighted(csr) = loaded.graph else {
        panic!("small_batches takes an unweighted graph");
    };
    let ct = CTreeGraph::from_csr(&csr, DEFAULT_B);
    let p = gen::RmatParams {
        scale: 20,
        seed: 77,
        ..Default::default()
    };
    let distinct = std::env::var("DISTINCT")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&d| d > 0)
        .unwrap_or(rounds.min(1000));
    let el = gen::rmat_arcs(&p, size * distinct);
    let edges: Vec<(Vertex, Vertex, ())> = el
        .src
        .iter()
        .zip(&el.dst)
        .map(|(&u, &v)| (u, v, ()))
        .collect();
    let pairs: Vec<(Vertex, Vertex)> = el.src.iter().copied().zip(el.dst.iter().copied()).collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let (mut ti, mut td, mut tf) = (0.0, 0.0, 0.0);
    let mut cur = ct;
    pool.install(|| {
        for r in 0..rounds {
            let k = (r % distinct) * size;
            if in_place {
                let t = Instant::now();
                cur.insert_edges_mut(&edges[k..k + size], Combine::Min);
                ti += t.elapsed().as_secs_f64();
                let t = Instant::now();
                cur.delete_edges_mut(&pairs[k..k + size]);
                td += t.elapsed().as_secs_f64();
                continue;
            }
            let t = Instant::now();
            let (g2, _) = cur.insert_edges(&edges[k..k + size], Combine::Min);
            ti += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let (g3, _) = g2.delete_edges(&pairs[k..k + size]);
            td += t.elapsed().as_secs_f64();
            if chain {
                // Each version replaces the one before, which is freed (timed).
                let t = Instant::now();
                drop(std::mem::replace(&mut cur, g2));
                drop(std::mem::replace(&mut cur, g3));
                tf += t.elapsed().as_secs_f64();
            } else {
                drop((g2, g3));
            }
        }
    });
    let n = (rounds * size) as f64;
    println!(
        "size {size}: insert {:.3e} edges/s ({:.2} us/batch), delete {:.3e} edges/s ({:.2} us/batch)",
        n / ti,
        ti / rounds as f64 * 1e6,
        n / td,
        td / rounds as f64 * 1e6
    );
    if chain {
        println!(
            "freeing the replaced versions: {:.2} us per batch",
            tf / (2 * rounds) as f64 * 1e6
        );
    }
}
