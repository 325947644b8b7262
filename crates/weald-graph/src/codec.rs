//! Integer codes: variable-length integers (byte codes), difference coding of sorted
//! sequences, and bit-packed runs.
//!
//! A sorted run `x0 < x1 < ... ` is stored relative to a `base` (usually the source vertex):
//! the first element as a zig-zag signed difference `x0 - base`, then the gaps `x_i - x_{i-1}`,
//! each as a little-endian base-128 varint (7 bits per byte, high bit = "more bytes follow").
//! Neighbours of real graphs are clustered around their source, so most gaps take one byte.
//!
//! Bit packing ([`pack_bits`], [`unpack_bits`]) stores a run of values at one width, that of
//! its largest value: decoding is a load, a shift and a mask per value, with no branch on the
//! data, where a varint decoder mispredicts the end of every code whose length differs from
//! the last one's; 8 values fill `width` bytes, so long runs are decoded 8 at a time by a
//! routine per width with constant offsets and shifts. The C-tree's chunks store their gaps
//! this way.

use crate::Vertex;

/// Append `x` as a varint.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// The bytes [`put_varint`] takes for `x`.
#[inline]
pub fn varint_len(x: u64) -> usize {
    (64 - (x | 1).leading_zeros()).div_ceil(7) as usize
}

/// Write `x`'s varint at the start of `out` (at least [`varint_len`] bytes, over bytes
/// already there: an edit in place); returns its length.
#[inline]
pub fn write_varint(out: &mut [u8], mut x: u64) -> usize {
    let mut i = 0;
    while x >= 0x80 {
        out[i] = x as u8 | 0x80;
        x >>= 7;
        i += 1;
    }
    out[i] = x as u8;
    i + 1
}

/// Read a varint at `*pos`, advancing it. `None` if the bytes end early or overflow 64 bits.
#[inline]
pub fn get_varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut x = 0u64;
    let mut shift = 0u32;
    loop {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        if shift == 63 && b > 1 {
            return None;
        }
        x |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return Some(x);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// Read a varint without bounds checks beyond the slice's own (hot decoding loops).
#[inline(always)]
pub fn get_varint_fast(bytes: &[u8], pos: &mut usize) -> u64 {
    let mut b = bytes[*pos];
    *pos += 1;
    if b < 0x80 {
        return b as u64;
    }
    let mut x = (b & 0x7f) as u64;
    let mut shift = 7;
    loop {
        b = bytes[*pos];
        *pos += 1;
        x |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return x;
        }
        shift += 7;
    }
}

#[inline]
pub fn zigzag(x: i64) -> u64 {
    ((x << 1) ^ (x >> 63)) as u64
}

#[inline]
pub fn unzigzag(x: u64) -> i64 {
    ((x >> 1) as i64) ^ -((x & 1) as i64)
}

/// Encode strictly increasing `xs` relative to `base`, appending to `out`.
pub fn encode_sorted(base: Vertex, xs: &[Vertex], out: &mut Vec<u8>) {
    let mut prev = None;
    for &x in xs {
        match prev {
            None => put_varint(out, zigzag(x as i64 - base as i64)),
            Some(p) => {
                debug_assert!(x > p, "encode_sorted needs strictly increasing input");
                put_varint(out, (x - p) as u64);
            }
        }
        prev = Some(x);
    }
}

/// Decode `count` elements encoded by [`encode_sorted`], calling `f` on each until it returns
/// `false`. Returns the number of bytes consumed if all `count` were decoded, or `None` if `f`
/// stopped early. Panics on malformed bytes (use [`validate_sorted`] for untrusted input).
#[inline]
pub fn decode_sorted(
    base: Vertex,
    bytes: &[u8],
    count: usize,
    mut f: impl FnMut(Vertex) -> bool,
) -> Option<usize> {
    if count == 0 {
        return Some(0);
    }
    let mut pos = 0;
    let mut x = (base as i64 + unzigzag(get_varint_fast(bytes, &mut pos))) as Vertex;
    if !f(x) {
        return None;
    }
    for _ in 1..count {
        x += get_varint_fast(bytes, &mut pos) as Vertex;
        if !f(x) {
            return None;
        }
    }
    Some(pos)
}

