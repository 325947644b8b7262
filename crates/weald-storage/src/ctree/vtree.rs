//! The vertex tree: a purely-functional treap of vertex *blocks*, each node counting its own
//! block's arcs and its subtree's nodes ([`VTree`] keeps the total arcs).
//!
//! A block holds the [`K`] consecutive ids `key·K .. key·K + K`: a mask of the ids present, a
//! mask of those with a non-empty edge tree, and one shared array of those trees (in id
//! order; an array edited in place may have a few empty slots after them, see [`Block`]), so
//! an absent vertex or a vertex without edges costs no slot. A block exists
//! while at least one of its ids is present. Blocks are what the treap orders (by block id;
//! priorities in [`higher`]: dense ids give a balanced tree), so the tree has `n / K` nodes
//! instead of `n`: fewer node copies per batch, fewer cold levels per path, and a vertex
//! costs `16 · (has edges)` bytes plus its share of the block's 80 bytes (node 56, its count
//! 8 ([`Counted`]: one 64-byte line), the array's count and length 16 ([`CountedSlice`])) —
//! 5 bytes when all 16 ids are present — instead of a 64-byte node.
//!
//! Updating a vertex of a shared block copies the block's array (cloning the other trees of
//! the block, which writes their counts; the walk prefetches them) and the search path of
//! nodes; the array is shared (counted) so that path copying the nodes above never copies it.
//! Nodes and arrays that nothing else holds are edited in place instead
//! ([`VTree::multi_update_mut`]), reaching the blocks through a [`BlockIndex`] when the whole
//! tree is held by nothing else.

use super::counted::{Counted, CountedSlice};
use super::tree::CTree;
use super::{fmix32, prefetch, SEED_PRIO};
use rayon::prelude::*;
use std::sync::atomic::{fence, Ordering::Acquire};
use std::sync::Arc;
use weald_graph::{Vertex, Weight};

/// The current tree of a present vertex that an update visits: borrowed from a block that
/// another version may hold (the update makes a new tree and leaves it alone), or taken out
/// of a block that nothing else holds (the update may reuse it: [`Cur::insert`]).
pub(crate) enum Cur<'a, W: Weight> {
    Shared(&'a CTree<W>),
    Owned(CTree<W>),
}

impl<W: Weight> std::ops::Deref for Cur<'_, W> {
    type Target = CTree<W>;
    #[inline]
    fn deref(&self) -> &CTree<W> {
        match self {
            Cur::Shared(t) => t,
            Cur::Owned(t) => t,
        }
    }
}

impl<W: Weight> Cur<'_, W> {
    /// The tree itself (a clone when shared).
    pub(crate) fn into_tree(self) -> CTree<W> {
        match self {
            Cur::Shared(t) => t.clone(),
            Cur::Owned(t) => t,
        }
    }

    /// The tree with `xs` inserted ([`CTree::multi_insert`]; in place when owned).
    pub(crate) fn insert(
        self,
        base: Vertex,
        xs: &[(Vertex, W)],
        heads: super::Heads,
        rule: weald_graph::batch::Combine,
    ) -> CTree<W> {
        match self {
            Cur::Shared(t) => t.multi_insert(base, xs, heads, rule),
            Cur::Owned(mut t) => {
                t.insert_mut(base, xs, heads, rule);
                t
            }
        }
    }

    /// The tree without the keys `ks` ([`CTree::multi_delete`]; in place when owned).
    pub(crate) fn delete(self, base: Vertex, ks: &[Vertex]) -> CTree<W> {
        match self {
            Cur::Shared(t) => t.multi_delete(base, ks),
            Cur::Owned(mut t) => {
                t.delete_mut(base, ks);
                t
            }
        }
    }
}

/// Below this many batch items, the multi-update recursion runs sequentially.
const PAR_ITEMS: usize = 64;

/// One bit per id of a block.
pub(crate) type Mask = u16;
/// Ids per block.
pub(crate) const K: usize = Mask::BITS as usize;
const LOG_K: u32 = Mask::BITS.trailing_zeros();
const _: () = assert!(K <= 64 && K.is_power_of_two());

/// Treap priority order of block keys: does `a` belong above `b`? The priority is the number
/// of trailing zeros of `key + 1`, ties broken by a hash of the key (then the key). Dense keys
/// `0..N` (the usual case: ids are dense, so blocks are) then make a perfectly balanced tree,
/// ~log2 N deep instead of a random treap's ~1.39 log2 N on average, and the shape is still a
/// function of the set of keys. Any keys keep a valid treap whose depth is at most the sum,
/// over the (at most 33) trailing-zero classes, of a random treap's depth.
#[inline(always)]
fn higher(a: u32, b: u32) -> bool {
    let pa = (a.wrapping_add(1).trailing_zeros(), fmix32(a ^ SEED_PRIO), a);
    let pb = (b.wrapping_add(1).trailing_zeros(), fmix32(b ^ SEED_PRIO), b);
    pa > pb
}

/// The block of vertex `v`.
#[inline(always)]
pub(crate) fn block_of(v: Vertex) -> u32 {
    v >> LOG_K
}

pub(crate) type VLink<W> = Option<Counted<VNode<W>>>;

/// The ids of one block and their edge trees.
pub(crate) struct Block<W: Weight> {
    /// Bit `i`: id `key·K + i` is present.
    present: Mask,
    /// Bit `i`: id `key·K + i` has a non-empty tree (a subset of `present`).
    nonempty: Mask,
    /// The non-empty trees, in id order, then any spare slots (empty trees): an array
    /// edited in place keeps the slots its ids' trees left and gets one spare when it grows
    /// ([`update_block_mut`]), so that ids gaining and losing their edges (the churn of
    /// update streams) do not make a new array each time. A graph built from sorted trees
    /// ([`VTree::from_sorted`]: from a CSR, a checkpoint) gives one spare to each block with
    /// an id without edges, so that the first edge such an id gains is added in place too
    /// (16 bytes a block; RMAT scale 20, where 40 % of the vertices have no edges: 2.74 →
    /// 2.77 bytes per arc). Path copying makes exact arrays.
    trees: CountedSlice<CTree<W>>,
}

impl<W: Weight> Clone for Block<W> {
    #[inline]
    fn clone(&self) -> Self {
        Block {
            present: self.present,
            nonempty: self.nonempty,
            trees: self.trees.clone(),
        }
    }
}

impl<W: Weight> Block<W> {
    /// The tree of the block's `i`-th id, if non-empty.
    #[inline]
    fn get(&self, i: usize) -> Option<&CTree<W>> {
        if self.nonempty >> i & 1 == 0 {
            return None;
        }
        // SAFETY: `trees` holds one tree per set bit of `nonempty` (checked when built), and
        // `rank` counts the set bits below bit `i`, which is set.
        Some(unsafe { self.trees.get_unchecked(rank(self.nonempty, i)) })
    }

    /// The non-empty trees with their id offsets in the block, in id order.
    #[inline]
    fn iter(&self) -> impl Iterator<Item = (usize, &CTree<W>)> {
        let mut m = self.nonempty;
        self.trees[..m.count_ones() as usize].iter().map(move |t| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            (i, t)
        })
    }

    /// Start loading the array's count (16 bytes before its first tree), which an in-place
    /// edit checks.
    #[inline]
    fn prefetch_count(&self) {
        prefetch(CountedSlice::count_ptr(CountedSlice::as_ptr(&self.trees)));
    }

    /// Start loading the whole array (its count and every tree), which a lending copy of the
    /// block reads.
    #[inline]
    fn prefetch_array(&self) {
        let a = CountedSlice::as_ptr(&self.trees);
        prefetch(CountedSlice::count_ptr(a));
        let a = a as *const u8;
        let bytes = self.nonempty.count_ones() as usize * std::mem::size_of::<CTree<W>>();
        for off in (0..bytes).step_by(64) {
            prefetch(a.wrapping_add(off));
        }
        if bytes > 0 {
            prefetch(a.wrapping_add(bytes - 1));
        }
    }

    /// Start loading the slot of the block's `i`-th id: its tree if it has one, else where
    /// an insert puts it.
    #[inline]
    fn prefetch_slot(&self, i: usize) {
        let a = CountedSlice::as_ptr(&self.trees);
        prefetch(a.wrapping_add(rank(self.nonempty, i)));
    }

    /// Start loading the tree of the block's `i`-th id (if it has one), for a splice: its
    /// chunk's first two lines (RMAT scale 20, batches of 1e5 in place: inserts 1.5–4 %
    /// faster than with the header's line alone).
    #[inline]
    fn prefetch_tree(&self, i: usize) {
        if let Some(t) = self.get(i) {
            t.prefetch_for_splice();
        }
    }

    /// Start loading the counts that cloning every tree of the block writes (and the
    /// headers that give the trees' lengths).
    #[inline]
    fn prefetch_trees(&self) {
        for t in &self.trees[..self.nonempty.count_ones() as usize] {
            t.prefetch();
        }
    }
}

pub(crate) struct VNode<W: Weight> {
    /// Declared first, so dropped first: [`Drop::drop`] has just started loading its array,
    /// and freeing the children's subtrees first would evict it (freeing a version replaced
    /// by a batch of 1e5 edges took 9 % longer that way).
    block: Block<W>,
    pub(crate) left: VLink<W>,
    pub(crate) right: VLink<W>,
    /// Arcs of this block's vertices (not of the subtree: an in-place update through the
    /// [`BlockIndex`] reaches a node without passing its ancestors, so nothing is summed
    /// over subtrees but their node counts, which only a change of shape changes).
    own: u64,
    /// Block id.
    pub(crate) key: u32,
    /// Nodes in this subtree (the cut-offs of the parallel walks and drops).
    size: u32,
    /// Unused: makes a node with its count 64 bytes, one cache line under an allocator that
    /// aligns 64-byte blocks (56-byte nodes straddle two lines in most places: batches of 10
    /// edges inserted 15 % slower).
    _line: u64,
}

// The size the module's docs (and `ctree/mod.rs`, "Memory") give: with its count
// ([`Counted`]), a node is 64 bytes.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<VNode<()>>() == 56);
// The writer's spare keeps every block array (at most K trees, and a spare slot: see
// `update_block_mut`), weighted or not.
const _: () =
    assert!(CountedSlice::<CTree<()>>::spared(K + 1) && CountedSlice::<CTree<f64>>::spared(K + 1));

/// Bytes of a node's allocation: the node and its count.
const NODE_BYTES: usize = Counted::<VNode<()>>::ALLOC_BYTES;

/// Subtrees of at least this many nodes that a dropped node owns alone are freed in parallel.
const PAR_DROP_NODES: u32 = 128;

