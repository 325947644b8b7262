//! The C-tree: a prefix chunk plus a purely-functional treap of heads, each head owning the
//! tail chunk of non-heads up to the next head.
//!
//! The functions take the tree by reference and return a new tree (path copying); the input
//! stays valid. The exceptions, `CTree::insert_mut` and `CTree::delete_mut`, change a tree
//! their caller owns, in place where nothing else holds its nodes and chunks. `base` is the
//! value the prefix chunk is encoded relative to (the source vertex at the top level); a
//! head's tail is always encoded relative to the head.

use super::chunk::Chunk;
use super::{higher, prefetch, Heads};
use std::sync::Arc;
use weald_graph::batch::Combine;
use weald_graph::{Vertex, Weight};

/// Below this many batch elements, recursive updates run sequentially.
const PAR_ELEMS: usize = 2048;

#[cfg(test)]
thread_local! {
    /// Tests: runs with a new head that [`insert_rec_mut`] handed to `insert_rec` below a
    /// node it kept (or at the root), on this thread.
    pub(crate) static HEADS_BELOW_KEPT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Tests: nodes of [`insert_rec_mut`] joined anew because a child came to outrank them.
    pub(crate) static REJOINS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

pub(crate) type Link<W> = Option<Arc<Node<W>>>;

/// An edge-tree node: a head, its tail chunk, and its subtrees.
pub(crate) struct Node<W: Weight> {
    pub(crate) left: Link<W>,
    pub(crate) right: Link<W>,
    /// Elements in this subtree (heads and tails).
    pub(crate) size: usize,
    pub(crate) head: Vertex,
    pub(crate) w: W,
    pub(crate) tail: Chunk,
}

/// A C-tree over `(Vertex, W)` elements. The base of its prefix and the head rule are not
/// stored: the owner (a vertex of the graph, or a [`super::CTreeSet`]) supplies them.
pub(crate) struct CTree<W: Weight> {
    pub(crate) prefix: Chunk,
    pub(crate) root: Link<W>,
}

impl<W: Weight> Clone for CTree<W> {
    fn clone(&self) -> Self {
        CTree {
            prefix: self.prefix.clone(),
            root: self.root.clone(),
        }
    }
}

impl<W: Weight> Default for CTree<W> {
    fn default() -> Self {
        CTree {
            prefix: Chunk::empty(),
            root: None,
        }
    }
}

/// Prefetch what path copying `n` touches besides the child it descends into: the other
/// child and the tail chunk (cloning writes their counts).
#[inline(always)]
fn prefetch_node<W: Weight>(n: &Node<W>) {
    for c in [&n.left, &n.right].into_iter().flatten() {
        prefetch(Arc::as_ptr(c));
    }
    n.tail.prefetch();
}

impl<W: Weight> Drop for Node<W> {
    /// The fields are dropped after this: start loading what their drops decrement.
    #[inline]
    fn drop(&mut self) {
        prefetch_node(self);
    }
}

#[inline]
pub(crate) fn size<W: Weight>(l: &Link<W>) -> usize {
    l.as_ref().map_or(0, |n| n.size)
}

#[inline]
fn mk<W: Weight>(left: Link<W>, head: Vertex, w: W, tail: Chunk, right: Link<W>) -> Arc<Node<W>> {
    let size = size(&left) + size(&right) + 1 + tail.count();
    Arc::new(Node {
        left,
        right,
        size,
        head,
        w,
        tail,
    })
}

/// Treap join: all keys of `l` < `head` < all keys of `r`.
pub(crate) fn join3<W: Weight>(
    l: Link<W>,
    head: Vertex,
    w: W,
    tail: Chunk,
    r: Link<W>,
) -> Arc<Node<W>> {
    let l_top = l.as_ref().is_some_and(|ln| {
        higher(ln.head, head) && r.as_ref().is_none_or(|rn| higher(ln.head, rn.head))
    });
    if l_top {
        let ln = l.unwrap();
        let nr = join3(ln.right.clone(), head, w, tail, r);
        return mk(ln.left.clone(), ln.head, ln.w, ln.tail.clone(), Some(nr));
    }
    if let Some(rn) = r.as_ref().filter(|rn| higher(rn.head, head)) {
        // `rn` beats `head`, and `l`'s root did not beat both: `rn` is the top.
        let nl = join3(l, head, w, tail, rn.left.clone());
        return mk(Some(nl), rn.head, rn.w, rn.tail.clone(), rn.right.clone());
    }
    mk(l, head, w, tail, r)
}

/// Treap join of two trees with all keys of `l` < all keys of `r`.
pub(crate) fn join2<W: Weight>(l: Link<W>, r: Link<W>) -> Link<W> {
    match (l, r) {
        (None, r) => r,
        (l, None) => l,
        (Some(ln), Some(rn)) => Some(if higher(ln.head, rn.head) {
            let nr = join2(ln.right.clone(), Some(rn));
            mk(ln.left.clone(), ln.head, ln.w, ln.tail.clone(), nr)
        } else {
            let nl = join2(Some(ln), rn.left.clone());
            mk(nl, rn.head, rn.w, rn.tail.clone(), rn.right.clone())
        }),
    }
}

/// Build the canonical treap over heads `hs` (indices into `xs`); the tail of head `hs[i]`
/// runs to `hs[i + 1]` (or `end`).
fn build_nodes<W: Weight>(xs: &[(Vertex, W)], hs: &[usize], end: usize) -> Link<W> {
    if hs.is_empty() {
        return None;
    }
    let mut top = 0;
    for i in 1..hs.len() {
        if higher(xs[hs[i]].0, xs[hs[top]].0) {
            top = i;
        }
    }
    let h = hs[top];
    let tail_end = if top + 1 < hs.len() { hs[top + 1] } else { end };
    let (left, right) = if hs.len() >= 32 {
        rayon::join(
            || build_nodes(xs, &hs[..top], h),
            || build_nodes(xs, &hs[top + 1..], end),
        )
    } else {
        (
            build_nodes(xs, &hs[..top], h),
            build_nodes(xs, &hs[top + 1..], end),
        )
    };
    let (head, w) = xs[h];
    let tail = Chunk::encode(head, &xs[h + 1..tail_end]);
    Some(mk(left, head, w, tail, right))
}

impl<W: Weight> CTree<W> {
    /// Build from strictly increasing elements.
    pub(crate) fn build(xs: &[(Vertex, W)], base: Vertex, heads: Heads) -> Self {
        let first = xs.iter().position(|&(x, _)| heads.is_head(x));
        let Some(h0) = first else {
            return CTree {
                prefix: Chunk::encode(base, xs),
                root: None,
            };
        };
        let hs: Vec<usize> = if xs.len() >= 1 << 16 {
            use rayon::prelude::*;
            (h0..xs.len())
                .into_par_iter()
                .with_min_len(4096)
                .filter(|&i| heads.is_head(xs[i].0))
                .collect()
        } else {
            (h0..xs.len()).filter(|&i| heads.is_head(xs[i].0)).collect()
        };
        CTree {
            prefix: Chunk::encode(base, &xs[..h0]),
            root: build_nodes(xs, &hs, xs.len()),
        }
    }

    /// Number of elements, O(1).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.prefix.count() + size(&self.root)
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.prefix.is_empty() && self.root.is_none()
    }

    /// Start loading the prefix chunk and the root node (a hint for a scan that reads this
    /// tree soon; see `Graph::prefetch_out`).
    #[inline(always)]
    pub(crate) fn prefetch(&self) {
        self.prefix.prefetch();
        if let Some(r) = &self.root {
            prefetch(Arc::as_ptr(r));
        }
    }

    /// [`prefetch`](Self::prefetch), and the prefix chunk's second line, which a splice
    /// reads too when the chunk does not end in the first.
    #[inline(always)]
    pub(crate) fn prefetch_for_splice(&self) {
        self.prefetch();
        self.prefix.prefetch_second();
    }

    /// Weight of `x`, if present.
    pub(crate) fn find(&self, base: Vertex, x: Vertex) -> Option<W> {
        let mut cur = self.root.as_deref();
        let mut cand: Option<&Node<W>> = None;
        while let Some(n) = cur {
            if x == n.head {
                return Some(n.w);
            }
            if x < n.head {
                cur = n.left.as_deref();
            } else {
                cand = Some(n);
                cur = n.right.as_deref();
            }
        }
        match cand {
            None => self.prefix.find(base, x),
            Some(n) => n.tail.find(n.head, x),
        }
    }

    /// In-order traversal with early exit; `false` iff stopped.
    #[inline]
    pub(crate) fn for_each(&self, base: Vertex, mut f: impl FnMut(Vertex, W) -> bool) -> bool {
        self.prefix.for_each(base, &mut f)
            && (self.root.is_none() || for_each_node(&self.root, &mut f))
    }

    /// The number of elements and the first element with its weight; `None` if empty. O(1)
    /// when the prefix chunk is not empty (it holds the first element unless that is a head,
    /// one tree in b), O(log) otherwise.
    #[inline]
    pub(crate) fn first(&self, base: Vertex) -> Option<(usize, Vertex, W)> {
        match self.prefix.first(base) {
            Some((c, x, w)) => Some((c + size(&self.root), x, w)),
            None => {
                let mut n = self.root.as_deref()?;
                while let Some(l) = n.left.as_deref() {
                    n = l;
                }
                Some((size(&self.root), n.head, n.w))
            }
        }
    }

    /// [`for_each`](Self::for_each) without the first element (a caller that has it already,
    /// from [`first`](Self::first)).
    #[inline]
    pub(crate) fn for_each_after_first(
        &self,
        base: Vertex,
        mut f: impl FnMut(Vertex, W) -> bool,
    ) -> bool {
        if self.prefix.is_empty() {
            // The first element is the leftmost head.
            let mut skip = true;
            return for_each_node(&self.root, &mut |x, w| std::mem::take(&mut skip) || f(x, w));
        }
        self.prefix.for_each_after_first(base, &mut f)
            && (self.root.is_none() || for_each_node(&self.root, &mut f))
    }

    /// Fold `f` over the elements' weights, in element order, without decoding the elements
    /// ([`Chunk::fold_weights`]); over `W::default()` per element when unweighted.
    pub(crate) fn fold_weights<T>(&self, base: Vertex, init: T, mut f: impl FnMut(T, W) -> T) -> T {
        if !W::WEIGHTED {
            return (0..self.len()).fold(init, |a, _| f(a, W::default()));
        }
        let acc = self.prefix.fold_weights(base, init, &mut f);
        fold_nodes(&self.root, acc, &mut |acc, n| {
            n.tail.fold_weights(n.head, f(acc, n.w), &mut f)
        })
    }

    /// Fold `f` over the elements `(x, w)` in order ([`Chunk::fold`]). The state goes by value
    /// through every chunk and node; [`for_each`](Self::for_each)'s closure, passed down by
    /// reference, keeps captured state in memory (see `InGraph::fold_in`).
    #[inline]
    pub(crate) fn fold<T: Copy>(
        &self,
        base: Vertex,
        init: T,
        mut f: impl FnMut(T, Vertex, W) -> T,
    ) -> T {
        let acc = self.prefix.fold(base, init, &mut f);
        fold_nodes(&self.root, acc, &mut |acc, n| {
            n.tail.fold(n.head, f(acc, n.head, n.w), &mut f)
        })
    }

    /// [`for_each_ahead`](Self::for_each_ahead) as a fold ([`Chunk::fold_ahead`] on each
    /// chunk), the state by value as in [`fold`](Self::fold).
    #[inline]
    pub(crate) fn fold_ahead<T: Copy>(
        &self,
        base: Vertex,
        dist: usize,
        ahead: &impl Fn(Vertex),
        init: T,
        mut f: impl FnMut(T, Vertex, W) -> T,
    ) -> T {
        let acc = self.prefix.fold_ahead(base, dist, ahead, init, &mut f);
        fold_nodes(&self.root, acc, &mut |acc, n| {
            let acc = f(acc, n.head, n.w);
            n.tail.fold_ahead(n.head, dist, ahead, acc, &mut f)
        })
    }

    /// Call `f` on every element in order, and `ahead` on elements before `f` gets them
    /// ([`Chunk::for_each_ahead`] on each chunk: the look-ahead restarts at every chunk, so
    /// it covers all but the heads of a multi-chunk tree): [`fold_ahead`](Self::fold_ahead)
    /// without state.
    #[inline]
    pub(crate) fn for_each_ahead(
        &self,
        base: Vertex,
        dist: usize,
        ahead: &impl Fn(Vertex),
        mut f: impl FnMut(Vertex, W),
    ) {
        self.fold_ahead(base, dist, ahead, (), |(), x, w| f(x, w));
    }

    /// All elements in order.
    pub(crate) fn to_vec(&self, base: Vertex) -> Vec<(Vertex, W)> {
        let mut v = Vec::with_capacity(self.len());
        self.for_each(base, |x, w| {
            v.push((x, w));
            true
        });
        v
    }

    /// Call `f` on every element, in parallel across chunks (any order).
    pub(crate) fn par_for_each<F: Fn(Vertex, W) + Sync>(&self, base: Vertex, f: &F) {
        let scan = |c: &Chunk, b: Vertex, f: &F| {
            c.for_each(b, |x, w| {
                f(x, w);
                true
            });
        };
        scan(&self.prefix, base, f);
        par_nodes(&self.root, f, &scan);
    }

    /// [`par_for_each`](Self::par_for_each) with each chunk scanned by
    /// [`Chunk::for_each_ahead`].
    pub(crate) fn par_for_each_ahead<F: Fn(Vertex, W) + Sync>(
        &self,
        base: Vertex,
        dist: usize,
        ahead: &(impl Fn(Vertex) + Sync),
        f: &F,
    ) {
        let scan = |c: &Chunk, b: Vertex, f: &F| c.for_each_ahead(b, dist, ahead, f);
        scan(&self.prefix, base, f);
        par_nodes(&self.root, f, &scan);
    }

    /// Map every element and reduce, in parallel across chunks.
    pub(crate) fn map_reduce<T: Send>(
        &self,
        base: Vertex,
        map: &(impl Fn(Vertex, W) -> T + Sync),
        reduce: &(impl Fn(T, T) -> T + Sync),
        id: &(impl Fn() -> T + Sync),
    ) -> T {
        let mut acc = id();
        self.prefix.for_each(base, |x, w| {
            acc = reduce(std::mem::replace(&mut acc, id()), map(x, w));
            true
        });
        let t = map_reduce_nodes(&self.root, map, reduce, id);
        reduce(acc, t)
    }

    /// Insert (or combine) the strictly increasing `xs`: the existing weight `old` becomes
    /// `old.combine(new, rule)`.
    pub(crate) fn multi_insert(
        &self,
        base: Vertex,
        xs: &[(Vertex, W)],
        heads: Heads,
        rule: Combine,
    ) -> Self {
        if xs.is_empty() {
            return self.clone();
        }
        let (prefix, root) = insert_rec(&self.prefix, &self.root, base, xs, heads, rule);
        CTree { prefix, root }
    }

    /// Remove the strictly increasing keys `ks` (absent keys are ignored).
    pub(crate) fn multi_delete(&self, base: Vertex, ks: &[Vertex]) -> Self {
        if ks.is_empty() {
            return self.clone();
        }
        let (prefix, root) = delete_rec(&self.prefix, &self.root, base, ks);
        CTree { prefix, root }
    }

    /// [`multi_insert`](Self::multi_insert) into this tree, in place where nothing else holds
    /// its nodes and chunks: the nodes are kept and the chunks the elements land in are
    /// spliced in their own allocations ([`Chunk::splice_mut`]); shared subtrees are
    /// path-copied. A new head rebuilds the chunk it lands in, and the nodes above it that
    /// it comes to outrank (see `insert_rec_mut`).
    pub(crate) fn insert_mut(
        &mut self,
        base: Vertex,
        xs: &[(Vertex, W)],
        heads: Heads,
        rule: Combine,
    ) {
        if !xs.is_empty() {
            insert_rec_mut(&mut self.prefix, &mut self.root, base, xs, heads, rule);
        }
    }

    /// [`multi_delete`](Self::multi_delete) from this tree, in place as
    /// [`insert_mut`](Self::insert_mut) is; a subtree that loses a head is path-copied.
    pub(crate) fn delete_mut(&mut self, base: Vertex, ks: &[Vertex]) {
        if !ks.is_empty() {
            delete_tails_mut(&mut self.prefix, &mut self.root, base, ks);
        }
    }

    /// Count `(edge-tree nodes, chunk bytes)`.
    pub(crate) fn memory(&self) -> (usize, usize) {
        let mut nodes = 0;
        let mut bytes = self.prefix.bytes();
        count_nodes(&self.root, &mut nodes, &mut bytes);
        (nodes, bytes)
    }

    /// Check the structural invariants (tests): sorted, heads exactly the hashed elements,
    /// sizes, treap order.
    #[cfg(test)]
    pub(crate) fn check(&self, base: Vertex, heads: Heads) {
        let mut prev: Option<Vertex> = None;
        self.prefix.for_each(base, |x, _: W| {
            assert!(!heads.is_head(x), "head {x} in a chunk");
            assert!(prev.is_none_or(|p| p < x));
            prev = Some(x);
            true
        });
        fn rec<W: Weight>(l: &Link<W>, prev: &mut Option<Vertex>, heads: Heads) -> usize {
            let Some(n) = l else { return 0 };
            for c in [&n.left, &n.right].into_iter().flatten() {
                assert!(!higher(c.head, n.head), "treap order");
            }
            let ls = rec(&n.left, prev, heads);
            assert!(heads.is_head(n.head));
            assert!(prev.is_none_or(|p| p < n.head));
            *prev = Some(n.head);
            n.tail.for_each(n.head, |x, _: W| {
                assert!(!heads.is_head(x));
                assert!(prev.is_none_or(|p| p < x));
                *prev = Some(x);
                true
            });
            let rs = rec(&n.right, prev, heads);
            assert_eq!(n.size, ls + rs + 1 + n.tail.count());
            n.size
        }
        rec(&self.root, &mut prev, heads);
    }
}

