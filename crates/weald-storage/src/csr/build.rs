//! Parallel construction of a [`Csr`] from an [`EdgeList`].
//!
//! 1. (optional) relabel: the distinct ids in use are ranked, so ids become `0..n` in the same
//!    order as the user's ids (dense ids map to themselves);
//! 2. count degrees with atomic increments, prefix-sum them into offsets;
//! 3. scatter arcs into place (both directions for a symmetric graph);
//! 4. sort each adjacency list, merge duplicates by the [`Combine`] rule, drop self loops;
//! 5. compact the lists if anything was removed.
//!
//! Peak memory is the input edge list plus the uncompacted adjacency arrays.

use super::{Adjacency, Csr};
use crate::csr::Vertex;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use weald_graph::batch::Combine;
use weald_graph::parallel::{pack_index, scan_exclusive, SendPtr};
use weald_graph::{EdgeList, Result, WealdError, Weight};

/// How to build a CSR from an edge list.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildOptions {
    /// Keep arcs as directed; `false` stores every edge in both directions (symmetrises).
    pub directed: bool,
    /// For directed graphs, also store in-arcs (needed by pull traversals).
    pub in_edges: bool,
    /// Remove arcs `v→v`.
    pub drop_self_loops: bool,
    /// Merge duplicate arcs, combining weights by this rule; `None` keeps a multigraph.
    pub dedup: Option<Combine>,
    /// Renumber the ids in use to `0..n` (keeping the user's ids for output).
    pub relabel: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            directed: false,
            in_edges: true,
            drop_self_loops: false,
            dedup: Some(Combine::Min),
            relabel: false,
        }
    }
}

/// What the builder did to the input.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildStats {
    /// Arcs in the input edge list.
    pub input_arcs: u64,
    /// Self-loop arcs removed.
    pub self_loops_dropped: u64,
    /// Stored arcs removed by merging duplicates.
    pub duplicates_merged: u64,
    /// Input ids not used by any edge were squeezed out (relabel): `max_id + 1 - n`.
    pub ids_squeezed: u64,
}

impl<W: Weight> Csr<W> {
    /// Build a CSR from an edge list (consumed, to free its memory early).
    pub fn build(edges: EdgeList<W>, opts: &BuildOptions) -> Result<(Self, BuildStats)> {
        let EdgeList {
            num_vertices,
            mut src,
            mut dst,
            weights,
        } = edges;
        if src.len() != dst.len() || (W::WEIGHTED && weights.len() != src.len()) {
            return Err(WealdError::Invalid(
                "edge list columns differ in length".into(),
            ));
        }
        if num_vertices > u32::MAX as usize {
            return Err(WealdError::Invalid(format!(
                "{num_vertices} vertices exceed the u32 id space"
            )));
        }
        let bad = src
            .par_iter()
            .chain(dst.par_iter())
            .find_any(|&&v| v as usize >= num_vertices);
        if let Some(&v) = bad {
            return Err(WealdError::VertexOutOfRange {
                vertex: v as u64,
                num_vertices: num_vertices as u64,
            });
        }
        let mut stats = BuildStats {
            input_arcs: src.len() as u64,
            ..Default::default()
        };
        let mut n = num_vertices;
        let mut orig_ids = None;
        if opts.relabel {
            if let Some(ids) = relabel(n, &mut src, &mut dst) {
                stats.ids_squeezed = (n - ids.len()) as u64;
                n = ids.len();
                orig_ids = Some(ids);
            }
        }
        // The offsets array alone takes 8 bytes per vertex (after relabelling, which leaves
        // only the ids in use: a few edges between ids near 2^32 need no 32 GiB).
        weald_graph::mem::ensure_fits(weald_graph::mem::bytes_for(n as u64 + 1, 8), || {
            format!("a graph of {n} vertices")
        })?;
        if opts.drop_self_loops {
            stats.self_loops_dropped = (0..src.len())
                .into_par_iter()
                .filter(|&i| src[i] == dst[i])
                .count() as u64;
        }
        let order = matches!(opts.dedup, Some(Combine::First | Combine::Last));
        // Scatter both directions first, then free the input before sorting and compacting:
        // the peak is the input plus the scattered arcs, not that plus the compacted copy.
        let out = scatter(n, &src, &dst, &weights, !opts.directed, order, opts);
        let inn = (opts.directed && opts.in_edges)
            .then(|| scatter(n, &dst, &src, &weights, false, order, opts));
        drop((src, dst, weights));
        let (out, merged) = out.finish(opts.dedup);
        let inn = inn.map(|s| s.finish(opts.dedup).0);
        stats.duplicates_merged = merged;
        Ok((
            Csr::from_parts_unchecked(n, opts.directed, out, inn, orig_ids),
            stats,
        ))
    }
}

