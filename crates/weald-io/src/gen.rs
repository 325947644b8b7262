//! Graph generators.
//!
//! Every random generator is **counter-based**: edge `i` draws its random numbers from
//! SplitMix64 seeded with `(seed, i)`, so the output depends only on the parameters, never on
//! the number of threads or the scheduling. Generation runs in parallel.
//!
//! * [`rmat`]: R-MAT / Kronecker (Graph500 parameters by default). Each of the
//!   `edge_factor · 2^scale` edges descends `scale` levels of the adjacency matrix, choosing a
//!   quadrant with probabilities `a, b, c, 1-a-b-c` (no per-level noise). The vertex ids are
//!   then scrambled by a seeded bijection of `0..2^scale` (four rounds of add-key,
//!   multiply-by-odd and xorshift, each a bijection modulo `2^scale`), so that high-degree
//!   vertices are not clustered at small ids. Edges are directed arcs and may repeat or be self
//!   loops, as in Graph500; the builder removes what the user asks it to. `scale` is clamped to
//!   at most 31 (ids are `u32`).
//! * [`uniform`]: `m` arcs with both endpoints uniform in `0..n` (Erdős–Rényi G(n, m) with
//!   repetition).
//! * [`add_weights_int`], [`add_weights_float`]: a weight per edge, a function of `(seed, i)`;
//!   [`WeightRange`] is a checked range of them (what the CLI's `--weights` and Python's
//!   `weights=` are read into) and [`with_weights`] applies one.
//! * [`ensure_fits`]: the memory check made before generating.
//! * [`path`], [`star`], [`grid`], [`complete`]: small shapes, each undirected edge once.

use rayon::prelude::*;
use weald_graph::EdgeList;

/// SplitMix64 finaliser.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
    z ^ (z >> 31)
}

/// A SplitMix64 stream for `(seed, index)`.
#[derive(Clone, Copy)]
struct Stream(u64);

impl Stream {
    #[inline]
    fn new(seed: u64, index: u64) -> Self {
        Stream(
            mix64(seed ^ 0x9e3779b97f4a7c15).wrapping_add(index.wrapping_mul(0x632be59bd9b4e019)),
        )
    }
    #[inline]
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        mix64(self.0)
    }
    /// Uniform in `[0, 1)`.
    #[inline]
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Uniform in `0..n` (n > 0).
    #[inline]
    fn below(&mut self, n: u64) -> u64 {
        ((self.next() as u128 * n as u128) >> 64) as u64
    }
}

/// R-MAT parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct RmatParams {
    /// `2^scale` vertices (at most 31).
    pub scale: u32,
    /// `edge_factor · 2^scale` edges.
    pub edge_factor: u32,
    pub a: f64,
    pub b: f64,
    pub c: f64,
    pub seed: u64,
}

impl Default for RmatParams {
    /// Graph500: `a = 0.57, b = c = 0.19`, edge factor 16, seed 1 (scale 10).
    fn default() -> Self {
        RmatParams {
            scale: 10,
            edge_factor: 16,
            a: 0.57,
            b: 0.19,
            c: 0.19,
            seed: 1,
        }
    }
}

/// A seeded bijection of `0..2^bits`.
#[derive(Clone, Copy)]
struct Scramble {
    bits: u32,
    mask: u64,
    keys: [u64; 4],
    muls: [u64; 4],
}

impl Scramble {
    fn new(bits: u32, seed: u64) -> Self {
        let mut s = Stream::new(seed, u64::MAX);
        let mut keys = [0; 4];
        let mut muls = [0; 4];
        for r in 0..4 {
            keys[r] = s.next();
            muls[r] = s.next() | 1;
        }
        Scramble {
            bits,
            mask: if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            },
            keys,
            muls,
        }
    }

    #[inline]
    fn apply(&self, mut x: u64) -> u64 {
        if self.bits == 0 {
            return 0;
        }
        let shift = self.bits.div_ceil(2);
        for r in 0..4 {
            x = x.wrapping_add(self.keys[r]) & self.mask;
            x = x.wrapping_mul(self.muls[r]) & self.mask;
            x ^= x >> shift;
        }
        x
    }
}