fn for_each_node<W: Weight>(l: &Link<W>, f: &mut impl FnMut(Vertex, W) -> bool) -> bool {
    let Some(n) = l else { return true };
    prefetch_node(n);
    for_each_node(&n.left, f)
        && f(n.head, n.w)
        && n.tail.for_each(n.head, &mut *f)
        && for_each_node(&n.right, f)
}

/// Fold `f` over the nodes in order (`f` folds a node's head and its tail).
fn fold_nodes<W: Weight, T>(l: &Link<W>, acc: T, f: &mut impl FnMut(T, &Node<W>) -> T) -> T {
    let Some(n) = l else { return acc };
    prefetch_node(n);
    let acc = fold_nodes(&n.left, acc, f);
    let acc = f(acc, n);
    fold_nodes(&n.right, acc, f)
}

/// `f` on every head and `tail(chunk, its head, f)` on every tail, in parallel over subtrees
/// of at least 4096 elements.
fn par_nodes<W: Weight, F: Fn(Vertex, W) + Sync>(
    l: &Link<W>,
    f: &F,
    tail: &(impl Fn(&Chunk, Vertex, &F) + Sync),
) {
    let Some(n) = l else { return };
    let body = || {
        f(n.head, n.w);
        tail(&n.tail, n.head, f);
    };
    if n.size >= 4096 {
        rayon::join(
            || par_nodes(&n.left, f, tail),
            || par_nodes(&n.right, f, tail),
        );
        body();
    } else {
        par_nodes(&n.left, f, tail);
        body();
        par_nodes(&n.right, f, tail);
    }
}

