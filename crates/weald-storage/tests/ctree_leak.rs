//! No-leak test for the versioned C-tree store, with a counting global allocator: after every
//! reader has released its snapshots, the bytes still allocated are those of the newest
//! version (within a small margin), and dropping the store frees everything.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};
use std::sync::Arc;
use weald_graph::batch::Combine;
use weald_graph::{Graph, UpdateBatch};
use weald_storage::ctree::{CTreeGraph, CTreeOptions, VersionedGraph};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Relaxed);
        System.dealloc(p, l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Relaxed);
        System.alloc_zeroed(l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new as isize - l.size() as isize, Relaxed);
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static A: Counting = Counting;

fn live() -> isize {
    LIVE.load(Relaxed)
}

/// The tests count the same allocator: one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn batch(k: u32, rng: &mut u64) -> UpdateBatch<i32> {
    let mut b = UpdateBatch::new();
    for _ in 0..2000 {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        let u = (*rng % 3000) as u32;
        let v = ((*rng >> 20) % 3000) as u32;
        b.insert_edges.push((u, v, (k % 7) as i32));
        if (*rng).is_multiple_of(5) {
            b.delete_edges.push((v, (u + 1) % 3000));
        }
    }
    if k % 4 == 3 {
        b.delete_vertices.push(k * 13 % 3000);
    }
    b
}

#[test]
fn versions_are_freed_when_readers_release() {
    let _one = serial();
    // Warm up rayon's pool and thread-local buffers, which live for the whole process.
    let warm = CTreeGraph::<i32>::new(CTreeOptions::default());
    let mut rng = 88172645463325252u64;
    let w2 = warm.apply(&batch(0, &mut rng), Combine::Min).0;
    drop((warm, w2));

    let before = live();
    {
        let vg = Arc::new(VersionedGraph::new(CTreeGraph::<i32>::new(CTreeOptions {
            directed: true,
            in_edges: true,
            b: 16,
        })));
        let mut held = Vec::new();
        let readers: Vec<_> = (0..3)
            .map(|_| {
                let vg = vg.clone();
                std::thread::spawn(move || {
                    let mut keep = Vec::new();
                    for i in 0..200 {
                        let s = vg.acquire();
                        assert!(s.num_arcs() <= 2000 * 40);
                        if i % 50 == 0 {
                            // A flat snapshot aliases the version's trees without owning
                            // them: dropping it must free only its own arrays.
                            let f = s.flat();
                            let arcs: usize =
                                (0..f.num_vertices() as u32).map(|v| f.out_degree(v)).sum();
                            assert_eq!(arcs, s.num_arcs());
                        }
                        if i % 20 == 0 {
                            keep.push(s);
                        }
                    }
                    keep.len()
                })
            })
            .collect();
        for k in 0..40 {
            // Every other batch in place where no reader holds the version.
            if k % 2 == 0 {
                vg.apply(&batch(k, &mut rng), Combine::Sum);
            } else {
                vg.apply_in_place(&batch(k, &mut rng), Combine::Sum);
            }
            if k % 10 == 0 {
                held.push(vg.acquire());
            }
        }
        for r in readers {
            r.join().unwrap();
        }
        assert!(held.len() == 4 && held[0].version() < held[3].version());
        drop(held);
        assert_eq!(vg.reclaim(), 0);
        let newest = vg.acquire();
        let size = newest.memory_bytes().total as isize;
        drop(newest);
        let spare = vg.spare_bytes() as isize;
        let used = live() - before;
        eprintln!("live {used} bytes, newest version {size} bytes, spare {spare} bytes");
        // The newest version plus the store's own structures (its spare node allocations:
        // the store's memory too, not the version's).
        assert!(
            (used - size - spare).abs() < 64 * 1024,
            "live {used} bytes, newest version {size} bytes, spare {spare} bytes"
        );
        assert!(size > 100_000);
        // Large enough that the check below fails if dropping the store left the spare's
        // allocations behind (it holds ~2.5 MB here).
        assert!(spare > 1 << 20, "spare {spare} bytes");
    }
    let after = live() - before;
    assert!(after.abs() < 64 * 1024, "{after} bytes leaked");
}

/// `n` pseudo-random edges among `ids` vertices.
fn edges(n: usize, ids: u32, rng: &mut u64) -> UpdateBatch<()> {
    let mut b = UpdateBatch::new();
    for _ in 0..n {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        b.insert_edges.push((
            (*rng % ids as u64) as u32,
            ((*rng >> 32) % ids as u64) as u32,
            (),
        ));
    }
    b
}

