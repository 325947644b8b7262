//! Chunks: one shared allocation holding a difference-encoded sorted run of elements and
//! their weights.
//!
//! Layout (all varints are the LEB128 codes of `weald_graph::codec`):
//!
//! ```text
//! varint count          number of elements c (>= 1; the empty chunk is a zero-length box)
//! varint span           last - first
//! varint zigzag(first - base)
//! varint gap_i          x_i - x_{i-1}, for i = 1..c
//! W::BYTES * c          weights, little-endian, in element order (nothing when W = ())
//! ```
//!
//! `base` is not stored: it is the source vertex for a prefix chunk and the head for a tail.
//! `count`, `first` and `last` are read in O(1) from the header.

use weald_graph::batch::Combine;
use weald_graph::codec::{get_varint_fast, put_varint, unzigzag, zigzag};
use weald_graph::{Vertex, Weight};

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::cell::RefCell;
use std::ptr::NonNull;
use std::sync::atomic::{
    fence, AtomicU32,
    Ordering::{Acquire, Relaxed, Release},
};

thread_local! {
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// Gap and weight bytes of a chunk being spliced.
    static SPLICE: RefCell<(Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// A difference-encoded run of elements (see the module docs for the byte layout), in one
/// shared, immutable allocation: `[u32 reference count | u32 length | bytes]`, reached by a
/// thin pointer (8 bytes; null for the empty chunk). Cloning increments the count, so path
/// copying a node never copies its chunk.
pub struct Chunk(Option<NonNull<u8>>);

// SAFETY: the bytes are immutable after construction and the count is atomic.
unsafe impl Send for Chunk {}
// SAFETY: as above.
unsafe impl Sync for Chunk {}

const HDR: usize = 8;

impl Chunk {
    /// The empty chunk (no allocation).
    #[inline]
    pub fn empty() -> Self {
        Chunk(None)
    }

    fn layout(len: usize) -> Layout {
        Layout::from_size_align(HDR + len, 4).expect("chunk too large")
    }

    fn from_bytes(b: &[u8]) -> Self {
        Self::from_parts(&[b])
    }

    /// A chunk whose bytes are the concatenation of `parts`.
    fn from_parts(parts: &[&[u8]]) -> Self {
        let total: usize = parts.iter().map(|b| b.len()).sum();
        if total == 0 {
            return Chunk(None);
        }
        let len = u32::try_from(total).expect("chunk larger than 4 GiB");
        // SAFETY: the layout has non-zero size; we initialise the header and copy the bytes,
        // which fill exactly `total` bytes after it.
        unsafe {
            let p = alloc(Self::layout(total));
            let Some(p) = NonNull::new(p) else {
                handle_alloc_error(Self::layout(total))
            };
            (p.as_ptr() as *mut AtomicU32).write(AtomicU32::new(1));
            (p.as_ptr().add(4) as *mut u32).write(len);
            let mut at = p.as_ptr().add(HDR);
            for b in parts {
                std::ptr::copy_nonoverlapping(b.as_ptr(), at, b.len());
                at = at.add(b.len());
            }
            Chunk(Some(p))
        }
    }

    #[inline]
    fn raw(&self) -> &[u8] {
        match self.0 {
            None => &[],
            // SAFETY: a live allocation made by `from_bytes`, immutable after construction.
            Some(p) => unsafe {
                let len = *(p.as_ptr().add(4) as *const u32) as usize;
                std::slice::from_raw_parts(p.as_ptr().add(HDR), len)
            },
        }
    }

    /// Encode the strictly increasing `xs` relative to `base`.
    pub fn encode<W: Weight>(base: Vertex, xs: &[(Vertex, W)]) -> Self {
        if xs.is_empty() {
            return Chunk::empty();
        }
        SCRATCH.with(|s| {
            let mut s = s.borrow_mut();
            s.clear();
            encode_into(base, xs, &mut s);
            Chunk::from_bytes(&s)
        })
    }

    /// Start loading the header (prefetch hint): cloning the chunk writes its count.
    #[inline(always)]
    pub fn prefetch(&self) {
        if let Some(p) = self.0 {
            super::prefetch(p.as_ptr());
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Bytes of the allocation (header included; 0 when empty).
    #[inline]
    pub fn bytes(&self) -> usize {
        match self.0 {
            None => 0,
            Some(_) => HDR + self.raw().len(),
        }
    }

    /// Number of elements, O(1).
    #[inline]
    pub fn count(&self) -> usize {
        if self.0.is_none() {
            return 0;
        }
        let mut p = 0;
        get_varint_fast(self.raw(), &mut p) as usize
    }

    /// `(count, first, last)` from the header, O(1); `None` if empty.
    #[inline]
    pub fn header(&self, base: Vertex) -> Option<(usize, Vertex, Vertex)> {
        self.0?;
        let b = self.raw();
        let mut p = 0;
        let c = get_varint_fast(b, &mut p) as usize;
        let span = get_varint_fast(b, &mut p);
        let first = (base as i64 + unzigzag(get_varint_fast(b, &mut p))) as Vertex;
        Some((c, first, first + span as Vertex))
    }

    /// Call `f(x, w)` on every element in order until it returns `false`; returns `false` iff
    /// stopped early.
    #[inline]
    pub fn for_each<W: Weight>(&self, base: Vertex, mut f: impl FnMut(Vertex, W) -> bool) -> bool {
        let b = self.raw();
        if b.is_empty() {
            return true;
        }
        let mut p = 0;
        let c = get_varint_fast(b, &mut p) as usize;
        let _span = get_varint_fast(b, &mut p);
        let mut x = (base as i64 + unzigzag(get_varint_fast(b, &mut p))) as Vertex;
        if W::WEIGHTED {
            let wb = W::BYTES;
            let mut wp = b.len() - c * wb;
            if !f(x, W::read_le(&b[wp..wp + wb])) {
                return false;
            }
            for _ in 1..c {
                wp += wb;
                x += get_varint_fast(b, &mut p) as Vertex;
                if !f(x, W::read_le(&b[wp..wp + wb])) {
                    return false;
                }
            }
        } else {
            if !f(x, W::default()) {
                return false;
            }
            for _ in 1..c {
                x += get_varint_fast(b, &mut p) as Vertex;
                if !f(x, W::default()) {
                    return false;
                }
            }
        }
        true
    }

    /// Append the decoded elements to `out`.
    pub fn decode_into<W: Weight>(&self, base: Vertex, out: &mut Vec<(Vertex, W)>) {
        out.reserve(self.count());
        self.for_each(base, |x, w| {
            out.push((x, w));
            true
        });
    }

    /// This chunk (relative to `base`) with the strictly increasing `ins` merged in (an
    /// element already present combines its weight with the new one by `rule`) and the
    /// elements of the strictly increasing `del` removed (absent ones are ignored); `ins` and
    /// `del` must not share an element. Unlike decode, merge and encode, the gaps and weights
    /// of untouched runs are copied as bytes, and once both lists are used up the rest of the
    /// chunk is one copy: a few edits in a chunk of hundreds of elements (a hub's edge tree)
    /// cost a scan, not a re-encoding.
    pub fn splice<W: Weight>(
        &self,
        base: Vertex,
        ins: &[(Vertex, W)],
        del: &[Vertex],
        rule: Combine,
    ) -> Chunk {
        let b = self.raw();
        if b.is_empty() {
            return Chunk::encode(base, ins);
        }
        let wb = W::BYTES;
        let mut p = 0;
        let c = get_varint_fast(b, &mut p) as usize;
        let span = get_varint_fast(b, &mut p) as Vertex;
        let mut x = (base as i64 + unzigzag(get_varint_fast(b, &mut p))) as Vertex;
        let old_last = x + span;
        let wstart = b.len() - c * wb;
        SPLICE.with(|s| {
            let (gaps, wts) = &mut *s.borrow_mut();
            gaps.clear();
            wts.clear();
            let mut out = SpliceOut {
                old: b,
                gaps,
                wts,
                run: None,
                wrun: None,
                count: 0,
                first: 0,
                prev: None,
            };
            let (mut j, mut k) = (0, 0);
            // Old element i is x; its gap bytes are b[gs..p] (none for i = 0); prev_old is
            // old element i - 1.
            let mut i = 0;
            let mut gs = p;
            let mut prev_old: Option<Vertex> = None;
            loop {
                while j < ins.len() && ins[j].0 < x {
                    out.put(ins[j].0, ins[j].1);
                    j += 1;
                }
                while k < del.len() && del[k] < x {
                    k += 1;
                }
                let ow = wstart + i * wb;
                if k < del.len() && del[k] == x {
                    k += 1;
                } else {
                    // The gap can be copied iff the element emitted last is the old predecessor.
                    if prev_old.is_some() && out.prev == prev_old {
                        out.copy_gap(gs, p, x);
                    } else {
                        out.start_element(x);
                    }
                    if j < ins.len() && ins[j].0 == x {
                        if W::WEIGHTED {
                            let w = W::read_le(&b[ow..ow + wb]).combine(ins[j].1, rule);
                            out.flush_weights();
                            w.write_le(out.wts);
                        }
                        j += 1;
                    } else if W::WEIGHTED {
                        out.copy_weights(ow, ow + wb);
                    }
                }
                let next_ins = ins.get(j).map_or(Vertex::MAX, |e| e.0);
                let next_del = del.get(k).copied().unwrap_or(Vertex::MAX);
                let next = next_ins.min(next_del);
                if i + 1 == c {
                    break;
                }
                if next > old_last && out.prev == Some(x) {
                    // The rest is unchanged: one copy of its gaps and weights.
                    out.copy_gap(p, wstart, old_last);
                    out.count += c - i - 2;
                    if W::WEIGHTED {
                        out.copy_weights(ow + wb, b.len());
                    }
                    break;
                }
                prev_old = Some(x);
                i += 1;
                gs = p;
                x += get_varint_fast(b, &mut p) as Vertex;
                if out.prev == prev_old && x < next {
                    // A run below the next edit, after an emitted element: copy it whole,
                    // looking only at its gaps.
                    let (g0, i0) = (gs, i);
                    while i + 1 < c {
                        let q = p;
                        let y = x + get_varint_fast(b, &mut p) as Vertex;
                        if y >= next {
                            p = q;
                            break;
                        }
                        x = y;
                        i += 1;
                    }
                    // Elements i0..=i are copied; element i + 1 (if any) is at least `next`.
                    out.copy_gap(g0, p, x);
                    out.count += i - i0;
                    if W::WEIGHTED {
                        out.copy_weights(wstart + i0 * wb, wstart + (i + 1) * wb);
                    }
                    if i + 1 == c {
                        break;
                    }
                    prev_old = Some(x);
                    i += 1;
                    gs = p;
                    x += get_varint_fast(b, &mut p) as Vertex;
                }
            }
            for &(y, w) in &ins[j..] {
                out.put(y, w);
            }
            out.finish(base)
        })
    }

    /// The weight of `x` if present.
    pub fn find<W: Weight>(&self, base: Vertex, x: Vertex) -> Option<W> {
        let (_, first, last) = self.header(base)?;
        if x < first || x > last {
            return None;
        }
        let mut r = None;
        self.for_each(base, |y, w: W| {
            if y == x {
                r = Some(w);
            }
            y < x
        });
        r
    }
}

impl Clone for Chunk {
    #[inline]
    fn clone(&self) -> Self {
        if let Some(p) = self.0 {
            // SAFETY: the header of a live allocation.
            let rc = unsafe { &*(p.as_ptr() as *const AtomicU32) };
            if rc.fetch_add(1, Relaxed) > u32::MAX / 2 {
                std::process::abort();
            }
        }
        Chunk(self.0)
    }
}

impl Drop for Chunk {
    #[inline]
    fn drop(&mut self) {
        if let Some(p) = self.0 {
            // SAFETY: the header of a live allocation; the last owner frees it.
            unsafe {
                let rc = &*(p.as_ptr() as *const AtomicU32);
                if rc.fetch_sub(1, Release) == 1 {
                    fence(Acquire);
                    let len = *(p.as_ptr().add(4) as *const u32) as usize;
                    dealloc(p.as_ptr(), Self::layout(len));
                }
            }
        }
    }
}

impl Default for Chunk {
    fn default() -> Self {
        Chunk::empty()
    }
}

impl PartialEq for Chunk {
    fn eq(&self, other: &Self) -> bool {
        self.raw() == other.raw()
    }
}

impl Eq for Chunk {}

impl std::fmt::Debug for Chunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Chunk({:?})", self.raw())
    }
}

/// The output of [`Chunk::splice`]: gaps and weights, each with a pending run of old bytes
/// to copy (flushed before anything encoded is appended).
struct SpliceOut<'a> {
    old: &'a [u8],
    gaps: &'a mut Vec<u8>,
    wts: &'a mut Vec<u8>,
    run: Option<(usize, usize)>,
    wrun: Option<(usize, usize)>,
    count: usize,
    first: Vertex,
    prev: Option<Vertex>,
}

impl SpliceOut<'_> {
    #[inline]
    fn flush_gaps(&mut self) {
        if let Some((a, z)) = self.run.take() {
            self.gaps.extend_from_slice(&self.old[a..z]);
        }
    }

    #[inline]
    fn flush_weights(&mut self) {
        if let Some((a, z)) = self.wrun.take() {
            self.wts.extend_from_slice(&self.old[a..z]);
        }
    }

    /// Emit element `x` after `self.prev` (encoding its gap); weights are the caller's.
    #[inline]
    fn start_element(&mut self, x: Vertex) {
        match self.prev {
            None => self.first = x,
            Some(q) => {
                self.flush_gaps();
                put_varint(self.gaps, (x - q) as u64);
            }
        }
        self.prev = Some(x);
        self.count += 1;
    }

    /// Emit the old gap bytes `old[a..z]`, which end at element `x`.
    #[inline]
    fn copy_gap(&mut self, a: usize, z: usize, x: Vertex) {
        match &mut self.run {
            Some((_, end)) if *end == a => *end = z,
            _ => {
                self.flush_gaps();
                self.run = Some((a, z));
            }
        }
        self.prev = Some(x);
        self.count += 1;
    }

    #[inline]
    fn copy_weights(&mut self, a: usize, z: usize) {
        match &mut self.wrun {
            Some((_, end)) if *end == a => *end = z,
            _ => {
                self.flush_weights();
                self.wrun = Some((a, z));
            }
        }
    }

    #[inline]
    fn put<W: Weight>(&mut self, x: Vertex, w: W) {
        self.start_element(x);
        if W::WEIGHTED {
            self.flush_weights();
            w.write_le(self.wts);
        }
    }

    fn finish(mut self, base: Vertex) -> Chunk {
        let Some(last) = self.prev else {
            return Chunk::empty();
        };
        self.flush_gaps();
        self.flush_weights();
        let mut h = Vec::with_capacity(32);
        put_varint(&mut h, self.count as u64);
        put_varint(&mut h, (last - self.first) as u64);
        put_varint(&mut h, zigzag(self.first as i64 - base as i64));
        Chunk::from_parts(&[&h, self.gaps, self.wts])
    }
}

