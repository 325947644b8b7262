//! Edge weights. Unweighted graphs use `()`, a zero-sized weight: arrays of it take no memory.

use std::fmt::Debug;

/// A value that can label an edge.
pub trait Weight: Copy + Send + Sync + Default + PartialEq + PartialOrd + Debug + 'static {
    /// `false` only for `()`.
    const WEIGHTED: bool;
    /// A short name (`"none"`, `"i32"`, `"f64"`), used in file headers and messages.
    const NAME: &'static str;
    /// Whether none of this type's methods can panic (`true` for the crate's own weights). A
    /// store may then run them where a panic could not unwind safely and would abort the
    /// process instead: the C-tree versioned store copies lending only for such weights, and
    /// a weight that keeps the default (`false`) gets the counted copy, from which a panic
    /// unwinds to the caller. Claiming it for a weight that panics is not unsafe, but turns
    /// the panic into an abort.
    const CANNOT_PANIC: bool = false;
    /// The type of path lengths (sums of weights).
    type Dist: DistValue;
    /// Parse a weight field; `None` if the text is not a valid, finite weight of this type.
    fn parse(text: &str) -> Option<Self>;
    /// The weight as a float (0 for `()`).
    fn to_f64(self) -> f64;
    /// The weight as a path length.
    fn to_dist(self) -> Self::Dist;
    /// Combine two weights of the same edge by a [`crate::batch::Combine`] rule.
    fn combine(self, other: Self, rule: crate::batch::Combine) -> Self {
        use crate::batch::Combine::*;
        match rule {
            First => self,
            Last => other,
            Min => {
                if other < self {
                    other
                } else {
                    self
                }
            }
            Max => {
                if other > self {
                    other
                } else {
                    self
                }
            }
            Sum => self.add(other),
        }
    }
    /// Sum of two weights, saturating: integers at their range, floats at ±`f64::MAX`, so
    /// that summing finite weights (`Combine::Sum`) never stores an infinite one, which no
    /// reader accepts.
    fn add(self, other: Self) -> Self;
    /// Little-endian bytes of the weight (empty for `()`).
    fn write_le(self, out: &mut Vec<u8>);
    /// Size of the little-endian encoding.
    const BYTES: usize;
    /// Read from exactly `BYTES` little-endian bytes.
    fn read_le(bytes: &[u8]) -> Self;
}

/// A path length: totally ordered, with an infinity and addition.
pub trait DistValue: Copy + Send + Sync + PartialOrd + Debug + 'static {
    const INF: Self;
    const ZERO: Self;
    fn plus(self, other: Self) -> Self;
    fn to_f64(self) -> f64;
    /// Bits of the value in an order-preserving `u64` encoding (for atomic min).
    fn to_ordered_bits(self) -> u64;
    fn from_ordered_bits(bits: u64) -> Self;
}

impl Weight for () {
    const WEIGHTED: bool = false;
    const NAME: &'static str = "none";
    const CANNOT_PANIC: bool = true;
    type Dist = i64;
    fn parse(_: &str) -> Option<Self> {
        Some(())
    }
    fn to_f64(self) -> f64 {
        1.0
    }
    fn to_dist(self) -> i64 {
        1
    }
    fn add(self, _: Self) -> Self {}
    fn write_le(self, _: &mut Vec<u8>) {}
    const BYTES: usize = 0;
    fn read_le(_: &[u8]) -> Self {}
}