thread_local! {
    /// Set while [`sequentially`] runs: no dropped node forks.
    static SEQUENTIAL_DROPS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Drop `x` on this thread alone, whatever its nodes' sizes ([`sequentially`]).
#[cfg(test)]
pub(crate) fn drop_sequentially<T>(x: T) {
    sequentially(move || drop(x));
}

/// Run `f` on this thread alone: no drop or settling walk ([`Lending`]) in it forks. A
/// version replaced by a small batch owns only the batch's few paths, but near the root both
/// children of a node are on them, and their subtree sizes (the whole tree's) would make
/// [`VNode`]'s drop fork, a cross-thread hand-off for a few microseconds of freeing.
pub(crate) fn sequentially<T>(f: impl FnOnce() -> T) -> T {
    /// Puts the flag back as it was, also if a drop unwinds.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SEQUENTIAL_DROPS.with(|f| f.set(self.0));
        }
    }
    let _restore = Restore(SEQUENTIAL_DROPS.with(|f| f.replace(true)));
    f()
}

/// May a drop or settling walk fork here (on a pool's thread, outside [`sequentially`])?
#[inline]
fn may_fork() -> bool {
    rayon::current_thread_index().is_some() && !SEQUENTIAL_DROPS.with(|f| f.get())
}

/// Subtrees of at least this many nodes are walked in parallel.
const PAR_WALK_NODES: u32 = 16;

impl<W: Weight> Drop for VNode<W> {
    /// The fields are dropped after this: start loading what their drops decrement. A version
    /// replaced by a large batch shares few nodes with its successor, and freeing it walks
    /// every node and writes every tree count of its blocks (as long as making it took): two
    /// large subtrees this node is the last owner of are freed by `rayon::join`, when the
    /// drop runs on a thread of a pool (so it uses that pool's threads, not the global pool's
    /// behind the caller's back). Shared children are only decremented: not worth a fork.
    #[inline]
    fn drop(&mut self) {
        prefetch_node(self);
        let alone = |c: &VLink<W>| {
            c.as_ref()
                .is_some_and(|a| a.size >= PAR_DROP_NODES && Counted::count(a) == 1)
        };
        if alone(&self.left) && alone(&self.right) && may_fork() {
            let (l, r) = (self.left.take(), self.right.take());
            rayon::join(move || drop(l), move || drop(r));
        }
    }
}

impl<W: Weight> VNode<W> {
    /// The first id of the block.
    #[inline]
    pub(crate) fn base(&self) -> Vertex {
        self.key << LOG_K
    }

    /// The present ids of the block, as a mask relative to [`base`](Self::base).
    #[inline]
    pub(crate) fn present(&self) -> Mask {
        self.block.present
    }

    /// Start loading the headers of the block's trees (their lengths).
    #[inline]
    pub(crate) fn prefetch_trees(&self) {
        self.block.prefetch_trees();
    }

    /// `f(v, tree)` for every vertex of the block with a non-empty tree, in id order.
    #[inline]
    pub(crate) fn for_each_tree(&self, mut f: impl FnMut(Vertex, &CTree<W>)) {
        for (i, t) in self.block.iter() {
            f(self.base() + i as Vertex, t);
        }
    }

    /// `f(v)` for every present vertex of the block, in id order.
    #[inline]
    pub(crate) fn for_each_present(&self, mut f: impl FnMut(Vertex)) {
        let mut m = self.block.present;
        while m != 0 {
            f(self.base() + m.trailing_zeros());
            m &= m - 1;
        }
    }

    /// Bytes this node holds: the node with its count ([`Counted`]: 8 bytes) and its tree
    /// array with its count and length ([`CountedSlice`]: 16) (the trees' own nodes and
    /// chunks are not included).
    pub(crate) fn bytes(&self) -> usize {
        NODE_BYTES + 16 + std::mem::size_of_val(&*self.block.trees)
    }
}

/// Nodes in the subtree.
#[inline]
fn size<W: Weight>(l: &VLink<W>) -> u32 {
    l.as_ref().map_or(0, |n| n.size)
}

#[inline]
fn mk<W: Weight>(
    left: VLink<W>,
    key: u32,
    block: Block<W>,
    own: u64,
    right: VLink<W>,
) -> Counted<VNode<W>> {
    let size = size(&left) + size(&right) + 1;
    mk_sized(left, key, block, own, right, size)
}

/// [`mk`] given the subtree's node count (`size`), without reading the children.
#[inline]
fn mk_sized<W: Weight>(
    left: VLink<W>,
    key: u32,
    block: Block<W>,
    own: u64,
    right: VLink<W>,
    size: u32,
) -> Counted<VNode<W>> {
    Counted::new(VNode {
        _line: 0,
        left,
        right,
        own,
        key,
        size,
        block,
    })
}

/// A node like `n` with other children.
#[inline]
fn remake<W: Weight>(left: VLink<W>, n: &VNode<W>, right: VLink<W>) -> Counted<VNode<W>> {
    mk(left, n.key, n.block.clone(), n.own, right)
}

fn join3<W: Weight>(
    l: VLink<W>,
    key: u32,
    block: Block<W>,
    own: u64,
    r: VLink<W>,
) -> Counted<VNode<W>> {
    let l_top = l.as_ref().is_some_and(|ln| {
        higher(ln.key, key) && r.as_ref().is_none_or(|rn| higher(ln.key, rn.key))
    });
    if l_top {
        let ln = l.unwrap();
        let nr = join3(ln.right.clone(), key, block, own, r);
        return remake(ln.left.clone(), &ln, Some(nr));
    }
    if let Some(rn) = r.as_ref().filter(|rn| higher(rn.key, key)) {
        let nl = join3(l, key, block, own, rn.left.clone());
        return remake(Some(nl), rn, rn.right.clone());
    }
    mk(l, key, block, own, r)
}

/// `join3(l, n.key, block, own, r)` for `l` and `r` made from `n`'s children by a path copy.
/// Where each side's root is the old child itself or a node of its key (a side without items,
/// or one whose blocks changed but not its top), the treap order holds as it did under `n`,
/// and the node is made without reading the children: the root of an untouched side is a
/// line nothing else on the path loads (its key and size are all `join3` and [`mk`] would read
/// of it), a miss at each of the lower levels of every path.
#[inline]
fn rejoin<W: Weight>(
    l: VLink<W>,
    n: &VNode<W>,
    block: Block<W>,
    own: u64,
    r: VLink<W>,
) -> Counted<VNode<W>> {
    // The change in the side's node count, if its root is the old one or has its key.
    let kept = |new: &VLink<W>, old: &VLink<W>| match (new, old) {
        (None, None) => Some(0),
        (Some(a), Some(b)) if Counted::ptr_eq(a, b) => Some(0),
        (Some(a), Some(b)) if a.key == b.key => Some(a.size as i64 - b.size as i64),
        _ => None,
    };
    match (kept(&l, &n.left), kept(&r, &n.right)) {
        (Some(dl), Some(dr)) => mk_sized(l, n.key, block, own, r, (n.size as i64 + dl + dr) as u32),
        _ => join3(l, n.key, block, own, r),
    }
}

fn join2<W: Weight>(l: VLink<W>, r: VLink<W>) -> VLink<W> {
    match (l, r) {
        (None, r) => r,
        (l, None) => l,
        (Some(ln), Some(rn)) => Some(if higher(ln.key, rn.key) {
            let nr = join2(ln.right.clone(), Some(rn));
            remake(ln.left.clone(), &ln, nr)
        } else {
            let nl = join2(Some(ln), rn.left.clone());
            remake(nl, &rn, rn.right.clone())
        }),
    }
}

/// The node of block `b`, if present.
#[inline]
fn find_block<W: Weight>(t: &VLink<W>, b: u32) -> Option<&VNode<W>> {
    let mut cur = t.as_deref();
    while let Some(n) = cur {
        if b == n.key {
            return Some(n);
        }
        cur = if b < n.key {
            n.left.as_deref()
        } else {
            n.right.as_deref()
        };
    }
    None
}

/// The edge tree of `v`, if `v` is present and has edges.
#[inline]
pub(crate) fn tree<W: Weight>(t: &VLink<W>, v: Vertex) -> Option<&CTree<W>> {
    find_block(t, block_of(v))?
        .block
        .get((v as usize) & (K - 1))
}

/// Is `v` present?
#[inline]
pub(crate) fn contains<W: Weight>(t: &VLink<W>, v: Vertex) -> bool {
    find_block(t, block_of(v)).is_some_and(|n| n.block.present >> ((v as usize) & (K - 1)) & 1 == 1)
}

/// The largest id present.
pub(crate) fn max_key<W: Weight>(t: &VLink<W>) -> Option<Vertex> {
    let mut cur = t.as_deref()?;
    while let Some(r) = cur.right.as_deref() {
        cur = r;
    }
    // A block exists only while some id of it is present.
    Some(cur.base() + (Mask::BITS - 1 - cur.block.present.leading_zeros()))
}

/// Whether at least `k` vertices are present: a walk in id order that stops once they are
/// counted (O(k / K + log n) for a dense tree).
pub(crate) fn has_at_least<W: Weight>(t: &VLink<W>, k: usize) -> bool {
    fn walk<W: Weight>(t: &VLink<W>, left: &mut usize) -> bool {
        let Some(n) = t else { return false };
        walk(&n.left, left)
            || {
                *left = left.saturating_sub(n.block.present.count_ones() as usize);
                *left == 0
            }
            || walk(&n.right, left)
    }
    k == 0 || walk(t, &mut { k })
}

/// Number of arcs `v→v` (each edge tree is searched for its own vertex).
pub(crate) fn self_loops<W: Weight>(t: &VLink<W>) -> usize {
    map_reduce_nodes(
        t,
        &|n: &VNode<W>| {
            let mut c = 0;
            n.for_each_tree(|v, tree| c += usize::from(tree.find(v, v).is_some()));
            c
        },
        &|a, b| a + b,
        &|| 0,
    )
}

/// Number of vertices present. O(n / K).
pub(crate) fn count<W: Weight>(t: &VLink<W>) -> usize {
    map_reduce_nodes(
        t,
        &|n: &VNode<W>| n.block.present.count_ones() as usize,
        &|a, b| a + b,
        &|| 0,
    )
}

/// A block being assembled: the ids present, the non-empty trees by id offset, their arcs.
struct Slots<W: Weight> {
    present: Mask,
    own: u64,
    trees: [Option<CTree<W>>; K],
}

impl<W: Weight> Slots<W> {
    fn new() -> Self {
        Slots {
            present: 0,
            own: 0,
            trees: std::array::from_fn(|_| None),
        }
    }

    /// Make id offset `i` present with tree `t` (no slot if `t` is empty).
    #[inline]
    fn put(&mut self, i: usize, t: CTree<W>) {
        self.present |= 1 << i;
        if !t.is_empty() {
            self.own += t.len() as u64;
            self.trees[i] = Some(t);
        }
    }

    /// The block, and its arcs; `None` if no id is present.
    fn finish(self) -> Option<(Block<W>, u64)> {
        self.finish_spare(0)
    }

