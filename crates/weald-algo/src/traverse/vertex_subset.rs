//! [`VertexSubset`]: a set of vertices of a graph with `n` vertices, stored either sparse (a list
//! of ids) or dense (a bitmap of `n` bits), as in Ligra. Traversals pick whichever form suits
//! them and convert in O(n / 64 + |U|) work.
//!
//! [`vertex_map`] and [`vertex_filter`] apply a function or a predicate to every member.

use rayon::prelude::*;
use std::borrow::Cow;
use weald_graph::parallel::{concat, pack_index};
use weald_graph::Vertex;

/// Vertices per parallel task when scanning a bitmap (a multiple of 64).
pub(crate) const DENSE_GRAIN: usize = 1 << 12;
const WORDS_PER_TASK: usize = DENSE_GRAIN / 64;

/// A subset of the vertices `0..n`.
///
/// The sparse form keeps the ids in no particular order (traversals emit them in the order they
/// are found) and without duplicates; the dense form is a bitmap, iterated in increasing order.
#[derive(Clone, Debug)]
pub struct VertexSubset {
    n: usize,
    repr: Repr,
}

#[derive(Clone, Debug)]
enum Repr {
    Sparse(Vec<Vertex>),
    Dense { bits: Vec<u64>, count: usize },
}

impl PartialEq for VertexSubset {
    /// Two subsets are equal when they hold the same vertices (whatever their form and order).
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
            && self.len() == other.len()
            && self.to_sorted_vec() == other.to_sorted_vec()
    }
}

impl Eq for VertexSubset {}

impl VertexSubset {
    /// The empty subset of `0..n` (sparse).
    pub fn empty(n: usize) -> Self {
        VertexSubset {
            n,
            repr: Repr::Sparse(Vec::new()),
        }
    }

    /// The subset `{v}` of `0..n`. Panics if `v >= n`.
    pub fn from_vertex(n: usize, v: Vertex) -> Self {
        assert!((v as usize) < n, "vertex {v} out of range 0..{n}");
        VertexSubset {
            n,
            repr: Repr::Sparse(vec![v]),
        }
    }

    /// A sparse subset from distinct ids, each `< n` (checked in debug builds only).
    pub fn from_sparse(n: usize, ids: Vec<Vertex>) -> Self {
        debug_assert!(ids.iter().all(|&v| (v as usize) < n));
        VertexSubset {
            n,
            repr: Repr::Sparse(ids),
        }
    }

