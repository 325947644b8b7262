//! What path copying a vertex tree costs at the least, stripped of everything else a C-tree
//! batch does (no edge trees, no chunks, no sort): a model of the versioned small-batch path,
//! for deciding what shape the vertex tree could take. Run it with
//! `cargo run --release --example path_copy_floor -p weald-cli -- [KEYS_PER_BATCH] [ROUNDS]`,
//! with the allocator settings of the `weald` command.
//!
//! The tree holds 65,536 blocks (RMAT scale 20 in blocks of 16 ids), each a reference-counted
//! 160-byte payload standing for a block's array of edge trees. A batch is a sorted set of
//! random block keys; it is applied to the same held base every time (as `weald bench updates`
//! did without `--in-place` until 2026-12-02; it now makes a line of versions and times the
//! freeing too), copying the path to each key and replacing each key's payload by an edited
//! copy. Every new version is kept until the clock stops (freeing is not timed).
//! The shapes:
//! * `binary`: a perfectly balanced binary tree with a payload at every node, `Arc` links
//!   (the vertex treap's shape: a copied node takes the count of its other child and of its
//!   payload);
//! * `F-ary`: a radix trie of fan-out F over the block key, payloads at the leaves (a copied
//!   node takes the counts of its F − 1 other children);
//! * `binary, no counts`: the binary shape with nodes and payloads in an arena addressed by
//!   index and never freed one by one (the floor of path copying without per-node counts, as
//!   a version-range reclamation would allow);
//! * `lent F-ary` (F = 16, 64, 256): a radix trie whose nodes are arrays of F eight-byte links
//!   copied bitwise, as a lending copy (`vtree::Lending`) takes what it shares without a count,
//!   so a wide node costs its bytes and no count per child; payloads in an arena, as for the
//!   arena's shape. Each round builds its trie afresh, so its first round also pays the page
//!   faults of fresh memory.
//! * `slots`: no tree at all, a table of one slot per block (LLAMA's way, as ctree/mod.rs
//!   weighs it for versioned small batches): each slot points to the newest record of a chain
//!   of versions, a record being a version number, a payload and the older record. A batch
//!   reads each key's newest record, makes a new one with an edited payload and links it in
//!   front (a reader at version v would walk the chain to the newest record at most v).
//!   Records are kept until the clock stops, as the other shapes' versions are.
//!
//! Each shape runs on one batch repeated (`hot`: every line in cache) and on 1,000 distinct
//! batches in turn (`cold`), the shapes alternating, two rounds; it prints nanoseconds per key.
//! Figures are in `crates/weald-storage/src/ctree/mod.rs` ("What bounds a batch", and after
//! it "Wide nodes, lent" and "The slots, modelled").
use std::sync::Arc;
use std::time::Instant;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The `weald` binary's purge-delay settings (only `keep_freed_memory` is used here).
#[path = "../src/purge.rs"]
#[allow(dead_code)]
mod purge;

/// Blocks in the tree.
const BLOCKS: u32 = 1 << 16;

/// A block's stand-in: 160 bytes, as a block array of ~9 edge trees.
type Payload = [u64; 20];

fn edited(p: &Payload) -> Payload {
    let mut q = *p;
    q[0] += 1;
    q
}

/// The items of `ks` (sorted) below `key`, at `key`, and above it.
fn split(ks: &[u32], key: u32) -> (&[u32], bool, &[u32]) {
    let i = ks.partition_point(|&k| k < key);
    let hit = ks.get(i) == Some(&key);
    (&ks[..i], hit, &ks[i + usize::from(hit)..])
}

struct BNode {
    left: Option<Arc<BNode>>,
    right: Option<Arc<BNode>>,
    key: u32,
    payload: Arc<Payload>,
}

fn binary_build(keys: &[u32]) -> Option<Arc<BNode>> {
    let m = keys.len() / 2;
    let &key = keys.get(m)?;
    Some(Arc::new(BNode {
        left: binary_build(&keys[..m]),
        right: binary_build(&keys[m + 1..]),
        key,
        payload: Arc::new([key as u64; 20]),
    }))
}

