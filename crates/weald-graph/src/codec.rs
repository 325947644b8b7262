//! Byte codes: variable-length integers and difference coding of sorted sequences.
//!
//! A sorted run `x0 < x1 < ... ` is stored relative to a `base` (usually the source vertex):
//! the first element as a zig-zag signed difference `x0 - base`, then the gaps `x_i - x_{i-1}`,
//! each as a little-endian base-128 varint (7 bits per byte, high bit = "more bytes follow").
//! Neighbours of real graphs are clustered around their source, so most gaps take one byte.

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