    /// A dense subset holding `v` iff `flags[v]`; `n = flags.len()`.
    pub fn from_flags(flags: &[bool]) -> Self {
        let n = flags.len();
        let bits: Vec<u64> = flags
            .par_chunks(64)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u64, |w, (i, &f)| w | ((f as u64) << i))
            })
            .collect();
        let count = popcount(&bits);
        VertexSubset {
            n,
            repr: Repr::Dense { bits, count },
        }
    }

    /// All of `0..n` (dense).
    pub fn all(n: usize) -> Self {
        let mut bits = vec![u64::MAX; n.div_ceil(64)];
        if n & 63 != 0 {
            *bits.last_mut().unwrap() = (1u64 << (n % 64)) - 1;
        }
        VertexSubset {
            n,
            repr: Repr::Dense { bits, count: n },
        }
    }

    /// A dense subset from a bitmap of `ceil(n / 64)` words whose bits `>= n` are clear and
    /// holding `count` set bits.
    pub(crate) fn from_bits(n: usize, bits: Vec<u64>, count: usize) -> Self {
        debug_assert_eq!(bits.len(), n.div_ceil(64));
        debug_assert_eq!(popcount(&bits), count);
        VertexSubset {
            n,
            repr: Repr::Dense { bits, count },
        }
    }

    /// The size `n` of the universe `0..n`.
    pub fn num_vertices(&self) -> usize {
        self.n
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Sparse(ids) => ids.len(),
            Repr::Dense { count, .. } => *count,
        }
    }

    /// `true` if there are no members.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `true` if stored as a bitmap.
    pub fn is_dense(&self) -> bool {
        matches!(self.repr, Repr::Dense { .. })
    }

    /// The member ids, if stored sparse.
    pub fn sparse_ids(&self) -> Option<&[Vertex]> {
        match &self.repr {
            Repr::Sparse(ids) => Some(ids),
            Repr::Dense { .. } => None,
        }
    }

    /// The bitmap (`ceil(n / 64)` words, bit `v % 64` of word `v / 64`), if stored dense.
    pub fn dense_bits(&self) -> Option<&[u64]> {
        match &self.repr {
            Repr::Sparse(_) => None,
            Repr::Dense { bits, .. } => Some(bits),
        }
    }

    /// The bitmap, borrowed when stored dense, else built from the ids (O(n / 64 + len)).
    pub(crate) fn bits(&self) -> Cow<'_, [u64]> {
        match &self.repr {
            Repr::Sparse(ids) => Cow::Owned(sparse_to_bits(self.n, ids)),
            Repr::Dense { bits, .. } => Cow::Borrowed(bits),
        }
    }

    /// The member ids in increasing order when stored dense, borrowed when stored sparse.
    pub(crate) fn ids(&self) -> Cow<'_, [Vertex]> {
        match &self.repr {
            Repr::Sparse(ids) => Cow::Borrowed(ids),
            Repr::Dense { bits, .. } => Cow::Owned(bits_to_sparse(bits)),
        }
    }

    /// Membership test: O(1) when dense, O(len) when sparse.
    pub fn contains(&self, v: Vertex) -> bool {
        match &self.repr {
            Repr::Sparse(ids) => ids.contains(&v),
            Repr::Dense { bits, .. } => {
                (v as usize) < self.n && bits[v as usize / 64] >> (v % 64) & 1 == 1
            }
        }
    }

    /// Convert to the dense form in place (no-op if already dense).
    pub fn to_dense(&mut self) {
        if let Repr::Sparse(ids) = &self.repr {
            let bits = sparse_to_bits(self.n, ids);
            let count = ids.len();
            self.repr = Repr::Dense { bits, count };
        }
    }

    /// Convert to the sparse form in place (no-op if already sparse). Ids come out increasing.
    pub fn to_sparse(&mut self) {
        if let Repr::Dense { bits, .. } = &self.repr {
            let ids = bits_to_sparse(bits);
            self.repr = Repr::Sparse(ids);
        }
    }

    /// The members as a vector (sparse order, or increasing if dense).
    pub fn to_vec(&self) -> Vec<Vertex> {
        match &self.repr {
            Repr::Sparse(ids) => ids.clone(),
            Repr::Dense { bits, .. } => bits_to_sparse(bits),
        }
    }

    /// The members in increasing order.
    pub fn to_sorted_vec(&self) -> Vec<Vertex> {
        let mut v = self.to_vec();
        if !self.is_dense() {
            v.par_sort_unstable();
        }
        v
    }

    /// The members, consuming the subset (sparse order, or increasing if dense).
    pub fn into_vec(self) -> Vec<Vertex> {
        match self.repr {
            Repr::Sparse(ids) => ids,
            Repr::Dense { bits, .. } => bits_to_sparse(&bits),
        }
    }

    /// Sequential iterator over the members (sparse order, or increasing if dense).
    pub fn iter(&self) -> impl Iterator<Item = Vertex> + '_ {
        let (sparse, dense) = match &self.repr {
            Repr::Sparse(ids) => (Some(ids.iter().copied()), None),
            Repr::Dense { bits, .. } => (None, Some(iter_bits(bits))),
        };
        sparse
            .into_iter()
            .flatten()
            .chain(dense.into_iter().flatten())
    }

    /// Call `f(v)` for every member, in parallel.
    pub fn par_for_each(&self, f: impl Fn(Vertex) + Sync + Send) {
        match &self.repr {
            Repr::Sparse(ids) => ids.par_iter().with_min_len(512).for_each(|&v| f(v)),
            Repr::Dense { bits, .. } => {
                bits.par_iter()
                    .enumerate()
                    .with_min_len(WORDS_PER_TASK)
                    .for_each(|(i, &w)| for_bits(i, w, &f));
            }
        }
    }

    /// `sum(f(v))` over the members, computed in parallel.
    pub(crate) fn par_sum(&self, f: impl Fn(Vertex) -> usize + Sync + Send) -> usize {
        match &self.repr {
            Repr::Sparse(ids) => ids.par_iter().with_min_len(512).map(|&v| f(v)).sum(),
            Repr::Dense { bits, .. } => bits
                .par_iter()
                .enumerate()
                .with_min_len(WORDS_PER_TASK)
                .map(|(i, &w)| {
                    let mut s = 0;
                    for_bits(i, w, |v| s += f(v));
                    s
                })
                .sum(),
        }
    }
}