#[test]
fn large_versions_are_freed_in_parallel_inside_a_pool() {
    // A version replaced by a batch that touches most blocks is freed by forked drops of its
    // large subtrees when the drop runs on a pool thread: all of it must still be freed once,
    // and the shared trees kept.
    let _one = serial();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let round = |rng: &mut u64| {
        let g0 = CTreeGraph::<()>::new(CTreeOptions::default())
            .apply(&edges(150_000, 20_000, rng), Combine::Min)
            .0;
        assert!(g0.num_arcs() > 250_000);
        let g1 = g0.apply(&edges(30_000, 20_000, rng), Combine::Min).0;
        assert!(g1.num_arcs() > g0.num_arcs());
        (g0, g1)
    };
    // Warm up the pool's threads and their thread-local buffers.
    pool.install(|| drop(round(&mut rng)));
    let before = live();
    pool.install(|| {
        let (g0, g1) = round(&mut rng);
        let arcs = g1.num_arcs();
        drop(g0);
        let size = g1.memory_bytes().total as isize;
        let used = live() - before;
        assert!(
            (used - size).abs() < 64 * 1024,
            "live {used} bytes, the remaining version {size} bytes"
        );
        let mut seen = 0;
        for v in 0..g1.num_vertices() as u32 {
            g1.for_each_out(v, |_, _| {
                seen += 1;
                true
            });
        }
        assert_eq!(seen, arcs, "the remaining version lost arcs");
        drop(g1);
    });
    let after = live() - before;
    assert!(after.abs() < 64 * 1024, "{after} bytes leaked");
}

/// In a 2-thread pool, a line of versions from a graph of 100,000 random edges among 20,000
/// ids (warmed up with a batch of 10 and one of 5000, for the pool's threads and their
/// thread-local buffers) goes through `run`; after it, live memory has grown exactly as much
/// as the newest version.
fn grows_as_its_newest_version(seed: u64, run: impl FnOnce(&VersionedGraph<()>, &mut u64) + Send) {
    let _one = serial();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut rng = seed;
    pool.install(|| {
        let g = CTreeGraph::<()>::new(CTreeOptions::default())
            .apply(&edges(100_000, 20_000, &mut rng), Combine::Min)
            .0;
        let vg = VersionedGraph::new(g);
        for n in [10, 5000] {
            vg.apply(&edges(n, 20_000, &mut rng), Combine::Min);
        }
        let size0 = vg.acquire().memory_bytes().total as isize;
        let spare0 = vg.spare_bytes() as isize;
        let before = live();
        run(&vg, &mut rng);
        let newest = vg.acquire();
        let size = newest.memory_bytes().total as isize;
        drop(newest);
        let spare = vg.spare_bytes() as isize - spare0;
        let used = live() - before;
        assert!(
            (used - (size - size0) - spare).abs() < 64 * 1024,
            "live {used} more bytes, the newest version {} more, the spare {spare} more",
            size - size0
        );
    });
}

#[test]
fn a_line_of_versions_frees_what_each_batch_replaced_inside_a_pool() {
    // `VersionedGraph::apply` frees the version a small batch replaced on the writer's thread
    // alone, and one a large batch replaced by forked drops: either way all of it, once, and
    // nothing the newest version still holds.
    grows_as_its_newest_version(0x2545_f491_4f6c_dd1d, |vg, rng| {
        for k in 0..300 {
            let n = if k % 50 == 49 { 5000 } else { 10 };
            vg.apply(&edges(n, 20_000, rng), Combine::Min);
        }
        assert_eq!(vg.version(), 302);
    });
}

#[test]
fn lending_versions_held_and_branched_are_freed_once() {
    // `VersionedGraph::apply` copies batches of one kind lending (`vtree::Lending`): a
    // replaced version that a snapshot or a branch still holds has what it lent counted when
    // the batch settles, one that nothing holds is freed without touching what it lent. Once
    // every snapshot and branch is gone, live memory has grown exactly as much as the newest
    // version: nothing counted twice (a leak), nothing freed twice (a crash).
    grows_as_its_newest_version(0x9e37_79b9_7f4a_7c15, |vg, rng| {
        let mut held = Vec::new();
        let mut branches = Vec::new();
        for k in 0..300u32 {
            let n = if k % 40 == 39 {
                5000
            } else {
                1 + (k as usize * 7) % 60
            };
            let ins = edges(n, 20_000, rng);
            vg.apply(&ins, Combine::Min);
            if k % 3 == 0 {
                // Delete what was just inserted (a batch of deletions only).
                let mut del = UpdateBatch::new();
                del.delete_edges = ins.insert_edges.iter().map(|&(u, v, ())| (u, v)).collect();
                vg.apply(&del, Combine::Min);
            }
            if k % 7 == 0 {
                held.push(vg.acquire());
            }
            if k % 11 == 0 {
                if let Some(s) = held.last() {
                    branches.push(s.graph().apply(&edges(20, 20_000, rng), Combine::Min).0);
                }
            }
            if k % 5 == 0 && !held.is_empty() {
                held.remove(0);
            }
            if k % 13 == 0 && !branches.is_empty() {
                branches.remove(0);
            }
        }
        drop(held);
        drop(branches);
        assert_eq!(vg.reclaim(), 0);
    });
}