fn map_reduce_nodes<W: Weight, T: Send>(
    l: &Link<W>,
    map: &(impl Fn(Vertex, W) -> T + Sync),
    reduce: &(impl Fn(T, T) -> T + Sync),
    id: &(impl Fn() -> T + Sync),
) -> T {
    let Some(n) = l else { return id() };
    let (a, b) = if n.size >= 4096 {
        rayon::join(
            || map_reduce_nodes(&n.left, map, reduce, id),
            || map_reduce_nodes(&n.right, map, reduce, id),
        )
    } else {
        (
            map_reduce_nodes(&n.left, map, reduce, id),
            map_reduce_nodes(&n.right, map, reduce, id),
        )
    };
    let mut acc = reduce(a, map(n.head, n.w));
    n.tail.for_each(n.head, |x, w| {
        acc = reduce(std::mem::replace(&mut acc, id()), map(x, w));
        true
    });
    reduce(acc, b)
}

fn count_nodes<W: Weight>(l: &Link<W>, nodes: &mut usize, bytes: &mut usize) {
    if let Some(n) = l {
        *nodes += 1;
        *bytes += n.tail.bytes();
        count_nodes(&n.left, nodes, bytes);
        count_nodes(&n.right, nodes, bytes);
    }
}

/// Merge two strictly increasing runs; equal keys combine `old.combine(new, rule)`.
pub(crate) fn merge_sorted<W: Weight>(
    old: &[(Vertex, W)],
    new: &[(Vertex, W)],
    rule: Combine,
    out: &mut Vec<(Vertex, W)>,
) {
    out.reserve(old.len() + new.len());
    let (mut i, mut j) = (0, 0);
    while i < old.len() && j < new.len() {
        let (a, b) = (old[i], new[j]);
        if a.0 < b.0 {
            out.push(a);
            i += 1;
        } else if b.0 < a.0 {
            out.push(b);
            j += 1;
        } else {
            out.push((
                a.0,
                if W::WEIGHTED {
                    a.1.combine(b.1, rule)
                } else {
                    a.1
                },
            ));
            i += 1;
            j += 1;
        }
    }
    out.extend_from_slice(&old[i..]);
    out.extend_from_slice(&new[j..]);
}

