//! Parallel primitives on rayon: prefix sums, pack (filter), sorting, semisort, histograms.
//!
//! All of them are deterministic: the result does not depend on the number of threads.

use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Below this many elements, primitives run sequentially.
pub const SEQ_THRESHOLD: usize = 1 << 14;

/// The most worker threads a pool may be asked for (the CLI's `--threads`, Python's
/// `set_num_threads`): thousands of threads on a few cores only add start-up and scheduling
/// (`weald info` of a 3-edge graph on 2 cores: 0.25 s at 512 threads, 3.1 s at 1024, 11.5 s at
/// 2048, 42 s at 4096, and 5000 had not finished after a minute).
pub const MAX_THREADS: usize = 1024;

fn block_size(n: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    (n / (threads * 8)).max(SEQ_THRESHOLD)
}

/// Run `f` on a worker of the current rayon pool (the global pool, from a thread outside any
/// pool): one hand-off to the pool however many parallel loops `f` starts. From outside, each
/// top-level parallel loop is otherwise handed over on its own while the caller sleeps — two
/// thread wake-ups per loop, tens of microseconds on a virtual machine. On a worker, `f` just
/// runs. Worth it only around work with parallel loops: the hand-off itself costs as much.
pub fn in_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_some() {
        f()
    } else {
        rayon::scope(|_| f())
    }
}

/// Exclusive prefix sum in place; returns the total. `[3, 1, 2]` becomes `[0, 3, 4]`, total 6.
pub fn scan_exclusive(xs: &mut [usize]) -> usize {
    let n = xs.len();
    if n <= SEQ_THRESHOLD {
        let mut acc = 0;
        for x in xs.iter_mut() {
            let t = *x;
            *x = acc;
            acc += t;
        }
        return acc;
    }
    let bs = block_size(n);
    let mut sums: Vec<usize> = xs.par_chunks(bs).map(|c| c.iter().sum()).collect();
    let total = scan_exclusive(&mut sums);
    xs.par_chunks_mut(bs).zip(sums).for_each(|(c, mut acc)| {
        for x in c.iter_mut() {
            let t = *x;
            *x = acc;
            acc += t;
        }
    });
    total
}

/// Elements of `xs` for which `keep` holds, in their original order.
pub fn pack<T: Copy + Send + Sync>(xs: &[T], keep: impl Fn(&T) -> bool + Sync) -> Vec<T> {
    if xs.len() <= SEQ_THRESHOLD {
        return xs.iter().copied().filter(|x| keep(x)).collect();
    }
    let bs = block_size(xs.len());
    let parts: Vec<Vec<T>> = xs
        .par_chunks(bs)
        .map(|c| c.iter().copied().filter(|x| keep(x)).collect())
        .collect();
    concat(parts)
}

/// Indices `i` in `0..n` for which `keep(i)` holds, in increasing order.
pub fn pack_index(n: usize, keep: impl Fn(usize) -> bool + Sync) -> Vec<u32> {
    if n <= SEQ_THRESHOLD {
        return (0..n).filter(|&i| keep(i)).map(|i| i as u32).collect();
    }
    let bs = block_size(n);
    let parts: Vec<Vec<u32>> = (0..n.div_ceil(bs))
        .into_par_iter()
        .map(|b| {
            (b * bs..((b + 1) * bs).min(n))
                .filter(|&i| keep(i))
                .map(|i| i as u32)
                .collect()
        })
        .collect();
    concat(parts)
}

/// Concatenate vectors in order, copying in parallel.
pub fn concat<T: Copy + Send + Sync>(parts: Vec<Vec<T>>) -> Vec<T> {
    let mut out = Vec::new();
    extend_concat(&mut out, &parts);
    out
}

/// Append `parts` to `out` in order, copying in parallel. Reserves exactly what is missing, so
/// a caller that reserved enough beforehand never makes `out` reallocate.
pub fn extend_concat<T: Copy + Send + Sync>(out: &mut Vec<T>, parts: &[Vec<T>]) {
    let mut offsets: Vec<usize> = parts.iter().map(Vec::len).collect();
    let total = scan_exclusive(&mut offsets);
    out.reserve_exact(total);
    let base = out.len();
    // SAFETY: `base + total` is within the capacity reserved above.
    let ptr = SendPtr(unsafe { out.as_mut_ptr().add(base) });
    parts.par_iter().zip(&offsets).for_each(|(p, &o)| {
        let ptr = &ptr;
        // SAFETY: the ranges [o, o + p.len()) are disjoint and inside the capacity.
        unsafe { std::ptr::copy_nonoverlapping(p.as_ptr(), ptr.0.add(o), p.len()) };
    });
    // SAFETY: every slot in base..base + total was written above.
    unsafe { out.set_len(base + total) };
}

