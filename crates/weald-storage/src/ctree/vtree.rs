//! The vertex tree: a purely-functional treap keyed by vertex id whose values are edge
//! C-trees, augmented with the number of arcs in each subtree.

use super::tree::CTree;
use super::{higher, prefetch};
use std::sync::Arc;
use weald_graph::{Vertex, Weight};

/// Below this many batch items, the multi-update recursion runs sequentially.
const PAR_ITEMS: usize = 64;

pub(crate) type VLink<W> = Option<Arc<VNode<W>>>;

pub(crate) struct VNode<W: Weight> {
    pub(crate) left: VLink<W>,
    pub(crate) right: VLink<W>,
    /// Arcs in this subtree.
    pub(crate) arcs: u64,
    pub(crate) key: Vertex,
    pub(crate) tree: CTree<W>,
}

impl<W: Weight> Drop for VNode<W> {
    /// The fields are dropped after this: start loading what their drops decrement.
    #[inline]
    fn drop(&mut self) {
        prefetch_node(self);
    }
}

#[inline]
pub(crate) fn arcs<W: Weight>(l: &VLink<W>) -> u64 {
    l.as_ref().map_or(0, |n| n.arcs)
}

#[inline]
fn mk<W: Weight>(left: VLink<W>, key: Vertex, tree: CTree<W>, right: VLink<W>) -> Arc<VNode<W>> {
    let a = arcs(&left) + arcs(&right) + tree.len() as u64;
    Arc::new(VNode {
        left,
        right,
        arcs: a,
        key,
        tree,
    })
}

fn join3<W: Weight>(l: VLink<W>, key: Vertex, tree: CTree<W>, r: VLink<W>) -> Arc<VNode<W>> {
    let l_top = l.as_ref().is_some_and(|ln| {
        higher(ln.key, key) && r.as_ref().is_none_or(|rn| higher(ln.key, rn.key))
    });
    if l_top {
        let ln = l.unwrap();
        let nr = join3(ln.right.clone(), key, tree, r);
        return mk(ln.left.clone(), ln.key, ln.tree.clone(), Some(nr));
    }
    if let Some(rn) = r.as_ref().filter(|rn| higher(rn.key, key)) {
        let nl = join3(l, key, tree, rn.left.clone());
        return mk(Some(nl), rn.key, rn.tree.clone(), rn.right.clone());
    }
    mk(l, key, tree, r)
}

fn join2<W: Weight>(l: VLink<W>, r: VLink<W>) -> VLink<W> {
    match (l, r) {
        (None, r) => r,
        (l, None) => l,
        (Some(ln), Some(rn)) => Some(if higher(ln.key, rn.key) {
            let nr = join2(ln.right.clone(), Some(rn));
            mk(ln.left.clone(), ln.key, ln.tree.clone(), nr)
        } else {
            let nl = join2(Some(ln), rn.left.clone());
            mk(nl, rn.key, rn.tree.clone(), rn.right.clone())
        }),
    }
}

/// The edge tree of `v`, if `v` is present.
#[inline]
pub(crate) fn find<W: Weight>(t: &VLink<W>, v: Vertex) -> Option<&CTree<W>> {
    let mut cur = t.as_deref();
    while let Some(n) = cur {
        if v == n.key {
            return Some(&n.tree);
        }
        cur = if v < n.key {
            n.left.as_deref()
        } else {
            n.right.as_deref()
        };
    }
    None
}

/// The largest key.
pub(crate) fn max_key<W: Weight>(t: &VLink<W>) -> Option<Vertex> {
    let mut cur = t.as_deref()?;
    while let Some(r) = cur.right.as_deref() {
        cur = r;
    }
    Some(cur.key)
}

/// Number of vertices (nodes). O(n).
pub(crate) fn count<W: Weight>(t: &VLink<W>) -> usize {
    t.as_ref()
        .map_or(0, |n| 1 + count(&n.left) + count(&n.right))
}

/// Build the canonical treap from strictly increasing keys (moves the trees out).
fn build<W: Weight>(items: &mut [(Vertex, Option<CTree<W>>)]) -> VLink<W> {
    if items.is_empty() {
        return None;
    }
    let mut top = 0;
    for i in 1..items.len() {
        if higher(items[i].0, items[top].0) {
            top = i;
        }
    }
    let (left, rest) = items.split_at_mut(top);
    let (mid, right) = rest.split_at_mut(1);
    let (l, r) = if left.len() + right.len() >= 2 * PAR_ITEMS {
        rayon::join(|| build(left), || build(right))
    } else {
        (build(left), build(right))
    };
    Some(mk(l, mid[0].0, mid[0].1.take().unwrap(), r))
}

/// Build from strictly increasing `(vertex, tree)` pairs.
pub(crate) fn from_sorted<W: Weight>(items: Vec<(Vertex, CTree<W>)>) -> VLink<W> {
    let mut v: Vec<(Vertex, Option<CTree<W>>)> =
        items.into_iter().map(|(k, t)| (k, Some(t))).collect();
    build(&mut v)
}

/// Apply `f(v, current tree, item)` to every item (strictly increasing keys), in parallel:
/// `Some(t)` makes `t` the tree of `v` (inserting `v` if absent), `None` removes `v` (or
/// keeps it absent).
pub(crate) fn multi_update<W, I, F>(t: &VLink<W>, items: &[(Vertex, I)], f: &F) -> VLink<W>
where
    W: Weight,
    I: Sync,
    F: Fn(Vertex, Option<&CTree<W>>, &I) -> Option<CTree<W>> + Sync,
{
    update_rec(t, items, f, false)
}