/// Check that `bytes` hold exactly `count` strictly increasing `u32` values encoded relative to
/// `base`. Returns the decoded values.
pub fn validate_sorted(base: Vertex, bytes: &[u8], count: usize) -> Option<Vec<Vertex>> {
    let mut pos = 0;
    let mut out = Vec::with_capacity(count.min(bytes.len()));
    let mut prev: i64 = -1;
    for i in 0..count {
        let raw = get_varint(bytes, &mut pos)?;
        let x = if i == 0 {
            base as i64 + unzigzag(raw)
        } else {
            if raw == 0 {
                return None;
            }
            prev.checked_add(i64::try_from(raw).ok()?)?
        };
        if x < 0 || x > u32::MAX as i64 || x <= prev {
            return None;
        }
        out.push(x as Vertex);
        prev = x;
    }
    (pos == bytes.len()).then_some(out)
}

/// Bits needed to write `x` (at least 1): the width of a bit-packed run whose largest value
/// is `x`.
#[inline]
pub fn bit_width(x: u32) -> u32 {
    (32 - x.leading_zeros()).max(1)
}

/// Bytes taken by `count` values packed at `width` bits each.
#[inline]
pub fn packed_len(count: usize, width: u32) -> usize {
    (count * width as usize).div_ceil(8)
}

/// Appends values of given widths to a byte vector as one little-endian bit string: value
/// after value, each in the bits that follow the last one's, the last byte zero-padded. The
/// total number of bits is fixed up front, so every value ends with one unconditional 8-byte
/// store of the pending bits (no branch on the data, no growth checks).
pub struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    /// Byte holding the first pending bit.
    at: usize,
    /// Pending bits (fewer than 8 between values).
    acc: u64,
    bits: u32,
    /// Bits written and bits promised.
    pos: usize,
    total: usize,
}

impl<'a> BitWriter<'a> {
    /// A writer of exactly `total_bits` bits, appended to `out`.
    pub fn new(out: &'a mut Vec<u8>, total_bits: usize) -> Self {
        // Room for the bytes plus one 8-byte store past them (spare capacity, never exposed).
        out.reserve(total_bits.div_ceil(8) + 8);
        let at = out.len();
        BitWriter {
            out,
            at,
            acc: 0,
            bits: 0,
            pos: 0,
            total: total_bits,
        }
    }

    /// Append the low `width` bits of `v` (`width <= 32`; `v` must have no higher bits).
    #[inline(always)]
    pub fn put(&mut self, v: u32, width: u32) {
        debug_assert!(width <= 32 && (width == 32 || v >> width == 0));
        self.pos += width as usize;
        // The store below relies on the promised total.
        assert!(self.pos <= self.total, "more bits than promised");
        self.acc |= (v as u64) << self.bits;
        self.bits += width;
        self.store();
        let whole = self.bits / 8;
        self.at += whole as usize;
        self.acc >>= whole * 8;
        self.bits -= whole * 8;
    }

    /// Append `nbits` bits of `src` starting at bit `from` (56 bits, seven bytes, per load
    /// and store; 32 at a time near the end of `src`).
    pub fn copy_bits(&mut self, src: &[u8], mut from: usize, mut nbits: usize) {
        assert!(self.pos + nbits <= self.total, "more bits than promised");
        const STEP: usize = 56;
        while nbits >= STEP && (from >> 3) + 8 <= src.len() {
            // SAFETY: (from >> 3) + 8 <= src.len().
            let word = u64::from_le(unsafe {
                std::ptr::read_unaligned(src.as_ptr().add(from >> 3) as *const u64)
            });
            let v = (word >> (from & 7)) & ((1u64 << STEP) - 1);
            // Fewer than 8 bits are pending, so the 56 new ones fit above them in the word.
            self.acc |= v << self.bits;
            self.pos += STEP;
            self.store();
            self.at += STEP / 8;
            self.acc >>= STEP;
            from += STEP;
            nbits -= STEP;
        }
        while nbits > 0 {
            let k = nbits.min(32) as u32;
            self.put(read_bits(src, from, k), k);
            from += k as usize;
            nbits -= k as usize;
        }
    }

    /// Store the pending word at byte `at` (one unaligned 8-byte store). Called with `pos`
    /// already counting the pending bits, all within the promised total.
    #[inline(always)]
    fn store(&mut self) {
        debug_assert!(self.pos <= self.total);
        // SAFETY: the pending bits start in byte `at`, which holds a bit below `pos` <=
        // `total` (or is the byte after the last), so at + 8 <= start + total / 8 + 8 <=
        // capacity (reserved in `new`).
        unsafe {
            std::ptr::write_unaligned(
                self.out.as_mut_ptr().add(self.at) as *mut u64,
                self.acc.to_le(),
            )
        };
    }