/// Sort in parallel (unstable; equal elements are indistinguishable for `Ord` keys).
pub fn par_sort<T: Ord + Send>(xs: &mut [T]) {
    xs.par_sort_unstable();
}

/// Sort by a key in parallel, stable (equal keys keep their input order).
pub fn par_sort_by_key<T: Send, K: Ord>(xs: &mut [T], key: impl Fn(&T) -> K + Sync) {
    xs.par_sort_by_key(key);
}

/// Histogram of `keys` over buckets `0..num_buckets`. Keys out of range are ignored.
pub fn histogram(keys: &[u32], num_buckets: usize) -> Vec<usize> {
    if keys.len() <= SEQ_THRESHOLD || num_buckets > keys.len() {
        // Few keys, or more buckets than keys: atomics beat per-thread arrays.
        let counts: Vec<AtomicUsize> = (0..num_buckets).map(|_| AtomicUsize::new(0)).collect();
        keys.par_iter().with_min_len(SEQ_THRESHOLD).for_each(|&k| {
            if (k as usize) < num_buckets {
                counts[k as usize].fetch_add(1, Ordering::Relaxed);
            }
        });
        return counts.into_iter().map(AtomicUsize::into_inner).collect();
    }
    let bs = block_size(keys.len());
    keys.par_chunks(bs)
        .map(|c| {
            let mut h = vec![0usize; num_buckets];
            for &k in c {
                if (k as usize) < num_buckets {
                    h[k as usize] += 1;
                }
            }
            h
        })
        .reduce(
            || vec![0usize; num_buckets],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

/// Semisort: group `items` by `key(item) < num_keys` (a stable counting sort). Returns the
/// items reordered and `offsets` of length `num_keys + 1`, so that group `k` is
/// `items[offsets[k]..offsets[k + 1]]`, in input order within each group.
pub fn semisort_by_key<T: Copy + Send + Sync>(
    items: &[T],
    num_keys: usize,
    key: impl Fn(&T) -> u32 + Sync,
) -> (Vec<T>, Vec<usize>) {
    let n = items.len();
    let bs = block_size(n).max(1);
    let blocks: Vec<&[T]> = items.chunks(bs).collect();
    // counts[b][k]: how many items of block b have key k.
    let mut counts: Vec<Vec<usize>> = blocks
        .par_iter()
        .map(|c| {
            let mut h = vec![0usize; num_keys];
            for x in c.iter() {
                h[key(x) as usize] += 1;
            }
            h
        })
        .collect();
    // Column-major exclusive scan: key-major, then block.
    let mut offsets = vec![0usize; num_keys + 1];
    let mut acc = 0;
    for k in 0..num_keys {
        offsets[k] = acc;
        for c in counts.iter_mut() {
            let t = c[k];
            c[k] = acc;
            acc += t;
        }
    }
    offsets[num_keys] = acc;
    // Block b's range of key k ends where block b + 1's begins (the last block's, where key
    // k + 1's begins). `key` is called again below: a key function that answers differently
    // the second time is caught by these bounds instead of writing out of range.
    let ends: Vec<Vec<usize>> = (0..counts.len())
        .map(|b| match counts.get(b + 1) {
            Some(next) => next.clone(),
            None => offsets[1..].to_vec(),
        })
        .collect();
    let mut out: Vec<T> = Vec::with_capacity(n);
    let ptr = SendPtr(out.as_mut_ptr());
    blocks
        .par_iter()
        .zip(counts)
        .zip(&ends)
        .for_each(|((c, mut pos), end)| {
            let ptr = &ptr;
            for x in c.iter() {
                let k = key(x) as usize;
                assert!(
                    pos[k] < end[k],
                    "semisort: the key function changed its answer"
                );
                // SAFETY: each (block, key) owns the disjoint range pos[k]..end[k] of output
                // slots, all below n (checked above).
                unsafe { ptr.0.add(pos[k]).write(*x) };
                pos[k] += 1;
            }
            assert!(pos == *end, "semisort: the key function changed its answer");
        });
    // SAFETY: every (block, key) range was filled to its end (checked above), and the ranges
    // cover 0..n.
    unsafe { out.set_len(n) };
    (out, offsets)
}

/// Digit width of [`radix_sort_by_key`]'s passes (at most): 2^11 counters of a block stay in
/// the first-level cache.
const RADIX_BITS: u32 = 11;

/// Sort `items` stably by `key(item)`, whose values are below `2^bits`: an LSD radix sort of
/// `ceil(bits / 11)` passes over digits of equal width, each a parallel [`semisort_by_key`]
/// — or, on one thread or for at most [`SEQ_THRESHOLD`] items, all passes counted in one read
/// and a pass whose digit every item shares skipped.
/// O(n · passes) work with no comparisons: faster than a comparison sort on the random keys
/// of update batches (where its branches mispredict), as long as `bits` is small (about 40
/// for vertex pairs of a million-vertex graph: 4 passes).
pub fn radix_sort_by_key<T: Copy + Send + Sync>(
    items: Vec<T>,
    bits: u32,
    key: impl Fn(&T) -> u64 + Sync,
) -> Vec<T> {
    assert!(bits <= 64, "keys have at most 64 bits");
    let passes = bits.div_ceil(RADIX_BITS);
    if passes == 0 || items.len() < 2 {
        return items;
    }
    let width = bits.div_ceil(passes);
    let mask = (1u64 << width) - 1;
    if rayon::current_num_threads() == 1 || items.len() <= SEQ_THRESHOLD {
        return radix_sort_alone(items, passes, width, key);
    }
    let mut v = items;
    for p in 0..passes {
        let shift = p * width;
        v = semisort_by_key(&v, 1 << width, |x| {
            let k = key(x);
            debug_assert!(
                bits == 64 || k >> bits == 0,
                "radix key {k} has more than {bits} bits"
            );
            ((k >> shift) & mask) as u32
        })
        .0;
    }
    v
}

/// [`radix_sort_by_key`] on one thread: the digits' counts of every pass come from one read
/// of the items (the parallel sort counts per block, and a pass's blocks are the previous
/// pass's output), a pass whose digit is the same for every item is skipped, and the passes
/// go back and forth between the items and one second buffer.
fn radix_sort_alone<T: Copy>(
    items: Vec<T>,
    passes: u32,
    width: u32,
    key: impl Fn(&T) -> u64,
) -> Vec<T> {
    let (passes, width) = (passes as usize, width as usize);
    let buckets = 1usize << width;
    let mask = (buckets - 1) as u64;
    let n = items.len();
    // counts[p · buckets + d]: the items whose digit p is d.
    let mut counts = vec![0usize; passes * buckets];
    for x in &items {
        let k = key(x);
        for (p, c) in counts.chunks_exact_mut(buckets).enumerate() {
            c[((k >> (p * width)) & mask) as usize] += 1;
        }
    }
    let mut src = items;
    let mut dst: Vec<T> = Vec::with_capacity(n);
    for (p, c) in counts.chunks_exact_mut(buckets).enumerate() {
        if c.contains(&n) {
            continue; // every item has the same digit here: the order stays
        }
        let mut acc = 0;
        for k in c.iter_mut() {
            let t = *k;
            *k = acc;
            acc += t;
        }
        // Digit d's slots end where digit d + 1's begin (checked after the pass).
        let ends: Vec<usize> = c[1..].iter().copied().chain([n]).collect();
        let out = dst.as_mut_ptr();
        let shift = p * width;
        for x in &src {
            let d = ((key(x) >> shift) & mask) as usize;
            let at = c[d];
            assert!(at < n, "radix sort: the key function changed its answer");
            // SAFETY: `at < n`, the capacity of `dst`; the counts give each item its own slot.
            unsafe { out.add(at).write(*x) };
            c[d] = at + 1;
        }
        assert!(
            *c == ends[..],
            "radix sort: the key function changed its answer"
        );
        // SAFETY: the slots 0..n were each written once: every digit's items filled its
        // range exactly (checked above), and the ranges cover 0..n.
        unsafe { dst.set_len(n) };
        std::mem::swap(&mut src, &mut dst);
        // SAFETY: `T: Copy`, nothing to drop; the buffer is overwritten by the next pass.
        unsafe { dst.set_len(0) };
    }
    src
}

/// A raw pointer that may be shared between threads writing disjoint ranges.
#[derive(Copy, Clone)]
pub struct SendPtr<T>(pub *mut T);
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// From a thread outside every pool, `in_pool` runs its closure on a worker of the global
    /// pool; on a worker of any pool it runs in place.
    #[test]
    fn in_pool_runs_on_a_worker() {
        let outside = std::thread::spawn(|| {
            assert_eq!(rayon::current_thread_index(), None);
            in_pool(|| (rayon::current_thread_index(), 7))
        })
        .join()
        .unwrap();
        assert!(outside.0.is_some());
        assert_eq!(outside.1, 7);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let (here, inside) = pool.install(|| {
            let me = std::thread::current().id();
            (me, in_pool(|| std::thread::current().id()))
        });
        assert_eq!(here, inside);
    }

    /// A key function that answers differently when asked again is caught (a panic), never
    /// an out-of-range write or an uninitialised slot.
    #[test]
    #[should_panic(expected = "changed its answer")]
    fn semisort_catches_a_changing_key() {
        use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
        let calls = AtomicU32::new(0);
        let items: Vec<u32> = (0..10_000).collect();
        // The first n calls (counting) put every item under key 0; the scatter's calls spread
        // them over keys 0..3, past key 0's range.
        let _ = semisort_by_key(&items, 4, |_| {
            let c = calls.fetch_add(1, Relaxed);
            if c < 10_000 {
                0
            } else {
                c % 4
            }
        });
    }

    /// The one-thread radix sort catches a key function that answers differently in a later
    /// pass (a panic), never an out-of-range write or an unwritten slot.
    #[test]
    #[should_panic(expected = "changed its answer")]
    fn radix_sort_catches_a_changing_key() {
        use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
        let calls = AtomicU32::new(0);
        let items: Vec<u32> = (0..1000).collect();
        // Counting (the first 1000 calls) sees the items' own keys; the passes see others.
        let _ = radix_sort_by_key(items, 20, |&x| {
            if calls.fetch_add(1, Relaxed) < 1000 {
                x as u64
            } else {
                (x as u64 * 7919) & 0xfffff
            }
        });
    }

    proptest! {
        #[test]
        fn scan_matches_sequential(xs in proptest::collection::vec(0usize..100, 0..40_000)) {
            let mut a = xs.clone();
            let total = scan_exclusive(&mut a);
            let mut acc = 0;
            for (i, x) in xs.iter().enumerate() {
                prop_assert_eq!(a[i], acc);
                acc += x;
            }
            prop_assert_eq!(total, acc);
        }

        /// The radix sort is a stable sort: pairs with equal keys keep their input order
        /// (the second field numbers them), at any key width up to 64 bits.
        #[test]
        fn radix_sort_is_a_stable_sort(
            keys in proptest::collection::vec(any::<u64>(), 0..20_000),
            bits in 0u32..=64,
        ) {
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            // Every other key is the first one, so that many keys are equal; the others
            // vary in all `bits` bits.
            let items: Vec<(u64, usize)> = keys
                .iter()
                .enumerate()
                .map(|(i, &k)| (if i % 2 == 0 { keys[0] & mask } else { k & mask }, i))
                .collect();
            let mut expect = items.clone();
            expect.sort_by_key(|x| x.0);
            let got = radix_sort_by_key(items, bits, |x| x.0);
            prop_assert_eq!(got, expect);
        }

        #[test]
        fn pack_is_filter(xs in proptest::collection::vec(0u32..1000, 0..40_000)) {
            let p = pack(&xs, |x| x % 3 == 0);
            let q: Vec<u32> = xs.iter().copied().filter(|x| x % 3 == 0).collect();
            prop_assert_eq!(p, q);
            let idx = pack_index(xs.len(), |i| xs[i] % 7 == 1);
            let q: Vec<u32> = (0..xs.len()).filter(|&i| xs[i] % 7 == 1).map(|i| i as u32).collect();
            prop_assert_eq!(idx, q);
        }

        #[test]
        fn extend_concat_appends_in_order(
            head in proptest::collection::vec(0u32..1000, 0..100),
            parts in proptest::collection::vec(proptest::collection::vec(0u32..1000, 0..3000), 0..20),
            spare in 0usize..5000,
        ) {
            let mut out = head.clone();
            let need: usize = parts.iter().map(Vec::len).sum();
            out.reserve_exact(need + spare);
            let (ptr, cap) = (out.as_ptr(), out.capacity());
            extend_concat(&mut out, &parts);
            let mut expected = head;
            parts.iter().for_each(|p| expected.extend_from_slice(p));
            prop_assert_eq!(&out, &expected);
            // Enough capacity reserved beforehand: appended in place, no reallocation.
            prop_assert_eq!((out.as_ptr(), out.capacity()), (ptr, cap));
            prop_assert_eq!(concat(parts), expected[expected.len() - need..].to_vec());
        }

        #[test]
        fn semisort_groups_stably(xs in proptest::collection::vec((0u32..50, 0u32..1000), 0..40_000)) {
            let (out, off) = semisort_by_key(&xs, 50, |x| x.0);
            let mut expected = xs.clone();
            expected.sort_by_key(|x| x.0);
            prop_assert_eq!(&out, &expected);
            for k in 0..50 {
                prop_assert!(out[off[k]..off[k + 1]].iter().all(|x| x.0 == k as u32));
            }
            let h = histogram(&xs.iter().map(|x| x.0).collect::<Vec<_>>(), 50);
            for k in 0..50 {
                prop_assert_eq!(h[k], off[k + 1] - off[k]);
            }
        }
    }
}