fn binary_update(t: &Option<Arc<BNode>>, ks: &[u32]) -> Option<Arc<BNode>> {
    let Some(n) = t.as_ref().filter(|_| !ks.is_empty()) else {
        return t.clone();
    };
    let (lo, hit, hi) = split(ks, n.key);
    let right = binary_update(&n.right, hi);
    let left = binary_update(&n.left, lo);
    let payload = if hit {
        Arc::new(edited(&n.payload))
    } else {
        n.payload.clone()
    };
    Some(Arc::new(BNode {
        left,
        right,
        key: n.key,
        payload,
    }))
}

enum Trie<const F: usize> {
    Inner(Arc<[Trie<F>; F]>),
    Leaf(Arc<Payload>),
    Empty,
}

impl<const F: usize> Clone for Trie<F> {
    fn clone(&self) -> Self {
        match self {
            Trie::Inner(c) => Trie::Inner(c.clone()),
            Trie::Leaf(p) => Trie::Leaf(p.clone()),
            Trie::Empty => Trie::Empty,
        }
    }
}

/// The smallest power of F at least `BLOCKS`: the key span of the root.
fn span<const F: usize>() -> u32 {
    let mut s = 1u32;
    while s < BLOCKS {
        s *= F as u32;
    }
    s
}

fn trie_build<const F: usize>(lo: u32, span: u32) -> Trie<F> {
    if lo >= BLOCKS {
        return Trie::Empty;
    }
    if span == 1 {
        return Trie::Leaf(Arc::new([lo as u64; 20]));
    }
    let s = span / F as u32;
    Trie::Inner(Arc::new(std::array::from_fn(|i| {
        trie_build(lo + i as u32 * s, s)
    })))
}

fn trie_update<const F: usize>(t: &Trie<F>, lo: u32, span: u32, ks: &[u32]) -> Trie<F> {
    match t {
        _ if ks.is_empty() => t.clone(),
        Trie::Leaf(p) => Trie::Leaf(Arc::new(edited(p))),
        Trie::Inner(c) => {
            let s = span / F as u32;
            let mut rest = ks;
            Trie::Inner(Arc::new(std::array::from_fn(|i| {
                let end = rest.partition_point(|&k| k < lo + (i as u32 + 1) * s);
                let (mine, after) = rest.split_at(end);
                rest = after;
                trie_update(&c[i], lo + i as u32 * s, s, mine)
            })))
        }
        Trie::Empty => unreachable!("keys are below BLOCKS"),
    }
}

/// The binary shape without counts: nodes and payloads live in arenas, linked by index.
#[derive(Default)]
struct Arena {
    nodes: Vec<(u32, u32, u32, u32)>, // left, right, key, payload (u32::MAX: none)
    payloads: Vec<Payload>,
}

const NONE: u32 = u32::MAX;

impl Arena {
    fn build(&mut self, keys: &[u32]) -> u32 {
        let m = keys.len() / 2;
        let Some(&key) = keys.get(m) else { return NONE };
        let left = self.build(&keys[..m]);
        let right = self.build(&keys[m + 1..]);
        self.payloads.push([key as u64; 20]);
        self.nodes
            .push((left, right, key, self.payloads.len() as u32 - 1));
        self.nodes.len() as u32 - 1
    }

    fn update(&mut self, t: u32, ks: &[u32]) -> u32 {
        if t == NONE || ks.is_empty() {
            return t;
        }
        let (left, right, key, payload) = self.nodes[t as usize];
        let (lo, hit, hi) = split(ks, key);
        let right = self.update(right, hi);
        let left = self.update(left, lo);
        let payload = if hit {
            let p = edited(&self.payloads[payload as usize]);
            self.payloads.push(p);
            self.payloads.len() as u32 - 1
        } else {
            payload
        };
        self.nodes.push((left, right, key, payload));
        self.nodes.len() as u32 - 1
    }
}

/// A lent radix trie of fan-out F over the block keys: nodes are arrays of F eight-byte links
/// (an inner node's links are its children's addresses, a leaf level's are payload indices),
/// owned by `nodes` and copied bitwise, with payloads in an arena.
struct Lent<const F: usize> {
    /// The nodes, from `Box::into_raw`: freed only by `Drop`.
    nodes: Vec<*mut [u64; F]>,
    payloads: Vec<Payload>,
    /// Key span of the root.
    span: u32,
}