    /// Finish the bit string (all promised bits must have been written).
    pub fn finish(self) {
        assert_eq!(self.pos, self.total, "fewer bits than promised");
        let len = self.at + (self.bits > 0) as usize;
        // SAFETY: bytes up to `at` were completed by the stores in `put`, and the partial
        // byte `at` (if any bits are pending) was written by the last store, zero-padded.
        unsafe { self.out.set_len(len) };
    }
}

/// The `width` bits (`<= 32`) of `bytes` starting at bit `bit`: one value of a packed run,
/// read out of order. The value must start within the slice (`bit < 8 * bytes.len()`); bits
/// past the slice's end read as 0. An 8-byte load from the value's byte, or near the end of
/// the slice from its last 8 bytes (which hold all of the value's bits that the slice has); a
/// padded copy only for a slice shorter than 8 bytes.
#[inline(always)]
pub fn read_bits(bytes: &[u8], bit: usize, width: u32) -> u32 {
    debug_assert!(bit < bytes.len() * 8, "read_bits past the end of the slice");
    let at = bit >> 3;
    let mask = (1u64 << width) - 1;
    if at + 8 <= bytes.len() {
        // SAFETY: at + 8 <= len.
        let word =
            u64::from_le(unsafe { std::ptr::read_unaligned(bytes.as_ptr().add(at) as *const u64) });
        return ((word >> (bit & 7)) & mask) as u32;
    }
    if bytes.len() >= 8 {
        let last = bytes.len() - 8;
        // SAFETY: last + 8 == len. The value ends within the slice, so it sits at bits
        // `bit - 8 * last ..` of this word, below bit 64.
        let word = u64::from_le(unsafe {
            std::ptr::read_unaligned(bytes.as_ptr().add(last) as *const u64)
        });
        return ((word >> (bit - last * 8)) & mask) as u32;
    }
    let mut buf = [0u8; 8];
    let stop = bytes.len().min(at + 8);
    buf[..stop - at].copy_from_slice(&bytes[at..stop]);
    ((u64::from_le_bytes(buf) >> (bit & 7)) & mask) as u32
}

/// Call `f` on the `8 · groups` values of `width` bits packed from byte `first` of `p` on,
/// until it returns `false` (then `false`). Each group of 8 is decoded into a buffer by a
/// routine for its width ([`DECODE8`]; one per width, shared by all callers, so that no
/// caller's closure is copied per width), then handed to `f` one by one.
///
/// # Safety
/// `p .. p + first + groups · width + 8` is within one allocation (the slice it points into).
/// (A width outside `1..=32` panics at the table's bounds check.)
#[inline(always)]
unsafe fn unpack_groups(
    p: *const u8,
    first: usize,
    groups: usize,
    width: u32,
    f: &mut impl FnMut(u32) -> bool,
) -> bool {
    let decode = DECODE8[width as usize];
    let w = width as usize;
    let mut buf = [0u32; 8];
    for g in 0..groups {
        // SAFETY: group g's loads end by first + (g + 1)·w + 8 (see `decode8`), within the
        // allocation (this function's contract).
        unsafe { decode(p.add(first + g * w), &mut buf) };
        for &v in &buf {
            if !f(v) {
                return false;
            }
        }
    }
    true
}

/// Decoders of one group of 8 values, by width (index 0 unused).
static DECODE8: [unsafe fn(*const u8, &mut [u32; 8]); 33] = {
    macro_rules! table {
        ($($n:literal)*) => { [decode8::<1>, $(decode8::<$n>,)*] };
    }
    table!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
};

/// The 8 values of `W` bits packed from byte `p` on (`W` bytes): value j is in the 8 bytes
/// from `p + ⌊j·W / 8⌋` at bit `j·W mod 8`, constants of this function.
///
/// # Safety
/// `p .. p + W + 8` is within one allocation (the last load ends at `p + ⌊7W / 8⌋ + 8`).
unsafe fn decode8<const W: usize>(p: *const u8, out: &mut [u32; 8]) {
    let mask = (1u64 << W) - 1;
    for (j, o) in out.iter_mut().enumerate() {
        // SAFETY: j·W / 8 + 8 <= W + 8 (the contract).
        let word =
            u64::from_le(unsafe { std::ptr::read_unaligned(p.add(j * W / 8) as *const u64) });
        *o = ((word >> (j * W % 8)) & mask) as u32;
    }
}