/// Rank of each used id among the used ids, via a bitmap and per-word prefix counts.
struct RankMap {
    bits: Vec<u64>,
    before: Vec<u32>,
}

impl RankMap {
    #[inline]
    fn rank(&self, v: Vertex) -> Vertex {
        let w = (v >> 6) as usize;
        let mask = (1u64 << (v & 63)) - 1;
        self.before[w] + (self.bits[w] & mask).count_ones()
    }
}

/// Renumber the ids in use to `0..k` in place, keeping their order, and return the sorted
/// distinct ids in use (the k user ids); `None` (nothing renumbered) if every id in `0..n`
/// is used. When ids are much sparser than the endpoints (fewer than one endpoint per 64
/// ids: ids spread up to 2^32 - 2), the endpoints are sorted instead of marked in a bitmap
/// of `n` bits, so the memory and time follow the edges, not the largest id.
fn relabel(n: usize, src: &mut [Vertex], dst: &mut [Vertex]) -> Option<Vec<u32>> {
    if (src.len() as u64 + dst.len() as u64).saturating_mul(64) < n as u64 {
        let mut ids: Vec<u32> = src.par_iter().chain(dst.par_iter()).copied().collect();
        ids.par_sort_unstable();
        ids.dedup();
        let rank = |v: &mut Vertex| *v = ids.partition_point(|&x| x < *v) as Vertex;
        src.par_iter_mut().for_each(rank);
        dst.par_iter_mut().for_each(rank);
        return Some(ids);
    }
    let (ids, map) = relabel_dense(n, src, dst)?;
    src.par_iter_mut().for_each(|v| *v = map.rank(*v));
    dst.par_iter_mut().for_each(|v| *v = map.rank(*v));
    Some(ids)
}