/// `(prefix, root)` of the sequence `prefix ++ root` (prefix relative to `base`) with `xs`
/// inserted. Everything in `xs` is greater than the element that precedes this sequence.
fn insert_rec<W: Weight>(
    prefix: &Chunk,
    root: &Link<W>,
    base: Vertex,
    xs: &[(Vertex, W)],
    heads: Heads,
    rule: Combine,
) -> (Chunk, Link<W>) {
    let Some(n) = root else {
        if !xs.iter().any(|&(x, _)| heads.is_head(x)) {
            // Still one chunk: splice the new elements in.
            return (prefix.splice(base, xs, &[], rule), None);
        }
        let mut old = Vec::new();
        prefix.decode_into(base, &mut old);
        let mut merged = Vec::new();
        merge_sorted(&old, xs, rule, &mut merged);
        let t = CTree::build(&merged, base, heads);
        return (t.prefix, t.root);
    };
    prefetch_node(n);
    let i = xs.partition_point(|&(x, _)| x < n.head);
    let hit = i < xs.len() && xs[i].0 == n.head;
    let j = i + hit as usize;
    let go_left = || {
        if i == 0 {
            (prefix.clone(), n.left.clone())
        } else {
            insert_rec(prefix, &n.left, base, &xs[..i], heads, rule)
        }
    };
    let go_right = || {
        if j == xs.len() {
            (n.tail.clone(), n.right.clone())
        } else {
            insert_rec(&n.tail, &n.right, n.head, &xs[j..], heads, rule)
        }
    };
    let ((lp, lr), (rp, rr)) = if xs.len() >= PAR_ELEMS {
        rayon::join(go_left, go_right)
    } else {
        (go_left(), go_right())
    };
    let w = if hit && W::WEIGHTED {
        n.w.combine(xs[i].1, rule)
    } else {
        n.w
    };
    (lp, Some(join3(lr, n.head, w, rp, rr)))
}