    /// [`finish`](Self::finish), with `spare` empty slots after the trees.
    fn finish_spare(mut self, spare: usize) -> Option<(Block<W>, u64)> {
        if self.present == 0 {
            return None;
        }
        let mut nonempty: Mask = 0;
        for (i, s) in self.trees.iter().enumerate() {
            nonempty |= (s.is_some() as Mask) << i;
        }
        debug_assert_eq!(nonempty & !self.present, 0);
        let len = nonempty.count_ones() as usize;
        // The filled slots by their bits, not a test of each slot: which are filled varies
        // from block to block, a mispredicted branch per slot (a flattening loop over the
        // sixteen slots was 8 % of a 1000-edge batch's time).
        let mut filled = ones(nonempty);
        let trees = CountedSlice::from_fn(len + spare, |_| match filled.next() {
            // SAFETY: bit `i` of `nonempty` is set: slot `i` is `Some`.
            Some(i) => unsafe { self.trees[i].take().unwrap_unchecked() },
            None => CTree::default(),
        });
        Some((
            Block {
                present: self.present,
                nonempty,
                trees,
            },
            self.own,
        ))
    }
}

/// Block `key` after `f` has been applied to `items` (sorted ids of that block) on top of
/// `old` (with `old_own` arcs): the ids without an item keep their trees.
fn update_block<W, I, F>(
    key: u32,
    old: Option<(&Block<W>, u64)>,
    items: &[(Vertex, I)],
    f: &F,
    lending: bool,
) -> Option<(Block<W>, u64)>
where
    W: Weight,
    F: Fn(Vertex, Option<Cur<'_, W>>, &I) -> Option<CTree<W>>,
{
    let base = key << LOG_K;
    let empty = CTree::default();
    let mut touched: Mask = 0;
    for (v, _) in items {
        debug_assert_eq!(block_of(*v), key);
        touched |= 1 << (v - base);
    }
    let mut slots = Slots::new();
    if let Some((b, old_own)) = old {
        slots.present = b.present & !touched;
        slots.own = old_own;
        // Untouched ids keep their trees (a clone each, or lent: see `Lending`); touched ones
        // give their arcs back.
        for (i, t) in b.iter() {
            if touched >> i & 1 == 0 {
                // SAFETY: the caller's entry records the untouched trees as lent from `b`
                // (`CopiedNode::slots`).
                slots.trees[i] = Some(unsafe { share(t, lending) });
            } else {
                slots.own -= t.len() as u64;
            }
        }
    }
    for (v, it) in items {
        let i = (v - base) as usize;
        let cur =
            old.and_then(|(b, _)| (b.present >> i & 1 == 1).then(|| b.get(i).unwrap_or(&empty)));
        let t = if lending {
            // A panic unwinding from here would drop the lent trees in `slots` and, in the
            // frames above (on this thread, or on another that stole part of the batch), the
            // lent links of the nodes being made, as if they were counted: it aborts here,
            // before any frame unwinds.
            abort_on_unwind(|| f(*v, cur.map(Cur::Shared), it))
        } else {
            f(*v, cur.map(Cur::Shared), it)
        };
        if let Some(t) = t {
            slots.put(i, t);
        }
    }
    slots.finish()
}

/// A block to build a node of: key, then the block and its arcs (taken by [`build`]).
type Built<W> = (u32, Option<(Block<W>, u64)>);

/// Build the canonical treap from blocks with strictly increasing keys (moves them out).
fn build<W: Weight>(items: &mut [Built<W>]) -> VLink<W> {
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
    let (block, own) = mid[0].1.take().unwrap();
    Some(mk(l, mid[0].0, block, own, r))
}

/// The arcs of blocks to build.
fn built_arcs<W: Weight>(blocks: &[Built<W>]) -> u64 {
    blocks.iter().map(|b| b.1.as_ref().map_or(0, |b| b.1)).sum()
}

/// The tree array of block `key` (its address and length), for tests of in-place updates.
#[cfg(test)]
pub(crate) fn block_array<W: Weight>(t: &VLink<W>, key: u32) -> Option<(*const CTree<W>, usize)> {
    find_block(t, key).map(|n| (CountedSlice::as_ptr(&n.block.trees), n.block.trees.len()))
}

/// Build from strictly increasing `(vertex, tree)` pairs (every vertex listed is present):
/// the tree and its arcs.
fn from_sorted<W: Weight>(items: Vec<(Vertex, CTree<W>)>) -> (VLink<W>, u64) {
    let mut items: Vec<(Vertex, Option<CTree<W>>)> =
        items.into_par_iter().map(|(k, t)| (k, Some(t))).collect();
    let mut blocks: Vec<Built<W>> = items
        .par_chunk_by_mut(|a, b| block_of(a.0) == block_of(b.0))
        .map(|g| {
            let mut slots = Slots::new();
            for (v, t) in g.iter_mut() {
                slots.put((*v as usize) & (K - 1), t.take().unwrap());
            }
            // A block with an id that has no edges gets a spare slot for the first one (see
            // `Block::trees`).
            let spare = usize::from(slots.trees.iter().any(Option::is_none));
            (block_of(g[0].0), slots.finish_spare(spare))
        })
        .collect();
    let arcs = built_arcs(&blocks);
    (build(&mut blocks), arcs)
}

/// Prefetch what path copying node `n` touches besides the child it descends into: the other
/// child and the block's array (copying the node writes their counts).
#[inline(always)]
fn prefetch_node<W: Weight>(n: &VNode<W>) {
    for c in [&n.left, &n.right].into_iter().flatten() {
        prefetch(Counted::as_ptr(c));
    }
    let a = CountedSlice::as_ptr(&n.block.trees);
    prefetch(CountedSlice::count_ptr(a));
    prefetch(a);
}

/// What [`warm`] loads for: a path copy (the other child and every tree of a found block,
/// whose counts copying writes), an in-place update (only the path and the touched slot where
/// nothing else holds them), or a lending copy ([`Lending`]: the path, the found block's
/// array and its touched trees; no count is written).
#[derive(Copy, Clone, PartialEq, Eq)]
enum Warm {
    Copy,
    InPlace,
    Lend,
}

/// Walk the search paths of `items` in lock step, a group at a time, prefetching each next
/// node, then the trees of the blocks found: the cache misses of up to `GROUP` paths overlap
/// instead of following one another. The sequential multi-update that follows then finds its
/// nodes in cache. Copying a block clones all its trees, so all are prefetched; in place
/// ([`Warm::InPlace`]), a block whose path and array nothing else holds (it will be edited in
/// place) has only the items' own trees prefetched, and a lending copy ([`Warm::Lend`]) loads
/// the path, the block's array and the items' own trees.
///
/// Groups of 32, so that a batch of 10 edges (20 arcs) walks its paths in one group instead of
/// two. Against groups of 16 (2026-12-03, AMD EPYC, 1 thread, `weald bench updates` on RMAT
/// scale 20, the two binaries alternating, 8 processes each of 3,000 trials), versioned
/// batches of 10 inserted 2.8 % faster (ahead in 8 of 8 pairs) and deleted 1.6 % faster (8 of
/// 8), batches of 100 1.6 % / 1.3 %; batches of 1000 +3 % / +4 % in 6 pairs of 300 trials.
/// (Measured even on 2026-11-30, before lending and the writer's spare: −2.6 to +4 %.)
fn warm<W: Weight, I>(t: &VLink<W>, items: &[(Vertex, I)], mode: Warm) {
    let in_place = mode != Warm::Copy;
    const GROUP: usize = 32;
    let Some(root) = t.as_ref() else { return };
    // In place, a node on a path that it and every node above it are unshared is only read
    // (its count, its key, the link to follow): the other child and the array of a node
    // passed through are not needed. From the first shared node down the path is copied,
    // which clones both (writing their counts), so they are loaded too. A lane reads nothing
    // it has only just asked for: the next node's count is read when the lane visits it, a
    // round later, and the found block's array count after all the group's walks.
    for g in items.chunks(GROUP) {
        let mut cur: [Option<&Counted<VNode<W>>>; GROUP] = [None; GROUP];
        let mut found: [Option<&VNode<W>>; GROUP] = [None; GROUP];
        let mut own = [in_place; GROUP];
        for c in cur.iter_mut().take(g.len()) {
            *c = Some(root);
        }
        let mut live = g.len();
        while live > 0 {
            live = 0;
            for (((c, f), o), (k, _)) in cur.iter_mut().zip(&mut found).zip(&mut own).zip(g) {
                let Some(n) = *c else { continue };
                *o = *o && (mode == Warm::Lend || Counted::count(n) == 1);
                if !*o {
                    prefetch_node(n);
                }
                *c = match block_of(*k).cmp(&n.key) {
                    std::cmp::Ordering::Less => n.left.as_ref(),
                    std::cmp::Ordering::Greater => n.right.as_ref(),
                    std::cmp::Ordering::Equal => {
                        if mode == Warm::Lend {
                            // The array, whose trees are all read (the untouched ones copied).
                            n.block.prefetch_array();
                        } else if *o {
                            // The array's count, and the slot of the tree to update.
                            n.block.prefetch_count();
                            n.block.prefetch_slot((k - (n.key << LOG_K)) as usize);
                        }
                        *f = Some(n);
                        None
                    }
                };
                if let Some(c) = *c {
                    if *o {
                        prefetch(Counted::as_ptr(c));
                    }
                    live += 1;
                }
            }
        }
        for ((n, own), (k, _)) in found
            .iter()
            .zip(own)
            .zip(g)
            .filter_map(|((f, o), k)| Some((((*f)?, o), k)))
        {
            if mode == Warm::Lend || own && CountedSlice::count(&n.block.trees) == 1 {
                n.block.prefetch_tree((k - (n.key << LOG_K)) as usize);
            } else {
                n.block.prefetch_trees();
            }
        }
    }
}

/// The path-copying multi-update (see [`VTree::multi_update_mut`]): the new tree and the change in
/// its arcs. With `lend` (see [`Lending`]), what the new tree shares with `t` is copied
/// bitwise instead of cloned, and each copied node of `t` appends its [`CopiedNode`] entry to it,
/// in pre-order.
fn update_rec<W, I, F>(
    t: &VLink<W>,
    items: &[(Vertex, I)],
    f: &F,
    warmed: bool,
    mut lend: Option<&mut Vec<CopiedNode<W>>>,
) -> (VLink<W>, i64)
where
    W: Weight,
    I: Sync,
    F: Fn(Vertex, Option<Cur<'_, W>>, &I) -> Option<CTree<W>> + Sync,
{
    let lending = lend.is_some();
    if items.is_empty() {
        // SAFETY: the parent's entry records a side without items as lent.
        return (unsafe { share(t, lending) }, 0);
    }
    let Some(n) = t else {
        // (Lending, new blocks hold nothing lent, but the callers' frames do: `f` still runs
        // under `update_block`'s abort guard.)
        let one = |g: &[(Vertex, I)]| {
            let key = block_of(g[0].0);
            update_block(key, None, g, f, lending).map(|b| (key, Some(b)))
        };
        let groups = items.chunk_by(|a, b| block_of(a.0) == block_of(b.0));
        let mut built: Vec<Built<W>> = if items.len() >= PAR_ITEMS {
            groups
                .collect::<Vec<_>>()
                .into_par_iter()
                .with_min_len(PAR_ITEMS / K)
                .filter_map(one)
                .collect()
        } else {
            groups.filter_map(one).collect()
        };
        let d = built_arcs(&built) as i64;
        return (build(&mut built), d);
    };
    let par = items.len() >= PAR_ITEMS;
    if !par && !warmed {
        warm(t, items, if lending { Warm::Lend } else { Warm::Copy });
    }
    if par || !lending {
        prefetch_node(n);
    }
    let i = items.partition_point(|(k, _)| block_of(*k) < n.key);
    let j = i + items[i..].partition_point(|(k, _)| block_of(*k) == n.key);
    // This node's entry: what the new tree takes from it without a count.
    let at = lend.as_deref_mut().map(|es| {
        let mut touched: Mask = 0;
        for (v, _) in &items[i..j] {
            touched |= 1 << (v - n.base());
        }
        es.push(CopiedNode {
            node: Counted::as_ptr(n),
            below_left: 0,
            slots: if i < j {
                n.block.nonempty & !touched
            } else {
                0
            },
            flags: (if i == 0 { LENT_LEFT } else { 0 })
                | (if j == items.len() { LENT_RIGHT } else { 0 })
                | (if i == j { LENT_ARRAY } else { 0 }),
        });
        es.len() - 1
    });
    let go_left = |l: Option<&mut Vec<CopiedNode<W>>>| update_rec(&n.left, &items[..i], f, !par, l);
    let go_right =
        |l: Option<&mut Vec<CopiedNode<W>>>| update_rec(&n.right, &items[j..], f, !par, l);
    let ((l, dl), (r, dr)) = if par {
        // Each side collects its entries apart; the left's go first (pre-order).
        let (mut lv, mut rv) = (Vec::new(), Vec::new());
        let (lw, rw) = (lending.then_some(&mut lv), lending.then_some(&mut rv));
        let out = rayon::join(|| go_left(lw), || go_right(rw));
        if let (Some(es), Some(at)) = (lend.as_deref_mut(), at) {
            es[at].below_left = lv.len() as u32;
            es.append(&mut lv);
            es.append(&mut rv);
        }
        out
    } else {
        // An untouched right side is cloned before the recursion makes new nodes (as the
        // left one is, being first): the locked increment of its count then waits for none of
        // their pending stores. Measured in one process, rounds alternating with the reverse
        // order: batches of 1, 10 and 100 edges insert 2–3 % faster, 1000 and 1e5 ~1 %. (A
        // side without items makes no entries, so the order of entries stays the same.)
        let early = (i > 0 && j == items.len()).then(|| go_right(lend.as_deref_mut()));
        let before = lend.as_deref().map_or(0, Vec::len);
        let l = go_left(lend.as_deref_mut());
        if let (Some(es), Some(at)) = (lend.as_deref_mut(), at) {
            es[at].below_left = (es.len() - before) as u32;
        }
        let r = early.unwrap_or_else(|| go_right(lend.as_deref_mut()));
        (l, r)
    };
    if i == j {
        // SAFETY: the entry records the array of a block without items as lent.
        let block = unsafe { share(&n.block, lending) };
        return (Some(rejoin(l, n, block, n.own, r)), dl + dr);
    }
    let d = dl + dr - n.own as i64;
    match update_block(n.key, Some((&n.block, n.own)), &items[i..j], f, lending) {
        Some((b, own)) => (Some(rejoin(l, n, b, own, r)), d + own as i64),
        None => {
            // The block is gone and its children are joined, which may drop one of them:
            // a lent side is made counted first (and no longer recorded as lent).
            if let (Some(es), Some(at)) = (lend, at) {
                for (flag, c) in [(LENT_LEFT, &l), (LENT_RIGHT, &r)] {
                    if es[at].flags & flag != 0 {
                        std::mem::forget(c.clone());
                        es[at].flags &= !flag;
                    }
                }
            }
            (join2(l, r), d)
        }
    }
}

/// `f()`, aborting the process if it unwinds: used where an unwinding panic would drop lent
/// references (see [`Lending`]) as if they were counted, freeing what an older version still
/// reads. (`CTreeGraph::apply_lending` lends only for weights whose methods cannot panic,
/// `Weight::CANNOT_PANIC`, so that a foreign weight's panic still unwinds, from a counted
/// copy; one that claims it and panics aborts the process.)
#[inline(always)]
fn abort_on_unwind<T>(f: impl FnOnce() -> T) -> T {
    struct Abort;
    impl Drop for Abort {
        fn drop(&mut self) {
            std::process::abort();
        }
    }
    let guard = Abort;
    let t = f();
    std::mem::forget(guard);
    t
}

/// `x` for the tree being made: a clone, or with `lending` a bitwise copy that does not count
/// (see [`Lending`]).
///
/// # Safety
/// With `lending`, the caller records the copy as lent from where `x` lies (in a
/// [`CopiedNode`] entry), so that settling either counts it or forgets the original.
#[inline(always)]
unsafe fn share<T: Clone>(x: &T, lending: bool) -> T {
    if lending {
        // SAFETY: the caller's.
        unsafe { std::ptr::read(x) }
    } else {
        x.clone()
    }
}

const LENT_LEFT: u8 = 1;
const LENT_RIGHT: u8 = 2;
const LENT_ARRAY: u8 = 4;

/// A node of the replaced tree that a lending update copied: which of its references the new
/// tree took without a count (its left or right child, its block's array, or, when the block
/// was updated, the trees of `slots`' ids), and how many entries its left subtree made (the
/// entries are in pre-order, so that its right subtree's follow them).
#[derive(Clone, Copy)]
pub(crate) struct CopiedNode<W: Weight> {
    node: *const VNode<W>,
    below_left: u32,
    slots: Mask,
    flags: u8,
}

// SAFETY: the pointer is compared with the node an entry describes (a check of the walk)
// and prefetched; it is followed only by the settling walk that holds a counted reference
// to an ancestor of the node, to read a field of the immutable node ([`prefetch_settling`]).
unsafe impl<W: Weight> Send for CopiedNode<W> {}
// SAFETY: as for `Send`.
unsafe impl<W: Weight> Sync for CopiedNode<W> {}

/// Path copying that lends instead of counting. A new version made by path copying shares
/// every untouched subtree, block array and edge tree with the version it replaces, and
/// sharing normally writes a count into each (a cold line per shared sibling, array and tree)
/// and releasing the old version later writes them all back. When the old version is then
/// freed at once (a line of versions, as [`super::VersionedGraph`] makes), those writes undo
/// each other. A lending update ([`VTree::multi_update_mut`] on a tree made by
/// [`VTree::lending_clone`]) copies those references bitwise instead, the count still
/// counting only the old node's reference, and records in [`CopiedNode`] entries which references
/// it took from which copied node. [`Lending::settle`] then walks the old version's copied
/// nodes along the entries: a node that nothing else holds is freed without releasing what
/// it lent (the new version now owns it: no count written, no subtree walked), and a node
/// that something else holds (a snapshot, a clone, a branch made from it) keeps what it lent
/// and the lent references are counted then (the writes path copying would have made). Until
/// then the counts of lent things are one too low, so:
/// * the old tree is held (`old`, a counted clone of its root) until the entries are settled,
///   so nothing it reaches is freed meanwhile, whoever else releases it;
/// * the new tree is not updated in place, nor dropped, before that: an in-place update
///   trusts a count of one, and dropping it would release what it does not own. The
///   `Lending` lives in the new tree ([`VTree`]'s first field, so it settles, by counting,
///   before the tree's nodes are dropped), a second update of the tree settles it first, and
///   a caller that takes it out ([`VTree::take_lending`]) settles it while the tree lives;
/// * a panic while the new tree is being made would drop lent references: the per-vertex
///   update `f` (the only code run that is not the tree's own) aborts where it panics,
///   before any frame unwinds, and the whole copy runs under a second guard for the tree's
///   own bugs ([`abort_on_unwind`]).
///
/// Readers of either version only read, and anything that clones a reference adds a count of
/// its own, so they are unaffected; a clone of the new tree shares its root, whose nodes the
/// settling leaves to the new tree either way.
pub(crate) struct Lending<W: Weight> {
    /// A counted clone of the replaced tree's root.
    old: VLink<W>,
    entries: Vec<CopiedNode<W>>,
    /// Whether an update ran (and `entries` describes the copy).
    used: bool,
}

impl<W: Weight> Lending<W> {
    /// Settle the entries: free the replaced tree's copied nodes that nothing else holds
    /// (without releasing what they lent), count what the others lent. Call it once the
    /// replaced version is released by everyone else, or at any time (whatever is then
    /// still held is counted instead of freed). The tree the update made must be alive.
    pub(crate) fn settle(mut self) {
        self.finish(true);
    }

    /// Walk the entries once, if an update made them: freeing what nothing else holds
    /// ([`reclaim`], with `free`) or only counting what was lent ([`count_lent`]); `old` is
    /// released either way.
    fn finish(&mut self, free: bool) {
        let old = self.old.take();
        if !std::mem::replace(&mut self.used, false) {
            return;
        }
        let es = std::mem::take(&mut self.entries);
        abort_on_unwind(|| {
            let used = if free {
                reclaim(old, &es, &es)
            } else {
                old.as_ref().map_or(0, |n| count_lent(n, &es))
            };
            check_walk(used == es.len());
        });
    }
}

impl<W: Weight> Drop for Lending<W> {
    /// Unsettled entries are counted (the new tree then owns counted references, as after
    /// path copying).
    fn drop(&mut self) {
        self.finish(false);
    }
}

/// The entries and the tree they describe disagree: a bug that would free what is in use.
#[inline]
fn check_walk(ok: bool) {
    if !ok {
        std::process::abort();
    }
}

/// The positions, in the array of a block whose ids with trees are `nonempty`, of the trees
/// of the ids in `slots`.
fn lent_slots(nonempty: Mask, slots: Mask) -> impl Iterator<Item = usize> {
    ones(slots & nonempty).map(move |i| rank(nonempty, i))
}

/// Entries below which a settling walk forks (when on a pool's thread).
const PAR_SETTLE: usize = 256;

/// Release `link` (a counted reference into the replaced tree, whose copied nodes `es`
/// describes from its root on), freeing what dies without releasing what it lent. Returns
/// the entries used.
fn reclaim<W: Weight>(link: VLink<W>, es: &[CopiedNode<W>], ahead: &[CopiedNode<W>]) -> usize {
    let Some(a) = link else { return 0 };
    let Some(e) = es.first().copied() else {
        // Not copied (it was not on a path): an ordinary release.
        drop(a);
        return 0;
    };
    check_walk(std::ptr::eq(e.node, Counted::as_ptr(&a)));
    prefetch_settling(es, ahead);
    let (les, res) = es[1..].split_at((e.below_left as usize).min(es.len() - 1));
    let (lahead, rahead) = (&ahead[1..], &ahead[1 + les.len()..]);
    match Counted::try_unwrap(a) {
        Ok(node) => {
            let node = std::mem::ManuallyDrop::new(node);
            // SAFETY: the node is ours alone and is never used again (`ManuallyDrop`: its
            // `Drop` does not run); each field is read once, then released or forgotten.
            let (block, left, right) = unsafe {
                (
                    std::ptr::read(&node.block),
                    std::ptr::read(&node.left),
                    std::ptr::read(&node.right),
                )
            };
            if e.flags & LENT_ARRAY != 0 {
                std::mem::forget(block);
            } else {
                let Block {
                    nonempty, trees, ..
                } = block;
                let mut trees = trees;
                match CountedSlice::get_mut(&mut trees) {
                    Some(ts) => {
                        for p in lent_slots(nonempty, e.slots) {
                            // SAFETY: the lent tree is the new version's now: overwritten
                            // without being dropped.
                            unsafe { std::ptr::write(&mut ts[p], CTree::default()) };
                        }
                    }
                    None => {
                        for p in lent_slots(nonempty, e.slots) {
                            std::mem::forget(trees[p].clone());
                        }
                    }
                }
                drop(trees);
            }
            let side = |c: VLink<W>, flag: u8, es: &[CopiedNode<W>], ahead| {
                if e.flags & flag != 0 {
                    std::mem::forget(c);
                    0
                } else {
                    reclaim(c, es, ahead)
                }
            };
            let (nl, nr) = if es.len() >= PAR_SETTLE && may_fork() {
                rayon::join(
                    || side(left, LENT_LEFT, les, lahead),
                    || side(right, LENT_RIGHT, res, rahead),
                )
            } else {
                (
                    side(left, LENT_LEFT, les, lahead),
                    side(right, LENT_RIGHT, res, rahead),
                )
            };
            1 + nl + nr
        }
        Err(a) => {
            // Held elsewhere too: it stays, with what it lent, which is counted now.
            let used = count_lent(&a, es);
            drop(a);
            used
        }
    }
}

/// How far ahead of the entry being settled a settling walk loads: the array count of the
/// node `SETTLE_AHEAD` entries on, and the node itself `2 * SETTLE_AHEAD` entries on. The walk
/// visits the entries in order, and each visit reads the node's count (`Counted::try_unwrap`;
/// a shared node's is written) and its array's, misses when the copy that read them is a
/// batch's worth of memory ago.
const SETTLE_AHEAD: usize = 8;

/// Start loading what [`reclaim`] will touch a few entries on: the count and fields of the node
/// of `ahead[2 * SETTLE_AHEAD]` (only its address is used: `ahead`, the entries from the one
/// being settled on, reaches past this subtree into nodes that another thread may be
/// freeing), and the count of the block array of `es[SETTLE_AHEAD]`'s node (in this subtree,
/// so alive and not yet settled; in a sequential walk its node was asked for `SETTLE_AHEAD`
/// visits ago, while at the root and at the start of a forked half it was not).
#[inline(always)]
fn prefetch_settling<W: Weight>(es: &[CopiedNode<W>], ahead: &[CopiedNode<W>]) {
    if let Some(f) = ahead.get(2 * SETTLE_AHEAD) {
        // The node's allocation, count first: 64 bytes, one line where it is aligned (the
        // last byte's line is the first's then).
        let p = Counted::count_ptr(f.node);
        prefetch(p);
        prefetch(p.wrapping_add(NODE_BYTES - 1));
    }
    if let Some(f) = es.get(SETTLE_AHEAD) {
        if f.flags & LENT_ARRAY == 0 {
            // SAFETY: by the entries' layout (pre-order, `below_left`, which `check_walk`
            // checks only when the walk reaches the entry), the node is in the subtree being
            // settled, below the node whose counted reference this walk holds, and not yet
            // visited: alive and unchanged (copied nodes are immutable; no other walk
            // settles this subtree).
            unsafe { (*f.node).block.prefetch_count() };
        }
    }
}

/// Count what the copied node `n` (described by `es[0]`) and the copied nodes below it lent.
/// Returns the entries used.
fn count_lent<W: Weight>(n: &VNode<W>, es: &[CopiedNode<W>]) -> usize {
    let Some(e) = es.first().copied() else {
        return 0;
    };
    check_walk(std::ptr::eq(e.node, n));
    let (les, res) = es[1..].split_at((e.below_left as usize).min(es.len() - 1));
    if e.flags & LENT_ARRAY != 0 {
        std::mem::forget(n.block.trees.clone());
    } else {
        for p in lent_slots(n.block.nonempty, e.slots) {
            std::mem::forget(n.block.trees[p].clone());
        }
    }
    let side = |c: &VLink<W>, flag: u8, es: &[CopiedNode<W>]| {
        if e.flags & flag != 0 {
            std::mem::forget(c.clone());
            0
        } else {
            c.as_ref().map_or(0, |c| count_lent(c, es))
        }
    };
    1 + side(&n.left, LENT_LEFT, les) + side(&n.right, LENT_RIGHT, res)
}

/// What an in-place update changed in a subtree: its arcs, its nodes, and whether its shape
/// changed (a node made, freed or path-copied: the [`BlockIndex`] no longer describes the
/// tree).
#[derive(Copy, Clone, Default)]
struct Delta {
    arcs: i64,
    nodes: i64,
    reshaped: bool,
}

impl std::ops::Add for Delta {
    type Output = Delta;
    #[inline]
    fn add(self, o: Delta) -> Delta {
        Delta {
            arcs: self.arcs + o.arcs,
            nodes: self.nodes + o.nodes,
            reshaped: self.reshaped || o.reshaped,
        }
    }
}

impl std::iter::Sum for Delta {
    fn sum<It: Iterator<Item = Delta>>(it: It) -> Delta {
        it.fold(Delta::default(), |a, b| a + b)
    }
}

/// A node of a tree that a valid [`BlockIndex`] describes.
struct NodePtr<W: Weight>(*mut VNode<W>);

impl<W: Weight> Clone for NodePtr<W> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<W: Weight> Copy for NodePtr<W> {}

// SAFETY: a `NodePtr` is dereferenced only by the in-place update of the tree it indexes,
// which holds that tree by `&mut` (see `BlockIndex`), on whichever threads it forks; distinct
// blocks are distinct nodes, so forked halves of a batch never share one.
unsafe impl<W: Weight> Send for NodePtr<W> {}
// SAFETY: as above.
unsafe impl<W: Weight> Sync for NodePtr<W> {}

/// The node of every block of a vertex tree by block key, so that an in-place update reaches
/// a block without walking its search path (~17 levels at a million vertices, the lower ~8
/// of them cache misses: most of what a batch of a thousand edges cost). Used only while the
/// tree is held by nothing but its [`VTree`]: then every node has a count of one and holding
/// the `VTree` by `&mut` means holding every node alone, so a node reached through the index
/// may be edited as if reached down its path. With no subtree sums in the nodes (each node
/// counts its own block's arcs; [`VTree`] the total), editing a block touches only its node.
///
/// Every node comes from this tree or from a clone of it (or of a clone: the `VTree`s of one
/// *lineage*, which share a count), so while the lineage count is one nothing else holds a
/// node. While a clone lives the index is not used (the updates path-copy), and an update
/// that changes the tree's shape (a path copy, a block removed, a level rebuilt to seat a new
/// block: nodes replaced or freed) drops the index; a new block made in an empty subtree only
/// adds a node the index lacks (its items go down the tree until the index is built again),
/// and a clone that goes away without this tree being updated meanwhile
/// leaves the index as true as it was (the clone's own updates copied what they changed). A
/// dropped index is built again once the items updated without it reach the tree's node
/// count (`credit`), so building it (one walk over the nodes) costs no more than about the
/// updates since it was lost: a tree updated while a clone lives at every batch never pays
/// for an index it cannot use.
pub(crate) struct BlockIndex<W: Weight> {
    /// By block key; null for a key without a block. Empty when not built.
    nodes: Vec<NodePtr<W>>,
    /// `nodes` describes the tree as it is.
    built: bool,
    /// Items updated without the index since it was last built or dropped.
    credit: u64,
}

impl<W: Weight> BlockIndex<W> {
    /// An index to be built at the first in-place update (a new tree is held by nothing else).
    fn fresh() -> Self {
        BlockIndex {
            nodes: Vec::new(),
            built: false,
            credit: u64::MAX,
        }
    }

    /// An index that waits for its credit.
    fn waiting() -> Self {
        BlockIndex {
            nodes: Vec::new(),
            built: false,
            credit: 0,
        }
    }

    /// Forget the index (the tree's shape changed).
    fn invalidate(&mut self) {
        *self = Self::waiting();
    }

    /// May the index be used for `root` (`alone`: no other tree of the lineage lives) — built
    /// now if it was not and the credit allows?
    fn ready(&mut self, root: &mut VLink<W>, alone: bool) -> bool {
        if !alone {
            return false;
        }
        if self.built {
            // Defensive: an index in use implies an unshared root.
            return root.as_ref().is_some_and(|r| Counted::count(r) == 1);
        }
        let nodes = size(root) as u64;
        if nodes == 0 || self.credit < nodes {
            return false;
        }
        self.credit = 0;
        let Some(max) = max_block(root) else {
            return false;
        };
        // Sparse ids would make a large array of mostly null pointers: no index.
        if max as u64 >= 4 * nodes + 1024 {
            return false;
        }
        // (Entries left from an index given up by an unwinding update are stale: cleared.)
        self.nodes.clear();
        self.nodes
            .resize(max as usize + 1, NodePtr(std::ptr::null_mut()));
        fn rec<W: Weight>(t: &mut VLink<W>, nodes: &mut [NodePtr<W>]) -> bool {
            let Some(a) = t.as_mut() else { return true };
            let p = Counted::as_ptr(a) as *mut VNode<W>;
            let Some(n) = Counted::get_mut(a) else {
                return false;
            };
            nodes[n.key as usize] = NodePtr(p);
            rec(&mut n.left, nodes) && rec(&mut n.right, nodes)
        }
        if !rec(root, &mut self.nodes) {
            // Some node is shared (which the lineage count should have ruled out).
            debug_assert!(false, "a shared node in a tree without clones");
            self.nodes.clear();
            return false;
        }
        self.built = true;
        true
    }

    /// Does block `key` have an indexed node?
    #[inline]
    fn has(&self, key: u32) -> bool {
        self.nodes.get(key as usize).is_some_and(|p| !p.0.is_null())
    }
}

/// The largest block key of `t`.
fn max_block<W: Weight>(t: &VLink<W>) -> Option<u32> {
    let mut cur = t.as_deref()?;
    while let Some(r) = cur.right.as_deref() {
        cur = r;
    }
    Some(cur.key)
}

#[cfg(test)]
thread_local! {
    /// Tests: in-place updates on this thread leave the index alone (and go down the tree,
    /// keeping a valid index valid unless the shape changes), so that one test covers both.
    pub(crate) static INDEX_OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Tests: runs of blocks that took the index on this thread (one or more per
    /// `VTree::multi_update_mut` call that used it).
    pub(crate) static INDEXED_BATCHES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Tests: ids without a tree that [`update_in_slot`] gave one in their block's array (in
    /// a spare slot) on this thread.
    pub(crate) static EDGELESS_IN_SLOT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// May the in-place updates use a valid index (always, but in tests that say otherwise)?
#[inline(always)]
fn index_on() -> bool {
    #[cfg(test)]
    if INDEX_OFF.get() {
        return false;
    }
    true
}

/// A vertex tree: its root, its total arcs, and the [`BlockIndex`] its in-place updates use.
/// Cloning is O(1).
pub(crate) struct VTree<W: Weight> {
    /// Set while this tree holds references lent by the tree it was copied from (see
    /// [`Lending`]). Declared first: dropped (settled by counting) before `root` is.
    lending: Option<Box<Lending<W>>>,
    root: VLink<W>,
    arcs: u64,
    index: BlockIndex<W>,
    /// Shared by this tree and its clones (and theirs): while its count is more than one,
    /// another tree may hold nodes of this one. Declared after `root`, so a clone going away
    /// releases its nodes first.
    lineage: Arc<()>,
}

impl<W: Weight> Default for VTree<W> {
    fn default() -> Self {
        VTree {
            lending: None,
            root: None,
            arcs: 0,
            index: BlockIndex::fresh(),
            lineage: Arc::new(()),
        }
    }
}

impl<W: Weight> Clone for VTree<W> {
    /// The clone's index is not built, and has the credit of this one: the work either tree
    /// did without an index is the same history (a graph cloned once and then updated alone,
    /// its source gone, builds its index at once if the source had never had one).
    fn clone(&self) -> Self {
        VTree {
            lending: None,
            root: self.root.clone(),
            arcs: self.arcs,
            index: BlockIndex {
                credit: self.index.credit,
                ..BlockIndex::waiting()
            },
            lineage: self.lineage.clone(),
        }
    }
}

impl<W: Weight> std::ops::Deref for VTree<W> {
    type Target = VLink<W>;
    #[inline]
    fn deref(&self) -> &VLink<W> {
        &self.root
    }
}

impl<W: Weight> VTree<W> {
    /// Build from strictly increasing `(vertex, tree)` pairs (every vertex listed is present).
    pub(crate) fn from_sorted(items: Vec<(Vertex, CTree<W>)>) -> Self {
        let (root, arcs) = from_sorted(items);
        VTree {
            lending: None,
            root,
            arcs,
            index: BlockIndex::fresh(),
            lineage: Arc::new(()),
        }
    }

    /// A clone whose next update lends instead of counting what it shares with this tree
    /// (see [`Lending`]), until [`take_lending`](Self::take_lending) or a second update.
    pub(crate) fn lending_clone(&self) -> Self {
        let mut t = self.clone();
        t.lending = Some(Box::new(Lending {
            old: self.root.clone(),
            entries: Vec::new(),
            used: false,
        }));
        t
    }

    /// The [`Lending`] of this tree's update, to settle once the tree it was copied from is
    /// released (it must be settled, or dropped, while this tree lives).
    pub(crate) fn take_lending(&mut self) -> Option<Box<Lending<W>>> {
        self.lending.take()
    }

    /// Is this the only tree of its lineage (no clone lives)? Then nothing else holds a node.
    fn alone(&self) -> bool {
        if Arc::strong_count(&self.lineage) != 1 {
            return false;
        }
        // As in `unique_mut`: the other trees' Release decrements (after they released their
        // nodes, and their readers were done) happen before what we do next.
        fence(Acquire);
        true
    }

    /// Arcs in the tree. O(1).
    #[inline]
    pub(crate) fn arcs(&self) -> u64 {
        self.arcs
    }

    /// Bytes that freeing every node of the tree with its block array could give back at
    /// most (each array counted at its largest: K trees and the spare slot an array edited in
    /// place may keep). O(1).
    pub(crate) fn node_bytes_bound(&self) -> usize {
        size(&self.root) as usize * (NODE_BYTES + CountedSlice::<CTree<W>>::alloc_bytes(K + 1))
    }

    /// Bytes of the block index (its capacity) and of the lineage count.
    pub(crate) fn index_bytes(&self) -> usize {
        self.index.nodes.capacity() * std::mem::size_of::<NodePtr<W>>() + 16
    }

    /// Apply `f(v, current tree, item)` to every item (strictly increasing ids), in
    /// parallel: `Some(t)` makes `t` the tree of `v` (inserting `v` if absent; an empty `t`
    /// keeps `v` present without edges), `None` removes `v` (or keeps it absent). The current
    /// tree of a present vertex without edges is an empty tree. Returns the change in arcs.
    ///
    /// The tree is updated in place where nothing else shares it: a node that no other
    /// version holds (its count is one: `Counted::get_mut`) keeps its allocation, and a block
    /// array that none holds has only its touched trees replaced, so the untouched trees of
    /// the block are neither cloned (no counts written) nor released later, and no node is
    /// freed; `f` gets the touched trees of such an array as [`Cur::Owned`] (to update them
    /// in place). A shared subtree is path-copied (`update_rec`: a version still held, by a
    /// snapshot or by a clone of the graph, never changes). The shape is the same canonical
    /// treap either way. When the whole tree is held by nothing else and its index is built
    /// (see `credit`), the blocks that have indexed nodes are reached through the
    /// [`BlockIndex`], and the others (blocks to be made) down the tree.
    pub(crate) fn multi_update_mut<I, F>(&mut self, items: &[(Vertex, I)], f: &F) -> i64
    where
        I: Sync,
        F: Fn(Vertex, Option<Cur<'_, W>>, &I) -> Option<CTree<W>> + Sync,
    {
        // (A repeated id would find its tree already taken out of its block.)
        debug_assert!(
            items.windows(2).all(|w| w[0].0 < w[1].0),
            "ids not strictly increasing"
        );
        if items.is_empty() {
            return 0;
        }
        if let Some(mut l) = self.lending.take() {
            if !l.used {
                // One path copy from the root, lending what it shares with `l.old` (the
                // root itself is shared, so nothing is updated in place).
                l.used = true;
                // `f` aborts where it panics (`update_block`); anything else that panicked
                // in the copy would be a bug of the tree's own, and aborts at the latest here.
                let (nt, d) = abort_on_unwind(|| {
                    update_rec(&self.root, items, f, false, Some(&mut l.entries))
                });
                self.lending = Some(l);
                self.root = nt;
                self.index.invalidate();
                self.arcs = (self.arcs as i64 + d) as u64;
                return d;
            }
            // A second update: count what the first lent before anything may go in place.
            drop(l);
        }
        let alone = self.alone();
        let indexed = self.index.ready(&mut self.root, alone);
        // An update that unwinds (a panic in `f`, caught by the caller) may have freed nodes on
        // its way: the index counts as unbuilt while the update runs, and as built again only
        // if the update kept the tree's shape.
        let built = std::mem::replace(&mut self.index.built, false);
        let d = if indexed && index_on() {
            // Runs of items whose blocks have indexed nodes take the index; the others (blocks
            // to be made, or made since the index was built) go down the tree afterwards, when
            // nothing is written through the index any more.
            let (mut arcs, mut emptied, mut rest) = (0, Vec::new(), Vec::new());
            let mut i = 0;
            while i < items.len() {
                let known = self.index.has(block_of(items[i].0));
                let mut j = i + 1;
                while j < items.len() && self.index.has(block_of(items[j].0)) == known {
                    j += 1;
                }
                if known {
                    #[cfg(test)]
                    INDEXED_BATCHES.set(INDEXED_BATCHES.get() + 1);
                    arcs += update_indexed(&self.index.nodes, &items[i..j], f, &mut emptied);
                } else {
                    rest.push(i..j);
                }
                i = j;
            }
            let mut d = Delta {
                arcs,
                ..Delta::default()
            };
            for key in emptied {
                d = d + remove_block(&mut self.root, key);
            }
            for r in rest {
                d = d + update_mut(&mut self.root, &items[r], f, false);
            }
            d
        } else {
            if !indexed {
                self.index.credit = self.index.credit.saturating_add(items.len() as u64);
            }
            update_mut(&mut self.root, items, f, false)
        };
        if d.reshaped {
            self.index.invalidate();
        } else {
            self.index.built = built;
        }
        self.arcs = (self.arcs as i64 + d.arcs) as u64;
        d.arcs
    }
}

/// Update the blocks of `items` through the index (valid; every block indexed): the change in
/// arcs. Blocks left without ids are listed in `emptied` (their nodes stay, to be removed).
/// A sequential run takes the blocks [`INDEX_GROUP`] at a time, loading each group's index
/// entries, then nodes, then tree slots, then chunks, before updating them, so that the
/// misses of a group overlap.
fn update_indexed<W, I, F>(
    nodes: &[NodePtr<W>],
    items: &[(Vertex, I)],
    f: &F,
    emptied: &mut Vec<u32>,
) -> i64
where
    W: Weight,
    I: Sync,
    F: Fn(Vertex, Option<Cur<'_, W>>, &I) -> Option<CTree<W>> + Sync,
{
    if items.len() >= PAR_ITEMS && rayon::current_num_threads() > 1 {
        // Split at a block boundary near the middle.
        let mut m = items.len() / 2;
        let key = block_of(items[m].0);
        while m > 0 && block_of(items[m - 1].0) == key {
            m -= 1;
        }
        if m > 0 {
            let (a, b) = items.split_at(m);
            let mut more = Vec::new();
            let (da, db) = rayon::join(
                || update_indexed(nodes, a, f, emptied),
                || update_indexed(nodes, b, f, &mut more),
            );
            emptied.append(&mut more);
            return da + db;
        }
    }
    let mut d = 0i64;
    let mut rest = items;
    while !rest.is_empty() {
        // The group's blocks: (key, its items' range in `rest`).
        let mut spans = [(0u32, 0usize, 0usize); INDEX_GROUP];
        let (mut g, mut pos) = (0, 0);
        while g < INDEX_GROUP && pos < rest.len() {
            let key = block_of(rest[pos].0);
            let mut e = pos + 1;
            while e < rest.len() && block_of(rest[e].0) == key {
                e += 1;
            }
            spans[g] = (key, pos, e);
            g += 1;
            pos = e;
        }
        let spans = &spans[..g];
        for &(k, _, _) in spans {
            prefetch(nodes.as_ptr().wrapping_add(k as usize));
        }
        for &(k, _, _) in spans {
            prefetch(nodes[k as usize].0);
        }
        // SAFETY (this block and the loops below): the index is valid (`BlockIndex`), so
        // every pointer is a live node of the tree, held by nothing but the tree, which the
        // caller holds by `&mut`; the keys are distinct, and a forked half of the batch has
        // keys of its own.
        let node = |k: u32| {
            let p = nodes[k as usize].0;
            unsafe { &mut *p }
        };
        for &(k, s, e) in spans {
            let n = node(k);
            n.block.prefetch_count();
            // The items' slots, which the next stage reads to find their chunks (only the
            // first few share the count's line). One process, alternating rounds, RMAT scale
            // 20, 1 thread: inserts of 10 and 1000 edges 1.2-1.7 % faster, deletes even.
            let mut edgeless = false;
            for (v, _) in &rest[s..e] {
                let i = (v - (k << LOG_K)) as usize;
                n.block.prefetch_slot(i);
                edgeless |= n.block.nonempty >> i & 1 == 0;
            }
            // An id without edges (which an insert gives some) moves the trees after it to
            // new slots: the whole array is read and written, so all its lines are loaded.
            // (One process, alternating rounds, RMAT scale 20, 1 thread: inserts of 10 and
            // 1000 edges 7-9 % faster, of 1e5 2 %; deletes, which seldom take it, even.)
            if edgeless {
                let a = CountedSlice::as_ptr(&n.block.trees) as *const u8;
                let end = a.wrapping_add(std::mem::size_of_val(&*n.block.trees));
                let mut p = a.wrapping_add(48);
                while p < end {
                    prefetch(p);
                    p = p.wrapping_add(64);
                }
            }
        }
        for &(k, s, e) in spans {
            let n = node(k);
            for (v, _) in &rest[s..e] {
                n.block.prefetch_tree((v - (k << LOG_K)) as usize);
            }
        }
        for &(k, s, e) in spans {
            let n = node(k);
            let mut own = 0;
            if !update_block_mut(k, &mut n.block, &mut own, &rest[s..e], f) {
                emptied.push(k);
            }
            n.own = (n.own as i64 + own) as u64;
            d += own;
        }
        rest = &rest[pos..];
    }
    d
}

/// Blocks an indexed sequential update loads at once: a batch of 10 edges (20 arcs, ~20
/// blocks) is one group. One process, alternating rounds, RMAT scale 20, 1 thread, against
/// 16: inserts of 10 and 1000 edges 1.3-1.8 % faster, of 1e5 and deletes within noise; 64
/// gained nothing more.
const INDEX_GROUP: usize = 32;

/// Remove the node of block `key` (left without ids by an indexed update) from `t`, whose
/// nodes nothing else holds.
fn remove_block<W: Weight>(t: &mut VLink<W>, key: u32) -> Delta {
    path_mut(t, key, &mut |_| Some((Delta::default(), false)))
        .expect("an indexed tree is held by nothing else and has the block")
}

/// Down the search path of block `key` in place: `at(node)` on its node gives the change in
/// `t` and whether the node stays; one that does not is removed by joining its children,
/// which rank below it. The node counts on the path follow. `None` (nothing done) if a node
/// on the path is shared, the block is absent, or `at` answers `None`.
fn path_mut<W: Weight>(
    t: &mut VLink<W>,
    key: u32,
    at: &mut impl FnMut(&mut VNode<W>) -> Option<(Delta, bool)>,
) -> Option<Delta> {
    let n = t.as_mut().and_then(Counted::get_mut)?;
    let d = match key.cmp(&n.key) {
        std::cmp::Ordering::Less => path_mut(&mut n.left, key, at)?,
        std::cmp::Ordering::Greater => path_mut(&mut n.right, key, at)?,
        std::cmp::Ordering::Equal => {
            let (d, keep) = at(n)?;
            if !keep {
                let (l, r) = (n.left.take(), n.right.take());
                *t = join2(l, r);
                return Some(Delta {
                    nodes: -1,
                    reshaped: true,
                    ..d
                });
            }
            return Some(d);
        }
    };
    if d.nodes != 0 {
        n.size = (n.size as i64 + d.nodes) as u32;
    }
    Some(d)
}

/// The in-place multi-update of `t` (see [`VTree::multi_update_mut`]).
///
/// A node counts its own block's arcs and its subtree's nodes, so the children an update does
/// not enter are never read: in place, a batch's cost is its search paths, not their
/// neighbourhoods. Fewer than [`PAR_ITEMS`] items go block by block down their paths
/// ([`update_path_mut`]), without the recursion's splitting of the items at every node; a
/// block whose path is shared or which does not exist yet takes the recursion
/// ([`update_tree_mut`]).
fn update_mut<W, I, F>(t: &mut VLink<W>, items: &[(Vertex, I)], f: &F, warmed: bool) -> Delta
where
    W: Weight,
    I: Sync,
    F: Fn(Vertex, Option<Cur<'_, W>>, &I) -> Option<CTree<W>> + Sync,
{
    if items.len() >= PAR_ITEMS {
        return update_tree_mut(t, items, f, false);
    }
    if !warmed {
        warm(t, items, Warm::InPlace);
    }
    items
        .chunk_by(|a, b| block_of(a.0) == block_of(b.0))
        .map(|g| {
            update_path_mut(t, block_of(g[0].0), g, f)
                .unwrap_or_else(|| update_tree_mut(t, g, f, true))
        })
        .sum()
}

/// Update block `key` with `items` (all of it) in place, down its search path: the change in
/// `t`, or `None` (nothing done) if a node on the path is shared or the block is absent. A
/// block left without ids is removed by joining its children, which rank below it.
fn update_path_mut<W, I, F>(
    t: &mut VLink<W>,
    key: u32,
    items: &[(Vertex, I)],
    f: &F,
) -> Option<Delta>
where
    W: Weight,
    F: Fn(Vertex, Option<Cur<'_, W>>, &I) -> Option<CTree<W>>,
{
    path_mut(t, key, &mut |n| {
        let mut own = 0;
        let keep = update_block_mut(key, &mut n.block, &mut own, items, f);
        n.own = (n.own as i64 + own) as u64;
        Some((
            Delta {
                arcs: own,
                ..Delta::default()
            },
            keep,
        ))
    })
}

/// [`update_mut`] by recursion over the tree, splitting the items at each node (in parallel
/// from [`PAR_ITEMS`] items on); a shared subtree is path-copied ([`update_rec`]).
fn update_tree_mut<W, I, F>(t: &mut VLink<W>, items: &[(Vertex, I)], f: &F, warmed: bool) -> Delta
where
    W: Weight,
    I: Sync,
    F: Fn(Vertex, Option<Cur<'_, W>>, &I) -> Option<CTree<W>> + Sync,
{
    if items.is_empty() {
        return Delta::default();
    }
    let par = items.len() >= PAR_ITEMS;
    let Some(n) = t.as_mut().and_then(Counted::get_mut) else {
        // Shared (or empty): copy the paths, as for a version that must not change.
        let before = size(t) as i64;
        let (nt, arcs) = update_rec(t, items, f, warmed || !par, None);
        *t = nt;
        return Delta {
            arcs,
            nodes: size(t) as i64 - before,
            // A subtree that was there was copied (its nodes replaced or shared). One that was
            // empty is only new nodes, which an index lacks but does not misstate: the index
            // stays true (their blocks go down the tree until it is built again).
            reshaped: before != 0,
        };
    };
    let i = items.partition_point(|(k, _)| block_of(*k) < n.key);
    let j = i + items[i..].partition_point(|(k, _)| block_of(*k) == n.key);
    let (go_left, go_right) = (i > 0, j < items.len());
    if par {
        for c in [go_left.then_some(&n.left), go_right.then_some(&n.right)]
            .into_iter()
            .flatten()
            .flatten()
        {
            prefetch(Counted::as_ptr(c));
        }
    }
    let (left, right) = (&mut n.left, &mut n.right);
    let (dl, dr) = if par {
        rayon::join(
            || update_mut(left, &items[..i], f, false),
            || update_mut(right, &items[j..], f, false),
        )
    } else {
        (
            update_tree_mut(left, &items[..i], f, true),
            update_tree_mut(right, &items[j..], f, true),
        )
    };
    let mut own = 0;
    let keep = i == j || update_block_mut(n.key, &mut n.block, &mut own, &items[i..j], f);
    let d = dl
        + dr
        + Delta {
            arcs: own,
            ..Delta::default()
        };
    let below = |c: &VLink<W>| c.as_ref().is_none_or(|c| !higher(c.key, n.key));
    // A side the update did not enter is unchanged, so it still ranks below this node.
    if keep && (!go_left || below(&n.left)) && (!go_right || below(&n.right)) {
        n.own = (n.own as i64 + own) as u64;
        if d.nodes != 0 {
            n.size = (n.size as i64 + d.nodes) as u32;
        }
        return d;
    }
    // The block is gone, or a new block below outranks this one: rebuild this level (`size`
    // is still the subtree's before the update).
    let before = n.size as i64;
    let (l, r) = (n.left.take(), n.right.take());
    let (key, block) = (n.key, keep.then(|| n.block.clone()));
    let own = (n.own as i64 + own) as u64;
    *t = match block {
        Some(b) => Some(join3(l, key, b, own, r)),
        None => join2(l, r),
    };
    Delta {
        nodes: size(t) as i64 - before,
        reshaped: true,
        ..d
    }
}

/// Apply `f` to `items` (sorted ids of block `key`) in `block`, adding the change in its own
/// arcs to `own`; `false` if no id of the block remains present. The array is edited in place
/// when nothing else holds it and the trees of the ids with edges fit it (its spare slots
/// included): id by id ([`update_in_slot`]) while each fits, then the rest together;
/// otherwise a new one is made, taking the untouched trees out of an array held by nothing
/// else, cloning them from a shared one.
fn update_block_mut<W, I, F>(
    key: u32,
    block: &mut Block<W>,
    own: &mut i64,
    items: &[(Vertex, I)],
    f: &F,
) -> bool
where
    W: Weight,
    F: Fn(Vertex, Option<Cur<'_, W>>, &I) -> Option<CTree<W>>,
{
    let base = key << LOG_K;
    // Each id in its slot, without the per-id arrays below, as long as the array is unshared
    // and has a slot for it: RMAT batches of 1e5 on RMAT scale 20 give the blocks they touch
    // 2.4 ids on average, and batches of 10 one.
    let mut rest = items;
    while let [(v, it), more @ ..] = rest {
        debug_assert_eq!(block_of(*v), key);
        if !update_in_slot(base, block, own, *v, it, f) {
            break;
        }
        rest = more;
    }
    if rest.is_empty() {
        return block.present != 0;
    }
    let items = rest;
    let empty = CTree::default();
    let mut next: [Option<CTree<W>>; K] = std::array::from_fn(|_| None);
    let (mut touched, mut present, mut nonempty): (Mask, Mask, Mask) =
        (0, block.present, block.nonempty);
    // An array that nothing else holds gives its touched trees to `f` to update in place
    // (their slots are left empty: only untouched slots are read again below).
    let mut taken: [Option<CTree<W>>; K] = std::array::from_fn(|_| None);
    if let Some(trees) = CountedSlice::get_mut(&mut block.trees) {
        for (v, _) in items {
            let i = (v - base) as usize;
            if block.nonempty >> i & 1 == 1 {
                taken[i] = Some(std::mem::take(&mut trees[rank(block.nonempty, i)]));
            }
        }
    }
    for (v, it) in items {
        debug_assert_eq!(block_of(*v), key);
        let i = (v - base) as usize;
        touched |= 1 << i;
        let cur = match taken[i].take() {
            Some(t) => Some(Cur::Owned(t)),
            None => {
                (block.present >> i & 1 == 1).then(|| Cur::Shared(block.get(i).unwrap_or(&empty)))
            }
        };
        *own -= cur.as_ref().map_or(0, |t| t.len() as i64);
        match f(*v, cur, it) {
            None => {
                present &= !(1 << i);
                nonempty &= !(1 << i);
            }
            Some(t) => {
                present |= 1 << i;
                if t.is_empty() {
                    nonempty &= !(1 << i);
                } else {
                    nonempty |= 1 << i;
                    *own += t.len() as i64;
                    next[i] = Some(t);
                }
            }
        }
    }
    if present == 0 {
        return false;
    }
    // The untouched trees: (rank in the array, id offset).
    let old = block.nonempty;
    let kept = || {
        ones(old)
            .enumerate()
            .filter(move |&(_, i)| touched >> i & 1 == 0)
    };
    if let Some(trees) = CountedSlice::get_mut(&mut block.trees) {
        if nonempty == old {
            for i in ones(touched & nonempty) {
                trees[rank(nonempty, i)] = next[i]
                    .take()
                    .expect("a new tree for a touched id with edges");
            }
            block.present = present;
            return true;
        }
        if nonempty.count_ones() as usize <= trees.len() {
            // Other ids have edges now, and their trees fit the array: every tree to its new
            // rank, in place (the touched ones were taken out above; the slots past the last
            // are left empty).
            for (r, i) in kept() {
                next[i] = Some(std::mem::take(&mut trees[r]));
            }
            for (r, i) in ones(nonempty).enumerate() {
                trees[r] = next[i].take().expect("a tree for an id with edges");
            }
            block.present = present;
            block.nonempty = nonempty;
            return true;
        }
    }
    let mut slots = Slots::new();
    slots.present = present;
    // An array edited in place that outgrows itself is replaced by one with a spare slot,
    // which the next id to gain edges fills in place (path copying makes exact arrays).
    let spare = match CountedSlice::get_mut(&mut block.trees) {
        Some(trees) => {
            for (rank, i) in kept() {
                slots.trees[i] = Some(std::mem::take(&mut trees[rank]));
            }
            1
        }
        None => {
            for (rank, i) in kept() {
                slots.trees[i] = Some(block.trees[rank].clone());
            }
            0
        }
    };
    for (i, t) in next.into_iter().enumerate() {
        if t.is_some() {
            slots.trees[i] = t;
        }
    }
    *block = slots
        .finish_spare(spare)
        .expect("some id of the block is present")
        .0;
    true
}

/// Update id `v` of `block` (whose ids start at `base`) by `f` in the block's array, if
/// nothing else holds the array and, for an id without a tree, it has a spare slot; `false`
/// (and `f` not called) otherwise. A tree that empties leaves its slot, the trees after it
/// moving down and the slot becoming a spare at the end; an id's first tree takes its rank,
/// the trees from there to the first spare moving up (an id's first edge: 38 % of the trees
/// an RMAT batch of 1e5 touches on RMAT scale 20, the graph's edgeless ids).
#[inline]
fn update_in_slot<W, I, F>(
    base: Vertex,
    block: &mut Block<W>,
    own: &mut i64,
    v: Vertex,
    it: &I,
    f: &F,
) -> bool
where
    W: Weight,
    F: Fn(Vertex, Option<Cur<'_, W>>, &I) -> Option<CTree<W>>,
{
    let i = (v - base) as usize;
    let Some(trees) = CountedSlice::get_mut(&mut block.trees) else {
        return false;
    };
    if block.nonempty >> i & 1 == 1 {
        let r = rank(block.nonempty, i);
        let t = std::mem::take(&mut trees[r]);
        *own -= t.len() as i64;
        match f(v, Some(Cur::Owned(t)), it) {
            Some(t) if !t.is_empty() => {
                *own += t.len() as i64;
                trees[r] = t;
            }
            t => {
                trees[r..].rotate_left(1);
                block.nonempty &= !(1 << i);
                if t.is_none() {
                    block.present &= !(1 << i);
                }
            }
        }
        return true;
    }
    let spare = block.nonempty.count_ones() as usize;
    if spare == trees.len() {
        return false;
    }
    #[cfg(test)]
    EDGELESS_IN_SLOT.set(EDGELESS_IN_SLOT.get() + 1);
    let empty = CTree::default();
    let present = block.present >> i & 1 == 1;
    match f(v, present.then_some(Cur::Shared(&empty)), it) {
        None => block.present &= !(1 << i),
        Some(t) => {
            block.present |= 1 << i;
            if !t.is_empty() {
                let r = rank(block.nonempty, i);
                *own += t.len() as i64;
                trees[r..=spare].rotate_right(1);
                trees[r] = t;
                block.nonempty |= 1 << i;
            }
        }
    }
    true
}

/// The index in a block's array of the tree of its `i`-th id: the set bits of `nonempty`
/// below bit `i`.
#[inline(always)]
fn rank(nonempty: Mask, i: usize) -> usize {
    (nonempty & ((1 << i) - 1)).count_ones() as usize
}

/// The set bits of `m`, lowest first.
#[inline]
fn ones(mut m: Mask) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            i
        })
    })
}

/// Call `f` on every node, in parallel.
pub(crate) fn par_for_each_node<W: Weight>(t: &VLink<W>, f: &(impl Fn(&VNode<W>) + Sync)) {
    let Some(n) = t else { return };
    if n.size >= PAR_WALK_NODES {
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
    let (a, b) = if n.size >= PAR_WALK_NODES {
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

/// Call `f` on every node in key order (sequential).
pub(crate) fn for_each_node<W: Weight>(t: &VLink<W>, f: &mut impl FnMut(&VNode<W>)) {
    if let Some(n) = t {
        for_each_node(&n.left, f);
        f(n);
        for_each_node(&n.right, f);
    }
}

/// Check treap order, key order, the blocks, the nodes' arc and node counts, the total, and a
/// valid index (tests).
#[cfg(test)]
pub(crate) fn check<W: Weight>(t: &VTree<W>, heads: super::Heads) {
    fn rec<W: Weight>(t: &VLink<W>, prev: &mut Option<u32>, heads: super::Heads) -> (u64, u32) {
        let Some(n) = t else { return (0, 0) };
        for c in [&n.left, &n.right].into_iter().flatten() {
            assert!(!higher(c.key, n.key), "vertex treap order");
        }
        let a = rec(&n.left, prev, heads);
        assert!(prev.is_none_or(|p| p < n.key));
        *prev = Some(n.key);
        let b = &n.block;
        assert_ne!(b.present, 0, "a block without vertices");
        assert_eq!(b.nonempty & !b.present, 0, "edges of an absent vertex");
        let len = b.nonempty.count_ones() as usize;
        assert!(b.trees.len() >= len, "fewer trees than ids with edges");
        assert!(
            b.trees[len..].iter().all(|t| t.is_empty()),
            "a tree in a spare slot"
        );
        let mut own = 0;
        n.for_each_tree(|v, t| {
            assert!(!t.is_empty(), "an empty tree in a slot");
            t.check(v, heads);
            own += t.len() as u64;
        });
        let c = rec(&n.right, prev, heads);
        assert_eq!(n.own, own, "a block's arc count");
        assert_eq!(n.size, a.1 + c.1 + 1, "a subtree's node count");
        (a.0 + c.0 + own, n.size)
    }
    let (arcs, _) = rec(&t.root, &mut None, heads);
    assert_eq!(t.arcs, arcs, "the tree's arc count");
    if t.index.built {
        // Every entry is its block's node (nodes made since the build may lack one).
        let mut by_key = std::collections::HashMap::new();
        for_each_node(&t.root, &mut |n| {
            by_key.insert(n.key, n as *const VNode<W>);
        });
        for (k, p) in t.index.nodes.iter().enumerate() {
            if !p.0.is_null() {
                assert_eq!(
                    by_key.get(&(k as u32)).copied(),
                    Some(p.0 as *const VNode<W>),
                    "the index's node of block {k}"
                );
            }
        }
    }
}

/// `(max depth, total depth, nodes)` of the block nodes (tests/diagnostics).
#[cfg(test)]
pub(crate) fn depth_stats<W: Weight>(t: &VLink<W>, d: usize) -> (usize, usize, usize) {
    let Some(n) = t else { return (0, 0, 0) };
    let a = depth_stats(&n.left, d + 1);
    let b = depth_stats(&n.right, d + 1);
    (a.0.max(b.0).max(d + 1), a.1 + b.1 + d + 1, a.2 + b.2 + 1)
}

#[cfg(test)]
mod drop_tests {
    use super::*;

    /// Records whether drops were sequential when it was dropped; panics if asked to.
    struct Probe<'a>(&'a std::cell::Cell<Option<bool>>, bool);
    impl Drop for Probe<'_> {
        fn drop(&mut self) {
            self.0.set(Some(SEQUENTIAL_DROPS.with(|f| f.get())));
            if self.1 {
                panic!("a drop that unwinds");
            }
        }
    }

    /// `drop_sequentially` turns forking off for the drop it runs (nested calls too) and
    /// back on after it, also when that drop unwinds.
    #[test]
    fn drop_sequentially_holds_the_flag_for_its_drop_only() {
        let seen = std::cell::Cell::new(None);
        assert!(!SEQUENTIAL_DROPS.with(|f| f.get()));
        drop_sequentially(Probe(&seen, false));
        assert_eq!(seen.get(), Some(true));
        assert!(!SEQUENTIAL_DROPS.with(|f| f.get()));
        drop_sequentially((Probe(&seen, false), ()));
        assert_eq!(seen.get(), Some(true));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            drop_sequentially(Probe(&seen, true))
        }));
        assert!(r.is_err());
        assert_eq!(seen.get(), Some(true));
        assert!(
            !SEQUENTIAL_DROPS.with(|f| f.get()),
            "restored after unwinding"
        );
        // Nested: the outer call's setting survives the inner one's.
        struct Nest<'a>(&'a std::cell::Cell<Option<bool>>);
        impl Drop for Nest<'_> {
            fn drop(&mut self) {
                drop_sequentially(Probe(self.0, false));
                self.0.set(Some(SEQUENTIAL_DROPS.with(|f| f.get())));
            }
        }
        drop_sequentially(Nest(&seen));
        assert_eq!(seen.get(), Some(true));
        assert!(!SEQUENTIAL_DROPS.with(|f| f.get()));
    }
}