/// The sorted distinct ids in use and a rank map, or `None` if every id in `0..n` is used.
fn relabel_dense(n: usize, src: &[Vertex], dst: &[Vertex]) -> Option<(Vec<u32>, RankMap)> {
    let words: Vec<AtomicU64> = (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    src.par_iter().chain(dst.par_iter()).for_each(|&v| {
        let w = &words[(v >> 6) as usize];
        let bit = 1u64 << (v & 63);
        if w.load(Ordering::Relaxed) & bit == 0 {
            w.fetch_or(bit, Ordering::Relaxed);
        }
    });
    let bits: Vec<u64> = words.into_iter().map(AtomicU64::into_inner).collect();
    let mut counts: Vec<usize> = bits.par_iter().map(|b| b.count_ones() as usize).collect();
    let used = scan_exclusive(&mut counts);
    if used == n {
        return None;
    }
    let ids = pack_index(n, |i| bits[i >> 6] >> (i & 63) & 1 == 1);
    let before = counts.into_iter().map(|c| c as u32).collect();
    Some((ids, RankMap { bits, before }))
}

/// One direction of adjacency, scattered but not yet sorted: every list in its source's range.
struct Scattered<W> {
    offsets: Vec<usize>,
    targets: Vec<Vertex>,
    wts: Vec<W>,
    /// Input index of each arc (only when ties keep input order).
    idx: Vec<u64>,
}

/// Scatter one direction of adjacency: arcs `keys[i] → vals[i]` (and the reverse if
/// `symmetric`).
fn scatter<W: Weight>(
    n: usize,
    keys: &[Vertex],
    vals: &[Vertex],
    weights: &[W],
    symmetric: bool,
    keep_order: bool,
    opts: &BuildOptions,
) -> Scattered<W> {
    let skip = |u: Vertex, v: Vertex| opts.drop_self_loops && u == v;
    // 1-2. degrees, offsets, and the scatter of every arc into its source's range.
    let plan = ScatterPlan::new(n, keys, vals, symmetric, &skip);
    let total = plan.offsets[n];
    let mut targets: Vec<Vertex> = Vec::with_capacity(total);
    let mut wts: Vec<W> = Vec::with_capacity(if W::WEIGHTED { total } else { 0 });
    let mut idx: Vec<u64> = Vec::with_capacity(if keep_order { total } else { 0 });
    let (tp, wp, ip) = (
        SendPtr(targets.as_mut_ptr()),
        SendPtr(wts.as_mut_ptr()),
        SendPtr(idx.as_mut_ptr()),
    );
    let offsets = plan.place(
        keys,
        vals,
        symmetric,
        &skip,
        |p: usize, i: usize, b: Vertex| {
            let (tp, wp, ip) = (&tp, &wp, &ip);
            // SAFETY: the plan hands out each slot p in 0..total exactly once.
            unsafe {
                tp.0.add(p).write(b);
                if W::WEIGHTED {
                    wp.0.add(p).write(weights[i]);
                }
                if keep_order {
                    ip.0.add(p).write(i as u64);
                }
            }
        },
    );
    let total = offsets[n];
    // SAFETY: the degree counts equal the number of writes, so all `total` slots are filled.
    unsafe {
        targets.set_len(total);
        if W::WEIGHTED {
            wts.set_len(total);
        }
        if keep_order {
            idx.set_len(total);
        }
    }
    Scattered {
        offsets,
        targets,
        wts,
        idx,
    }
}

impl<W: Weight> Scattered<W> {
    /// Sort and merge every list by `dedup`, then compact; also returns the number of stored
    /// arcs the merge removed.
    fn finish(self, dedup: Option<Combine>) -> (Adjacency<W>, u64) {
        let Scattered {
            offsets,
            mut targets,
            mut wts,
            mut idx,
        } = self;
        let n = offsets.len() - 1;
        let total = offsets[n];
        let keep_order = !idx.is_empty();
        // 3. sort and merge each list; new_len[v] is its length afterwards.
        let new_len: Vec<usize> = {
            let (tp, wp, ip) = (
                SendPtr(targets.as_mut_ptr()),
                SendPtr(wts.as_mut_ptr()),
                SendPtr(idx.as_mut_ptr()),
            );
            let offsets = &offsets;
            (0..n)
                .into_par_iter()
                .with_min_len(256)
                .map(|v| {
                    let (tp, wp, ip) = (&tp, &wp, &ip);
                    let (a, b) = (offsets[v], offsets[v + 1]);
                    // SAFETY: the ranges offsets[v]..offsets[v+1] are disjoint across vertices.
                    unsafe {
                        let t = std::slice::from_raw_parts_mut(tp.0.add(a), b - a);
                        let w = if W::WEIGHTED {
                            std::slice::from_raw_parts_mut(wp.0.add(a), b - a)
                        } else {
                            &mut []
                        };
                        let ix = if keep_order {
                            std::slice::from_raw_parts_mut(ip.0.add(a), b - a)
                        } else {
                            &mut []
                        };
                        sort_merge(t, w, ix, dedup)
                    }
                })
                .collect()
        };
        drop(idx);
        // 4. compact
        let mut new_offsets = new_len.clone();
        new_offsets.push(0);
        let kept = scan_exclusive(&mut new_offsets);
        let (targets, wts) = if kept == total {
            (targets, wts)
        } else {
            let mut t2: Vec<Vertex> = Vec::with_capacity(kept);
            let mut w2: Vec<W> = Vec::with_capacity(if W::WEIGHTED { kept } else { 0 });
            let (tp, wp) = (SendPtr(t2.as_mut_ptr()), SendPtr(w2.as_mut_ptr()));
            (0..n).into_par_iter().with_min_len(256).for_each(|v| {
                let (tp, wp) = (&tp, &wp);
                let (a, o, l) = (offsets[v], new_offsets[v], new_len[v]);
                // SAFETY: the destination ranges new_offsets[v]..+l are disjoint and in capacity.
                unsafe {
                    std::ptr::copy_nonoverlapping(targets.as_ptr().add(a), tp.0.add(o), l);
                    if W::WEIGHTED {
                        std::ptr::copy_nonoverlapping(wts.as_ptr().add(a), wp.0.add(o), l);
                    }
                }
            });
            // SAFETY: all `kept` slots were written.
            unsafe {
                t2.set_len(kept);
                if W::WEIGHTED {
                    w2.set_len(kept);
                }
            }
            (t2, w2)
        };
        let offsets: Vec<u64> = new_offsets.into_par_iter().map(|o| o as u64).collect();
        (
            Adjacency {
                offsets,
                targets,
                weights: wts,
            },
            (total - kept) as u64,
        )
    }
}

/// Where every arc goes: degrees counted, offsets (`n + 1` entries) prefix-summed, and the
/// cursors to scatter with.
///
/// With few threads relative to the graph (`threads × n` cursors cost at most the size of the
/// target array), each block of the input counts and scatters with private, non-atomic
/// cursors: random increments then overlap their cache misses, and every list comes out in
/// input order. Otherwise cursors are shared atomics (O(n) memory whatever the thread count).
/// Tests set this to exercise the atomic scatter on small graphs.
pub(crate) static FORCE_ATOMIC: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

struct ScatterPlan {
    offsets: Vec<usize>,
    cursors: Cursors,
}

enum Cursors {
    /// `cursors[b][v]`: next slot of v for input block b (of `block` arcs each).
    Private {
        cursors: Vec<Vec<usize>>,
        block: usize,
    },
    Atomic(Vec<AtomicU64>),
}

impl ScatterPlan {
    fn new(
        n: usize,
        keys: &[Vertex],
        vals: &[Vertex],
        symmetric: bool,
        skip: &(impl Fn(Vertex, Vertex) -> bool + Sync),
    ) -> Self {
        let m = keys.len();
        let blocks = rayon::current_num_threads().max(1);
        let private = blocks * n * 8 <= (64 << 20).max(m * 4 * (1 + symmetric as usize))
            && !FORCE_ATOMIC.load(Ordering::Relaxed);
        if private && m > 0 {
            let block = m.div_ceil(blocks);
            let mut cursors: Vec<Vec<usize>> = (0..blocks)
                .into_par_iter()
                .map(|b| {
                    let mut c = vec![0usize; n];
                    for i in b * block..((b + 1) * block).min(m) {
                        let (u, v) = (keys[i], vals[i]);
                        if skip(u, v) {
                            continue;
                        }
                        c[u as usize] += 1;
                        if symmetric && u != v {
                            c[v as usize] += 1;
                        }
                    }
                    c
                })
                .collect();
            let mut offsets: Vec<usize> = (0..n)
                .into_par_iter()
                .map(|v| cursors.iter().map(|c| c[v]).sum())
                .collect();
            offsets.push(0);
            scan_exclusive(&mut offsets);
            // cursors[b][v] = offsets[v] + arcs of v in blocks before b.
            let ptrs: Vec<SendPtr<usize>> = cursors
                .iter_mut()
                .map(|c| SendPtr(c.as_mut_ptr()))
                .collect();
            let offs = &offsets;
            (0..n).into_par_iter().with_min_len(4096).for_each(|v| {
                let mut run = offs[v];
                for p in &ptrs {
                    // SAFETY: each v is visited by one task; every array has n entries.
                    unsafe {
                        let c = p.0.add(v);
                        let k = *c;
                        *c = run;
                        run += k;
                    }
                }
            });
            return ScatterPlan {
                offsets,
                cursors: Cursors::Private { cursors, block },
            };
        }
        let deg: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
        (0..m).into_par_iter().with_min_len(4096).for_each(|i| {
            let (u, v) = (keys[i], vals[i]);
            if skip(u, v) {
                return;
            }
            deg[u as usize].fetch_add(1, Ordering::Relaxed);
            if symmetric && u != v {
                deg[v as usize].fetch_add(1, Ordering::Relaxed);
            }
        });
        let mut offsets: Vec<usize> = deg
            .into_par_iter()
            .map(|d| d.into_inner() as usize)
            .collect();
        offsets.push(0);
        scan_exclusive(&mut offsets);
        let cursor = offsets[..n]
            .par_iter()
            .map(|&o| AtomicU64::new(o as u64))
            .collect();
        ScatterPlan {
            offsets,
            cursors: Cursors::Atomic(cursor),
        }
    }

    /// Call `put(slot, input index, target)` once for every stored arc; returns the offsets.
    fn place(
        self,
        keys: &[Vertex],
        vals: &[Vertex],
        symmetric: bool,
        skip: &(impl Fn(Vertex, Vertex) -> bool + Sync),
        put: impl Fn(usize, usize, Vertex) + Sync,
    ) -> Vec<usize> {
        let m = keys.len();
        match self.cursors {
            Cursors::Private { mut cursors, block } => {
                cursors.par_iter_mut().enumerate().for_each(|(b, c)| {
                    for i in b * block..((b + 1) * block).min(m) {
                        let (u, v) = (keys[i], vals[i]);
                        if skip(u, v) {
                            continue;
                        }
                        put(c[u as usize], i, v);
                        c[u as usize] += 1;
                        if symmetric && u != v {
                            put(c[v as usize], i, u);
                            c[v as usize] += 1;
                        }
                    }
                });
            }
            Cursors::Atomic(cursor) => {
                (0..m).into_par_iter().with_min_len(4096).for_each(|i| {
                    let (u, v) = (keys[i], vals[i]);
                    if skip(u, v) {
                        return;
                    }
                    put(
                        cursor[u as usize].fetch_add(1, Ordering::Relaxed) as usize,
                        i,
                        v,
                    );
                    if symmetric && u != v {
                        put(
                            cursor[v as usize].fetch_add(1, Ordering::Relaxed) as usize,
                            i,
                            u,
                        );
                    }
                });
            }
        }
        self.offsets
    }
}

/// Sort one adjacency list by target (ties by input order or weight), merge duplicates by
/// `rule`; returns the new length (the merged list is at the front of the slices).
fn sort_merge<W: Weight>(
    t: &mut [Vertex],
    w: &mut [W],
    ix: &mut [u64],
    rule: Option<Combine>,
) -> usize {
    let len = t.len();
    if len <= 1 {
        return len;
    }
    if !W::WEIGHTED {
        t.sort_unstable();
        if rule.is_none() {
            return len;
        }
        let mut k = 1;
        for i in 1..len {
            if t[i] != t[k - 1] {
                t[k] = t[i];
                k += 1;
            }
        }
        return k;
    }
    // Weighted: sort a permutation, then gather.
    let mut perm: Vec<u32> = (0..len as u32).collect();
    if ix.is_empty() {
        perm.sort_unstable_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            t[a].cmp(&t[b])
                .then(w[a].partial_cmp(&w[b]).unwrap_or(std::cmp::Ordering::Equal))
        });
    } else {
        perm.sort_unstable_by_key(|&a| (t[a as usize], ix[a as usize]));
    }
    let ts: Vec<Vertex> = perm.iter().map(|&p| t[p as usize]).collect();
    let ws: Vec<W> = perm.iter().map(|&p| w[p as usize]).collect();
    let Some(rule) = rule else {
        t.copy_from_slice(&ts);
        w.copy_from_slice(&ws);
        return len;
    };
    let mut k = 0;
    let mut i = 0;
    while i < len {
        let mut j = i + 1;
        let mut acc = ws[i];
        while j < len && ts[j] == ts[i] {
            acc = acc.combine(ws[j], rule);
            j += 1;
        }
        t[k] = ts[i];
        w[k] = acc;
        k += 1;
        i = j;
    }
    k
}
