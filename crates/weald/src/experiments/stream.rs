//! Streaming experiments on the durable store ([`crate::stream::Store`]).
//!
//! * [`Workload::aspen`] — the update stream of Aspen's Table 5 (PLDI'19, §7.4): sample
//!   `sample` edges of the graph, delete 90 % of them up front, then stream a random
//!   permutation of their re-insertions and of the deletions of the other 10 %.
//! * [`concurrent`] — that stream one update at a time (each acknowledged before the next is
//!   sent, as Aspen applies them, so latency is not queueing behind a backlog) while BFS runs
//!   from random sources back to back on the newest version, alternating with BFS runs with
//!   nothing else running. Each BFS flattens the version and computes hop distances
//!   ([`bfs::depths`], what `weald run bfs` times).
//! * [`ingest`] — the stream in batches through the store (log with a given fsync policy) or
//!   applied the same way to a [`VersionedGraph`] with no log at all (keeping the same number
//!   of versions as the store's default retention): the cost of durability.
//! * [`recovery`] — a log of many updates is written after a checkpoint, then the store is
//!   reopened: the time to recover (checkpoint load plus log replay).
//!
//! Thread budget: BFS and the store's batch application share rayon's global pool (the
//! `--threads` of the CLI); the store's writer and the producer are one extra OS thread each,
//! as in Aspen, whose writer is one of the machine's threads.

use crate::runner::percentile;
use crate::stream::{Fsync, Layout, Retention, Store, StoreOptions, Update};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use weald_algo::bfs;
use weald_graph::batch::Combine;
use weald_graph::{Graph, Result, Vertex, WealdError, Weight};
use weald_io::gen;
use weald_storage::csr::{AnyCsr, Csr};
use weald_storage::ctree::{CTreeGraph, FlatSnapshot, VersionedGraph};

/// SplitMix64: a small deterministic generator for sampling and sources.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            xs.swap(i, self.below(i + 1));
        }
    }
}

/// A starting graph and the updates to stream into it.
pub struct Workload<W: Weight> {
    pub start: CTreeGraph<W>,
    pub updates: Vec<Update<W>>,
}

impl<W: Weight> Workload<W> {
    /// Aspen's Table-5 stream over `g`: `sample` of its edges (each undirected edge once) are
    /// chosen uniformly; 90 % of them are deleted from the starting graph and re-inserted by
    /// the stream, the other 10 % are deleted by it; the stream is randomly permuted.
    pub fn aspen(g: &CTreeGraph<W>, sample: usize, seed: u64) -> Result<Self> {
        let directed = g.is_directed();
        let mut edges: Vec<(Vertex, Vertex, W)> = g
            .arcs()
            .into_iter()
            .filter(|a| if directed { a.0 != a.1 } else { a.0 < a.1 })
            .collect();
        if edges.is_empty() {
            return Err(WealdError::Invalid(
                "the streaming experiment needs a graph with edges".into(),
            ));
        }
        let k = sample.clamp(1, edges.len());
        let mut rng = Rng(seed);
        for i in 0..k {
            let j = i + rng.below(edges.len() - i);
            edges.swap(i, j);
        }
        edges.truncate(k);
        let reinsert = (k * 9).div_ceil(10);
        let gone: Vec<(Vertex, Vertex)> =
            edges[..reinsert].iter().map(|&(u, v, _)| (u, v)).collect();
        let (start, _) = g.delete_edges(&gone);
        let mut updates: Vec<Update<W>> = edges[..reinsert]
            .iter()
            .map(|&(u, v, w)| Update::InsertEdge(u, v, w))
            .chain(
                edges[reinsert..]
                    .iter()
                    .map(|&(u, v, _)| Update::DeleteEdge(u, v)),
            )
            .collect();
        rng.shuffle(&mut updates);
        Ok(Workload { start, updates })
    }

    fn layout(&self) -> Layout {
        let o = self.start.options();
        Layout {
            directed: o.directed,
            in_edges: o.in_edges,
            b: o.b,
            combine: Combine::Last,
        }
    }
}

