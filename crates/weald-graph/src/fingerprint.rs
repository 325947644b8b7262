//! Order-independent fingerprints of arc multisets.
//!
//! A loader checks that two sides of a graph mirror each other, such as the two directions of an
//! undirected graph's adjacency or the out- and in-arcs of a directed one, by summing a keyed
//! hash of every arc on each side (wrapping; or one side's hashes minus the other's): one
//! parallel pass, no memory. Equal multisets always have equal sums. Different ones collide
//! only by chance in 64 bits, and the hash's key and multiplier are drawn at random for each
//! fingerprint, so a file cannot be built to collide. Where the
//! offending arc must be named, a failed check is followed by an exact search (the METIS reader
//! sorts both sides).

use crate::Weight;
use std::hash::{BuildHasher, Hasher};

/// Sums keyed hashes of arcs `(u, v, w)`.
#[derive(Clone, Copy, Debug)]
pub struct ArcFingerprint {
    /// Random, XORed into the arc.
    key: u64,
    /// Random and odd, the multiplier.
    mul: u64,
}

/// Multiply to 128 bits and fold the halves (the "mum" mix of wyhash): one multiplication,
/// every output bit depending on every input bit.
#[inline(always)]
fn mix(x: u64, m: u64) -> u64 {
    let p = (x as u128) * (m as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

impl Default for ArcFingerprint {
    fn default() -> Self {
        Self::new()
    }
}

impl ArcFingerprint {
    /// A fingerprint with a fresh random key.
    pub fn new() -> Self {
        let s = std::collections::hash_map::RandomState::new();
        let draw = |x: u64| {
            let mut h = s.build_hasher();
            h.write_u64(x);
            h.finish()
        };
        ArcFingerprint {
            key: draw(1),
            mul: draw(2) | 1,
        }
    }

    /// The hash of the arc `u → v` with weight `w`. Weights are compared by value (an `i32`
    /// and its `f64` are the same weight, and so are `-0.0` and `0.0`).
    #[inline(always)]
    pub fn arc<W: Weight>(&self, u: u32, v: u32, w: W) -> u64 {
        let uv = ((u as u64) << 32) | v as u64;
        let h = mix(uv ^ self.key, self.mul);
        if W::WEIGHTED {
            mix(h ^ (w.to_f64() + 0.0).to_bits(), (self.mul ^ self.key) | 1)
        } else {
            h
        }
    }

    /// The term of the arc `u → v` in the check that every arc has its reverse: the hash of the
    /// edge `(min, max, w)`, added for an arc up (`u < v`), subtracted for an arc down, 0 for a
    /// self loop. The terms of a graph sum to 0 if its arcs pair up. Branch-free.
    #[inline(always)]
    pub fn mirror_term<W: Weight>(&self, u: u32, v: u32, w: W) -> u64 {
        let h = self.arc(u.min(v), u.max(v), w);
        let up = 0u64.wrapping_sub((u < v) as u64);
        let down = 0u64.wrapping_sub((u > v) as u64);
        (h & up).wrapping_sub(h & down)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_order_independent_and_tell_multisets_apart() {
        let f = ArcFingerprint::new();
        let arcs = [(1u32, 2u32, 5i32), (2, 3, 7), (1, 2, 5), (0, 9, -1)];
        let sum = |xs: &[(u32, u32, i32)]| {
            xs.iter()
                .fold(0u64, |s, &(u, v, w)| s.wrapping_add(f.arc(u, v, w)))
        };
        let mut rev = arcs;
        rev.reverse();
        assert_eq!(sum(&arcs), sum(&rev));
        // One arc fewer, another weight, the reverse direction: all differ.
        assert_ne!(sum(&arcs), sum(&arcs[..3]));
        let mut w = arcs;
        w[1].2 = 8;
        assert_ne!(sum(&arcs), sum(&w));
        let mut d = arcs;
        d[1] = (3, 2, 7);
        assert_ne!(sum(&arcs), sum(&d));
        // A weight by value: i32 and f64 agree, -0 is 0.
        assert_eq!(f.arc(1, 2, 5i32), f.arc(1, 2, 5.0f64));
        assert_eq!(f.arc(1, 2, -0.0f64), f.arc(1, 2, 0.0f64));
        assert_eq!(f.arc(1, 2, ()), f.arc(1, 2, ()));
        // Mirror terms: an arc and its reverse cancel, a self loop is 0.
        let t = |u, v, w: i32| f.mirror_term(u, v, w);
        assert_eq!(t(1, 2, 5).wrapping_add(t(2, 1, 5)), 0);
        assert_ne!(t(1, 2, 5).wrapping_add(t(2, 1, 6)), 0);
        assert_eq!(t(3, 3, 5), 0);
        // Keys differ between fingerprints.
        assert_ne!(ArcFingerprint::new().arc(1, 2, ()), f.arc(1, 2, ()));
    }
}