/// Append `vals`, each below `2^width` (`1 <= width <= 32`), packed at `width` bits each:
/// value `i` occupies bits `i*width .. (i+1)*width` of the little-endian bit string, and the
/// last byte is zero-padded ([`packed_len`] bytes in all).
pub fn pack_bits(out: &mut Vec<u8>, vals: impl ExactSizeIterator<Item = u32>, width: u32) {
    debug_assert!((1..=32).contains(&width));
    let mut w = BitWriter::new(out, vals.len() * width as usize);
    for v in vals {
        w.put(v, width);
    }
    w.finish();
}

/// Call `f` on the `count` values packed by [`pack_bits`] at the start of `bytes`, in order,
/// until it returns `false`; returns `false` iff stopped early.
///
/// `bytes` may run on past the packed values (a chunk's weights follow its gaps): each value
/// is read as one unaligned 8-byte load, shift and mask, with no branch on the data, while
/// 8 bytes remain in the slice; the last few values are cut from the slice's last 8 bytes
/// (byte by byte only if the slice is shorter than 8). In a run of at least 16 values from a
/// byte boundary, the values after the first 8 are decoded 8 at a time by a routine for the
/// width, whose loads and shifts are constants. Panics if `bytes` is shorter than
/// [`packed_len`]`(count, width)`.
#[inline(always)]
pub fn unpack_bits(bytes: &[u8], count: usize, width: u32, f: impl FnMut(u32) -> bool) -> bool {
    unpack_bits_at(bytes, 0, count, width, f)
}