/// Prefetch what path copying node `n` touches besides the child it descends into: the other
/// child, the prefix chunk and the edge-tree root (cloning writes their counts).
#[inline(always)]
fn prefetch_node<W: Weight>(n: &VNode<W>) {
    for c in [&n.left, &n.right].into_iter().flatten() {
        prefetch(Arc::as_ptr(c));
    }
    n.tree.prefix.prefetch();
    if let Some(r) = &n.tree.root {
        prefetch(Arc::as_ptr(r));
    }
}

/// Walk the search paths of `items` in lock step, a group at a time, prefetching each next
/// node: the cache misses of up to `GROUP` paths overlap instead of following one another.
/// The sequential multi-update that follows then finds its nodes in cache.
fn warm<W: Weight, I>(t: &VLink<W>, items: &[(Vertex, I)]) {
    const GROUP: usize = 16;
    let Some(root) = t.as_deref() else { return };
    for g in items.chunks(GROUP) {
        let mut cur: [Option<&VNode<W>>; GROUP] = [None; GROUP];
        for c in cur.iter_mut().take(g.len()) {
            *c = Some(root);
        }
        let mut live = g.len();
        while live > 0 {
            live = 0;
            for (c, (k, _)) in cur.iter_mut().zip(g) {
                let Some(n) = *c else { continue };
                prefetch_node(n);
                *c = match k.cmp(&n.key) {
                    std::cmp::Ordering::Less => n.left.as_deref(),
                    std::cmp::Ordering::Greater => n.right.as_deref(),
                    std::cmp::Ordering::Equal => None,
                };
                live += c.is_some() as usize;
            }
        }
    }
}

fn update_rec<W, I, F>(t: &VLink<W>, items: &[(Vertex, I)], f: &F, warmed: bool) -> VLink<W>
where
    W: Weight,
    I: Sync,
    F: Fn(Vertex, Option<&CTree<W>>, &I) -> Option<CTree<W>> + Sync,
{
    if items.is_empty() {
        return t.clone();
    }
    let Some(n) = t else {
        let mut built: Vec<(Vertex, Option<CTree<W>>)> = if items.len() >= PAR_ITEMS {
            use rayon::prelude::*;
            items
                .par_iter()
                .with_min_len(PAR_ITEMS)
                .filter_map(|(k, it)| f(*k, None, it).map(|t| (*k, Some(t))))
                .collect()
        } else {
            items
                .iter()
                .filter_map(|(k, it)| f(*k, None, it).map(|t| (*k, Some(t))))
                .collect()
        };
        return build(&mut built);
    };
    let par = items.len() >= PAR_ITEMS;
    if !par && !warmed {
        warm(t, items);
    }
    prefetch_node(n);
    let i = items.partition_point(|(k, _)| *k < n.key);
    let hit = i < items.len() && items[i].0 == n.key;
    let j = i + hit as usize;
    let go_left = || update_rec(&n.left, &items[..i], f, !par);
    let go_right = || update_rec(&n.right, &items[j..], f, !par);
    let (l, r) = if par {
        rayon::join(go_left, go_right)
    } else if i == 0 {
        // Descend first, clone the untouched side after (its prefetch has landed by then).
        let r = go_right();
        (go_left(), r)
    } else {
        (go_left(), go_right())
    };
    if !hit {
        return Some(join3(l, n.key, n.tree.clone(), r));
    }
    match f(n.key, Some(&n.tree), &items[i].1) {
        Some(t) => Some(join3(l, n.key, t, r)),
        None => join2(l, r),
    }
}

/// Call `f` on every node, in parallel.
pub(crate) fn par_for_each_node<W: Weight>(t: &VLink<W>, f: &(impl Fn(&VNode<W>) + Sync)) {
    let Some(n) = t else { return };
    if n.arcs >= 1024 {
        rayon::join(
            || par_for_each_node(&n.left, f),
            || par_for_each_node(&n.right, f),
        );
    } else {
        par_for_each_node(&n.left, f);
        par_for_each_node(&n.right, f);
    }
    f(n);
}

/// `reduce` of `map(node)` over all nodes, in parallel.
pub(crate) fn map_reduce_nodes<W: Weight, T: Send>(
    t: &VLink<W>,
    map: &(impl Fn(&VNode<W>) -> T + Sync),
    reduce: &(impl Fn(T, T) -> T + Sync),
    id: &(impl Fn() -> T + Sync),
) -> T {
    let Some(n) = t else { return id() };
    let (a, b) = if n.arcs >= 1024 {
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
    reduce(reduce(a, map(n)), b)
}

/// Check treap order, key order and the arc augmentation (tests).
#[cfg(test)]
pub(crate) fn check<W: Weight>(t: &VLink<W>, heads: super::Heads) {
    fn rec<W: Weight>(t: &VLink<W>, prev: &mut Option<Vertex>, heads: super::Heads) -> u64 {
        let Some(n) = t else { return 0 };
        for c in [&n.left, &n.right].into_iter().flatten() {
            assert!(!higher(c.key, n.key), "vertex treap order");
        }
        let a = rec(&n.left, prev, heads);
        assert!(prev.is_none_or(|p| p < n.key));
        *prev = Some(n.key);
        n.tree.check(n.key, heads);
        let b = rec(&n.right, prev, heads);
        assert_eq!(n.arcs, a + b + n.tree.len() as u64);
        n.arcs
    }
    rec(t, &mut None, heads);
}

/// `(max depth, total depth)` of the nodes (tests/diagnostics).
#[cfg(test)]
pub(crate) fn depth_stats<W: Weight>(t: &VLink<W>, d: usize) -> (usize, usize) {
    let Some(n) = t else { return (0, 0) };
    let a = depth_stats(&n.left, d + 1);
    let b = depth_stats(&n.right, d + 1);
    (a.0.max(b.0).max(d + 1), a.1 + b.1 + d + 1)
}
