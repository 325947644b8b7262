//! Chunks: one allocation (`Box<[u8]>`) holding a difference-encoded sorted run of elements and
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

use std::cell::RefCell;

thread_local! {
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A difference-encoded run of elements (see the module docs for the byte layout).
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct Chunk(Box<[u8]>);

impl Chunk {
    /// The empty chunk (no allocation).
    #[inline]
    pub fn empty() -> Self {
        Chunk(Box::default())
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
            Chunk(Box::from(&s[..]))
        })
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Bytes of the allocation.
    #[inline]
    pub fn bytes(&self) -> usize {
        self.0.len()
    }

    /// Number of elements, O(1).
    #[inline]
    pub fn count(&self) -> usize {
        if self.0.is_empty() {
            return 0;
        }
        let mut p = 0;
        get_varint_fast(&self.0, &mut p) as usize
    }

    /// `(count, first, last)` from the header, O(1); `None` if empty.
    #[inline]
    pub fn header(&self, base: Vertex) -> Option<(usize, Vertex, Vertex)> {
        if self.0.is_empty() {
            return None;
        }
        let mut p = 0;
        let c = get_varint_fast(&self.0, &mut p) as usize;
        let span = get_varint_fast(&self.0, &mut p);
        let first = (base as i64 + unzigzag(get_varint_fast(&self.0, &mut p))) as Vertex;
        Some((c, first, first + span as Vertex))
    }

    /// Call `f(x, w)` on every element in order until it returns `false`; returns `false` iff
    /// stopped early.
    #[inline]
    pub fn for_each<W: Weight>(&self, base: Vertex, mut f: impl FnMut(Vertex, W) -> bool) -> bool {
        let b = &self.0[..];
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
        assert_eq!(c.bytes(), 2 + 2 + 1 + 299);
        let mut seen = 0;
        assert!(!c.for_each::<()>(0, |x, _| {
            seen += 1;
            x < 30
        }));
        assert_eq!(seen, 11);
    }
}