/// An R-MAT graph with `2^scale` vertices and `edge_factor · 2^scale` arcs.
pub fn rmat(p: &RmatParams) -> EdgeList<()> {
    rmat_arcs(p, (p.edge_factor as usize) << p.scale.min(31))
}

/// The first `m` arcs of the R-MAT sequence of `p` (`edge_factor` is ignored): arc `i` is the
/// same as in [`rmat`] with any edge factor, so this samples a stream of R-MAT edges without
/// generating the whole graph.
pub fn rmat_arcs(p: &RmatParams, m: usize) -> EdgeList<()> {
    rmat_arcs_from(p, 0, m)
}

/// Arcs `first .. first + m` of the R-MAT sequence of `p` (each arc is drawn from its own
/// counter-based stream, so any range costs only its length). Arcs past the graph's own
/// (`first >= edge_factor << scale`) continue the stream that generated [`rmat`]`(p)`: the same
/// vertex permutation, so they land on that graph's hubs.
pub fn rmat_arcs_from(p: &RmatParams, first: u64, m: usize) -> EdgeList<()> {
    rmat_arcs_in(p, first, m, true)
}

/// The first `m` arcs of an R-MAT sequence of `p` without the vertex permutation (`edge_factor`
/// is ignored): ids keep the recursion's bits, so the hubs are the ids whose bits the likelier
/// quadrants set (all zeros for `a` the largest; all ones when `1 - a - b - c` is). Aspen's
/// batch-update tool samples its batches this way.
pub fn rmat_arcs_unpermuted(p: &RmatParams, m: usize) -> EdgeList<()> {
    rmat_arcs_in(p, 0, m, false)
}

/// The vertex permutation of the R-MAT graph of `p`.
fn vertex_permutation(p: &RmatParams) -> Scramble {
    Scramble::new(p.scale.min(31), p.seed ^ 0x5ca1ab1e)
}

fn rmat_arcs_in(p: &RmatParams, first: u64, m: usize, permute: bool) -> EdgeList<()> {
    let scale = p.scale.min(31);
    let n = 1usize << scale;
    let (a, ab, abc) = (p.a, p.a + p.b, p.a + p.b + p.c);
    let perm = permute.then(|| vertex_permutation(p));
    let id = |x: u64| perm.map_or(x, |s| s.apply(x));
    let pairs: Vec<(u32, u32)> = (0..m)
        .into_par_iter()
        .with_min_len(4096)
        .map(|i| {
            let mut s = Stream::new(p.seed, first + i as u64);
            let (mut u, mut v) = (0u64, 0u64);
            for _ in 0..scale {
                let r = s.unit();
                let (bu, bv) = if r < a {
                    (0, 0)
                } else if r < ab {
                    (0, 1)
                } else if r < abc {
                    (1, 0)
                } else {
                    (1, 1)
                };
                u = (u << 1) | bu;
                v = (v << 1) | bv;
            }
            (id(u) as u32, id(v) as u32)
        })
        .collect();
    from_pairs(n, pairs)
}

fn from_pairs(n: usize, pairs: Vec<(u32, u32)>) -> EdgeList<()> {
    let src = pairs.par_iter().map(|p| p.0).collect::<Vec<_>>();
    let dst = pairs.par_iter().map(|p| p.1).collect::<Vec<_>>();
    let m = src.len();
    EdgeList {
        num_vertices: n,
        src,
        dst,
        weights: vec![(); m],
    }
}