fn fresh_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| WealdError::io(dir, e))?;
    }
    Ok(())
}

/// What [`concurrent`] measured.
#[derive(Clone, Debug)]
pub struct ConcurrentResult {
    /// Updates streamed (each its own batch and version).
    pub updates: usize,
    /// Wall time of the stream.
    pub seconds: f64,
    /// Arrival → visible to a new reader, per update, in microseconds: median, p99, mean, max.
    pub visibility_p50_us: f64,
    pub visibility_p99_us: f64,
    pub visibility_mean_us: f64,
    pub visibility_max_us: f64,
    /// Seconds of each BFS run concurrent with the stream (flattening the snapshot included).
    pub bfs_concurrent_s: Vec<f64>,
    /// Seconds of each BFS run with nothing else running (before each part of the stream,
    /// from the sources the concurrent runs of that part use).
    pub bfs_isolated_s: Vec<f64>,
    /// Each concurrent run's time over the mean isolated time of the same source in the same
    /// phase: the paired measure of the slowdown (its median − 1).
    pub bfs_ratios: Vec<f64>,
}

/// BFS runs at the start of each series that are not measured.
const WARMUP: usize = 2;

/// `k` BFS sources with at least one out-edge in `g`; none if `g` has no arcs (the stream
/// may delete every edge of a small graph).
fn pick_sources<W: Weight>(g: &CTreeGraph<W>, k: usize, rng: &mut Rng) -> Vec<Vertex> {
    let flat = FlatSnapshot::new(g);
    if flat.num_arcs() == 0 {
        return Vec::new();
    }
    let n = flat.num_vertices();
    (0..k)
        .map(|_| loop {
            let v = rng.below(n) as Vertex;
            if flat.out_degree(v) > 0 {
                break v;
            }
        })
        .collect()
}

/// Seconds of one BFS from `source` on `g`, flattening the version included (what a query
/// on the newest version costs), freeing the snapshot and the depths not.
fn one_bfs<W: Weight>(g: &CTreeGraph<W>, source: Vertex) -> Result<f64> {
    let t = Instant::now();
    let done = weald_graph::parallel::in_pool(|| {
        let flat = FlatSnapshot::new(g);
        bfs::depths(&flat, source, &bfs::Params::default()).map(|d| (flat, d))
    })?;
    let secs = t.elapsed().as_secs_f64();
    drop(done);
    Ok(secs)
}