impl IntoIterator for VertexSubset {
    type Item = Vertex;
    type IntoIter = std::vec::IntoIter<Vertex>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

/// Call `f(v)` for every member of `u`, in parallel (Ligra's vertexMap).
pub fn vertex_map(u: &VertexSubset, f: impl Fn(Vertex) + Sync + Send) {
    u.par_for_each(f);
}

/// The members `v` of `u` with `pred(v)`, in the same form as `u` (Ligra's vertexFilter).
pub fn vertex_filter(
    u: &VertexSubset,
    pred: impl Fn(Vertex) -> bool + Sync + Send,
) -> VertexSubset {
    match &u.repr {
        Repr::Sparse(ids) => {
            let ids = if ids.len() <= 4096 {
                ids.iter().copied().filter(|&v| pred(v)).collect()
            } else {
                let parts: Vec<Vec<Vertex>> = ids
                    .par_chunks(4096)
                    .map(|c| c.iter().copied().filter(|&v| pred(v)).collect())
                    .collect();
                concat(parts)
            };
            VertexSubset::from_sparse(u.n, ids)
        }
        Repr::Dense { bits, .. } => {
            let bits: Vec<u64> = bits
                .par_iter()
                .enumerate()
                .with_min_len(WORDS_PER_TASK)
                .map(|(i, &w)| {
                    let mut out = 0u64;
                    for_bits(i, w, |v| {
                        if pred(v) {
                            out |= 1 << (v % 64);
                        }
                    });
                    out
                })
                .collect();
            let count = popcount(&bits);
            VertexSubset::from_bits(u.n, bits, count)
        }
    }
}

/// The vertices `v` in `0..n` with `pred(v)`, as a sparse subset in increasing order.
pub fn vertex_filter_all(n: usize, pred: impl Fn(Vertex) -> bool + Sync) -> VertexSubset {
    VertexSubset::from_sparse(n, pack_index(n, |i| pred(i as Vertex)))
}

/// Call `f(v)` for the set bits of bitmap word `i`.
#[inline]
pub(crate) fn for_bits(i: usize, mut w: u64, mut f: impl FnMut(Vertex)) {
    while w != 0 {
        let b = w.trailing_zeros();
        f((i * 64) as Vertex + b);
        w &= w - 1;
    }
}

fn iter_bits(bits: &[u64]) -> impl Iterator<Item = Vertex> + '_ {
    bits.iter().enumerate().flat_map(|(i, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let b = w.trailing_zeros();
            w &= w - 1;
            Some((i * 64) as Vertex + b)
        })
    })
}

pub(crate) fn popcount(bits: &[u64]) -> usize {
    bits.par_iter()
        .with_min_len(WORDS_PER_TASK)
        .map(|w| w.count_ones() as usize)
        .sum()
}