/// `(prefix, root)` of the sequence with the keys `ks` removed.
fn delete_rec<W: Weight>(
    prefix: &Chunk,
    root: &Link<W>,
    base: Vertex,
    ks: &[Vertex],
) -> (Chunk, Link<W>) {
    let Some(n) = root else {
        // (A splice that deletes nothing returns the chunk itself.)
        return (prefix.splice::<W>(base, &[], ks, Combine::First), None);
    };
    prefetch_node(n);
    let i = ks.partition_point(|&x| x < n.head);
    let hit = i < ks.len() && ks[i] == n.head;
    let j = i + hit as usize;
    let go_left = || {
        if i == 0 {
            (prefix.clone(), n.left.clone())
        } else {
            delete_rec(prefix, &n.left, base, &ks[..i])
        }
    };
    let go_right = || {
        if j == ks.len() {
            (n.tail.clone(), n.right.clone())
        } else {
            delete_rec(&n.tail, &n.right, n.head, &ks[j..])
        }
    };
    let ((lp, lr), (rp, rr)) = if ks.len() >= PAR_ELEMS {
        rayon::join(go_left, go_right)
    } else {
        (go_left(), go_right())
    };
    if !hit {
        return (lp, Some(join3(lr, n.head, n.w, rp, rr)));
    }
    // The head goes: its (remaining) tail joins the last block on the left.
    if rp.is_empty() {
        return (lp, join2(lr, rr));
    }
    let mut extra = Vec::new();
    rp.decode_into(n.head, &mut extra);
    match lr {
        None => {
            let mut all = Vec::new();
            lp.decode_into(base, &mut all);
            all.extend_from_slice(&extra);
            (Chunk::encode(base, &all), rr)
        }
        Some(l) => (lp, join2(Some(append_last(&l, &extra)), rr)),
    }
}