/// `m` arcs with endpoints uniform in `0..n` (empty if `n == 0`). `n` is clamped to `2^32 - 1`.
pub fn uniform(n: usize, m: usize, seed: u64) -> EdgeList<()> {
    let n = n.min(u32::MAX as usize);
    if n == 0 {
        return EdgeList::new(0);
    }
    let pairs: Vec<(u32, u32)> = (0..m)
        .into_par_iter()
        .with_min_len(4096)
        .map(|i| {
            let mut s = Stream::new(seed, i as u64);
            (s.below(n as u64) as u32, s.below(n as u64) as u32)
        })
        .collect();
    from_pairs(n, pairs)
}

/// The same edges with integer weights uniform in `lo..=hi` (bounds swapped if reversed;
/// [`WeightRange::int`] refuses them).
pub fn add_weights_int(el: &EdgeList<()>, lo: i32, hi: i32, seed: u64) -> EdgeList<i32> {
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    let span = (hi as i64 - lo as i64 + 1) as u64;
    let weights = (0..el.len())
        .into_par_iter()
        .with_min_len(4096)
        .map(|i| {
            let mut s = Stream::new(seed ^ 0x77e1_6475, i as u64);
            (lo as i64 + s.below(span) as i64) as i32
        })
        .collect();
    EdgeList {
        num_vertices: el.num_vertices,
        src: el.src.clone(),
        dst: el.dst.clone(),
        weights,
    }
}

/// The same edges with float weights uniform in `[lo, hi)` (`lo` itself when `lo == hi`), for
/// `lo <= hi` with a finite width, which [`WeightRange::float`] checks.
pub fn add_weights_float(el: &EdgeList<()>, lo: f64, hi: f64, seed: u64) -> EdgeList<f64> {
    let weights = (0..el.len())
        .into_par_iter()
        .with_min_len(4096)
        .map(|i| {
            let mut s = Stream::new(seed ^ 0xf10a_7000, i as u64);
            lo + s.unit() * (hi - lo)
        })
        .collect();
    EdgeList {
        num_vertices: el.num_vertices,
        src: el.src.clone(),
        dst: el.dst.clone(),
        weights,
    }
}

/// The range of uniform random weights given to generated edges, checked: `Int(lo, hi)` draws
/// `i32`s in `lo..=hi`, `Float(lo, hi)` `f64`s in `[lo, hi)` (`lo` itself when
/// `lo == hi`). The CLI's `--weights LO..HI` and
/// Python's `weights=(lo, hi)` are read through it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WeightRange {
    Int(i32, i32),
    Float(f64, f64),
}

impl WeightRange {
    /// `lo..=hi` as integer weights; `lo <= hi`.
    pub fn int(lo: i32, hi: i32) -> std::result::Result<Self, String> {
        if lo > hi {
            return Err(format!("the low end {lo} is above the high end {hi}"));
        }
        Ok(WeightRange::Int(lo, hi))
    }

    /// `[lo, hi)` as float weights: both ends and the width `hi - lo` finite, `lo <= hi`
    /// (a width beyond `f64::MAX` would make every weight infinite).
    pub fn float(lo: f64, hi: f64) -> std::result::Result<Self, String> {
        if !(lo.is_finite() && hi.is_finite()) {
            return Err(format!(
                "the ends must be finite numbers, got {lo:?} and {hi:?}"
            ));
        }
        if lo > hi {
            return Err(format!("the low end {lo:?} is above the high end {hi:?}"));
        }
        if !(hi - lo).is_finite() {
            return Err(format!(
                "the width {hi:?} - ({lo:?}) is beyond the largest float; narrow the range"
            ));
        }
        Ok(WeightRange::Float(lo, hi))
    }

