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
        if b.is_empty() {
            return Chunk(None);
        }
        let len = u32::try_from(b.len()).expect("chunk larger than 4 GiB");
        // SAFETY: the layout has non-zero size; we initialise the header and copy the bytes.
        unsafe {
            let p = alloc(Self::layout(b.len()));
            let Some(p) = NonNull::new(p) else {
                handle_alloc_error(Self::layout(b.len()))
            };
            (p.as_ptr() as *mut AtomicU32).write(AtomicU32::new(1));
            (p.as_ptr().add(4) as *mut u32).write(len);
            std::ptr::copy_nonoverlapping(b.as_ptr(), p.as_ptr().add(HDR), b.len());
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