/// [`insert_rec`] of the non-empty `xs` in place: nodes that nothing else holds are kept,
/// the chunks are spliced with [`Chunk::splice_mut`], and a shared subtree is path-copied.
/// A new head lands in the chunk that holds its run, which `insert_rec` splits there (with
/// the subtree below it, empty or shared); the new subtree's root may then outrank the
/// node above it, which is joined anew with its children ([`join3`], which allocates new
/// nodes along the path it rebuilds; the node it replaces is dropped).
/// (Before, a batch with any new head path-copied its tree: every chunk the batch touched
/// in a hub's tree, which a large batch nearly always gives a new head, was copied into a
/// new allocation instead of spliced in place; see the measurements in `ctree/mod.rs`.)
fn insert_rec_mut<W: Weight>(
    prefix: &mut Chunk,
    root: &mut Link<W>,
    base: Vertex,
    xs: &[(Vertex, W)],
    heads: Heads,
    rule: Combine,
) {
    let Some(n) = root.as_mut().and_then(super::unique_mut) else {
        let new_head = || xs.iter().any(|&(x, _)| heads.is_head(x));
        if root.is_none() && !new_head() {
            prefix.splice_mut(base, xs, &[], rule);
        } else {
            #[cfg(test)]
            HEADS_BELOW_KEPT.set(HEADS_BELOW_KEPT.get() + usize::from(new_head()));
            (*prefix, *root) = insert_rec(prefix, root, base, xs, heads, rule);
        }
        return;
    };
    let i = xs.partition_point(|&(x, _)| x < n.head);
    let hit = xs.get(i).is_some_and(|&(x, _)| x == n.head);
    if hit && W::WEIGHTED {
        n.w = n.w.combine(xs[i].1, rule);
    }
    let (lx, rx) = (&xs[..i], &xs[i + hit as usize..]);
    update_sides_mut(
        n,
        prefix,
        xs.len() >= PAR_ELEMS,
        |prefix, left| {
            if !lx.is_empty() {
                insert_rec_mut(prefix, left, base, lx, heads, rule);
            }
        },
        |tail, right, head| {
            if !rx.is_empty() {
                insert_rec_mut(tail, right, head, rx, heads, rule);
            }
        },
    );
    let outranks = |c: &Link<W>| c.as_ref().is_some_and(|c| higher(c.head, n.head));
    if outranks(&n.left) || outranks(&n.right) {
        #[cfg(test)]
        REJOINS.set(REJOINS.get() + 1);
        let (l, r) = (n.left.take(), n.right.take());
        let tail = std::mem::take(&mut n.tail);
        *root = Some(join3(l, n.head, n.w, tail, r));
    }
}