impl<const F: usize> Lent<F> {
    fn new() -> Self {
        Lent {
            nodes: Vec::new(),
            payloads: Vec::new(),
            span: span::<F>(),
        }
    }

    /// The node at address `link`.
    fn node(&self, link: u64) -> &[u64; F] {
        // SAFETY: every inner link is the address of a node in `nodes`, a live allocation
        // from `Box::into_raw` that only `Drop` frees, and never written after `own`.
        unsafe { &*(link as *const [u64; F]) }
    }

    fn own(&mut self, n: Box<[u64; F]>) -> u64 {
        let p = Box::into_raw(n);
        self.nodes.push(p);
        p as u64
    }

    /// Build the subtree of keys `lo..lo + span`, returning its link.
    fn build(&mut self, lo: u32, span: u32) -> u64 {
        let s = span / F as u32;
        let mut n = Box::new([u64::MAX; F]);
        for (i, slot) in n.iter_mut().enumerate() {
            let k = lo + i as u32 * s;
            if k >= BLOCKS {
                break;
            }
            *slot = if s == 1 {
                self.payloads.push([k as u64; 20]);
                self.payloads.len() as u64 - 1
            } else {
                self.build(k, s)
            };
        }
        self.own(n)
    }

    /// A copy of the subtree `link` (keys `lo..lo + span`) with the payloads of `ks` edited.
    fn update(&mut self, link: u64, lo: u32, span: u32, ks: &[u32]) -> u64 {
        let s = span / F as u32;
        let mut n = Box::new(*self.node(link));
        let mut rest = ks;
        while let Some(&k) = rest.first() {
            let i = ((k - lo) / s) as usize;
            let end = rest.partition_point(|&x| (x - lo) / s == i as u32);
            n[i] = if s == 1 {
                let q = edited(&self.payloads[n[i] as usize]);
                self.payloads.push(q);
                self.payloads.len() as u64 - 1
            } else {
                self.update(n[i], lo + i as u32 * s, s, &rest[..end])
            };
            rest = &rest[end..];
        }
        self.own(n)
    }
}

impl<const F: usize> Drop for Lent<F> {
    fn drop(&mut self) {
        for &p in &self.nodes {
            // SAFETY: from `Box::into_raw` in `own`, freed once, here.
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

/// A record of the `slots` shape: one version of a block.
struct Record {
    version: u64,
    payload: Payload,
    older: *mut Record,
}

/// The `slots` shape: a slot per block, each the newest record of its chain of versions.
struct Slots {
    heads: Vec<*mut Record>,
    version: u64,
}

impl Slots {
    fn new() -> Self {
        let heads = (0..BLOCKS)
            .map(|k| {
                Box::into_raw(Box::new(Record {
                    version: 0,
                    payload: [k as u64; 20],
                    older: std::ptr::null_mut(),
                }))
            })
            .collect();
        Slots { heads, version: 0 }
    }

    /// The next version: each key's block replaced by an edited copy, linked in front.
    fn update(&mut self, ks: &[u32]) {
        self.version += 1;
        for &k in ks {
            let head = self.heads[k as usize];
            // SAFETY: every head is a live record from `Box::into_raw`, freed only by `Drop`.
            let payload = edited(unsafe { &(*head).payload });
            self.heads[k as usize] = Box::into_raw(Box::new(Record {
                version: self.version,
                payload,
                older: head,
            }));
        }
    }

    /// Block `k` as version `v` saw it: the newest record of its chain made at `v` or before.
    fn at(&self, k: u32, v: u64) -> &Payload {
        let mut p = self.heads[k as usize];
        // SAFETY: the chain's records are live until `Drop`; the first (version 0) ends it.
        unsafe {
            while (*p).version > v {
                p = (*p).older;
            }
            &(*p).payload
        }
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        for &h in &self.heads {
            let mut p = h;
            while !p.is_null() {
                // SAFETY: each record is reachable from one slot's chain only, freed once.
                let r = unsafe { Box::from_raw(p) };
                p = r.older;
            }
        }
    }
}

/// Nanoseconds per key of the `slots` shape on `bs`; the chains are freed after the clock
/// stops.
fn slots_per_key(bs: &[Vec<u32>], rounds: usize) -> f64 {
    let mut t = Slots::new();
    let ns = per_key(bs, rounds, |ks, _: &mut Vec<()>| t.update(ks));
    // The last batch's blocks were edited once more than the version before saw them.
    let (v, last) = (t.version, &bs[(rounds - 1) % bs.len()]);
    for &k in last {
        assert_eq!(t.at(k, v)[0], t.at(k, v - 1)[0] + 1);
    }
    drop(t);
    ns
}

/// Nanoseconds per key of the lent trie of fan-out F on `bs`, its versions kept until the
/// clock stops.
fn lent_per_key<const F: usize>(bs: &[Vec<u32>], rounds: usize, keys: usize) -> f64 {
    let mut t = Lent::<F>::new();
    let root = t.build(0, t.span);
    t.nodes.reserve(rounds * keys * 4);
    t.payloads.reserve(rounds * keys);
    per_key(bs, rounds, |ks, k| {
        let span = t.span;
        k.push(t.update(root, 0, span, ks))
    })
}

fn batches(count: usize, keys: usize) -> Vec<Vec<u32>> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..count)
        .map(|_| {
            let mut b: Vec<u32> = (0..keys)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 32) as u32 % BLOCKS
                })
                .collect();
            b.sort_unstable();
            b.dedup();
            b
        })
        .collect()
}