    /// `LO..HI`: integer weights if both ends are integers (which must fit in `i32`), else
    /// float weights.
    pub fn parse(s: &str) -> std::result::Result<Self, String> {
        let form = || "expected LO..HI, e.g. 1..255 or 0.5..2.0".to_string();
        let (lo, hi) = s.split_once("..").ok_or_else(form)?;
        let (lo, hi) = (lo.trim(), hi.trim());
        // `0...5` could mean 0 to .5 or be a typo for `0..5`: refused, as is a missing end.
        if lo.is_empty() || hi.is_empty() || hi.starts_with('.') {
            return Err(form());
        }
        let integer = |x: &str| {
            let d = x.strip_prefix(['-', '+']).unwrap_or(x);
            !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
        };
        if integer(lo) && integer(hi) {
            let int = |x: &str| {
                x.parse::<i32>().map_err(|_| {
                    format!("integer weights must fit in an i32, got {x} (write {x}.0 for float weights)")
                })
            };
            return WeightRange::int(int(lo)?, int(hi)?);
        }
        let float = |x: &str| {
            x.parse::<f64>().map_err(|_| {
                format!("`{x}` is not a number; expected LO..HI, e.g. 1..255 or 0.5..2.0")
            })
        };
        WeightRange::float(float(lo)?, float(hi)?)
    }
}

/// `el` with weights drawn from `range` (by edge index and `seed`), or as it is for `None`.
pub fn with_weights(el: EdgeList<()>, range: Option<WeightRange>, seed: u64) -> crate::Edges {
    match range {
        None => crate::Edges::Unweighted(el),
        Some(WeightRange::Int(lo, hi)) => crate::Edges::Int(add_weights_int(&el, lo, hi, seed)),
        Some(WeightRange::Float(lo, hi)) => {
            crate::Edges::Float(add_weights_float(&el, lo, hi, seed))
        }
    }
}

/// Refuse, with `OutOfMemory`, to generate a graph of `n` vertices and `m` edges that cannot
/// fit: a lower bound of the peak is the CSR's offsets (8 bytes a vertex) and 4 bytes a vertex
/// more (the generator's vertex permutation, the build's counts), plus the larger of the edge
/// list (8 bytes an edge, 12 with weights) and the CSR's arcs (4 bytes each, 8 with weights;
/// both directions unless `directed`).
pub fn ensure_fits(n: u64, m: u64, weighted: bool, directed: bool) -> weald_graph::Result<()> {
    let (n, m) = (n as u128, m as u128);
    let (el_b, arc_b) = if weighted { (12, 8) } else { (8, 4) };
    let arcs = if directed { m } else { 2 * m };
    let bytes = n * 12 + (m * el_b).max(arcs * arc_b);
    weald_graph::mem::ensure_fits(u64::try_from(bytes).ok(), || {
        format!("generating {n} vertices and {m} edges")
    })
}

/// The path `0 - 1 - ... - (n-1)`.
pub fn path(n: usize) -> EdgeList<()> {
    let mut e = EdgeList::new(n);
    for i in 1..n {
        e.push(i as u32 - 1, i as u32, ());
    }
    e
}

/// A star: centre 0 joined to `1..n`.
pub fn star(n: usize) -> EdgeList<()> {
    let mut e = EdgeList::new(n);
    for i in 1..n {
        e.push(0, i as u32, ());
    }
    e
}

/// A `rows × cols` grid, vertex `r · cols + c`, joined to its right and lower neighbours.
pub fn grid(rows: usize, cols: usize) -> EdgeList<()> {
    let mut e = EdgeList::new(rows * cols);
    for r in 0..rows {
        for c in 0..cols {
            let v = (r * cols + c) as u32;
            if c + 1 < cols {
                e.push(v, v + 1, ());
            }
            if r + 1 < rows {
                e.push(v, v + cols as u32, ());
            }
        }
    }
    e
}