/// Append the encoding of non-empty `xs` to `out`.
fn encode_into<W: Weight>(base: Vertex, xs: &[(Vertex, W)], out: &mut Vec<u8>) {
    let first = xs[0].0;
    let last = xs[xs.len() - 1].0;
    put_varint(out, xs.len() as u64);
    put_varint(out, (last - first) as u64);
    put_varint(out, zigzag(first as i64 - base as i64));
    let mut prev = first;
    for &(x, _) in &xs[1..] {
        debug_assert!(x > prev, "chunk elements must be strictly increasing");
        put_varint(out, (x - prev) as u64);
        prev = x;
    }
    if W::WEIGHTED {
        for &(_, w) in xs {
            w.write_le(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// What a splice must produce: decode, edit a map, encode (the encoding is canonical, so
    /// the bytes must be identical).
    fn model<W: Weight>(
        c: &Chunk,
        base: Vertex,
        ins: &[(Vertex, W)],
        del: &[Vertex],
        rule: Combine,
    ) -> Chunk {
        let mut old = vec![];
        c.decode_into(base, &mut old);
        let mut m: BTreeMap<Vertex, W> = old.into_iter().collect();
        for &(x, w) in ins {
            m.entry(x)
                .and_modify(|o| *o = o.combine(w, rule))
                .or_insert(w);
        }
        for x in del {
            m.remove(x);
        }
        Chunk::encode(base, &m.into_iter().collect::<Vec<_>>())
    }

    fn sorted_set(v: Vec<u32>) -> Vec<u32> {
        let mut v = v;
        v.sort_unstable();
        v.dedup();
        v
    }

    proptest! {
        #[test]
        fn splice_matches_decode_edit_encode(
            base in 0u32..3000,
            old in proptest::collection::vec(0u32..2000, 0..300),
            edits in proptest::collection::vec((0u32..2200, any::<bool>(), -50i32..50), 0..40),
            rule in prop_oneof![Just(Combine::Min), Just(Combine::Sum), Just(Combine::Last)],
        ) {
            let old = sorted_set(old);
            let weighted: Vec<(Vertex, i32)> = old.iter().map(|&x| (x, (x % 97) as i32 - 40)).collect();
            let plain: Vec<(Vertex, ())> = old.iter().map(|&x| (x, ())).collect();
            let (cw, cp) = (Chunk::encode(base, &weighted), Chunk::encode(base, &plain));
            let mut seen = std::collections::HashSet::new();
            let mut ins: Vec<(Vertex, i32)> = vec![];
            let mut del: Vec<Vertex> = vec![];
            for (x, is_ins, w) in edits {
                if seen.insert(x) {
                    if is_ins { ins.push((x, w)) } else { del.push(x) }
                }
            }
            ins.sort_unstable_by_key(|p| p.0);
            del.sort_unstable();
            let got = cw.splice(base, &ins, &del, rule);
            prop_assert_eq!(&got, &model(&cw, base, &ins, &del, rule));
            let ins_p: Vec<(Vertex, ())> = ins.iter().map(|&(x, _)| (x, ())).collect();
            let got = cp.splice(base, &ins_p, &del, rule);
            prop_assert_eq!(&got, &model(&cp, base, &ins_p, &del, rule));
            // Only inserts, only deletes (the two ways the trees call it).
            prop_assert_eq!(&cw.splice::<i32>(base, &[], &del, rule), &model::<i32>(&cw, base, &[], &del, rule));
            prop_assert_eq!(&cp.splice(base, &ins_p, &[], rule), &model(&cp, base, &ins_p, &[], rule));
        }
    }

    #[test]
    fn round_trip_and_header() {
        let xs: Vec<(Vertex, i32)> = vec![(3, -1), (5, 7), (1000, 2), (1_000_000, 9)];
        let c = Chunk::encode(10, &xs);
        assert_eq!(c.count(), 4);
        assert_eq!(c.header(10), Some((4, 3, 1_000_000)));
        let mut out = vec![];
        c.decode_into(10, &mut out);
        assert_eq!(out, xs);
        assert_eq!(c.find::<i32>(10, 1000), Some(2));
        assert_eq!(c.find::<i32>(10, 999), None);
        let e = Chunk::empty();
        assert_eq!(e.count(), 0);
        assert!(e.for_each::<()>(0, |_, _| false));
        let u: Vec<(Vertex, ())> = (0..300).map(|i| (i * 3, ())).collect();
        let c = Chunk::encode(0, &u);
        // 2-byte count, 2-byte span, 1-byte first, 299 one-byte gaps
        assert_eq!(c.bytes(), 8 + 2 + 2 + 1 + 299);
        let d = c.clone();
        assert_eq!(d, c);
        let mut seen = 0;
        assert!(!c.for_each::<()>(0, |x, _| {
            seen += 1;
            x < 30
        }));
        assert_eq!(seen, 11);
    }
}