/// [`unpack_bits`] of `count` values packed from bit `start` of `bytes` on (a packed run that
/// does not start on a byte boundary, or one inside a longer record: pass the whole record,
/// so that more of the values are read by the fast loads).
#[inline(always)]
pub fn unpack_bits_at(
    bytes: &[u8],
    start: usize,
    count: usize,
    width: u32,
    mut f: impl FnMut(u32) -> bool,
) -> bool {
    debug_assert!(count == 0 || (1..=32).contains(&width));
    if count == 0 {
        return true;
    }
    let w = width as usize;
    let end = start + count * w;
    assert!(bytes.len() * 8 >= end, "packed run cut short");
    let mask = (1u64 << width) - 1;
    // Value at bit `bit` starts in byte bit / 8; an 8-byte load from there stays in `bytes`
    // iff bit / 8 <= len - 8, i.e. bit < (len - 7) * 8.
    let fast_end = end.min(bytes.len().saturating_sub(7) * 8);
    let p = bytes.as_ptr();
    let mut bit = start;
    // One value per 8-byte load, shift and mask, up to bit `stop` (<= fast_end).
    macro_rules! one_by_one {
        ($stop:expr) => {
            while bit < $stop {
                // SAFETY: bit / 8 + 8 <= bytes.len(), as bit < fast_end (above).
                let word = u64::from_le(unsafe {
                    std::ptr::read_unaligned(p.add(bit >> 3) as *const u64)
                });
                if !f(((word >> (bit & 7)) & mask) as u32) {
                    return false;
                }
                bit += w;
            }
        };
    }
    // A run from a byte boundary: after its first 8 values (one by one, so that a caller
    // that stops after a few, as a sampling pass does, decodes no more), whole groups of 8,
    // which fill `width` bytes each, go through a decoder for the width ([`unpack_groups`]):
    // each value's byte and shift in the group are its constants, where the loop computes
    // them per value and shifts by a variable amount (RMAT scale 20, C-tree snapshot, 1
    // thread: PageRank about a fifth faster, betweenness a tenth, CC 6 %). A run from any of
    // its own value boundaries reaches a byte boundary within 8 values (for a chunk's gap i,
    // where splices and single edits start), but starting the groups there measured even to
    // 2 % slower on in-place batches of 1e5 from the graph's own stream, whose splices walk
    // hub chunks from edit to edit (three interleaved rounds, 2026-11-30).
    if start.is_multiple_of(8) && count >= 16 {
        let first = start / 8 + w;
        // Group g's loads end by byte first + (g + 1)·w + 8.
        let groups = ((count - 8) / 8).min(bytes.len().saturating_sub(first + 8) / w);
        if groups > 0 {
            one_by_one!(start + 8 * w);
            // SAFETY: first + groups·w + 8 <= bytes.len() (`groups` above).
            if !unsafe { unpack_groups(p, first, groups, width, &mut f) } {
                return false;
            }
            bit += groups * 8 * w;
        }
    }
    one_by_one!(fast_end);
    if bit < end && bytes.len() >= 8 {
        // The rest lies in the last 8 bytes: load them once. A value at byte `at` (> len - 8)
        // is at bit (at - (len - 8)) * 8 + bit % 8 <= 63 of that word, and the word holds
        // all of its bits, since it ends where `bytes` does.
        let last = bytes.len() - 8;
        // SAFETY: last + 8 == bytes.len().
        let word = u64::from_le(unsafe { std::ptr::read_unaligned(p.add(last) as *const u64) });
        while bit < end {
            let shift = bit - last * 8;
            if !f(((word >> shift) & mask) as u32) {
                return false;
            }
            bit += w;
        }
    }
    while bit < end {
        if !f(read_bits(bytes, bit, width)) {
            return false;
        }
        bit += w;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn varint_edges() {
        for x in [0u64, 1, 127, 128, 16383, 16384, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, x);
            let mut p = 0;
            assert_eq!(get_varint(&b, &mut p), Some(x));
            assert_eq!(p, b.len());
            let mut p = 0;
            assert_eq!(get_varint_fast(&b, &mut p), x);
            assert_eq!(varint_len(x), b.len());
            let mut w = vec![0xffu8; b.len() + 1];
            assert_eq!(write_varint(&mut w, x), b.len());
            assert_eq!(&w[..b.len()], &b[..]);
            assert_eq!(w[b.len()], 0xff, "nothing written past the varint");
        }
        let mut p = 0;
        assert_eq!(get_varint(&[0x80, 0x80], &mut p), None);
    }

    proptest! {
        #[test]
        fn sorted_round_trip(base in any::<u32>(), mut xs in proptest::collection::vec(any::<u32>(), 0..300)) {
            xs.sort_unstable();
            xs.dedup();
            let mut b = Vec::new();
            encode_sorted(base, &xs, &mut b);
            let mut got = Vec::new();
            let used = decode_sorted(base, &b, xs.len(), |x| { got.push(x); true });
            prop_assert_eq!(used, Some(b.len()));
            prop_assert_eq!(&got, &xs);
            prop_assert_eq!(validate_sorted(base, &b, xs.len()), Some(xs.clone()));
        }

        #[test]
        fn validate_never_panics(base in any::<u32>(), bytes in proptest::collection::vec(any::<u8>(), 0..64), count in 0usize..40) {
            let _ = validate_sorted(base, &bytes, count);
        }
    }

    proptest! {
        #[test]
        fn bits_round_trip(vals in proptest::collection::vec(any::<u32>(), 0..200), shift in 0u32..32, tail in 0usize..12, stop in 0usize..200) {
            // Values of a given width (shift narrows them), followed by `tail` unrelated bytes.
            let vals: Vec<u32> = vals.into_iter().map(|v| v >> shift).collect();
            let width = vals.iter().copied().max().map_or(1, bit_width);
            let mut b = vec![];
            pack_bits(&mut b, vals.iter().copied(), width);
            prop_assert_eq!(b.len(), packed_len(vals.len(), width));
            b.extend(std::iter::repeat_n(0xa5, tail));
            let mut got = vec![];
            let all = unpack_bits(&b, vals.len(), width, |v| {
                got.push(v);
                true
            });
            prop_assert!(all);
            prop_assert_eq!(&got, &vals);
            // Stopped at value `stop` (inside a group of 8 or after them): the values up to
            // it were seen, and no other.
            let mut seen = vec![];
            let all = unpack_bits(&b, vals.len(), width, |v| {
                seen.push(v);
                seen.len() <= stop
            });
            prop_assert_eq!(all, stop >= vals.len());
            prop_assert_eq!(&seen[..], &vals[..vals.len().min(stop + 1)]);
            // Each value read alone, out of order (from its own 8 bytes, from the slice's
            // last 8, or from a padded copy of a slice shorter than 8 bytes).
            for (i, &v) in vals.iter().enumerate().rev() {
                prop_assert_eq!(read_bits(&b, i * width as usize, width), v);
            }
        }
    }

    proptest! {
        /// A run re-packed from pieces (values put one by one, and runs copied bit by bit
        /// from another packing) equals the run packed at once; unpacking from an offset
        /// gives the tail.
        #[test]
        fn bits_copy_and_offsets(vals in proptest::collection::vec(any::<u32>(), 1..150), shift in 0u32..32, cut in 0usize..150) {
            let vals: Vec<u32> = vals.into_iter().map(|v| v >> shift).collect();
            let width = vals.iter().copied().max().map_or(1, bit_width);
            let cut = cut.min(vals.len());
            let mut whole = vec![];
            pack_bits(&mut whole, vals.iter().copied(), width);
            let mut pieces = vec![7u8];
            let mut w = BitWriter::new(&mut pieces, vals.len() * width as usize);
            for &v in &vals[..cut] {
                w.put(v, width);
            }
            w.copy_bits(&whole, cut * width as usize, (vals.len() - cut) * width as usize);
            w.finish();
            prop_assert_eq!(&pieces[1..], &whole[..]);
            let mut tail = vec![];
            unpack_bits_at(&whole, cut * width as usize, vals.len() - cut, width, |v| {
                tail.push(v);
                true
            });
            prop_assert_eq!(&tail[..], &vals[cut..]);
        }

        /// A run packed inside a record, from any bit, with any bytes after it: read by
        /// `unpack_bits_at` from the whole record (the tail values from its last 8 bytes).
        #[test]
        fn bits_inside_a_record(
            vals in proptest::collection::vec(any::<u32>(), 1..60),
            shift in 0u32..32,
            pre in proptest::collection::vec(any::<bool>(), 0..40),
            post in proptest::collection::vec(any::<u8>(), 0..12),
        ) {
            let vals: Vec<u32> = vals.into_iter().map(|v| v >> shift).collect();
            let width = vals.iter().copied().max().map_or(1, bit_width);
            let mut rec = vec![];
            let mut w = BitWriter::new(&mut rec, pre.len() + vals.len() * width as usize);
            for &b in &pre {
                w.put(b as u32, 1);
            }
            for &v in &vals {
                w.put(v, width);
            }
            w.finish();
            rec.extend_from_slice(&post);
            let mut got = vec![];
            let all = unpack_bits_at(&rec, pre.len(), vals.len(), width, |v| {
                got.push(v);
                true
            });
            prop_assert!(all);
            prop_assert_eq!(&got, &vals);
            // Stopped after any value: exactly the values up to it were read.
            for stop in 0..vals.len() {
                let mut got = vec![];
                let all = unpack_bits_at(&rec, pre.len(), vals.len(), width, |v| {
                    got.push(v);
                    got.len() <= stop
                });
                prop_assert!(!all);
                prop_assert_eq!(&got[..], &vals[..=stop]);
            }
        }
    }

    #[test]
    fn bits_widths_and_early_exit() {
        assert_eq!(bit_width(0), 1);
        assert_eq!(bit_width(1), 1);
        assert_eq!(bit_width(2), 2);
        assert_eq!(bit_width(255), 8);
        assert_eq!(bit_width(256), 9);
        assert_eq!(bit_width(u32::MAX), 32);
        // Three 5-bit values: 15 bits, two bytes, the top bit zero.
        let mut b = vec![];
        pack_bits(&mut b, [31, 1, 16].into_iter(), 5);
        assert_eq!(b, vec![0b0011_1111, 0b0100_0000]);
        let mut seen = vec![];
        assert!(!unpack_bits(&b, 3, 5, |v| {
            seen.push(v);
            v != 1
        }));
        assert_eq!(seen, vec![31, 1]);
        let full = [u32::MAX, 0, 7];
        let mut b = vec![];
        pack_bits(&mut b, full.into_iter(), 32);
        let mut got = vec![];
        unpack_bits(&b, 3, 32, |v| {
            got.push(v);
            true
        });
        assert_eq!(got, full);
    }

    #[test]
    fn early_exit() {
        let xs = [3u32, 5, 9, 200];
        let mut b = Vec::new();
        encode_sorted(4, &xs, &mut b);
        let mut seen = vec![];
        let r = decode_sorted(4, &b, 4, |x| {
            seen.push(x);
            x < 5
        });
        assert_eq!(r, None);
        assert_eq!(seen, vec![3, 5]);
    }
}