/// A bitmap of `n` bits with the given ids set.
pub(crate) fn sparse_to_bits(n: usize, ids: &[Vertex]) -> Vec<u64> {
    let words = n.div_ceil(64);
    if ids.len() < 4096 {
        let mut bits = vec![0u64; words];
        for &v in ids {
            bits[v as usize / 64] |= 1 << (v % 64);
        }
        return bits;
    }
    use std::sync::atomic::{AtomicU64, Ordering};
    let bits: Vec<AtomicU64> = (0..words)
        .into_par_iter()
        .map(|_| AtomicU64::new(0))
        .collect();
    ids.par_iter().with_min_len(1024).for_each(|&v| {
        bits[v as usize / 64].fetch_or(1 << (v % 64), Ordering::Relaxed);
    });
    bits.into_iter().map(AtomicU64::into_inner).collect()
}

/// The set bits of a bitmap, in increasing order.
pub(crate) fn bits_to_sparse(bits: &[u64]) -> Vec<Vertex> {
    if bits.len() <= WORDS_PER_TASK {
        return iter_bits(bits).collect();
    }
    let parts: Vec<Vec<Vertex>> = bits
        .par_chunks(WORDS_PER_TASK)
        .enumerate()
        .map(|(c, ws)| {
            let mut out = Vec::new();
            for (j, &w) in ws.iter().enumerate() {
                for_bits(c * WORDS_PER_TASK + j, w, |v| out.push(v));
            }
            out
        })
        .collect();
    concat(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_convert_and_agree() {
        let n = 200;
        let ids: Vec<Vertex> = vec![5, 0, 199, 64, 63, 128];
        let mut s = VertexSubset::from_sparse(n, ids.clone());
        assert_eq!(s.len(), 6);
        assert!(!s.is_dense());
        let mut d = s.clone();
        d.to_dense();
        assert!(d.is_dense());
        assert_eq!(d.len(), 6);
        assert!(d.contains(199) && d.contains(63) && !d.contains(62));
        assert_eq!(d.to_vec(), vec![0, 5, 63, 64, 128, 199]);
        assert_eq!(d.iter().collect::<Vec<_>>(), vec![0, 5, 63, 64, 128, 199]);
        assert_eq!(s, d);
        s.to_sparse();
        assert_eq!(s.sparse_ids().unwrap(), &ids[..]);
        d.to_sparse();
        assert_eq!(d.sparse_ids().unwrap(), &[0, 5, 63, 64, 128, 199]);
        assert!(VertexSubset::empty(10).is_empty());
        assert_eq!(VertexSubset::from_vertex(10, 9).to_vec(), vec![9]);
    }

    #[test]
    fn all_filter_map_large() {
        let n = 100_003;
        let a = VertexSubset::all(n);
        assert_eq!(a.len(), n);
        assert_eq!(a.par_sum(|_| 1), n);
        let f = vertex_filter(&a, |v| v % 3 == 0);
        assert_eq!(f.len(), n.div_ceil(3));
        let g = vertex_filter_all(n, |v| v % 3 == 0);
        assert_eq!(f, g);
        let mut sp = f.clone();
        sp.to_sparse();
        let h = vertex_filter(&sp, |v| v % 2 == 0);
        assert_eq!(h.len(), n.div_ceil(6));
        let mut hd = h.clone();
        hd.to_dense();
        assert_eq!(h, hd);
        use std::sync::atomic::{AtomicUsize, Ordering};
        let sum = AtomicUsize::new(0);
        vertex_map(&h, |v| {
            sum.fetch_add(v as usize, Ordering::Relaxed);
        });
        let expect: usize = (0..n).filter(|v| v % 6 == 0).sum();
        assert_eq!(sum.into_inner(), expect);
        let flags: Vec<bool> = (0..n).map(|v| v % 6 == 0).collect();
        assert_eq!(VertexSubset::from_flags(&flags), h);
    }
}