/// The complete graph: every pair `u < v`.
pub fn complete(n: usize) -> EdgeList<()> {
    let mut e = EdgeList::new(n);
    for u in 0..n {
        for v in u + 1..n {
            e.push(u as u32, v as u32, ());
        }
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_ranges_are_checked() {
        assert_eq!(WeightRange::parse("1..255"), Ok(WeightRange::Int(1, 255)));
        assert_eq!(WeightRange::parse(" -3 .. 3 "), Ok(WeightRange::Int(-3, 3)));
        assert_eq!(
            WeightRange::parse("0.5..2"),
            Ok(WeightRange::Float(0.5, 2.0))
        );
        assert_eq!(
            WeightRange::parse("1..1e3"),
            Ok(WeightRange::Float(1.0, 1e3))
        );
        for (bad, why) in [
            ("5..1", "above"),
            ("2.5..1.0", "above"),
            ("0..3000000000", "i32"),
            ("-1e308..1e308", "width"),
            ("0..inf", "finite"),
            ("nan..1", "finite"),
            ("1-2", "LO..HI"),
            ("a..b", "not a number"),
            ("..", "LO..HI"),
            ("1..", "LO..HI"),
            ("0...5", "LO..HI"),
        ] {
            let e = WeightRange::parse(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
            assert!(e.len() < 120, "{bad}: a short message, got {e}");
        }
        // A range that is accepted gives finite weights in it.
        let el = uniform(100, 1000, 3);
        let crate::Edges::Float(w) = with_weights(el, WeightRange::float(-1e307, 1e307).ok(), 3)
        else {
            panic!("float weights expected")
        };
        assert!(w
            .weights
            .iter()
            .all(|x| x.is_finite() && (-1e307..1e307).contains(x)));
    }

    #[test]
    fn scramble_is_a_bijection() {
        for bits in [0u32, 1, 2, 5, 10] {
            let s = Scramble::new(bits, 7);
            let mut seen = vec![false; 1 << bits];
            for x in 0..1u64 << bits {
                let y = s.apply(x) as usize;
                assert!(!seen[y]);
                seen[y] = true;
            }
        }
    }

    /// Without the permutation an id's bits are the quadrants drawn: a source bit is set by
    /// the lower two quadrants (probability c + d), a target bit by the right two (b + d).
    #[test]
    fn unpermuted_rmat_keeps_the_quadrant_bits() {
        let p = RmatParams {
            scale: 12,
            a: 0.25,
            b: 0.05,
            c: 0.05,
            seed: 9,
            ..Default::default()
        };
        let m = 40_000;
        let el = rmat_arcs_unpermuted(&p, m);
        assert_eq!(el.num_vertices, 1 << 12);
        let ones = |xs: &[u32]| xs.iter().map(|x| x.count_ones() as f64).sum::<f64>();
        // Expected 0.7 of 12 bits set per id; 40,000 ids put the mean within ~0.3 %.
        for xs in [&el.src, &el.dst] {
            let share = ones(xs) / (12.0 * m as f64);
            assert!((share - 0.7).abs() < 0.01, "share of set bits {share}");
        }
        // The likeliest id (all ones) is the most frequent source.
        let mut count = vec![0usize; 1 << 12];
        for &u in &el.src {
            count[u as usize] += 1;
        }
        let top = (0..count.len()).max_by_key(|&i| count[i]).unwrap();
        assert_eq!(top, (1 << 12) - 1);
        // The permuted stream is these draws, relabelled by the permutation.
        let perm = rmat_arcs_from(&p, 0, m);
        let s = vertex_permutation(&p);
        for i in 0..m {
            assert_eq!(perm.src[i] as u64, s.apply(el.src[i] as u64));
            assert_eq!(perm.dst[i] as u64, s.apply(el.dst[i] as u64));
        }
        // Degenerate quadrants: all weight on `a` gives only (0, 0).
        let zero = RmatParams {
            a: 1.0,
            b: 0.0,
            c: 0.0,
            ..p.clone()
        };
        let el = rmat_arcs_unpermuted(&zero, 100);
        assert!(el.src.iter().chain(&el.dst).all(|&x| x == 0));
    }

    #[test]
    fn shapes() {
        assert_eq!(path(4).len(), 3);
        assert_eq!(star(5).len(), 4);
        assert_eq!(grid(3, 4).len(), 3 * 3 + 2 * 4);
        assert_eq!(complete(5).len(), 10);
        assert_eq!(path(0).len(), 0);
        assert_eq!(grid(0, 5).num_vertices, 0);
    }
}