/// [`delete_rec`] of the non-empty `ks` in place, as [`insert_rec_mut`]: a subtree in which
/// a head goes is path-copied by `delete_rec` (fewer heads: it still fits under its parent).
fn delete_tails_mut<W: Weight>(
    prefix: &mut Chunk,
    root: &mut Link<W>,
    base: Vertex,
    ks: &[Vertex],
) {
    let split = root
        .as_mut()
        .and_then(super::unique_mut)
        .map(|n| (ks.partition_point(|&k| k < n.head), n))
        .filter(|&(i, ref n)| ks.get(i) != Some(&n.head));
    let Some((i, n)) = split else {
        if root.is_none() {
            prefix.splice_mut::<W>(base, &[], ks, Combine::First);
        } else {
            (*prefix, *root) = delete_rec(prefix, root, base, ks);
        }
        return;
    };
    let (lk, rk) = ks.split_at(i);
    update_sides_mut(
        n,
        prefix,
        ks.len() >= PAR_ELEMS,
        |prefix, left| {
            if !lk.is_empty() {
                delete_tails_mut(prefix, left, base, lk);
            }
        },
        |tail, right, head| {
            if !rk.is_empty() {
                delete_tails_mut(tail, right, head, rk);
            }
        },
    );
}

/// The recursion step of the in-place updates: `left` on the sequence left of `n`'s head
/// (`prefix`, the prefix of the sequence `n` roots, and `n.left`), `right` on the one after
/// it (`n.tail` and `n.right`, relative to `n.head`), in parallel when `par`; then `n`'s size
/// is recounted (its head stays).
fn update_sides_mut<W: Weight>(
    n: &mut Node<W>,
    prefix: &mut Chunk,
    par: bool,
    left: impl FnOnce(&mut Chunk, &mut Link<W>) + Send,
    right: impl FnOnce(&mut Chunk, &mut Link<W>, Vertex) + Send,
) {
    let (l, tail, r, head) = (&mut n.left, &mut n.tail, &mut n.right, n.head);
    let go_left = || left(prefix, l);
    let go_right = || right(tail, r, head);
    if par {
        rayon::join(go_left, go_right);
    } else {
        go_left();
        go_right();
    }
    n.size = size(&n.left) + size(&n.right) + 1 + n.tail.count();
}