impl Weight for i32 {
    const WEIGHTED: bool = true;
    const NAME: &'static str = "i32";
    const CANNOT_PANIC: bool = true;
    type Dist = i64;
    fn parse(text: &str) -> Option<Self> {
        text.parse::<i32>().ok()
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn to_dist(self) -> i64 {
        self as i64
    }
    fn add(self, other: Self) -> Self {
        self.saturating_add(other)
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    const BYTES: usize = 4;
    fn read_le(bytes: &[u8]) -> Self {
        i32::from_le_bytes(bytes[..4].try_into().unwrap())
    }
}

impl Weight for f64 {
    const WEIGHTED: bool = true;
    const NAME: &'static str = "f64";
    const CANNOT_PANIC: bool = true;
    type Dist = f64;
    fn parse(text: &str) -> Option<Self> {
        text.parse::<f64>().ok().filter(|x| x.is_finite())
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn to_dist(self) -> f64 {
        self
    }
    fn add(self, other: Self) -> Self {
        (self + other).clamp(-f64::MAX, f64::MAX)
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    const BYTES: usize = 8;
    fn read_le(bytes: &[u8]) -> Self {
        f64::from_le_bytes(bytes[..8].try_into().unwrap())
    }
}

impl DistValue for i64 {
    const INF: Self = i64::MAX;
    const ZERO: Self = 0;
    fn plus(self, other: Self) -> Self {
        if self == i64::MAX || other == i64::MAX {
            i64::MAX
        } else {
            self.saturating_add(other)
        }
    }
    fn to_f64(self) -> f64 {
        if self == i64::MAX {
            f64::INFINITY
        } else {
            self as f64
        }
    }
    fn to_ordered_bits(self) -> u64 {
        (self as u64) ^ (1u64 << 63)
    }
    fn from_ordered_bits(bits: u64) -> Self {
        (bits ^ (1u64 << 63)) as i64
    }
}

impl DistValue for f64 {
    const INF: Self = f64::INFINITY;
    const ZERO: Self = 0.0;
    /// Saturating at ±`f64::MAX` when both are finite: a path whose length overflows is
    /// still a path (`INF` means unreachable), as `i64`'s saturate below `INF`.
    #[inline]
    fn plus(self, other: Self) -> Self {
        let s = self + other;
        if s.is_infinite() && self.is_finite() && other.is_finite() {
            f64::MAX.copysign(s)
        } else {
            s
        }
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn to_ordered_bits(self) -> u64 {
        let b = self.to_bits();
        if b >> 63 == 1 {
            !b
        } else {
            b | (1u64 << 63)
        }
    }
    fn from_ordered_bits(bits: u64) -> Self {
        if bits >> 63 == 1 {
            f64::from_bits(bits & !(1u64 << 63))
        } else {
            f64::from_bits(!bits)
        }
    }
}

/// What a graph's weights are, in one pass: delta-stepping's check for negative and NaN
/// weights and its default bucket width and distance width come from it. Extremes and sum are
/// taken on the weights as path lengths ([`Weight::to_dist`], so 1 per arc when unweighted)
/// and reported as `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightSummary {
    /// Some weight is NaN (NaNs are left out of every other field but `arcs`).
    pub nan: bool,
    /// The smallest weight (`+∞` if there is none).
    pub min: f64,
    /// The smallest positive weight (`+∞` if there is none).
    pub min_positive: f64,
    /// The largest weight (`0` if there is none).
    pub max: f64,
    /// Sum of the weights.
    pub sum: f64,
    /// Number of arcs (weights) seen.
    pub arcs: usize,
}

/// [`WeightSummary`] while it is gathered: extremes as order-preserving bits (integer
/// compares), the sum in the distance type per run (an integer add for integer weights, not a
/// 4-cycle `f64` add), so the per-arc dependency chains stay short.
#[derive(Clone, Copy)]
struct Gather {
    nan: bool,
    min: u64,
    min_positive: u64,
    max: u64,
    sum: f64,
    arcs: usize,
}

impl Gather {
    const EMPTY: Gather = Gather {
        nan: false,
        min: u64::MAX,
        min_positive: u64::MAX,
        max: 0,
        sum: 0.0,
        arcs: 0,
    };

    /// Add one weight: to the extremes, and to `sum`, the sum of the current run (added to
    /// the total by [`Gather::end_run`]).
    #[inline(always)]
    fn add<W: Weight>(&mut self, sum: &mut W::Dist, w: W) {
        let zero = W::Dist::ZERO.to_ordered_bits();
        let d = w.to_dist();
        // NaN is the only value unequal to itself.
        #[allow(clippy::eq_op)]
        let nan = d != d;
        let b = d.to_ordered_bits();
        let (lo, hi) = if nan { (u64::MAX, 0) } else { (b, b) };
        self.nan |= nan;
        self.min = self.min.min(lo);
        self.max = self.max.max(hi);
        self.min_positive = self.min_positive.min(if lo > zero { lo } else { u64::MAX });
        *sum = sum.plus(if nan { W::Dist::ZERO } else { d });
        self.arcs += 1;
    }

    fn end_run<W: Weight>(mut self, sum: W::Dist) -> Self {
        self.sum += sum.to_f64();
        self
    }

    fn merge(self, b: Gather) -> Gather {
        Gather {
            nan: self.nan | b.nan,
            min: self.min.min(b.min),
            min_positive: self.min_positive.min(b.min_positive),
            max: self.max.max(b.max),
            sum: self.sum + b.sum,
            arcs: self.arcs + b.arcs,
        }
    }

    fn finish<W: Weight>(self) -> WeightSummary {
        // An extreme still at its starting bits saw no weight (no arcs, or only NaNs): neither
        // u64::MAX nor 0 is a weight's bits (they encode NaNs, or i64::MAX and i64::MIN).
        let value = |bits: u64, start: u64, none: f64| {
            if bits == start {
                none
            } else {
                W::Dist::from_ordered_bits(bits).to_f64()
            }
        };
        WeightSummary {
            nan: self.nan,
            min: value(self.min, u64::MAX, f64::INFINITY),
            min_positive: value(self.min_positive, u64::MAX, f64::INFINITY),
            max: value(self.max, 0, 0.0),
            sum: self.sum,
            arcs: self.arcs,
        }
    }
}

impl WeightSummary {
    /// The summary of an array of weights, in parallel: blocks of 4096 weights, their
    /// partial results combined in block order, so the float sum does not depend on the thread
    /// count. About 1 ns per weight on one thread: the CSR gathers it when built (RMAT scale
    /// 20, 31 M weights: +35 ms to a 0.10 s binary load), and each delta-stepping run on it
    /// saves that pass over the adjacency.
    pub fn of_weights<W: Weight>(ws: &[W]) -> Self {
        use rayon::prelude::*;
        let parts: Vec<Gather> = ws
            .par_chunks(4096)
            .map(|ws| {
                let mut a = Gather::EMPTY;
                let mut sum = W::Dist::ZERO;
                for &w in ws {
                    a.add(&mut sum, w);
                }
                a.end_run::<W>(sum)
            })
            .collect();
        parts
            .into_iter()
            .fold(Gather::EMPTY, Gather::merge)
            .finish::<W>()
    }

    /// The summary of every stored arc's weight of `g`, folding over every vertex's weights
    /// in parallel ([`crate::Graph::fold_out_weights`]; [`crate::Graph::weight_summary`]'s
    /// default). Its float sum is grouped by vertex and may differ from
    /// [`of_weights`](Self::of_weights)' in the last bits.
    pub fn of_graph<G: crate::Graph + ?Sized>(g: &G) -> Self {
        use rayon::prelude::*;
        (0..g.num_vertices() as crate::Vertex)
            .into_par_iter()
            .with_min_len(256)
            .fold(
                || Gather::EMPTY,
                |a, u| {
                    let (a, sum) = g.fold_out_weights(
                        u,
                        (a, <G::W as Weight>::Dist::ZERO),
                        |(mut a, mut sum), w| {
                            a.add(&mut sum, w);
                            (a, sum)
                        },
                    );
                    a.end_run::<G::W>(sum)
                },
            )
            .reduce(|| Gather::EMPTY, Gather::merge)
            .finish::<G::W>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_bits_preserve_order() {
        let xs = [-1e300, -5.5, -0.0, 0.0, 1e-9, 3.0, 1e300, f64::INFINITY];
        for w in xs.windows(2) {
            assert!(w[0].to_ordered_bits() <= w[1].to_ordered_bits());
            assert_eq!(f64::from_ordered_bits(w[0].to_ordered_bits()), w[0]);
        }
        let ys = [i64::MIN, -3, 0, 7, i64::MAX];
        for w in ys.windows(2) {
            assert!(w[0].to_ordered_bits() < w[1].to_ordered_bits());
            assert_eq!(i64::from_ordered_bits(w[1].to_ordered_bits()), w[1]);
        }
    }

    /// Sums saturate: a combined weight and a path length stay finite (a path is never
    /// reported unreachable because its length overflowed); `INF` stays `INF`.
    #[test]
    fn sums_saturate_and_inf_stays_inf() {
        use crate::batch::Combine;
        assert_eq!(1e308f64.combine(1e308, Combine::Sum), f64::MAX);
        assert_eq!((-1e308f64).add(-1e308), -f64::MAX);
        assert_eq!(2.5f64.add(0.25), 2.75);
        assert_eq!(i32::MAX.add(1), i32::MAX);
        assert_eq!(1e308f64.plus(1e308), f64::MAX);
        assert_eq!((-1e308f64).plus(-1e308), -f64::MAX);
        assert_eq!(f64::INF.plus(1.0), f64::INF);
        assert_eq!(1.5f64.plus(f64::INF), f64::INF);
        assert_eq!(0.5f64.plus(0.25), 0.75);
        assert_eq!(i64::MAX.plus(1), i64::MAX);
        assert_eq!((i64::MAX - 5).plus(3), i64::MAX - 2);
    }

    #[test]
    fn parse_rejects_non_finite() {
        assert_eq!(f64::parse("nan"), None);
        assert_eq!(f64::parse("inf"), None);
        assert_eq!(f64::parse("2.5"), Some(2.5));
        assert_eq!(i32::parse("x"), None);
        assert_eq!(i32::parse("-4"), Some(-4));
    }

    /// The summary of a weight array: exact extremes, NaN left out, and a float sum that is
    /// the same whatever the thread count (blocks combined in order).
    #[test]
    fn weight_summary_of_an_array() {
        let ws = [2.5, f64::NAN, -0.0, 0.25, 7.0];
        let s = WeightSummary::of_weights(&ws);
        assert!(s.nan);
        assert_eq!(
            (s.min, s.min_positive, s.max, s.sum, s.arcs),
            (0.0, 0.25, 7.0, 9.75, 5)
        );
        let e = WeightSummary::of_weights::<i32>(&[]);
        assert_eq!((e.min, e.max, e.arcs), (f64::INFINITY, 0.0, 0));
        let many: Vec<f64> = (0..100_000u64)
            .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11) as f64 * 1e-7)
            .collect();
        let with = |k| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(k)
                .build()
                .unwrap()
                .install(|| WeightSummary::of_weights(&many))
        };
        assert_eq!(with(1), with(2));
        assert_eq!(with(1), with(3));
    }
}
