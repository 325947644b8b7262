//! [`CTreeSet`]: a standalone C-tree with the set operations (build, find, union, difference,
//! intersection, split, map/reduce, for_each). The graph stores the same trees without the
//! `base`/`b` fields, which its vertices supply.

use super::tree::{split, CTree};
use super::Heads;
use weald_graph::batch::Combine;
use weald_graph::{Vertex, Weight};

/// A purely-functional, chunked, compressed ordered set of `u32` keys with weights `W`.
/// Cloning is cheap apart from the prefix chunk (at most a few hundred bytes on average).
pub struct CTreeSet<W: Weight = ()> {
    base: Vertex,
    heads: Heads,
    tree: CTree<W>,
}

impl<W: Weight> Clone for CTreeSet<W> {
    fn clone(&self) -> Self {
        CTreeSet {
            base: self.base,
            heads: self.heads,
            tree: self.tree.clone(),
        }
    }
}

impl<W: Weight> std::fmt::Debug for CTreeSet<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.to_vec()).finish()
    }
}

fn flip(rule: Combine) -> Combine {
    match rule {
        Combine::First => Combine::Last,
        Combine::Last => Combine::First,
        r => r,
    }
}

impl<W: Weight> CTreeSet<W> {
    /// An empty set whose prefix is encoded relative to `base`, with expected chunk size `b`
    /// (a key is a head with probability `1/b`; `b >= 1`).
    pub fn new(base: Vertex, b: u32) -> Self {
        CTreeSet {
            base,
            heads: Heads::new(b),
            tree: CTree::default(),
        }
    }

    /// Build from strictly increasing `(key, weight)` pairs (parallel for large inputs).
    pub fn from_sorted(base: Vertex, b: u32, xs: &[(Vertex, W)]) -> Self {
        let heads = Heads::new(b);
        CTreeSet {
            base,
            heads,
            tree: CTree::build(xs, base, heads),
        }
    }

    fn with(&self, tree: CTree<W>) -> Self {
        CTreeSet {
            base: self.base,
            heads: self.heads,
            tree,
        }
    }

    /// Number of elements, O(1).
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// The weight of `x`, if present. O(log n + b).
    pub fn find(&self, x: Vertex) -> Option<W> {
        self.tree.find(self.base, x)
    }

    pub fn contains(&self, x: Vertex) -> bool {
        self.find(x).is_some()
    }

    /// In-order traversal until `f` returns `false`; returns `false` iff stopped early.
    pub fn for_each(&self, f: impl FnMut(Vertex, W) -> bool) -> bool {
        self.tree.for_each(self.base, f)
    }

    /// Every element, in parallel across chunks, in no particular order.
    pub fn par_for_each(&self, f: impl Fn(Vertex, W) + Sync) {
        self.tree.par_for_each(self.base, &f)
    }

    /// `reduce` over `map` of every element (parallel across chunks); `reduce` must be
    /// associative with identity `id()`.
    pub fn map_reduce<T: Send>(
        &self,
        map: impl Fn(Vertex, W) -> T + Sync,
        reduce: impl Fn(T, T) -> T + Sync,
        id: impl Fn() -> T + Sync,
    ) -> T {
        self.tree.map_reduce(self.base, &map, &reduce, &id)
    }

    /// The elements in order.
    pub fn to_vec(&self) -> Vec<(Vertex, W)> {
        self.tree.to_vec(self.base)
    }

    /// Insert strictly increasing `xs`; a key already present gets `old.combine(new, rule)`.
    pub fn insert_sorted(&self, xs: &[(Vertex, W)], rule: Combine) -> Self {
        self.with(self.tree.multi_insert(self.base, xs, self.heads, rule))
    }

    /// Remove strictly increasing keys `ks` (absent ones are ignored).
    pub fn delete_sorted(&self, ks: &[Vertex]) -> Self {
        self.with(self.tree.multi_delete(self.base, ks))
    }

    /// `self ∪ other`; common keys get `self_w.combine(other_w, rule)`. The smaller set is
    /// flattened and multi-inserted into the larger: O(k log(n/k + 1)) nodes plus the chunks
    /// touched, k = the smaller size. Both sets must use the same `b`.
    pub fn union(&self, other: &Self, rule: Combine) -> Self {
        assert_eq!(self.heads, other.heads, "union of C-trees with different b");
        if other.len() <= self.len() {
            self.insert_sorted(&other.to_vec(), rule)
        } else {
            let t = other
                .tree
                .multi_insert(other.base, &self.to_vec(), self.heads, flip(rule));
            // Re-root at our base (re-encodes only the prefix).
            self.rebase_from(other.base, t)
        }
    }

    fn rebase_from(&self, from: Vertex, t: CTree<W>) -> Self {
        if from == self.base {
            return self.with(t);
        }
        let mut xs: Vec<(Vertex, W)> = Vec::new();
        t.prefix.decode_into(from, &mut xs);
        self.with(CTree {
            prefix: super::chunk::Chunk::encode(self.base, &xs),
            root: t.root,
        })
    }

    /// `self \ other`.
    pub fn difference(&self, other: &Self) -> Self {
        let ks: Vec<Vertex> = other.to_vec().into_iter().map(|(x, _)| x).collect();
        self.delete_sorted(&ks)
    }

    /// `self ∩ other`, keeping the weights of `self`.
    pub fn intersection(&self, other: &Self) -> Self {
        let xs: Vec<(Vertex, W)> = if self.len() <= other.len() {
            self.to_vec()
                .into_iter()
                .filter(|&(x, _)| other.contains(x))
                .collect()
        } else {
            other
                .to_vec()
                .into_iter()
                .filter_map(|(x, _)| self.find(x).map(|w| (x, w)))
                .collect()
        };
        self.with(CTree::build(&xs, self.base, self.heads))
    }

    /// `(elements < k, weight of k if present, elements > k)`. O(log n + b).
    pub fn split(&self, k: Vertex) -> (Self, Option<W>, Self) {
        let (l, f, r) = split(&self.tree.prefix, &self.tree.root, self.base, k, self.base);
        (self.with(l), f, self.with(r))
    }

    /// `(edge-tree nodes, chunk bytes)`.
    pub fn memory(&self) -> (usize, usize) {
        self.tree.memory()
    }

    #[cfg(test)]
    pub(crate) fn check(&self) {
        self.tree.check(self.base, self.heads)
    }
}