/// Append `extra` (non-heads greater than everything in `l`) to the last tail of `l`.
fn append_last<W: Weight>(l: &Arc<Node<W>>, extra: &[(Vertex, W)]) -> Arc<Node<W>> {
    match &l.right {
        Some(r) => {
            let nr = append_last(r, extra);
            mk(l.left.clone(), l.head, l.w, l.tail.clone(), Some(nr))
        }
        None => {
            let mut all = Vec::new();
            l.tail.decode_into(l.head, &mut all);
            all.extend_from_slice(extra);
            mk(
                l.left.clone(),
                l.head,
                l.w,
                Chunk::encode(l.head, &all),
                None,
            )
        }
    }
}

/// Split at `k`: `(elements < k, weight of k if present, elements > k)`; the right part's
/// prefix is encoded relative to `right_base`.
pub(crate) fn split<W: Weight>(
    prefix: &Chunk,
    root: &Link<W>,
    base: Vertex,
    k: Vertex,
    right_base: Vertex,
) -> (CTree<W>, Option<W>, CTree<W>) {
    let Some(n) = root else {
        let mut lo = Vec::new();
        let mut hi = Vec::new();
        let mut found = None;
        prefix.for_each(base, |x, w| {
            if x < k {
                lo.push((x, w));
            } else if x == k {
                found = Some(w);
            } else {
                hi.push((x, w));
            }
            true
        });
        return (
            CTree {
                prefix: Chunk::encode(base, &lo),
                root: None,
            },
            found,
            CTree {
                prefix: Chunk::encode(right_base, &hi),
                root: None,
            },
        );
    };
    if k < n.head {
        let (l, f, r) = split(prefix, &n.left, base, k, right_base);
        let root = join3(r.root, n.head, n.w, n.tail.clone(), n.right.clone());
        (
            l,
            f,
            CTree {
                prefix: r.prefix,
                root: Some(root),
            },
        )
    } else if k > n.head {
        let (l, f, r) = split(&n.tail, &n.right, n.head, k, right_base);
        let root = join3(n.left.clone(), n.head, n.w, l.prefix, l.root);
        (
            CTree {
                prefix: prefix.clone(),
                root: Some(root),
            },
            f,
            r,
        )
    } else {
        let mut tail: Vec<(Vertex, W)> = Vec::new();
        n.tail.decode_into(n.head, &mut tail);
        (
            CTree {
                prefix: prefix.clone(),
                root: n.left.clone(),
            },
            Some(n.w),
            CTree {
                prefix: Chunk::encode(right_base, &tail),
                root: n.right.clone(),
            },
        )
    }
}
