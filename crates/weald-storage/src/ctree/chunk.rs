//! Chunks: one shared allocation holding a difference-encoded sorted run of elements and
//! their weights.
//!
//! Layout (varints are the LEB128 codes of `weald_graph::codec`):
//!
//! ```text
//! varint count                      c elements (>= 1; the empty chunk is a zero-length box)
//! u8     width                      bits per packed gap (1..=32; 0 when c = 1)
//! varint zigzag(first - base)
//! packed gaps                       x_i - x_{i-1} for i = 1..c, `width` bits each, little-endian
//!                                   bit order, ceil((c - 1) * width / 8) bytes
//! varint span                       last - first
//! W::BYTES * c                      weights, little-endian, in element order (nothing when W = ())
//! ```
//!
//! `base` is not stored: it is the source vertex for a prefix chunk and the head for a tail.
//! `count`, `first` and `last` are read in O(1) from the header.
//!
//! A chunk of at most 7 bytes (on 64-bit little-endian targets: one unweighted element within
//! 2^27 of its base takes 4–7, and a few close unweighted elements fit too) has no
//! allocation: its bytes sit in the pointer's word after a tag byte (see [`Chunk`]). A vertex
//! of degree one, or that gains its first edge, then costs no allocation, no count to write
//! when a block is copied and no line to load when read.
//!
//! Gaps are bit-packed at one width per chunk rather than written as varints: decoding is a
//! load, a shift and a mask per element with no branch on the data (a varint decoder
//! mispredicts the end of most codes when gaps of one, two and three bytes mix, as random
//! neighbours' do), and the chunk is smaller whenever the gaps are of similar size (RMAT
//! scale 20: 1.78 bytes per gap against 1.97 as varints, widths included). A scan reads only
//! the count, the width byte and the first element: the span, which splits and searches
//! need, sits after the gaps, so the scan does not decode it (header varints of varying
//! length are mispredicted branches too).

use weald_graph::batch::Combine;
use weald_graph::codec::{
    bit_width, get_varint_fast, pack_bits, packed_len, put_varint, read_bits, unpack_bits_at,
    unzigzag, varint_len, write_varint, zigzag, BitWriter,
};
use weald_graph::{Vertex, Weight};

use std::alloc::{alloc, dealloc, handle_alloc_error, realloc, Layout};
use std::cell::RefCell;
use std::ptr::NonNull;
use std::sync::atomic::{
    fence, AtomicU32,
    Ordering::{Acquire, Relaxed, Release},
};

thread_local! {
    /// A weight's bytes, for a bit-level edit (`put_weight`).
    static WEIGHT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// A chunk being spliced: its pieces (see `Chunk::splice_bytes`) and the weight bytes
    /// of the new elements among them.
    static SPLICE: RefCell<(Vec<Piece>, Vec<u8>)> =
        const { RefCell::new((Vec::new(), Vec::new())) };
}

/// A piece of a spliced chunk (`Chunk::splice_bytes`): the old elements `a..b` with their
/// first and last values, `(a, b, first, last)`, or a new element `x`, `(u32::MAX, 0, x, x)`.
type Piece = (u32, u32, Vertex, Vertex);

/// A difference-encoded run of elements (see the module docs for the byte layout), in one
/// shared allocation: `[u32 reference count | u32 length | bytes]`, reached by a
/// thin pointer (8 bytes; null for the empty chunk). Cloning increments the count, so path
/// copying a node never copies its chunk.
///
/// A chunk of at most [`INLINE_MAX`] bytes (7 on 64-bit targets: a single unweighted element
/// within 2^27 of its base, or a few close ones) is stored in the pointer's own word instead,
/// and allocates
/// nothing: the low byte (the first in memory; little-endian targets only) is
/// `length << 1 | 1`, which no allocation's address has (they are 4-aligned), and the bytes
/// follow it. Cloning and dropping it touch no memory, and reading it loads no line.
#[repr(transparent)]
pub struct Chunk(Option<NonNull<u8>>);

/// Bytes in a pointer-sized word.
const WORD: usize = std::mem::size_of::<usize>();

/// The longest chunk kept inline (in the handle's own word, after the tag byte): none on
/// big-endian targets, where the tag byte would not come first in memory.
pub(crate) const INLINE_MAX: usize = if cfg!(target_endian = "little") {
    WORD - 1
} else {
    0
};

/// The low bit of an inline chunk's word (allocations are 4-aligned, so theirs is 0).
const INLINE_TAG: usize = 1;

// SAFETY: the bytes change only through `&mut self` while the count is one
// (`splice_mut`), and the count is atomic.
unsafe impl Send for Chunk {}
// SAFETY: as above.
unsafe impl Sync for Chunk {}

/// What a splice makes (see [`Chunk::splice`]).
enum Spliced {
    /// The same elements (only absent ones were to be deleted).
    Same,
    /// No element left.
    Empty,
    /// New bytes, in `SCRATCH`.
    Encoded,
}

/// Replace `out` with the encoding of the strictly increasing, non-empty `xs` relative to
/// `base`.
fn encode_into<W: Weight>(out: &mut Vec<u8>, base: Vertex, xs: &[(Vertex, W)]) {
    out.clear();
    put_elements(out, base, xs.iter().map(|e| e.0));
    if W::WEIGHTED {
        for &(_, w) in xs {
            w.write_le(out);
        }
    }
}

const HDR: usize = 8;

/// The elements [`Chunk::for_each_ahead`] keeps decoded (a power of two, above its `dist`).
const AHEAD_RING: usize = 32;

impl Chunk {
    /// The empty chunk (no allocation).
    #[inline]
    pub fn empty() -> Self {
        Chunk(None)
    }

    fn layout(len: usize) -> Layout {
        Layout::from_size_align(HDR + len, 4).expect("chunk too large")
    }

    /// The allocation, if this chunk has one (not when empty or inline).
    #[inline(always)]
    fn ptr(&self) -> Option<NonNull<u8>> {
        self.0.filter(|p| p.as_ptr().addr() & INLINE_TAG == 0)
    }

    /// The chunk of the bytes `b` (`0 < b.len() <= INLINE_MAX`) kept in its own word.
    #[inline]
    fn inline(b: &[u8]) -> Self {
        debug_assert!(!b.is_empty() && b.len() <= INLINE_MAX);
        let mut w = [0u8; WORD];
        w[0] = (b.len() << 1 | INLINE_TAG) as u8;
        w[1..=b.len()].copy_from_slice(b);
        // Not an address: a tagged word that is never dereferenced (`ptr` filters it out).
        Chunk(NonNull::new(std::ptr::without_provenance_mut(
            usize::from_le_bytes(w),
        )))
    }

    /// A chunk holding the bytes `b`.
    fn from_bytes(b: &[u8]) -> Self {
        let total = b.len();
        if total == 0 {
            return Chunk(None);
        }
        if total <= INLINE_MAX {
            return Chunk::inline(b);
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
            std::ptr::copy_nonoverlapping(b.as_ptr(), p.as_ptr().add(HDR), total);
            Chunk(Some(p))
        }
    }