/// Nanoseconds per key of applying `rounds` batches (cycling through `bs`) with `f`, which
/// keeps what it makes; the keeper is dropped after the clock stops.
fn per_key<K>(bs: &[Vec<u32>], rounds: usize, mut f: impl FnMut(&[u32], &mut Vec<K>)) -> f64 {
    let mut kept = Vec::with_capacity(rounds);
    let keys: usize = (0..rounds).map(|r| bs[r % bs.len()].len()).sum();
    let t = Instant::now();
    for r in 0..rounds {
        f(&bs[r % bs.len()], &mut kept);
    }
    let ns = t.elapsed().as_secs_f64() * 1e9 / keys as f64;
    drop(kept);
    ns
}

fn main() {
    let mut args = std::env::args().skip(1);
    let keys: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    purge::keep_freed_memory();
    let all: Vec<u32> = (0..BLOCKS).collect();
    let binary = binary_build(&all);
    let (t4, t8, t16) = (
        trie_build::<4>(0, span::<4>()),
        trie_build::<8>(0, span::<8>()),
        trie_build::<16>(0, span::<16>()),
    );
    let mut arena = Arena::default();
    let root = arena.build(&all);
    // Room for every version's nodes, so that the arena never moves while timed.
    arena.nodes.reserve(rounds * keys * 18);
    arena.payloads.reserve(rounds * keys);
    let base = (arena.nodes.len(), arena.payloads.len());
    println!("{keys} keys per batch (before dedup), {rounds} batches, ns per key:");
    for (label, distinct) in [("hot", 1), ("cold", 1000)] {
        let bs = batches(distinct, keys);
        for round in 0..2 {
            let b = per_key(&bs, rounds, |ks, k| k.push(binary_update(&binary, ks)));
            let f4 = per_key(&bs, rounds, |ks, k| {
                k.push(trie_update(&t4, 0, span::<4>(), ks))
            });
            let f8 = per_key(&bs, rounds, |ks, k| {
                k.push(trie_update(&t8, 0, span::<8>(), ks))
            });
            let f16 = per_key(&bs, rounds, |ks, k| {
                k.push(trie_update(&t16, 0, span::<16>(), ks))
            });
            let free = per_key(&bs, rounds, |ks, k: &mut Vec<u32>| {
                k.push(arena.update(root, ks))
            });
            arena.nodes.truncate(base.0);
            arena.payloads.truncate(base.1);
            let l16 = lent_per_key::<16>(&bs, rounds, keys);
            let l64 = lent_per_key::<64>(&bs, rounds, keys);
            let l256 = lent_per_key::<256>(&bs, rounds, keys);
            let sl = slots_per_key(&bs, rounds);
            println!(
                "{label} round {round}: binary {b:.0}, 4-ary {f4:.0}, 8-ary {f8:.0}, \
                 16-ary {f16:.0}, binary without counts {free:.0}, lent 16-ary {l16:.0}, \
                 64-ary {l64:.0}, 256-ary {l256:.0}, slots {sl:.0}"
            );
        }
    }
}