/// Stream the first `limit` updates of `w` one at a time into a new store in `dir` (removed
/// first). With `with_bfs`, the stream is cut into [`PHASES`] parts and the measurement
/// alternates (A B A B …, so that drift of the machine and of the graph's memory layout affects
/// both sides): before each part, [`SOURCES_PER_PHASE`] random sources are drawn and BFS runs
/// from each [`ISOLATED_PER_SOURCE`] times on the newest version with nothing else running;
/// then the part is streamed by a producer thread while BFS runs back to back from the same
/// sources in turn. Each concurrent run is compared with the mean isolated time of its source
/// in its phase ([`ConcurrentResult::bfs_ratios`]): BFS times from random sources differ by
/// several times on a skewed graph, so comparing medians over different sources measures the
/// sources as much as the interference.
pub fn concurrent<W: Weight>(
    w: &Workload<W>,
    dir: &Path,
    fsync: Fsync,
    limit: usize,
    with_bfs: bool,
    seed: u64,
) -> Result<ConcurrentResult>
where
    AnyCsr: From<Csr<W>>,
{
    fresh_dir(dir)?;
    let opts = StoreOptions {
        fsync,
        checkpoint_every: 0,
        ..StoreOptions::default()
    };
    let store = Store::create(dir, w.layout(), Some(w.start.clone()), opts)?;
    let ups = &w.updates[..limit.min(w.updates.len())];
    let producer = store.producer();
    let mut rng = Rng(seed);
    let (mut conc, mut iso, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    if with_bfs {
        let snap = store.acquire();
        for s in pick_sources(snap.graph(), WARMUP, &mut rng) {
            one_bfs(snap.graph(), s)?;
        }
    }
    let phases = if with_bfs { PHASES } else { 1 };
    let mut seconds = 0.0;
    for part in ups.chunks(ups.len().div_ceil(phases).max(1)) {
        let (mut sources, mut alone) = (Vec::new(), Vec::new());
        if with_bfs {
            let snap = store.acquire();
            sources = pick_sources(snap.graph(), SOURCES_PER_PHASE, &mut rng);
            for &s in &sources {
                let mut sum = 0.0;
                for _ in 0..ISOLATED_PER_SOURCE {
                    let t = one_bfs(snap.graph(), s)?;
                    iso.push(t);
                    sum += t;
                }
                alone.push(sum / ISOLATED_PER_SOURCE as f64);
            }
        }
        let done = AtomicBool::new(false);
        let secs = std::thread::scope(|sc| -> Result<f64> {
            let writer = sc.spawn(|| -> Result<f64> {
                let t = Instant::now();
                let mut r = Ok(());
                for &u in part {
                    r = producer
                        .send_all(vec![u])
                        .and_then(|t| t.wait())
                        .map(|_| ());
                    if r.is_err() {
                        break;
                    }
                }
                done.store(true, Ordering::Release);
                r.map(|_| t.elapsed().as_secs_f64())
            });
            let mut bfs = Ok(());
            let mut i = 0;
            while !sources.is_empty() && bfs.is_ok() && !done.load(Ordering::Acquire) {
                let k = i % sources.len();
                bfs = one_bfs(store.acquire().graph(), sources[k]).map(|t| {
                    conc.push(t);
                    ratios.push(t / alone[k]);
                });
                i += 1;
            }
            let secs = writer.join().expect("producer thread panicked")?;
            bfs.map(|_| secs)
        })?;
        seconds += secs;
    }
    drop(producer);
    let stats = store.close()?;
    let vis = stats.visibility_us();
    Ok(ConcurrentResult {
        updates: ups.len(),
        seconds,
        visibility_p50_us: percentile(&vis, 0.5),
        visibility_p99_us: percentile(&vis, 0.99),
        visibility_mean_us: vis.iter().sum::<f64>() / vis.len().max(1) as f64,
        visibility_max_us: vis.last().copied().unwrap_or(f64::NAN),
        bfs_concurrent_s: conc,
        bfs_isolated_s: iso,
        bfs_ratios: ratios,
    })
}

/// Parts of the stream in [`concurrent`]; each is preceded by isolated BFS runs.
pub const PHASES: usize = 10;
/// BFS sources of each part of the stream (the concurrent runs take them in turn).
pub const SOURCES_PER_PHASE: usize = 2;
/// Isolated BFS runs from each source before its part of the stream.
pub const ISOLATED_PER_SOURCE: usize = 2;

/// Seconds to take all of `w`'s updates, in batches of `batch`, from the first send until the
/// last is visible: through a new store in `dir` with `fsync` (`Some`), or with no log at all
/// (`None`: the same in-order batch application on a [`VersionedGraph`], one version per batch).
pub fn ingest<W: Weight>(w: &Workload<W>, log: Option<(&Path, Fsync)>, batch: usize) -> Result<f64>
where
    AnyCsr: From<Csr<W>>,
{
    let batches: Vec<Vec<Update<W>>> = w.updates.chunks(batch.max(1)).map(|c| c.to_vec()).collect();
    let layout = w.layout();
    match log {
        None => {
            // Versions are kept as the store keeps them by default (the newest K), so both
            // sides free old versions at the same pace.
            let keep = Retention::default().last.max(1);
            let vg = VersionedGraph::new(w.start.clone());
            let mut kept = std::collections::VecDeque::with_capacity(keep + 1);
            let t = Instant::now();
            for b in &batches {
                let cur = vg.acquire();
                let (g, _) = crate::stream::apply_in_order(cur.graph(), b, &layout);
                drop(cur);
                vg.set(g);
                kept.push_back(vg.acquire());
                if kept.len() > keep {
                    kept.pop_front();
                }
            }
            let secs = t.elapsed().as_secs_f64();
            drop(kept);
            Ok(secs)
        }
        Some((dir, fsync)) => {
            fresh_dir(dir)?;
            let opts = StoreOptions {
                fsync,
                batch_size: batch.max(1),
                checkpoint_every: 0,
                ..StoreOptions::default()
            };
            let store = Store::create(dir, layout, Some(w.start.clone()), opts)?;
            let p = store.producer();
            let t = Instant::now();
            for b in batches {
                p.send_all(b)?;
            }
            p.flush()?.wait()?;
            let secs = t.elapsed().as_secs_f64();
            drop(p);
            store.close()?;
            Ok(secs)
        }
    }
}

/// What [`recovery`] measured.
#[derive(Clone, Debug)]
pub struct RecoveryResult {
    pub updates: u64,
    pub log_bytes: u64,
    /// Seconds to write the log (batches through the store, fsync `never`).
    pub write_s: f64,
    /// Seconds of `Store::open`: newest checkpoint loaded, every record replayed.
    pub recover_s: f64,
    pub records_replayed: u64,
    pub updates_replayed: u64,
    /// C-tree batches the replay applied (records no retained version needs are merged).
    pub batches_applied: u64,
}

/// Write `updates` RMAT edge insertions (Graph500 parameters over `w.start`'s id range) in
/// batches of `batch` into a new store in `dir` holding `w.start` as its checkpoint, close it,
/// and time reopening it.
pub fn recovery<W: Weight>(
    w: &Workload<W>,
    dir: &Path,
    updates: usize,
    batch: usize,
    seed: u64,
) -> Result<RecoveryResult>
where
    AnyCsr: From<Csr<W>>,
{
    fresh_dir(dir)?;
    let n = w.start.num_vertices().max(2);
    let scale = (usize::BITS - (n - 1).leading_zeros()).max(1);
    let el = gen::rmat(&gen::RmatParams {
        scale,
        edge_factor: (updates.div_ceil(1usize << scale)).max(1) as u32,
        seed,
        ..Default::default()
    });
    let one = W::parse("1").unwrap_or_default();
    let ups: Vec<Update<W>> = el
        .src
        .iter()
        .zip(&el.dst)
        .take(updates)
        .map(|(&u, &v)| Update::InsertEdge(u, v, one))
        .collect();
    drop(el);
    let opts = StoreOptions {
        fsync: Fsync::Never,
        batch_size: batch.max(1),
        checkpoint_every: 0,
        ..StoreOptions::default()
    };
    let store = Store::create(dir, w.layout(), Some(w.start.clone()), opts.clone())?;
    let p = store.producer();
    let t = Instant::now();
    for c in ups.chunks(batch.max(1)) {
        p.send_all(c.to_vec())?;
    }
    p.flush()?.wait()?;
    let write_s = t.elapsed().as_secs_f64();
    drop(p);
    let written = store.acquire().num_arcs() as u64;
    store.close()?;
    drop(ups);
    let log_bytes = std::fs::read_dir(dir.join("wal"))
        .map_err(|e| WealdError::io(dir, e))?
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    let t = Instant::now();
    let store = Store::<W>::open(dir, opts)?;
    let recover_s = t.elapsed().as_secs_f64();
    let r = store.recovery().clone();
    store.close()?;
    if r.updates_replayed != updates as u64 || r.arcs != written {
        return Err(WealdError::Invalid(format!(
            "recovery replayed {} of {updates} updates and holds {} arcs, {written} were written",
            r.updates_replayed, r.arcs
        )));
    }
    Ok(RecoveryResult {
        updates: updates as u64,
        log_bytes,
        write_s,
        recover_s,
        records_replayed: r.records_replayed,
        updates_replayed: r.updates_replayed,
        batches_applied: r.batches_applied,
    })
}