    #[inline]
    fn raw(&self) -> &[u8] {
        match self.0 {
            None => &[],
            Some(p) if p.as_ptr().addr() & INLINE_TAG != 0 => {
                let len = (p.as_ptr().addr() & 0xff) >> 1;
                // SAFETY: `Chunk` is a transparent pointer-sized word (the `Option` of a
                // `NonNull` has the pointer's layout), whose bytes 1..=len hold the chunk on
                // a little-endian target (`inline`).
                let w = unsafe { &*(self as *const Chunk as *const [u8; WORD]) };
                &w[1..=len]
            }
            // SAFETY: a live allocation made by `from_bytes` or `rewrite`; it changes only
            // through `&mut self`, which this borrow excludes.
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
            encode_into(&mut s, base, xs);
            Chunk::from_bytes(&s)
        })
    }

    /// Start loading the header (prefetch hint): cloning the chunk writes its count.
    #[inline(always)]
    pub fn prefetch(&self) {
        if let Some(p) = self.ptr() {
            super::prefetch(p.as_ptr());
        }
    }

    /// Start loading the line after the header's (prefetch hint: past the end of a short
    /// chunk it loads a neighbour, never faults).
    #[inline(always)]
    pub fn prefetch_second(&self) {
        if let Some(p) = self.ptr() {
            super::prefetch(p.as_ptr().wrapping_add(64));
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Bytes of the allocation (header included; 0 when empty or inline: an inline chunk
    /// lives in its handle's word, counted with the handle).
    #[inline]
    pub fn bytes(&self) -> usize {
        match self.ptr() {
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
        let h = Head::read(b, base);
        Some((h.count, h.first, h.last(b)))
    }

    /// Call `f(x, w)` on every element in order until it returns `false`; returns `false` iff
    /// stopped early.
    #[inline]
    pub fn for_each<W: Weight>(&self, base: Vertex, f: impl FnMut(Vertex, W) -> bool) -> bool {
        self.scan(base, false, f)
    }

    /// [`for_each`](Self::for_each) without the first element (a caller that has it already:
    /// see [`first`](Self::first)).
    #[inline]
    pub fn for_each_after_first<W: Weight>(
        &self,
        base: Vertex,
        f: impl FnMut(Vertex, W) -> bool,
    ) -> bool {
        self.scan(base, true, f)
    }

    /// The number of elements and the first element with its weight, from the header (and
    /// the first weight); `None` if empty.
    #[inline]
    pub fn first<W: Weight>(&self, base: Vertex) -> Option<(usize, Vertex, W)> {
        let b = self.raw();
        if b.is_empty() {
            return None;
        }
        let h = Head::read(b, base);
        let w = if W::WEIGHTED {
            let wp = b.len() - h.count * W::BYTES;
            W::read_le(&b[wp..wp + W::BYTES])
        } else {
            W::default()
        };
        Some((h.count, h.first, w))
    }

    /// [`for_each`](Self::for_each), from the second element on if `skip_first`.
    #[inline(always)]
    fn scan<W: Weight>(
        &self,
        base: Vertex,
        skip_first: bool,
        mut f: impl FnMut(Vertex, W) -> bool,
    ) -> bool {
        let b = self.raw();
        if b.is_empty() {
            return true;
        }
        let h = Head::read(b, base);
        let mut x = h.first;
        if W::WEIGHTED {
            let wb = W::BYTES;
            let mut wp = b.len() - h.count * wb;
            if !skip_first && !f(x, W::read_le(&b[wp..wp + wb])) {
                return false;
            }
            unpack_bits_at(b, h.gap_bit(0), h.count - 1, h.width, |g| {
                x += g;
                wp += wb;
                f(x, W::read_le(&b[wp..wp + wb]))
            })
        } else {
            (skip_first || f(x, W::default()))
                && unpack_bits_at(b, h.gap_bit(0), h.count - 1, h.width, |g| {
                    x += g;
                    f(x, W::default())
                })
        }
    }

    /// Fold `f` over the elements' weights, in element order, reading only the weights
    /// (`init` when `W` has none: the caller knows the count).
    #[inline]
    pub fn fold_weights<W: Weight, T>(&self, base: Vertex, init: T, f: impl FnMut(T, W) -> T) -> T {
        let b = self.raw();
        if b.is_empty() || !W::WEIGHTED {
            return init;
        }
        let c = Head::read(b, base).count;
        b[b.len() - c * W::BYTES..]
            .chunks_exact(W::BYTES)
            .map(W::read_le)
            .fold(init, f)
    }

    /// Fold `f` over the elements `(x, w)` in order. The state is this function's own, so it
    /// stays in a register through the decoding loop.
    #[inline]
    pub fn fold<W: Weight, T: Copy>(
        &self,
        base: Vertex,
        init: T,
        mut f: impl FnMut(T, Vertex, W) -> T,
    ) -> T {
        let mut acc = init;
        self.for_each(base, |x, w| {
            acc = f(acc, x, w);
            true
        });
        acc
    }

    /// [`for_each_ahead`](Self::for_each_ahead) as a fold (the state this function's own, as
    /// in [`fold`](Self::fold)).
    #[inline]
    pub fn fold_ahead<W: Weight, T: Copy>(
        &self,
        base: Vertex,
        dist: usize,
        ahead: &impl Fn(Vertex),
        init: T,
        mut f: impl FnMut(T, Vertex, W) -> T,
    ) -> T {
        let mut acc = init;
        self.for_each_ahead(base, dist, ahead, |x, w| acc = f(acc, x, w));
        acc
    }

    /// Call `f(x, w)` on every element in order, and `ahead(y)` on elements before `f` gets
    /// them: first on the first `dist` elements at once, then, as `f` gets element `i`, on
    /// element `i + dist`, so `ahead` can prefetch per-element state that `f` will read (see
    /// `Graph::for_each_out_ahead`). `dist` is at least 1 and at most `AHEAD_RING - 1` (31;
    /// larger values are cut to it). A lead cursor decodes each element once, `dist` ahead,
    /// into a ring of the last `AHEAD_RING`, from which `f` gets it: one packed gap read per
    /// element, where a second cursor decoding the gaps again made RMAT scale 20 SSSP 15 %
    /// slower (1 thread, interleaved).
    #[inline]
    pub fn for_each_ahead<W: Weight>(
        &self,
        base: Vertex,
        dist: usize,
        ahead: &impl Fn(Vertex),
        mut f: impl FnMut(Vertex, W),
    ) {
        let b = self.raw();
        if b.is_empty() {
            return;
        }
        let h = Head::read(b, base);
        let w = h.width as usize;
        // Element j is decoded into ring[j mod AHEAD_RING] (and handed to `ahead`) while `f`
        // gets element j - dist; the first `dist` go to `ahead` before `f` gets any.
        let mut ring = [0 as Vertex; AHEAD_RING];
        let first = dist.clamp(1, AHEAD_RING - 1).min(h.count);
        let (mut y, mut lbit) = (h.first, h.gap_bit(0));
        ring[0] = y;
        ahead(y);
        for r in ring.iter_mut().take(first).skip(1) {
            y += read_bits(b, lbit, h.width);
            lbit += w;
            *r = y;
            ahead(y);
        }
        let mut j = first;
        let wb = W::BYTES;
        let mut wp = b.len() - h.count * wb;
        for i in 0..h.count {
            if j < h.count {
                y += read_bits(b, lbit, h.width);
                lbit += w;
                ring[j % AHEAD_RING] = y;
                j += 1;
                ahead(y);
            }
            let x = ring[i % AHEAD_RING];
            if W::WEIGHTED {
                f(x, W::read_le(&b[wp..wp + wb]));
                wp += wb;
            } else {
                f(x, W::default());
            }
        }
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
    /// `del` must not share an element.
    ///
    /// The result is pieces in order: runs of old elements that no edit removes or replaces,
    /// and the edits' new elements. One walk decodes the old gaps up to the last edit, only
    /// to find where each edit falls (nothing is stored but the pieces' bounds and the new
    /// elements' weights); then the runs' gaps are copied as bits (56 at a time) when the
    /// width stays the same, their weights as bytes, and only the gaps between pieces are
    /// written one by one: a few edits in a hub's chunk of hundreds of elements cost one
    /// decode up to the last edit and a copy.
    /// The result is the canonical encoding of the new set (the width of its widest gap):
    /// the widest gap inside the runs is noted on the walk, and the gaps after the last edit
    /// are read only when the others do not reach the old width, and only until one does.
    /// Deleting only absent elements returns this chunk (a clone).
    pub fn splice<W: Weight>(
        &self,
        base: Vertex,
        ins: &[(Vertex, W)],
        del: &[Vertex],
        rule: Combine,
    ) -> Chunk {
        if let Some(one) = self.single(base, ins, del, rule) {
            // One edit: a copy of the bytes edited (see `plan_one`), not decoded and encoded.
            // One process, alternating rounds, RMAT scale 20, 1 thread, each batch a new
            // version of the loaded graph: inserts of 10 / 1000 / 1e5 edges 2.4-2.5 / 3.8-4.8
            // / 3.6-5.8 % faster, deletes 3.4-4.4 / 5.3-5.4 / 8-11 %.
            return match one {
                OneEdit::Nothing => self.clone(),
                OneEdit::Bytes(e) => SCRATCH.with(|s| {
                    let mut s = s.borrow_mut();
                    s.clear();
                    s.extend_from_slice(self.raw());
                    s.resize(e.len.max(e.new_len), 0);
                    e.apply(&mut s);
                    Chunk::from_bytes(&s[..e.new_len])
                }),
            };
        }
        match self.splice_bytes(base, ins, del, rule) {
            Spliced::Same => self.clone(),
            Spliced::Empty => Chunk::empty(),
            Spliced::Encoded => SCRATCH.with(|s| Chunk::from_bytes(&s.borrow())),
        }
    }

    /// [`splice`](Self::splice) into this chunk's own allocation when nothing else holds it:
    /// the new bytes are written over the old, the allocation resized by `realloc` (which
    /// `mimalloc`, Weald's allocator, leaves where it is while the size stays within the
    /// block's size class: the common case for a few edits). The chunk lines just read are
    /// the ones written, where a new allocation is often a cold line from the allocator's
    /// free list and freeing the old one writes yet another. A single insert or delete is
    /// edited in the allocation bit by bit where that keeps the encoding canonical
    /// ([`plan_one`](Self::plan_one)), without decoding and encoding the chunk. A shared
    /// chunk is spliced into a new allocation as usual.
    pub fn splice_mut<W: Weight>(
        &mut self,
        base: Vertex,
        ins: &[(Vertex, W)],
        del: &[Vertex],
        rule: Combine,
    ) {
        let Some(p) = self.ptr().filter(|_| self.is_unique()) else {
            *self = self.splice(base, ins, del, rule);
            return;
        };
        // A single insert or delete, where it keeps the encoding canonical, is edited in the
        // allocation bit by bit. One process, alternating rounds, RMAT scale 20, 1 thread, in
        // place, against decoding and encoding anew: inserts of 10 / 1000 / 1e5 edges 3.2 /
        // 6-7 / 0.6-1.4 % faster (2.4-2.6 % over 60 rounds), deletes 5-9 / 7-9 / 1-2.6 %.
        if let Some(one) = self.single(base, ins, del, rule) {
            if let OneEdit::Bytes(e) = one {
                // SAFETY: `p` is this chunk's allocation, which nothing else uses (above).
                unsafe { self.apply_in_place(p, &e) };
            }
            return;
        }
        match self.splice_bytes(base, ins, del, rule) {
            Spliced::Same => {}
            Spliced::Empty => *self = Chunk::empty(),
            Spliced::Encoded => {
                let old_len = self.raw().len();
                // SAFETY: `p` is this chunk's allocation, of `old_len` bytes after the
                // header, and nothing else uses it: the count is 1 and we hold `&mut self`
                // (a `FlatSnapshot` copies trees without counting, but it also holds a clone
                // of the graph, so every chunk it reaches is shared). The new bytes are in
                // the scratch buffer, not in the allocation, and not empty.
                SCRATCH.with(|s| unsafe { self.rewrite(p, old_len, &s.borrow()) });
            }
        }
    }

    /// Plan a single insert (`ins`) or delete (`del`) on this chunk's bytes, to be done on
    /// them in place or on a copy ([`OneEdit::apply`]) without decoding the chunk into a
    /// buffer and encoding it anew: the splice that most chunks of a batch get. `None` when
    /// that does not keep the encoding canonical or the header's shape, and the general
    /// splice must do it: the edit moves the first or last element, the count's varint
    /// changes length, the width would change, or the result is short enough to be kept
    /// inline.
    ///
    /// An insert between two elements splits one gap into two, both narrower, so they fit;
    /// the width stays unless the split gap was the only one that needed it (the gaps before
    /// are watched while `x`'s place is found, the ones after are read only until one needs
    /// it). A delete of an interior element joins two gaps into one at least as wide as
    /// either, so the width stays if it fits. An element already present has its weight
    /// combined by `rule` (nothing changes if unweighted); an absent one to delete changes
    /// nothing. `first` and the span stay.
    fn plan_one<W: Weight>(
        &self,
        base: Vertex,
        ins: Option<(Vertex, W)>,
        del: Option<Vertex>,
        rule: Combine,
    ) -> Option<OneEdit<W>> {
        let b = self.raw();
        if b.is_empty() {
            return None;
        }
        let h = Head::read(b, base);
        let c = h.count;
        let x = match (ins, del) {
            (Some((x, _)), None) | (None, Some(x)) => x,
            _ => return None,
        };
        if c < 2 || x < h.first {
            // Too few elements to have an interior, or below the first: an absent delete
            // changes nothing; an insert makes a new first.
            return (del.is_some() && c >= 2).then_some(OneEdit::Nothing);
        }
        let w = h.width;
        let wide = |g: u32| g >> (w - 1) != 0;
        // Find `x`'s place: `y` the first element at or above it (element `at`), `gap` the
        // gap before `y`, and whether a gap before that one needs the width.
        let (mut y, mut at, mut gap, mut wide_before) = (h.first, 0usize, 0u32, false);
        if x > h.first {
            unpack_bits_at(b, h.gap_bit(0), c - 1, w, |g| {
                wide_before |= wide(gap);
                y += g;
                at += 1;
                gap = g;
                y < x
            });
        }
        let tail = h.data + packed_len(c - 1, w); // the span's varint, then the weights
        let mut weights = tail;
        get_varint_fast(b, &mut weights);
        let (len, wb) = (b.len(), W::BYTES);
        let edit = |kind, new_len| {
            OneEdit::Bytes(ByteEdit {
                kind,
                head: h,
                len,
                new_len,
                tail,
                weights,
            })
        };
        let ins = match ins {
            None => {
                // A delete.
                if y != x {
                    return Some(OneEdit::Nothing); // absent
                }
                if at == 0 || at == c - 1 || varint_len(c as u64 - 1) != varint_len(c as u64) {
                    return None; // the first or the last element, or the count shrinks
                }
                let joined = gap as u64 + read_bits(b, h.gap_bit(at), w) as u64;
                if joined >> w != 0 {
                    return None; // the joined gap would widen the chunk
                }
                let new_len = len - (packed_len(c - 1, w) - packed_len(c - 2, w)) - wb;
                if new_len <= INLINE_MAX {
                    return None;
                }
                return Some(edit(Kind::Delete { at, joined }, new_len));
            }
            Some((_, wt)) => wt,
        };
        if y == x {
            // Present: element `at`.
            return Some(if W::WEIGHTED {
                let o = weights + at * wb;
                edit(
                    Kind::Weight {
                        at,
                        w: W::read_le(&b[o..o + wb]).combine(ins, rule),
                    },
                    len,
                )
            } else {
                OneEdit::Nothing
            });
        }
        if y < x || varint_len(c as u64 + 1) != varint_len(c as u64) {
            return None; // above the last element, or the count's varint grows
        }
        // `x` splits gap `at - 1` (between elements `at - 1` and `at`) into two.
        let (g1, g2) = (x - (y - gap), y - x);
        if !wide(g1) && !wide(g2) && !wide_before {
            // Does a later gap still need the width?
            let mut later = false;
            unpack_bits_at(b, h.gap_bit(at), c - 1 - at, w, |g| {
                later = wide(g);
                !later
            });
            if !later {
                return None; // the width shrinks
            }
        }
        let new_len = len + packed_len(c, w) - packed_len(c - 1, w) + wb;
        Some(edit(Kind::Insert { at, g1, g2, w: ins }, new_len))
    }

    /// [`plan_one`](Self::plan_one) for a splice of one insert or one delete; `None` for
    /// any other splice.
    #[inline]
    fn single<W: Weight>(
        &self,
        base: Vertex,
        ins: &[(Vertex, W)],
        del: &[Vertex],
        rule: Combine,
    ) -> Option<OneEdit<W>> {
        match (ins, del) {
            ([e], []) => self.plan_one(base, Some(*e), None, rule),
            ([], [x]) => self.plan_one(base, None, Some(*x), rule),
            _ => None,
        }
    }

    /// Do `e` (planned on this chunk) in its own allocation `p`, resized by `realloc`.
    ///
    /// # Safety
    /// `p` is this chunk's allocation and nothing else uses it (its count is 1, and
    /// `&mut self` excludes other uses of this handle).
    unsafe fn apply_in_place<W: Weight>(&mut self, p: NonNull<u8>, e: &ByteEdit<W>) {
        let (len, new_len) = (e.len, e.new_len);
        // An insert grows the allocation first (the new bytes zeroed: uninitialised, and the
        // slice below must be of initialised bytes), a delete shrinks it after.
        let p = if new_len > len {
            let q = self.resize(p, len, new_len);
            std::ptr::write_bytes(q.as_ptr().add(HDR + len), 0, new_len - len);
            q
        } else {
            p
        };
        // SAFETY: the chunk's bytes after the header (`max(len, new_len)` of them, all
        // initialised), which nothing else uses.
        e.apply(std::slice::from_raw_parts_mut(
            p.as_ptr().add(HDR),
            len.max(new_len),
        ));
        if new_len < len {
            self.resize(p, len, new_len);
        }
    }

    /// Resize this chunk's allocation `p` from `len` bytes after the header to `new_len`
    /// (bytes added uninitialised, as `realloc` leaves them), keeping its count and the
    /// first bytes; returns the (possibly moved) allocation, which this chunk now holds.
    ///
    /// # Safety
    /// As for [`apply_in_place`](Self::apply_in_place); `len` is the allocation's length.
    unsafe fn resize(&mut self, p: NonNull<u8>, len: usize, new_len: usize) -> NonNull<u8> {
        let stored = u32::try_from(new_len).expect("chunk larger than 4 GiB");
        let q = realloc(p.as_ptr(), Self::layout(len), HDR + new_len);
        let Some(q) = NonNull::new(q) else {
            handle_alloc_error(Self::layout(new_len))
        };
        (q.as_ptr().add(4) as *mut u32).write(stored);
        // `self`'s old pointer went to `realloc`: forget it instead of dropping it.
        std::mem::forget(std::mem::replace(self, Chunk(Some(q))));
        q
    }

    /// No other `Chunk` holds this allocation (false for the empty chunk and inline ones).
    #[inline]
    fn is_unique(&self) -> bool {
        match self.ptr() {
            None => false,
            // SAFETY: the header of a live allocation. Acquire pairs with the Release
            // decrements of other owners' drops, as `Arc::get_mut` does.
            Some(p) => unsafe { (*(p.as_ptr() as *const AtomicU32)).load(Acquire) == 1 },
        }
    }

    /// Make this chunk `bytes`: its allocation `p` (`old_len` bytes after the header, a count
    /// of one) resized to hold them and written, keeping the count; or, when `bytes` are
    /// short enough to be kept inline, freed and replaced by the inline chunk.
    ///
    /// # Safety
    /// `p` is this chunk's allocation, of `old_len` bytes, and no one else uses it; `bytes`
    /// is non-empty and does not overlap it.
    unsafe fn rewrite(&mut self, p: NonNull<u8>, old_len: usize, bytes: &[u8]) {
        if bytes.len() <= INLINE_MAX {
            dealloc(p.as_ptr(), Self::layout(old_len));
            // `self`'s pointer was freed: forget it instead of dropping it.
            std::mem::forget(std::mem::replace(self, Chunk::inline(bytes)));
            return;
        }
        let q = self.resize(p, old_len, bytes.len());
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), q.as_ptr().add(HDR), bytes.len());
    }

    /// The splice's work: what the new chunk is, its bytes (when `Encoded`) left in
    /// `SCRATCH`. Only reads this chunk.
    fn splice_bytes<W: Weight>(
        &self,
        base: Vertex,
        ins: &[(Vertex, W)],
        del: &[Vertex],
        rule: Combine,
    ) -> Spliced {
        let b = self.raw();
        if b.is_empty() {
            if ins.is_empty() {
                return Spliced::Empty;
            }
            SCRATCH.with(|s| encode_into(&mut s.borrow_mut(), base, ins));
            return Spliced::Encoded;
        }
        let h = Head::read(b, base);
        let c = h.count;
        let wb = W::BYTES;
        let wstart = b.len() - c * wb;
        let old_w = |i: usize, j: usize| &b[wstart + i * wb..wstart + j * wb];
        if ins.is_empty() && del.is_empty() {
            return Spliced::Same;
        }
        if c + ins.len() <= SMALL_SPLICE {
            return splice_small(self, base, ins, del, rule);
        }
        SPLICE.with(|scratch| {
            let (pieces, wts) = &mut *scratch.borrow_mut();
            pieces.clear();
            wts.clear();
            let w = h.width;
            // One walk over the old elements up to the last edit cuts them into runs kept
            // whole (their gaps and weights copied later) and the edits' new elements: old
            // elements 0..i are placed or dropped, `xi` is element i's value, `prev` the last
            // placed one's, and the open run starts at element `run_a` (value `run_first`).
            // `kept` is the widest gap inside a run so far; `pending` the gap into element i
            // from a placed element i − 1, inside the run if element i joins it (0: none).
            let (mut i, mut xi, mut prev) = (0usize, h.first, h.first);
            let (mut run_a, mut run_first) = (0usize, h.first);
            let (mut kept, mut pending) = (0u32, 0u32);
            let mut changed = !ins.is_empty();
            let (mut j, mut k) = (0, 0);
            loop {
                let (t, is_ins) = match (ins.get(j), del.get(k)) {
                    (None, None) => break,
                    (Some(e), Some(&d)) if e.0 < d => (e.0, true),
                    (Some(e), None) => (e.0, true),
                    (_, Some(&d)) => (d, false),
                };
                // Place the old elements below `t` in the open run.
                if i < c && xi < t {
                    kept = kept.max(pending);
                    prev = xi;
                    let ran_out = unpack_bits_at(b, h.gap_bit(i), c - 1 - i, w, |g| {
                        xi += g;
                        i += 1;
                        if xi < t {
                            kept = kept.max(g);
                            prev = xi;
                            true
                        } else {
                            pending = g;
                            false
                        }
                    });
                    if ran_out {
                        // The last element is below `t` too.
                        (i, pending) = (c, 0);
                    }
                }
                let present = i < c && xi == t;
                let new_w = if is_ins {
                    let w = ins[j].1;
                    j += 1;
                    if present && !W::WEIGHTED {
                        continue; // nothing changes: the element stays in its run
                    }
                    Some(if present {
                        W::read_le(old_w(i, i + 1)).combine(w, rule)
                    } else {
                        w
                    })
                } else {
                    k += 1;
                    if !present {
                        continue; // absent: nothing changes
                    }
                    changed = true;
                    None
                };
                // Close the open run before element i; element i, if present, is dropped
                // (deleted, or replaced by the new element with the combined weight).
                if i > run_a {
                    pieces.push((run_a as u32, i as u32, run_first, prev));
                }
                pending = 0;
                if let Some(nw) = new_w {
                    pieces.push((u32::MAX, 0, t, t));
                    nw.write_le(wts);
                }
                if present {
                    if i + 1 < c {
                        xi += read_bits(b, h.gap_bit(i), w);
                    }
                    i += 1;
                }
                (run_a, run_first) = (i, xi);
            }
            if !changed {
                // Only absent elements were to be deleted.
                return Spliced::Same;
            }
            // The last run: elements run_a..c, of which i..c were not read; `pending` (the
            // gap into element i, if element i − 1 was placed) is inside it.
            if run_a < c {
                kept = kept.max(pending);
                pieces.push((run_a as u32, c as u32, run_first, h.last(b)));
            }
            let (Some(&(_, _, first, _)), Some(&(_, _, _, last))) = (pieces.first(), pieces.last())
            else {
                return Spliced::Empty;
            };
            let is_run = |p: &Piece| p.0 != u32::MAX;
            let count: usize = pieces
                .iter()
                .map(|p| if is_run(p) { (p.1 - p.0) as usize } else { 1 })
                .sum();
            let joins = || pieces.windows(2).map(|p| p[1].2 - p[0].3);
            let mut width = gap_width(joins().max().unwrap_or(0).max(kept));
            if width < w && i + 1 < c {
                // The unread gaps of the last run (i..c − 1) may need the old width: read
                // them only until one does.
                let mut m = 0;
                unpack_bits_at(b, h.gap_bit(i), c - 1 - i, w, |g| {
                    m = m.max(g);
                    gap_width(m) < w
                });
                width = width.max(gap_width(m));
            }
            SCRATCH.with(|out| {
                let mut out = out.borrow_mut();
                out.clear();
                put_varint(&mut out, count as u64);
                out.push(width as u8);
                put_varint(&mut out, zigzag(first as i64 - base as i64));
                let mut bits = BitWriter::new(&mut out, (count - 1) * width as usize);
                for (k, p) in pieces.iter().enumerate() {
                    if k > 0 {
                        bits.put(p.2 - pieces[k - 1].3, width);
                    }
                    // A run's own gaps, between its elements a..b.
                    if is_run(p) && p.1 - p.0 > 1 {
                        let (a, gaps) = (p.0 as usize, (p.1 - p.0 - 1) as usize);
                        if width == w {
                            bits.copy_bits(b, h.gap_bit(a), gaps * w as usize);
                        } else {
                            unpack_bits_at(b, h.gap_bit(a), gaps, w, |g| {
                                bits.put(g, width);
                                true
                            });
                        }
                    }
                }
                bits.finish();
                put_varint(&mut out, (last - first) as u64);
                if W::WEIGHTED {
                    let mut nw = wts.chunks_exact(W::BYTES);
                    for p in pieces.iter() {
                        if is_run(p) {
                            out.extend_from_slice(old_w(p.0 as usize, p.1 as usize));
                        } else {
                            out.extend_from_slice(nw.next().expect("a new element's weight"));
                        }
                    }
                }
            });
            Spliced::Encoded
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
        if let Some(p) = self.ptr() {
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
        if let Some(p) = self.ptr() {
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

/// A splice whose chunk and insertions together hold at most this many elements decodes the
/// chunk whole and encodes the merged elements anew ([`splice_small`]).
const SMALL_SPLICE: usize = 32;

/// [`Chunk::splice_bytes`] of a short chunk (its count + `ins.len() <= SMALL_SPLICE`, at least
/// one edit): decode all of it onto the stack, merge the edits, encode the result into
/// `SCRATCH` with the chunk encoder (so the bytes are the canonical ones). Where the general
/// splice walks the gaps to cut the chunk into pieces and copies runs of bits, this is a
/// few loops over registers and L1: most chunks an update lands in are this short (a
/// vertex's prefix holds all its neighbours up to degree ~b, and most vertices have few).
fn splice_small<W: Weight>(
    chunk: &Chunk,
    base: Vertex,
    ins: &[(Vertex, W)],
    del: &[Vertex],
    rule: Combine,
) -> Spliced {
    let mut old = [(0 as Vertex, W::default()); SMALL_SPLICE];
    let mut c = 0;
    chunk.for_each(base, |x, w| {
        old[c] = (x, w);
        c += 1;
        true
    });
    let mut out = [(0 as Vertex, W::default()); SMALL_SPLICE];
    let (mut n, mut j, mut k) = (0, 0, 0);
    // An insertion changes the bytes or not (an element already present with its weight
    // kept); the splice calls it a change either way, as the general one does.
    let mut changed = !ins.is_empty();
    for &(x, w) in &old[..c] {
        while j < ins.len() && ins[j].0 < x {
            out[n] = ins[j];
            n += 1;
            j += 1;
        }
        while k < del.len() && del[k] < x {
            k += 1;
        }
        if j < ins.len() && ins[j].0 == x {
            out[n] = (
                x,
                if W::WEIGHTED {
                    w.combine(ins[j].1, rule)
                } else {
                    w
                },
            );
            n += 1;
            j += 1;
        } else if k < del.len() && del[k] == x {
            k += 1;
            changed = true;
        } else {
            out[n] = (x, w);
            n += 1;
        }
    }
    for &e in &ins[j..] {
        out[n] = e;
        n += 1;
    }
    if !changed {
        Spliced::Same
    } else if n == 0 {
        Spliced::Empty
    } else {
        SCRATCH.with(|s| encode_into(&mut s.borrow_mut(), base, &out[..n]));
        Spliced::Encoded
    }
}

/// The `k` bits (1..=56) at bit `bit` of `b` (little-endian bit order).
#[inline]
fn load_bits(b: &[u8], bit: usize, k: usize) -> u64 {
    let (at, shift) = (bit / 8, bit % 8);
    let word = if at + 8 <= b.len() {
        // SAFETY: at + 8 <= len.
        u64::from_le(unsafe { std::ptr::read_unaligned(b.as_ptr().add(at) as *const u64) })
    } else {
        let mut buf = [0u8; 8];
        buf[..b.len() - at].copy_from_slice(&b[at..]);
        u64::from_le_bytes(buf)
    };
    (word >> shift) & ((1u64 << k) - 1)
}

/// Write the low `k` bits (1..=56) of `v` at bit `bit` of `b` (little-endian bit order),
/// keeping the other bits.
#[inline]
fn store_bits(b: &mut [u8], bit: usize, v: u64, k: usize) {
    let (at, shift) = (bit / 8, bit % 8);
    let mask = ((1u64 << k) - 1) << shift;
    let v = (v << shift) & mask;
    if at + 8 <= b.len() {
        // SAFETY: at + 8 <= len.
        unsafe {
            let p = b.as_mut_ptr().add(at) as *mut u64;
            let word = u64::from_le(std::ptr::read_unaligned(p));
            std::ptr::write_unaligned(p, ((word & !mask) | v).to_le());
        }
    } else {
        for (i, byte) in b[at..].iter_mut().enumerate().take((shift + k).div_ceil(8)) {
            let (m, v) = ((mask >> (8 * i)) as u8, (v >> (8 * i)) as u8);
            *byte = (*byte & !m) | v;
        }
    }
}

/// Zero the bits of the byte holding bit `end` from it on: the padding after packed gaps
/// that end there, which the encoder leaves zero.
#[inline]
fn clear_padding(b: &mut [u8], end: usize) {
    let (at, bits) = (end / 8, end % 8);
    if bits != 0 {
        b[at] &= (1u8 << bits) - 1;
    }
}

/// Move the `n` bits at bit `src` of `b` to bit `dst` (the two runs may overlap), 56 bits at
/// a time, in the direction that reads every piece before a write covers it.
fn move_bits(b: &mut [u8], src: usize, dst: usize, n: usize) {
    const PIECE: usize = 56;
    if dst < src {
        let mut i = 0;
        while i < n {
            let k = (n - i).min(PIECE);
            store_bits(b, dst + i, load_bits(b, src + i, k), k);
            i += k;
        }
    } else {
        let mut i = n;
        while i > 0 {
            let k = i.min(PIECE);
            i -= k;
            store_bits(b, dst + i, load_bits(b, src + i, k), k);
        }
    }
}

#[cfg(test)]
thread_local! {
    /// Single deletes edited bit by bit ([`ByteEdit::apply`]; the tests check it is taken).
    static BIT_DELETES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Single inserts (and weight updates) edited bit by bit.
    static BIT_INSERTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A single insert or delete planned by [`Chunk::plan_one`].
enum OneEdit<W> {
    /// Nothing changes (an absent element to delete, or an unweighted one to insert that
    /// is present).
    Nothing,
    /// The bytes change.
    Bytes(ByteEdit<W>),
}

/// What a [`ByteEdit`] does.
enum Kind<W> {
    /// Element `at`'s weight becomes `w`.
    Weight { at: usize, w: W },
    /// A new element `at` with weight `w`, splitting the old gap `at - 1` into `g1`, `g2`.
    Insert { at: usize, g1: u32, g2: u32, w: W },
    /// Element `at` goes, the gaps around it joined into `joined`.
    Delete { at: usize, joined: u64 },
}

/// A single edit of a chunk's bytes, with what [`Chunk::plan_one`] read of them.
struct ByteEdit<W> {
    kind: Kind<W>,
    head: Head,
    /// The old and new lengths of the bytes.
    len: usize,
    new_len: usize,
    /// Offsets of the span's varint and of the weights.
    tail: usize,
    weights: usize,
}

impl<W: Weight> ByteEdit<W> {
    /// Edit `m`: the chunk's old bytes, then room for the new ones (`m.len()` is the larger
    /// of the two lengths); the new bytes are `m[..new_len]`. Later gaps move by one width,
    /// the span and the weights by the bytes the gaps gain or lose, each run moved in the
    /// direction that reads it before it is overwritten.
    fn apply(&self, m: &mut [u8]) {
        let (h, wb) = (&self.head, W::BYTES);
        let (c, w) = (h.count, h.width as usize);
        let (len, tail, weights) = (self.len, self.tail, self.weights);
        match self.kind {
            Kind::Weight { at, w: v } => put_weight(m, weights + at * wb, v),
            Kind::Insert { at, g1, g2, w: v } => {
                let more = self.new_len - len - wb;
                m.copy_within(weights + at * wb..len, weights + at * wb + more + wb);
                m.copy_within(tail..weights + at * wb, tail + more);
                put_weight(m, weights + more + at * wb, v);
                let (src, dst) = (h.gap_bit(at), h.gap_bit(at + 1));
                move_bits(m, src, dst, h.gap_bit(c - 1) - src);
                store_bits(m, h.gap_bit(at - 1), g1 as u64, w);
                store_bits(m, h.gap_bit(at), g2 as u64, w);
                clear_padding(m, h.gap_bit(c));
                write_varint(m, c as u64 + 1); // over the old count, as long
            }
            Kind::Delete { at, joined } => {
                let lost = len - self.new_len - wb;
                store_bits(m, h.gap_bit(at - 1), joined, w);
                let (src, dst) = (h.gap_bit(at + 1), h.gap_bit(at));
                move_bits(m, src, dst, h.gap_bit(c - 1) - src);
                clear_padding(m, h.gap_bit(c - 2));
                m.copy_within(tail..weights + at * wb, tail - lost);
                m.copy_within(weights + (at + 1) * wb..len, weights + at * wb - lost);
                write_varint(m, c as u64 - 1); // over the old count, as long
            }
        }
        #[cfg(test)]
        match self.kind {
            Kind::Delete { .. } => BIT_DELETES.set(BIT_DELETES.get() + 1),
            _ => BIT_INSERTS.set(BIT_INSERTS.get() + 1),
        }
    }
}

/// Write `w`'s bytes at `m[o..]` (nothing when unweighted).
#[inline]
fn put_weight<W: Weight>(m: &mut [u8], o: usize, w: W) {
    if W::WEIGHTED {
        WEIGHT.with(|b| {
            let mut b = b.borrow_mut();
            b.clear();
            w.write_le(&mut b);
            m[o..o + b.len()].copy_from_slice(&b);
        });
    }
}

/// What a scan reads of a chunk's header, in O(1).
#[derive(Clone, Copy)]
struct Head {
    count: usize,
    /// Bits per packed gap.
    width: u32,
    first: Vertex,
    /// Offset of the packed gaps.
    data: usize,
}

impl Head {
    /// Bit offset (in the chunk's bytes) of gap `i`, between elements `i` and `i + 1`.
    #[inline(always)]
    fn gap_bit(&self, i: usize) -> usize {
        self.data * 8 + i * self.width as usize
    }

    /// The last element: `first` plus the span stored after the gaps.
    #[inline]
    fn last(&self, b: &[u8]) -> Vertex {
        let mut p = self.data + packed_len(self.count - 1, self.width);
        self.first + get_varint_fast(b, &mut p) as Vertex
    }

    #[inline(always)]
    fn read(b: &[u8], base: Vertex) -> Head {
        let mut p = 0;
        let count = get_varint_fast(b, &mut p) as usize;
        let width = b[p] as u32;
        p += 1;
        let first = (base as i64 + unzigzag(get_varint_fast(b, &mut p))) as Vertex;
        Head {
            count,
            width,
            first,
            data: p,
        }
    }
}

/// The width byte of a chunk whose widest gap is `widest` (0: no gaps, a single element;
/// gaps are at least 1).
#[inline]
fn gap_width(widest: u32) -> u32 {
    if widest > 0 {
        bit_width(widest)
    } else {
        0
    }
}

/// Append the header and the packed gaps of the non-empty, strictly increasing `xs` (the
/// iterator is walked twice: for the widest gap, then to pack).
fn put_elements(
    out: &mut Vec<u8>,
    base: Vertex,
    xs: impl ExactSizeIterator<Item = Vertex> + Clone,
) {
    let mut it = xs.clone();
    let first = it.next().expect("a chunk has at least one element");
    let (mut count, mut last, mut widest) = (1usize, first, 0u32);
    for x in it {
        debug_assert!(x > last, "chunk elements must be strictly increasing");
        widest = widest.max(x - last);
        last = x;
        count += 1;
    }
    put_varint(out, count as u64);
    let width = gap_width(widest);
    out.push(width as u8);
    put_varint(out, zigzag(first as i64 - base as i64));
    if count > 1 {
        let mut prev = first;
        pack_bits(
            out,
            xs.skip(1).map(|x| {
                let g = x - prev;
                prev = x;
                g
            }),
            width,
        );
    }
    put_varint(out, (last - first) as u64);
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

    type Elements<W> = Vec<(Vertex, W)>;

    /// The elements `old` with weights, and without.
    fn weighted_and_plain(old: &[Vertex]) -> (Elements<i32>, Elements<()>) {
        (
            old.iter().map(|&x| (x, (x % 97) as i32 - 40)).collect(),
            old.iter().map(|&x| (x, ())).collect(),
        )
    }

    /// A splice of `xs`' chunk gives the model's bytes both on a shared chunk (an edited
    /// copy, the original left as it was) and on one nothing else holds (edited in place).
    fn one_edit_matches<W: Weight>(
        xs: &[(Vertex, W)],
        base: Vertex,
        ins: &[(Vertex, W)],
        del: &[Vertex],
        rule: Combine,
    ) -> Result<(), TestCaseError> {
        let mut own = Chunk::encode(base, xs);
        let want = model::<W>(&own, base, ins, del, rule);
        prop_assert_eq!(&own.splice::<W>(base, ins, del, rule), &want);
        prop_assert_eq!(&own, &Chunk::encode(base, xs));
        own.splice_mut::<W>(base, ins, del, rule);
        prop_assert_eq!(&own, &want);
        Ok(())
    }

    /// Sorted sets of up to 400 elements (some of 120 to 140, around the count's varint
    /// boundary at 128), spread to gaps of any width up to 2^20 times 2000.
    fn spread_sets() -> impl Strategy<Value = Vec<Vertex>> {
        (
            prop_oneof![
                proptest::collection::vec(0u32..2000, 0..40),
                proptest::collection::vec(0u32..2000, 120..140),
                proptest::collection::vec(0u32..2000, 0..400)
            ],
            prop_oneof![Just(1u32), 1u32..5000, Just(1u32 << 20)],
        )
            .prop_map(|(old, spread)| {
                sorted_set(old.into_iter().map(|x| x.wrapping_mul(spread)).collect())
            })
    }

    proptest! {
        /// A single delete from a chunk nothing else holds, and from a shared one (edited
        /// bit by bit where `plan_one` allows) gives the canonical bytes: any element (first,
        /// interior, last) or an absent one, weighted or not, any width, and counts around
        /// 128, where the count's varint changes length.
        #[test]
        fn one_delete_in_place_matches_decode_edit_encode(
            base in 0u32..3000,
            old in spread_sets(),
            pick in any::<prop::sample::Index>(),
            absent in 0u32..2_000_000,
        ) {
            let xs = [
                old.get(pick.index(old.len().max(1))).copied().unwrap_or(0),
                absent,
            ];
            let (weighted, plain) = weighted_and_plain(&old);
            for x in xs {
                one_edit_matches(&weighted, base, &[], &[x], Combine::Min)?;
                one_edit_matches(&plain, base, &[], &[x], Combine::Min)?;
            }
        }

        /// A single insert into a chunk nothing else holds, and into a shared one (edited
        /// bit by bit where `plan_one` allows) gives the canonical bytes: an element present
        /// (its weight combined), one between two others (splitting the only wide gap or
        /// not), below the first or above the last, weighted or not, any width, and counts
        /// around 128.
        #[test]
        fn one_insert_in_place_matches_decode_edit_encode(
            base in 0u32..3000,
            old in spread_sets(),
            pick in any::<prop::sample::Index>(),
            other in 0u32..2_000_000,
            wt in -50i32..50,
            rule in prop_oneof![Just(Combine::Min), Just(Combine::Sum), Just(Combine::Last)],
        ) {
            let i = pick.index(old.len().max(1));
            let at = old.get(i).copied().unwrap_or(0);
            let mid = match (old.get(i), old.get(i + 1)) {
                (Some(&a), Some(&b)) => a + (b - a) / 2,
                _ => at,
            };
            let (weighted, plain) = weighted_and_plain(&old);
            for x in [at, mid, other, at.wrapping_add(1), at.saturating_sub(1)] {
                one_edit_matches(&weighted, base, &[(x, wt)], &[], rule)?;
                one_edit_matches(&plain, base, &[(x, ())], &[], rule)?;
            }
        }
    }

    /// The bit-level single insert is taken between two elements when the width stays, and
    /// for an element present; not below the first, above the last, or when splitting the
    /// only gap that needs the width narrows the chunk.
    #[test]
    fn one_interior_insert_is_edited_in_place() {
        // Gaps of 4, then one of 40 (width 6).
        let xs: Vec<(Vertex, i32)> = (0..50)
            .map(|i| (i * 4 + if i == 49 { 36 } else { 0 }, i as i32))
            .collect();
        let cases = [
            (1, true),    // splits a gap of 4 (the 40 keeps the width)
            (200, true),  // splits the 40 into 8 and 32 (32 still needs 6 bits)
            (8, true),    // present: the weight is combined in place
            (300, false), // above the last
        ];
        for (x, edited) in cases {
            let mut c = Chunk::encode(7, &xs);
            let want = model::<i32>(&c, 7, &[(x, 5)], &[], Combine::Sum);
            let before = BIT_INSERTS.get();
            c.splice_mut::<i32>(7, &[(x, 5)], &[], Combine::Sum);
            assert_eq!(c, want, "inserting {x}");
            assert_eq!(BIT_INSERTS.get() - before, edited as usize, "inserting {x}");
        }
        // Splitting the 40 (192 to 232) into 24 and 16 narrows the chunk to 5 bits:
        // re-encoded.
        let mut c = Chunk::encode(7, &xs);
        let want = model::<i32>(&c, 7, &[(216, 5)], &[], Combine::Sum);
        let before = BIT_INSERTS.get();
        c.splice_mut::<i32>(7, &[(216, 5)], &[], Combine::Sum);
        assert_eq!(c, want);
        assert_eq!(BIT_INSERTS.get(), before);
    }

    /// The edges of the bit-level edits: counts whose varint changes length (128 elements
    /// and 127), gaps of 32 bits next to `u32::MAX`, 8-byte weights, and a delete whose
    /// result is short enough to be kept inline. Each edit gives the model's bytes, and the
    /// counters say which took the bit-level path.
    #[test]
    fn bit_level_edits_at_their_limits() {
        fn check<W: Weight>(
            xs: &[(Vertex, W)],
            ins: Option<(Vertex, W)>,
            del: Option<Vertex>,
            edited: bool,
        ) {
            let mut c = Chunk::encode(3, xs);
            let (ins, del): (Vec<_>, Vec<_>) =
                (ins.into_iter().collect(), del.into_iter().collect());
            let want = model::<W>(&c, 3, &ins, &del, Combine::Sum);
            let before = (BIT_INSERTS.get(), BIT_DELETES.get());
            c.splice_mut::<W>(3, &ins, &del, Combine::Sum);
            assert_eq!(c, want, "ins {ins:?} del {del:?}");
            let after = (BIT_INSERTS.get(), BIT_DELETES.get());
            assert_eq!(
                (after.0 - before.0) + (after.1 - before.1),
                edited as usize,
                "ins {ins:?} del {del:?}"
            );
        }
        // Gaps of 5 and a last one of 105 (width 7), so that joined gaps fit.
        let run = |n: u32| -> Vec<(Vertex, f64)> {
            (0..n)
                .map(|i| (i * 5 + if i == n - 1 { 100 } else { 0 }, i as f64 / 3.0))
                .collect()
        };
        // Deletes: 129 -> 128 elements keeps a 2-byte count, 128 -> 127 does not.
        check(&run(129), None, Some(50), true);
        check(&run(128), None, Some(50), false);
        // Inserts: 128 -> 129 keeps it, 127 -> 128 does not.
        check(&run(128), Some((51, 0.5)), None, true);
        check(&run(127), Some((51, 0.5)), None, false);
        // Gaps of 2^31 and more (width 32), next to u32::MAX.
        let wide: Vec<(Vertex, f64)> = [0, 1 << 31, u32::MAX - 1, u32::MAX]
            .iter()
            .map(|&x| (x, x as f64))
            .collect();
        check(&wide, None, Some(1 << 31), true); // joined: u32::MAX - 1, still 32 bits
        check(&wide, Some(((1 << 31) + 5, 1.0)), None, true); // the 2^31 gap stays wide
                                                              // Splitting the 2^31 gap in halves leaves 2^31 - 2 the widest: 31 bits.
        check(&wide, Some((1 << 30, 1.0)), None, false);
        check(&wide, Some((u32::MAX - 1, 2.0)), None, true); // present: weight summed
        let two: Vec<(Vertex, f64)> = [0, 1 << 31, 1 << 31 | 1]
            .iter()
            .map(|&x| (x, 0.0))
            .collect();
        check(&two, Some((1 << 30, 1.0)), None, false); // both halves narrower: width 31
                                                        // A delete leaving at most 7 bytes (8 before: gaps of 7 bits, 3 bytes of them, a
                                                        // 2-byte span): kept inline, by the general splice.
        let short: Vec<(Vertex, ())> = [0, 60, 120, 220].iter().map(|&x| (x, ())).collect();
        assert_eq!(Chunk::encode(3, &short).bytes(), HDR + 8);
        check(&short, None, Some(60), false);
        let left = [short[0], short[2], short[3]];
        assert_eq!(Chunk::encode(3, &left).bytes(), 0, "the result is inline");
    }

    /// The bit-level single delete is taken for interior elements (and gives the model's
    /// bytes), and not for the first or last element or a joined gap that needs a wider width.
    #[test]
    fn one_interior_delete_is_edited_in_place() {
        // Gaps of 3 and one of 1003 (width 10): every joined gap fits.
        let xs: Vec<(Vertex, i32)> = (0..100)
            .map(|i| (i * 3 + if i == 99 { 1000 } else { 0 }, i as i32))
            .collect();
        for (k, &(x, _)) in xs.iter().enumerate() {
            let mut c = Chunk::encode(7, &xs);
            let want = model::<i32>(&c, 7, &[], &[x], Combine::Min);
            let before = BIT_DELETES.get();
            c.splice_mut::<i32>(7, &[], &[x], Combine::Min);
            assert_eq!(c, want, "deleting element {k}");
            let interior = k > 0 && k < xs.len() - 1;
            assert_eq!(BIT_DELETES.get() - before, interior as usize, "element {k}");
        }
        // Gaps of 1 and 2 (width 2): joining 2 + 2 needs width 3, joining 1 + 1 does not.
        let xs: Vec<(Vertex, ())> = [0, 2, 4, 5, 6, 8, 9, 10, 12, 13, 15, 17, 19, 21, 23, 24]
            .iter()
            .map(|&x| (x, ()))
            .collect();
        for (x, edited) in [(2, false), (5, true), (9, true), (17, false), (23, true)] {
            let mut c = Chunk::encode(0, &xs);
            let want = model::<()>(&c, 0, &[], &[x], Combine::Min);
            let before = BIT_DELETES.get();
            c.splice_mut::<()>(0, &[], &[x], Combine::Min);
            assert_eq!(c, want, "deleting {x}");
            assert_eq!(BIT_DELETES.get() - before, edited as usize, "deleting {x}");
        }
    }

    proptest! {
        #[test]
        fn splice_matches_decode_edit_encode(
            base in 0u32..3000,
            // Short chunks (`splice_small`), long ones (the general splice), and a single
            // element (width 0) that many inserts take to the general splice.
            old in prop_oneof![
                proptest::collection::vec(0u32..2000, 0..24),
                proptest::collection::vec(0u32..2000, 0..300),
                proptest::collection::vec(0u32..2000, 1..2)
            ],
            // Edits anywhere from below the first element to past the last (old ids are
            // `x · spread`, edits `x · spread / 2`): mixed, or inserts enough to reach the
            // general splice from any chunk.
            edits in prop_oneof![
                proptest::collection::vec((0u32..4400, any::<bool>(), -50i32..50), 0..40),
                proptest::collection::vec((0u32..4400, Just(true), -50i32..50), 32..60)
            ],
            rule in prop_oneof![Just(Combine::Min), Just(Combine::Sum), Just(Combine::Last)],
            // Spreading the ids widens the gaps: edits that split or join the widest gap,
            // or add a wider one, change the width (up to 32 bits with the widest spread).
            spread in prop_oneof![Just(1u32), 1u32..5000, (1u32 << 19)..(1u32 << 20)],
        ) {
            let old = sorted_set(old.into_iter().map(|x| x * spread).collect());
            let edits: Vec<(Vertex, bool, i32)> = edits
                .into_iter()
                .map(|(x, i, w)| ((x as u64 * spread as u64 / 2) as Vertex, i, w))
                .collect();
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
            // In place: a chunk nothing else holds is rewritten in its allocation (grown,
            // shrunk, emptied or left as it is) to the same bytes; a held one is copied and
            // the holder's chunk is left as it was.
            let want = model(&cw, base, &ins, &del, rule);
            let mut own = Chunk::encode(base, &weighted);
            own.splice_mut(base, &ins, &del, rule);
            prop_assert_eq!(&own, &want);
            let mut copy = cw.clone();
            copy.splice_mut(base, &ins, &del, rule);
            prop_assert_eq!(&copy, &want);
            prop_assert_eq!(&cw, &Chunk::encode(base, &weighted));
            let mut own = Chunk::encode(base, &plain);
            own.splice_mut::<()>(base, &[], &del, rule);
            prop_assert_eq!(&own, &model::<()>(&cp, base, &[], &del, rule));
        }
    }

    #[test]
    fn splice_mut_keeps_an_unshared_chunk_unshared_and_empties_it() {
        let xs: Vec<(Vertex, ())> = (0..100).map(|i| (i * 7, ())).collect();
        let mut c = Chunk::encode(0, &xs);
        // (Whether `realloc` keeps the address is the allocator's choice; the count and the
        // bytes are what must be right.)
        c.splice_mut(0, &[(701, ())], &[], Combine::First);
        let mut want = xs.clone();
        want.push((701, ()));
        assert_eq!(c, Chunk::encode(0, &want));
        assert!(c.is_unique());
        let held = c.clone();
        assert!(!c.is_unique());
        c.splice_mut::<()>(0, &[], &[0], Combine::First);
        assert_eq!(held, Chunk::encode(0, &want));
        assert_eq!(c, Chunk::encode(0, &want[1..]));
        assert!(c.is_unique() && held.is_unique());
        // Deleting everything frees the allocation and leaves the empty chunk.
        let all: Vec<Vertex> = want.iter().map(|e| e.0).collect();
        c.splice_mut::<()>(0, &[], &all, Combine::First);
        assert!(c.is_empty());
    }

    #[test]
    fn short_chunks_live_in_their_handle() {
        // One unweighted element: count, width, a 3-byte first element and the span, 6 bytes
        // (inline on 64-bit little-endian targets; elsewhere the word holds fewer or none).
        if INLINE_MAX < 6 {
            return;
        }
        let one = Chunk::encode(0, &[(1 << 19, ())]);
        assert_eq!(one.raw().len(), 6);
        assert_eq!(one.bytes(), 0, "an inline chunk allocates nothing");
        assert!(!one.is_unique() && one.ptr().is_none());
        assert_eq!(one.header(0), Some((1, 1 << 19, 1 << 19)));
        let copy = one.clone();
        drop(one);
        assert_eq!(copy.header(0), Some((1, 1 << 19, 1 << 19)));
        // A weight makes it too long: allocated as before.
        let weighted = Chunk::encode(0, &[(5, 7i32)]);
        assert!(weighted.raw().len() > INLINE_MAX && weighted.bytes() > 0);
        let mut got = vec![];
        weighted.decode_into::<i32>(0, &mut got);
        assert_eq!(got, [(5, 7)]);
        // Growing out of the word allocates; shrinking back into it frees the allocation.
        let mut c = copy;
        c.splice_mut(0, &[(3, ()), (1 << 20, ())], &[], Combine::First);
        assert!(c.is_unique());
        assert_eq!(
            c,
            Chunk::encode(0, &[(3, ()), (1 << 19, ()), (1 << 20, ())])
        );
        c.splice_mut::<()>(0, &[], &[3, 1 << 20], Combine::First);
        assert_eq!(c.bytes(), 0);
        assert_eq!(c, Chunk::encode(0, &[(1 << 19, ())]));
        // A splice of an inline chunk that keeps it short stays inline.
        c.splice_mut(0, &[(1 << 18, ())], &[1 << 19], Combine::First);
        assert_eq!((c.bytes(), c.count()), (0, 1));
        assert_eq!(c.header(0), Some((1, 1 << 18, 1 << 18)));
        c.splice_mut::<()>(0, &[], &[1 << 18], Combine::First);
        assert!(c.is_empty());
    }

    proptest! {
        /// Any ids (gaps up to 32 bits wide), any base, weights or none; every prefix of the
        /// decoding stops where asked.
        #[test]
        fn round_trip_any_width(
            base in any::<u32>(),
            xs in proptest::collection::vec(any::<u32>(), 1..200),
            shift in 0u32..32,
            stop in 0usize..200,
        ) {
            let xs = sorted_set(xs.into_iter().map(|x| x >> shift).collect());
            let w: Vec<(Vertex, i32)> = xs.iter().map(|&x| (x, x as i32 ^ 0x5555)).collect();
            let p: Vec<(Vertex, ())> = xs.iter().map(|&x| (x, ())).collect();
            let (cw, cp) = (Chunk::encode(base, &w), Chunk::encode(base, &p));
            prop_assert_eq!(cw.header(base), Some((xs.len(), xs[0], xs[xs.len() - 1])));
            prop_assert_eq!(cp.count(), xs.len());
            let (mut gw, mut gp) = (vec![], vec![]);
            cw.decode_into(base, &mut gw);
            cp.decode_into(base, &mut gp);
            prop_assert_eq!(gw, w);
            prop_assert_eq!(gp, p);
            let mut seen = 0;
            let all = cp.for_each::<()>(base, |_, _| {
                seen += 1;
                seen <= stop
            });
            prop_assert_eq!(all, stop >= xs.len());
            prop_assert_eq!(seen, xs.len().min(stop + 1));
        }

        /// `for_each_ahead` hands `f` every element with its weight, in order, and `ahead`
        /// every element in order too: the first `dist` before `f` gets the first, then
        /// element `i + dist` as `f` gets element `i`.
        #[test]
        fn for_each_ahead_runs_dist_ahead(
            base in any::<u32>(),
            xs in proptest::collection::vec(any::<u32>(), 1..100),
            shift in 0u32..32,
            dist in 1usize..40,
        ) {
            let xs = sorted_set(xs.into_iter().map(|x| x >> shift).collect());
            let w: Vec<(Vertex, i32)> = xs.iter().map(|&x| (x, x as i32 ^ 0x5555)).collect();
            let p: Vec<(Vertex, ())> = xs.iter().map(|&x| (x, ())).collect();
            let n = xs.len();
            // Weighted.
            let seen = std::cell::RefCell::new(Vec::new());
            let (mut got, mut lags) = (Vec::new(), Vec::new());
            Chunk::encode(base, &w).for_each_ahead::<i32>(base, dist, &|y| seen.borrow_mut().push(y), |x, wt| {
                lags.push(seen.borrow().len());
                got.push((x, wt));
            });
            prop_assert_eq!(&got, &w);
            prop_assert_eq!(&*seen.borrow(), &xs);
            // `dist` is cut to AHEAD_RING - 1.
            let d = dist.min(AHEAD_RING - 1);
            let want: Vec<usize> = (0..n).map(|i| (i + d + 1).min(n)).collect();
            prop_assert_eq!(&lags, &want);
            // Unweighted.
            seen.borrow_mut().clear();
            let (mut got, mut lags) = (Vec::new(), Vec::new());
            Chunk::encode(base, &p).for_each_ahead::<()>(base, dist, &|y| seen.borrow_mut().push(y), |x, _| {
                lags.push(seen.borrow().len());
                got.push(x);
            });
            prop_assert_eq!(&got, &xs);
            prop_assert_eq!(&*seen.borrow(), &xs);
            prop_assert_eq!(&lags, &want);
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
        // 2-byte count, width byte, 1-byte first, 299 gaps of 2 bits (75 bytes), 2-byte span
        assert_eq!(c.bytes(), 8 + 2 + 1 + 1 + 75 + 2);
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
