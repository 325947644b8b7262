//! [`CTreeGraph`]: a purely-functional graph — a vertex tree of edge C-trees. Every update
//! returns a new graph and leaves `self` valid (the two share all untouched nodes).

use super::tree::{CTree, Node};
use super::vtree::{self, Cur, Lending, VLink, VNode, VTree};
use super::{Heads, DEFAULT_B};
use crate::csr::Csr;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use weald_graph::batch::Combine;
use weald_graph::codec::bit_width;
use weald_graph::parallel;
use weald_graph::{
    BatchResult, EdgeList, Graph, InGraph, Result, UpdateBatch, Vertex, WealdError, Weight,
};

/// Fills the neighbour list of a vertex.
type Fill<'a, W> = dyn Fn(Vertex, &mut Vec<(Vertex, W)>) + Sync + 'a;

/// Below this many items, batch preparation sorts sequentially.
const PAR_SORT: usize = 1 << 13;

/// How a [`CTreeGraph`] stores its edges.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CTreeOptions {
    /// Directed (out-trees, optional in-trees) or symmetric (each edge stored both ways).
    pub directed: bool,
    /// For directed graphs, also keep in-trees (needed for `for_each_in`).
    pub in_edges: bool,
    /// Expected chunk size: an element is a head with probability `1/b`.
    pub b: u32,
}

impl Default for CTreeOptions {
    fn default() -> Self {
        CTreeOptions {
            directed: false,
            in_edges: true,
            b: DEFAULT_B,
        }
    }
}

/// Bytes held by one version of a graph (what the structure holds; allocator overhead and
/// the `Arc` sharing with other versions are not counted).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryReport {
    /// Vertex-tree nodes and their blocks' tree arrays (with their counts: 8 bytes per node,
    /// 16 per array; a present vertex with edges holds a 16-byte tree handle, whose chunk bytes are
    /// in `chunk_bytes`).
    pub vertex_tree: usize,
    /// Edge-tree nodes (heads), including `Arc` counts.
    pub edge_tree_nodes: usize,
    /// All chunk allocations (prefixes and tails).
    pub chunk_bytes: usize,
    pub total: usize,
}

impl MemoryReport {
    /// `total / arcs` (0 for no arcs): the bytes-per-edge figure, per stored (directed) arc.
    pub fn bytes_per_arc(&self, arcs: usize) -> f64 {
        if arcs == 0 {
            0.0
        } else {
            self.total as f64 / arcs as f64
        }
    }
}

/// What a lending update ([`CTreeGraph::apply_lending`]) owes the graph it copied, per
/// vertex tree: settled by [`settle`](Self::settle), or counted when dropped.
#[derive(Default)]
pub(crate) struct Lent<W: Weight> {
    out: Option<Box<Lending<W>>>,
    inn: Option<Box<Lending<W>>>,
}

impl<W: Weight> Lent<W> {
    /// Free what the copied graph's nodes lent and nothing else holds, count the rest (see
    /// `vtree::Lending::settle`).
    pub(crate) fn settle(self) {
        let Lent { out, inn } = self;
        for l in [out, inn].into_iter().flatten() {
            l.settle();
        }
    }
}

/// One version of a C-tree graph. Cloning is O(1) (per vertex tree, its root's and its
/// lineage's `Arc`s).
pub struct CTreeGraph<W: Weight = ()> {
    out: VTree<W>,
    /// In-trees of a directed graph, if kept.
    inn: Option<VTree<W>>,
    directed: bool,
    heads: Heads,
    b: u32,
    /// `1 + max vertex id present`.
    n: usize,
}

impl<W: Weight> Clone for CTreeGraph<W> {
    fn clone(&self) -> Self {
        CTreeGraph {
            out: self.out.clone(),
            inn: self.inn.clone(),
            directed: self.directed,
            heads: self.heads,
            b: self.b,
            n: self.n,
        }
    }
}

impl<W: Weight> std::fmt::Debug for CTreeGraph<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CTreeGraph")
            .field("n", &self.n)
            .field("arcs", &self.num_arcs())
            .field("directed", &self.directed)
            .field("b", &self.b)
            .finish()
    }
}

/// Sort `(u, v, w)` by `(u, v)`; `stable` keeps equal pairs in input order. Large batches are
/// radix-sorted (parallel, stable) on `u` alone, in as many bits as the largest source needs
/// (20 for a million vertices: 2 passes), and then each source's arcs by `v`
/// ([`sort_by_target`]): a batch's sources have one or two arcs each, mostly, so the second
/// step is about one read of the arcs, where sorting on `u` and `v` packed together took 4
/// passes. Against the packed sort (RMAT scale 20, in-place batches, alternating in one
/// process): 1 thread, inserts of 1e4 / 1e5 / 1e6 edges 2 / 4–7 / 7 % faster, deletes even;
/// 2 threads, 1e5 inserts −1.5 to +8 %, deletes 4–5 %, 1e6 inserts 19 %, deletes 7 %. The radix
/// sort itself is about twice as fast as a comparison sort of the same random pairs at 1
/// and 2 threads (see "What bounds a batch" in `ctree`).
fn sort_arcs<W: Weight>(arcs: &mut Vec<(Vertex, Vertex, W)>, stable: bool) {
    if arcs.len() >= PAR_SORT {
        let mu = arcs.par_iter().map(|a| a.0).max().unwrap_or(0);
        *arcs = parallel::radix_sort_by_key(std::mem::take(arcs), bit_width(mu), |a| a.0 as u64);
        arcs.par_chunk_by_mut(|a, b| a.0 == b.0)
            .for_each(|run| sort_by_target(run, stable));
        return;
    }
    let key = |a: &(Vertex, Vertex, W)| ((a.0 as u64) << 32) | a.1 as u64;
    if stable {
        arcs.sort_by_key(key);
    } else {
        arcs.sort_unstable_by_key(key);
    }
}

/// Sort one source's arcs by target (`stable`: equal targets keep their order).
fn sort_by_target<W: Weight>(run: &mut [(Vertex, Vertex, W)], stable: bool) {
    if run.len() <= 16 {
        // Insertion sort (stable): most sources of a batch have one or two arcs.
        for i in 1..run.len() {
            let x = run[i];
            let mut j = i;
            while j > 0 && run[j - 1].1 > x.1 {
                run[j] = run[j - 1];
                j -= 1;
            }
            run[j] = x;
        }
    } else if stable {
        run.sort_by_key(|a| a.1);
    } else {
        run.sort_unstable_by_key(|a| a.1);
    }
}

/// A batch's sources with the ranges of their arcs, in source order.
type SourceItems = Vec<(Vertex, (usize, usize))>;

/// Sort `(u, v, w)` by `(u, v)` and merge duplicates by `rule` in input order; in the same
/// pass over the sorted arcs, group them by source and count the self loops. Returns the
/// `(source, start..end)` items and the loop count.
fn sort_merge<W: Weight>(arcs: &mut Vec<(Vertex, Vertex, W)>, rule: Combine) -> (SourceItems, u64) {
    sort_arcs(
        arcs,
        W::WEIGHTED && matches!(rule, Combine::First | Combine::Last),
    );
    let mut items: SourceItems = Vec::with_capacity(arcs.len() / 4);
    let mut loops = 0;
    let mut k = 0;
    for i in 0..arcs.len() {
        let a = arcs[i];
        if k > 0 && arcs[k - 1].0 == a.0 {
            if arcs[k - 1].1 == a.1 {
                if W::WEIGHTED {
                    arcs[k - 1].2 = arcs[k - 1].2.combine(a.2, rule);
                }
                continue;
            }
        } else {
            if let Some(last) = items.last_mut() {
                last.1 .1 = k;
            }
            items.push((a.0, (k, k)));
        }
        loops += (a.0 == a.1) as u64;
        arcs[k] = a;
        k += 1;
    }
    if let Some(last) = items.last_mut() {
        last.1 .1 = k;
    }
    arcs.truncate(k);
    (items, loops)
}

/// The `(dst, w)` column of sorted arcs.
fn targets<W: Weight>(arcs: &[(Vertex, Vertex, W)]) -> Vec<(Vertex, W)> {
    if arcs.len() >= PAR_SORT {
        arcs.par_iter().map(|&(_, v, w)| (v, w)).collect()
    } else {
        arcs.iter().map(|&(_, v, w)| (v, w)).collect()
    }
}

/// Merge two key-sorted item lists with disjoint keys.
fn merge_items<I: Copy>(a: &[(Vertex, I)], b: &[(Vertex, I)]) -> Vec<(Vertex, I)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].0 < b[j].0 {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

fn sort_dedup(xs: &mut Vec<Vertex>) {
    if xs.len() >= PAR_SORT {
        xs.par_sort_unstable();
    } else {
        xs.sort_unstable();
    }
    xs.dedup();
}

fn add(a: &mut BatchResult, b: BatchResult) {
    a.inserted += b.inserted;
    a.updated += b.updated;
    a.deleted += b.deleted;
    a.absent += b.absent;
}

#[derive(Copy, Clone)]
enum VItem {
    Remove,
    Delete(usize, usize),
}

/// The vertex tree of `n` vertices, all present: the `i`-th is `keys[i]` (`i` if `keys` is
/// `None`; keys strictly increase) with the edge tree of the list `get(i)` fills (sorted and
/// merged by `rule` first if it is not strictly increasing).
fn vtree_of<W: Weight>(
    n: usize,
    keys: Option<&[Vertex]>,
    heads: Heads,
    rule: Combine,
    get: &Fill<W>,
) -> VTree<W> {
    let items: Vec<(Vertex, CTree<W>)> = (0..n as Vertex)
        .into_par_iter()
        .with_min_len(64)
        .map(|i| {
            let v = keys.map_or(i, |k| k[i as usize]);
            let mut xs = Vec::new();
            get(i, &mut xs);
            if !xs.windows(2).all(|p| p[0].0 < p[1].0) {
                // A multigraph (or unsorted) list: sort stably, merge equal ids.
                xs.sort_by_key(|&(u, _)| u);
                xs.dedup_by(|later, kept| {
                    let same = later.0 == kept.0;
                    if same {
                        kept.1 = kept.1.combine(later.1, rule);
                    }
                    same
                });
            }
            (v, CTree::build(&xs, v, heads))
        })
        .collect();
    VTree::from_sorted(items)
}

impl<W: Weight> CTreeGraph<W> {
    /// An empty graph.
    pub fn new(opts: CTreeOptions) -> Self {
        CTreeGraph {
            out: VTree::default(),
            inn: (opts.directed && opts.in_edges).then(VTree::default),
            directed: opts.directed,
            heads: Heads::new(opts.b),
            b: opts.b,
            n: 0,
        }
    }

    /// The options this graph was made with.
    pub fn options(&self) -> CTreeOptions {
        CTreeOptions {
            directed: self.directed,
            in_edges: self.inn.is_some(),
            b: self.b,
        }
    }

    /// The same stored arcs as a directed graph without in-trees: O(1), nothing copied. A
    /// symmetric graph's two arcs of each edge become two arcs that updates then name one at
    /// a time (the way Aspen's symmetric graph takes its batches: as arcs, the caller keeping
    /// them symmetric); a directed graph drops its in-trees.
    pub fn into_out_arcs(self) -> Self {
        CTreeGraph {
            inn: None,
            directed: true,
            ..self
        }
    }

    /// Build from an edge list: vertices `0..el.num_vertices` all exist (as in the CSR), and
    /// duplicate edges are merged by `combine`. Symmetric graphs store both directions.
    pub fn from_edge_list(el: &EdgeList<W>, opts: CTreeOptions, combine: Combine) -> Result<Self> {
        if el.src.len() != el.dst.len() || (W::WEIGHTED && el.weights.len() != el.src.len()) {
            return Err(WealdError::Invalid(
                "edge list columns differ in length".into(),
            ));
        }
        if el.num_vertices > u32::MAX as usize {
            return Err(WealdError::Invalid(format!(
                "{} vertices exceed the u32 id space",
                el.num_vertices
            )));
        }
        let bad = el
            .src
            .par_iter()
            .chain(el.dst.par_iter())
            .find_any(|&&v| v as usize >= el.num_vertices);
        if let Some(&v) = bad {
            return Err(WealdError::VertexOutOfRange {
                vertex: v as u64,
                num_vertices: el.num_vertices as u64,
            });
        }
        let triples: Vec<(Vertex, Vertex, W)> = (0..el.len())
            .into_par_iter()
            .map(|i| {
                let w = if W::WEIGHTED {
                    el.weights[i]
                } else {
                    W::default()
                };
                (el.src[i], el.dst[i], w)
            })
            .collect();
        let all: Vec<Vertex> = (0..el.num_vertices as Vertex).collect();
        let g = Self::new(opts).insert_vertices(&all).0;
        Ok(g.insert_edges(&triples, combine).0)
    }

    /// Build from a CSR: same vertices, same neighbour lists (and in-trees if the CSR has
    /// in-arcs). Every vertex `0..n` exists. The parallel arcs of a multigraph CSR are merged
    /// (a C-tree holds each neighbour once), keeping the smallest weight, the default rule of
    /// every dedup option; [`CTreeGraph::from_csr_merging`] takes the rule.
    pub fn from_csr(csr: &Csr<W>, b: u32) -> Self {
        Self::from_csr_merging(csr, b, Combine::Min)
    }

    /// [`CTreeGraph::from_csr_merging`], or [`WealdError::OutOfMemory`] if the build's
    /// per-vertex list (at least 24 bytes per vertex id, present or not: an `(id, tree)` pair
    /// before the vertex tree exists) certainly cannot fit in memory — for CSRs whose vertex
    /// count came from a file.
    pub fn try_from_csr_merging(csr: &Csr<W>, b: u32, rule: Combine) -> Result<Self> {
        Self::try_from_csr_keyed(csr, None, b, rule)
    }

    /// [`CTreeGraph::from_csr`], merging parallel arcs by `rule` (in CSR order: `First` keeps
    /// the weight stored first).
    pub fn from_csr_merging(csr: &Csr<W>, b: u32, rule: Combine) -> Self {
        Self::from_csr_keyed(csr, None, b, rule)
    }

    /// [`CTreeGraph::try_from_csr_merging`] in the CSR's original ids, if it has an id map (a
    /// relabelled file): vertex `v` becomes `ids[v]`, present, and the ids between them are
    /// absent, so that updates name vertices as the file did. Memory follows the vertices,
    /// however far the ids spread.
    pub fn try_from_csr_in_original_ids(csr: &Csr<W>, b: u32, rule: Combine) -> Result<Self> {
        Self::try_from_csr_keyed(csr, csr.original_ids(), b, rule)
    }

    /// [`CTreeGraph::from_csr_keyed`] after the memory check (24 bytes per CSR vertex).
    fn try_from_csr_keyed(
        csr: &Csr<W>,
        ids: Option<&[Vertex]>,
        b: u32,
        rule: Combine,
    ) -> Result<Self> {
        let n = csr.num_vertices() as u64;
        let what = if ids.is_some() {
            "vertices"
        } else {
            "vertex ids"
        };
        weald_graph::mem::ensure_fits(weald_graph::mem::bytes_for(n, 24), || {
            format!("C-trees of a graph with {n} {what}")
        })?;
        Ok(Self::from_csr_keyed(csr, ids, b, rule))
    }

    /// The C-trees of `csr`, vertex `v` keyed `ids[v]` (`v` without ids).
    fn from_csr_keyed(csr: &Csr<W>, ids: Option<&[Vertex]>, b: u32, rule: Combine) -> Self {
        let heads = Heads::new(b);
        let n = csr.num_vertices();
        // The map is increasing, so mapped lists stay sorted.
        let id = |u: Vertex| ids.map_or(u, |m| m[u as usize]);
        let build = |get: &Fill<W>| vtree_of(n, ids, heads, rule, get);
        let out = build(&|v, xs| {
            csr.for_each_out(v, |u, w| {
                xs.push((id(u), w));
                true
            });
        });
        let inn = (csr.is_directed() && csr.in_adjacency().is_some()).then(|| {
            build(&|v, xs| {
                csr.for_each_in(v, |u, w| {
                    xs.push((id(u), w));
                    true
                });
            })
        });
        CTreeGraph {
            out,
            inn,
            directed: csr.is_directed(),
            heads,
            b,
            n: ids.map_or(n, |m| m.last().map_or(0, |&x| x as usize + 1)),
        }
    }

    /// Is vertex `v` present?
    pub fn has_vertex(&self, v: Vertex) -> bool {
        vtree::contains(&self.out, v)
    }

    /// Number of vertices present (O(n / 16); `num_vertices()` is `1 + max id`).
    pub fn num_present_vertices(&self) -> usize {
        vtree::count(&self.out)
    }

    /// The weight of arc `u→v`, if present.
    pub fn find_edge(&self, u: Vertex, v: Vertex) -> Option<W> {
        vtree::tree(&self.out, u)?.find(u, v)
    }

    /// Every arc `(u, v, w)` in order of `u` then `v`.
    pub fn arcs(&self) -> Vec<(Vertex, Vertex, W)> {
        let mut out = Vec::with_capacity(self.num_arcs());
        vtree::for_each_node(&self.out, &mut |n| {
            n.for_each_tree(|u, t| {
                t.for_each(u, |v, w| {
                    out.push((u, v, w));
                    true
                });
            })
        });
        out
    }

    /// The present vertex ids in increasing order.
    pub fn vertices(&self) -> Vec<Vertex> {
        let mut out = Vec::new();
        vtree::for_each_node(&self.out, &mut |n| n.for_each_present(|v| out.push(v)));
        out
    }

    /// Whether fewer than one id in 64 of the id space `0..num_vertices()` holds a present
    /// vertex: a [`FlatSnapshot`](super::FlatSnapshot), whose arrays span the id space, would
    /// then spend over a kilobyte per vertex (see [`CTreeGraph::relabelled`]). Counting stops
    /// at the bound: it walks at most n / 64 blocks, about n / 1024 when the ids are dense.
    pub fn ids_are_sparse(&self) -> bool {
        !vtree::has_at_least(&self.out, (self.n as u64).div_ceil(64) as usize)
    }

    /// A copy whose present vertices are renumbered `0..k` in id order, with every arc (and
    /// in-arc) kept, and the `k` old ids (`ids[new] = old`). Its size follows the vertices
    /// and arcs, not the id space: O(k + m) memory, O((k + m) log k) work, in parallel.
    pub fn relabelled(&self) -> (Self, Vec<Vertex>) {
        let ids = self.vertices();
        // Every endpoint of an arc is present (deleting a vertex deletes its arcs), and the
        // renumbering keeps the order, so each list stays sorted.
        let rank = |v: Vertex| ids.partition_point(|&x| x < v) as Vertex;
        let build = |t: &VTree<W>| {
            vtree_of(ids.len(), None, self.heads, Combine::Min, &|i, xs| {
                let v = ids[i as usize];
                if let Some(tree) = vtree::tree(t, v) {
                    tree.for_each(v, |u, w| {
                        debug_assert_eq!(ids[rank(u) as usize], u, "arc to an absent vertex");
                        xs.push((rank(u), w));
                        true
                    });
                }
            })
        };
        let g = CTreeGraph {
            out: build(&self.out),
            inn: self.inn.as_ref().map(build),
            directed: self.directed,
            heads: self.heads,
            b: self.b,
            n: ids.len(),
        };
        (g, ids)
    }

    /// The edge tree of `v` (`None` if `v` is absent or has no out-arcs).
    pub(crate) fn out_tree(&self, v: Vertex) -> Option<&CTree<W>> {
        vtree::tree(&self.out, v)
    }

    pub(crate) fn in_tree(&self, v: Vertex) -> Option<&CTree<W>> {
        match &self.inn {
            Some(t) => vtree::tree(t, v),
            None => self.out_tree(v),
        }
    }

    pub(crate) fn vertex_roots(&self) -> (&VLink<W>, Option<&VLink<W>>) {
        (&self.out, self.inn.as_deref())
    }

    /// Insert vertices (existing ones are left alone). No edge counts change.
    pub fn insert_vertices(&self, vs: &[Vertex]) -> (Self, BatchResult) {
        let mut g = self.clone();
        let r = g.insert_vertices_mut(vs);
        (g, r)
    }

    /// [`insert_vertices`](Self::insert_vertices) applied to this graph, in place where no
    /// other version shares it (see [`apply_mut`](Self::apply_mut)).
    pub fn insert_vertices_mut(&mut self, vs: &[Vertex]) -> BatchResult {
        let mut vs = vs.to_vec();
        sort_dedup(&mut vs);
        let items: Vec<(Vertex, ())> = vs
            .par_iter()
            .with_min_len(1024)
            .filter(|&&v| !self.has_vertex(v))
            .map(|&v| (v, ()))
            .collect();
        if items.is_empty() {
            return BatchResult::default();
        }
        self.out.multi_update_mut(&items, &|_, old, _| {
            Some(old.map(Cur::into_tree).unwrap_or_default())
        });
        self.n = self.n.max(*vs.last().unwrap() as usize + 1);
        BatchResult::default()
    }

    /// Insert edges (both directions for a symmetric graph); an edge already present gets
    /// `old.combine(new, rule)`, and duplicates within the batch are combined first, in input
    /// order. Endpoints become present. Counts are over distinct edges of the batch
    /// (undirected edges once for a symmetric graph): `inserted` new, `updated` already there.
    pub fn insert_edges(
        &self,
        edges: &[(Vertex, Vertex, W)],
        rule: Combine,
    ) -> (Self, BatchResult) {
        let mut g = self.clone();
        let r = g.insert_edges_mut(edges, rule);
        (g, r)
    }

    /// [`insert_edges`](Self::insert_edges) applied to this graph, in place where no other
    /// version shares it (see [`apply_mut`](Self::apply_mut)).
    pub fn insert_edges_mut(
        &mut self,
        edges: &[(Vertex, Vertex, W)],
        rule: Combine,
    ) -> BatchResult {
        if edges.is_empty() {
            return BatchResult::default();
        }
        let mut arcs: Vec<(Vertex, Vertex, W)> = if self.directed {
            edges.to_vec()
        } else {
            let mut a = Vec::with_capacity(edges.len() * 2);
            for &(u, v, w) in edges {
                a.push((u, v, w));
                if u != v {
                    a.push((v, u, w));
                }
            }
            a
        };
        let (mut items, batch_loops) = sort_merge(&mut arcs, rule);
        let distinct = if self.directed {
            arcs.len() as u64
        } else {
            (arcs.len() as u64 + batch_loops) / 2
        };
        // Sorted by source; a symmetric batch has every id as a source.
        let last_source = arcs.last().expect("a non-empty batch").0;
        let max_id = if self.directed {
            arcs.iter().map(|a| a.1).max().unwrap().max(last_source)
        } else {
            last_source
        };
        let pairs = targets(&arcs);
        if self.directed {
            // Destinations must exist too.
            let mut dsts: Vec<Vertex> = arcs.iter().map(|a| a.1).collect();
            sort_dedup(&mut dsts);
            let extra: Vec<(Vertex, (usize, usize))> = dsts
                .par_iter()
                .with_min_len(1024)
                .filter(|&&v| {
                    items.binary_search_by_key(&v, |it| it.0).is_err() && !self.has_vertex(v)
                })
                .map(|&v| (v, (0, 0)))
                .collect();
            if !extra.is_empty() {
                items = merge_items(&items, &extra);
            }
        }
        let (heads, directed) = (self.heads, self.directed);
        // New arcs are counted from the tree's change in arcs (no per-vertex shared counter:
        // its locked increments made batches ~1 % slower); self loops, rare, one by one.
        let ins_loops = AtomicU64::new(0);
        let ins_arcs = self.out.multi_update_mut(&items, &|v, old, &(s, e)| {
            let xs = &pairs[s..e];
            Some(match old {
                None => {
                    if !directed && xs.binary_search_by_key(&v, |p| p.0).is_ok() {
                        ins_loops.fetch_add(1, Relaxed);
                    }
                    CTree::build(xs, v, heads)
                }
                Some(t) => {
                    if !directed
                        && xs.binary_search_by_key(&v, |p| p.0).is_ok()
                        && t.find(v, v).is_none()
                    {
                        ins_loops.fetch_add(1, Relaxed);
                    }
                    t.insert(v, xs, heads, rule)
                }
            })
        });
        if let Some(inn) = self.inn.as_mut() {
            let mut rev: Vec<(Vertex, Vertex, W)> =
                arcs.iter().map(|&(u, v, w)| (v, u, w)).collect();
            // No duplicates left to merge, so no order among equal arcs to keep (`Min`: the
            // unstable sort).
            let (items, _) = sort_merge(&mut rev, Combine::Min);
            let pairs = targets(&rev);
            inn.multi_update_mut(&items, &|v, old: Option<Cur<'_, W>>, &(s, e)| {
                let xs = &pairs[s..e];
                Some(match old {
                    None => CTree::build(xs, v, heads),
                    Some(t) => t.insert(v, xs, heads, rule),
                })
            });
        }
        let ins_arcs = ins_arcs as u64;
        let inserted = if self.directed {
            ins_arcs
        } else {
            (ins_arcs + ins_loops.into_inner()) / 2
        };
        self.n = self.n.max(max_id as usize + 1);
        BatchResult {
            inserted,
            updated: distinct - inserted,
            ..Default::default()
        }
    }

    /// Delete edges (both directions for a symmetric graph). Vertices stay present. Counts
    /// are over distinct edges of the batch: `deleted` were there, `absent` were not.
    pub fn delete_edges(&self, edges: &[(Vertex, Vertex)]) -> (Self, BatchResult) {
        let mut g = self.clone();
        let r = g.delete_edges_mut(edges);
        (g, r)
    }

    /// [`delete_edges`](Self::delete_edges) applied to this graph, in place where no other
    /// version shares it (see [`apply_mut`](Self::apply_mut)).
    pub fn delete_edges_mut(&mut self, edges: &[(Vertex, Vertex)]) -> BatchResult {
        if edges.is_empty() {
            return BatchResult::default();
        }
        let mut arcs: Vec<(Vertex, Vertex, ())> = if self.directed {
            edges.iter().map(|&(u, v)| (u, v, ())).collect()
        } else {
            let mut a = Vec::with_capacity(edges.len() * 2);
            for &(u, v) in edges {
                a.push((u, v, ()));
                if u != v {
                    a.push((v, u, ()));
                }
            }
            a
        };
        let (items, batch_loops) = sort_merge(&mut arcs, Combine::First);
        let distinct = if self.directed {
            arcs.len() as u64
        } else {
            (arcs.len() as u64 + batch_loops) / 2
        };
        let keys: Vec<Vertex> = arcs.iter().map(|a| a.1).collect();
        // Deleted arcs are counted from the tree's change in arcs, as in `insert_edges_mut`.
        let del_loops = AtomicU64::new(0);
        let directed = self.directed;
        let del = -self.out.multi_update_mut(&items, &|v, old, &(s, e)| {
            let t = old?;
            let ks = &keys[s..e];
            if !directed && ks.binary_search(&v).is_ok() && t.find(v, v).is_some() {
                del_loops.fetch_add(1, Relaxed);
            }
            Some(t.delete(v, ks))
        });
        if let Some(inn) = self.inn.as_mut() {
            let mut rev: Vec<(Vertex, Vertex, ())> =
                arcs.iter().map(|&(u, v, _)| (v, u, ())).collect();
            let (items, _) = sort_merge(&mut rev, Combine::First);
            let keys: Vec<Vertex> = rev.iter().map(|a| a.1).collect();
            inn.multi_update_mut(&items, &|v, old: Option<Cur<'_, W>>, &(s, e)| {
                old.map(|t| t.delete(v, &keys[s..e]))
            });
        }
        let del = del as u64;
        let deleted = if self.directed {
            del
        } else {
            (del + del_loops.into_inner()) / 2
        };
        BatchResult {
            deleted,
            absent: distinct - deleted,
            ..Default::default()
        }
    }

    /// Delete vertices and every edge incident to them (a symmetric graph stays symmetric).
    /// `deleted` counts the vertices removed plus the edges removed with them; `absent` the
    /// vertices that were not present. Directed graphs without in-trees scan all arcs.
    pub fn delete_vertices(&self, vs: &[Vertex]) -> (Self, BatchResult) {
        let mut g = self.clone();
        let r = g.delete_vertices_mut(vs);
        (g, r)
    }

    /// [`delete_vertices`](Self::delete_vertices) applied to this graph, in place where no
    /// other version shares it (see [`apply_mut`](Self::apply_mut)).
    pub fn delete_vertices_mut(&mut self, vs: &[Vertex]) -> BatchResult {
        let mut ds = vs.to_vec();
        sort_dedup(&mut ds);
        let before = ds.len();
        ds.retain(|&v| self.has_vertex(v));
        let absent = (before - ds.len()) as u64;
        if ds.is_empty() {
            return BatchResult {
                absent,
                ..Default::default()
            };
        }
        let in_d = |x: Vertex| ds.binary_search(&x).is_ok();
        // Arcs x→v (x not deleted, v deleted) to remove from x's out-tree.
        let mut cut: Vec<(Vertex, Vertex, ())> = Vec::new();
        let mut out_arcs: u64 = 0;
        let mut inner: u64 = 0;
        for &v in &ds {
            // A present vertex may have no out-arcs (no tree) and still have in-arcs.
            let t = self.out_tree(v);
            out_arcs += t.map_or(0, |t| t.len() as u64);
            if !self.directed {
                if let Some(t) = t {
                    t.for_each(v, |x, _| {
                        if in_d(x) {
                            inner += (x != v) as u64;
                        } else {
                            cut.push((x, v, ()));
                        }
                        true
                    });
                }
            } else if let Some(inn) = &self.inn {
                if let Some(it) = vtree::tree(inn, v) {
                    it.for_each(v, |x, _| {
                        if !in_d(x) {
                            cut.push((x, v, ()));
                        }
                        true
                    });
                }
            }
        }
        if self.directed && self.inn.is_none() {
            cut = vtree::map_reduce_nodes(
                &self.out,
                &|n: &VNode<W>| {
                    let mut c = Vec::new();
                    n.for_each_tree(|x, t| {
                        if !in_d(x) {
                            t.for_each(x, |y, _| {
                                if in_d(y) {
                                    c.push((x, y, ()));
                                }
                                true
                            });
                        }
                    });
                    c
                },
                &|mut a, b| {
                    a.extend(b);
                    a
                },
                &Vec::new,
            );
        }
        let edges = if self.directed {
            out_arcs + cut.len() as u64
        } else {
            out_arcs - inner / 2
        };
        let keys_out = Self::removal_items(&ds, &mut cut);
        // The in-trees' items read the old out-trees of the deleted vertices: made first.
        let in_items = self.inn.is_some().then(|| {
            // In-tree of y loses v for every arc v→y with y not deleted.
            let mut cut_in: Vec<(Vertex, Vertex, ())> = Vec::new();
            for &v in &ds {
                if let Some(t) = self.out_tree(v) {
                    t.for_each(v, |y, _| {
                        if !in_d(y) {
                            cut_in.push((y, v, ()));
                        }
                        true
                    });
                }
            }
            Self::removal_items(&ds, &mut cut_in)
        });
        self.out.multi_update_mut(&keys_out.0, &|v, old, it| {
            Self::apply_removal(v, old, it, &keys_out.1)
        });
        if let (Some(inn), Some(items)) = (self.inn.as_mut(), in_items) {
            inn.multi_update_mut(&items.0, &|v, old, it| {
                Self::apply_removal(v, old, it, &items.1)
            });
        }
        self.n = vtree::max_key(&self.out).map_or(0, |m| m as usize + 1);
        BatchResult {
            deleted: ds.len() as u64 + edges,
            absent,
            ..Default::default()
        }
    }

    /// Items removing the vertices `ds` and the sorted arcs `cut` (sources not in `ds`).
    fn removal_items(
        ds: &[Vertex],
        cut: &mut Vec<(Vertex, Vertex, ())>,
    ) -> (Vec<(Vertex, VItem)>, Vec<Vertex>) {
        let (groups, _) = sort_merge(cut, Combine::First);
        let keys: Vec<Vertex> = cut.iter().map(|a| a.1).collect();
        let a: Vec<(Vertex, VItem)> = ds.iter().map(|&v| (v, VItem::Remove)).collect();
        let b: Vec<(Vertex, VItem)> = groups
            .into_iter()
            .map(|(v, (s, e))| (v, VItem::Delete(s, e)))
            .collect();
        (merge_items(&a, &b), keys)
    }

    fn apply_removal(
        v: Vertex,
        old: Option<Cur<'_, W>>,
        it: &VItem,
        keys: &[Vertex],
    ) -> Option<CTree<W>> {
        match *it {
            VItem::Remove => None,
            VItem::Delete(s, e) => old.map(|t| t.delete(v, &keys[s..e])),
        }
    }

    /// Apply a batch atomically (as one new version): vertex insertions, edge insertions,
    /// edge deletions, then vertex deletions; the results are summed.
    pub fn apply(&self, batch: &UpdateBatch<W>, rule: Combine) -> (Self, BatchResult) {
        let mut g = self.clone();
        let r = g.apply_mut(batch, rule);
        (g, r)
    }

    /// [`apply`](Self::apply), for a writer that releases this graph right after (a line of
    /// versions: [`VersionedGraph`](super::VersionedGraph)). A batch of edge insertions
    /// only, or of edge deletions only, is path-copied lending what the new graph shares with
    /// this one instead of counting it (see `vtree::Lending`); other batches, and weights
    /// whose methods may panic (`Weight::CANNOT_PANIC`), are `apply`. The
    /// [`Lent`] must be settled ([`Lent::settle`], best once this graph is released) or
    /// dropped while the new graph lives, and the new graph is not to be updated before that.
    pub(crate) fn apply_lending(
        &self,
        batch: &UpdateBatch<W>,
        rule: Combine,
    ) -> (Self, BatchResult, Lent<W>) {
        let edges_only = batch.insert_vertices.is_empty() && batch.delete_vertices.is_empty();
        let ins = !batch.insert_edges.is_empty();
        let del = !batch.delete_edges.is_empty();
        // (Lending cannot unwind: a weight whose combining may panic keeps the counted copy.)
        if !W::CANNOT_PANIC || !edges_only || ins == del {
            let (g, r) = self.apply(batch, rule);
            return (g, r, Lent::default());
        }
        let mut g = CTreeGraph {
            out: self.out.lending_clone(),
            inn: self.inn.as_ref().map(VTree::lending_clone),
            directed: self.directed,
            heads: self.heads,
            b: self.b,
            n: self.n,
        };
        let r = if ins {
            g.insert_edges_mut(&batch.insert_edges, rule)
        } else {
            g.delete_edges_mut(&batch.delete_edges)
        };
        let lent = Lent {
            out: g.out.take_lending(),
            inn: g.inn.as_mut().and_then(VTree::take_lending),
        };
        (g, r, lent)
    }

    /// [`apply`](Self::apply) to this graph itself. What no other version shares (no clone of
    /// this graph, no snapshot holding it) is updated in place, as PAM does with nodes whose
    /// count is one: vertex-tree nodes keep their allocations and a block's array has only
    /// its touched trees replaced, so the block's other trees are not cloned and nothing is
    /// left to free. Whatever is shared is path-copied, so every other holder still sees
    /// exactly what it saw. (A `&self` update is this on a clone: the root is shared, so
    /// everything is copied, and the parts of the batch after the first reuse what the first
    /// parts copied.)
    pub fn apply_mut(&mut self, batch: &UpdateBatch<W>, rule: Combine) -> BatchResult {
        let mut r = BatchResult::default();
        add(&mut r, self.insert_vertices_mut(&batch.insert_vertices));
        add(&mut r, self.insert_edges_mut(&batch.insert_edges, rule));
        add(&mut r, self.delete_edges_mut(&batch.delete_edges));
        add(&mut r, self.delete_vertices_mut(&batch.delete_vertices));
        r
    }

    /// Bytes held by this version, by kind.
    pub fn memory_bytes(&self) -> MemoryReport {
        let count = |t: &VLink<W>| {
            vtree::map_reduce_nodes(
                t,
                &|n: &VNode<W>| {
                    let mut x = (n.bytes(), 0, 0);
                    n.for_each_tree(|_, t| {
                        let (e, c) = t.memory();
                        x.1 += e;
                        x.2 += c;
                    });
                    x
                },
                &|a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2),
                &|| (0, 0, 0),
            )
        };
        let mut tot = count(&self.out);
        if let Some(i) = &self.inn {
            let x = count(i);
            tot = (tot.0 + x.0, tot.1 + x.1, tot.2 + x.2);
        }
        // The block indexes of in-place updates count with the vertex tree.
        let vertex_tree =
            tot.0 + self.out.index_bytes() + self.inn.as_ref().map_or(0, VTree::index_bytes);
        let edge_tree_nodes = tot.1 * (std::mem::size_of::<Node<W>>() + 16);
        MemoryReport {
            vertex_tree,
            edge_tree_nodes,
            chunk_bytes: tot.2,
            total: vertex_tree + edge_tree_nodes + tot.2,
        }
    }

    /// Bytes that freeing every vertex-tree node with its block array could give back at most
    /// (what a batch's settling frees is part of that). O(1).
    pub(crate) fn vertex_tree_bound(&self) -> usize {
        self.out.node_bytes_bound() + self.inn.as_ref().map_or(0, VTree::node_bytes_bound)
    }

    /// Check every structural invariant (tests).
    #[cfg(test)]
    pub(crate) fn check(&self) {
        vtree::check(&self.out, self.heads);
        if let Some(i) = &self.inn {
            vtree::check(i, self.heads);
        }
        assert_eq!(
            self.n,
            vtree::max_key(&self.out).map_or(0, |m| m as usize + 1)
        );
    }
}

impl<W: Weight> Graph for CTreeGraph<W> {
    type W = W;

    #[inline]
    fn num_vertices(&self) -> usize {
        self.n
    }

    #[inline]
    fn num_arcs(&self) -> usize {
        self.out.arcs() as usize
    }

    #[inline]
    fn is_directed(&self) -> bool {
        self.directed
    }

    /// Walks the vertex tree: one lookup of `v` in each non-empty edge tree, in parallel
    /// (O(present vertices · log degree), however large the id space).
    fn num_self_loops(&self) -> usize {
        vtree::self_loops(&self.out)
    }

    #[inline]
    fn out_degree(&self, v: Vertex) -> usize {
        self.out_tree(v).map_or(0, CTree::len)
    }

    #[inline]
    fn for_each_out<F: FnMut(Vertex, W) -> bool>(&self, v: Vertex, f: F) -> bool {
        self.out_tree(v).is_none_or(|t| t.for_each(v, f))
    }

    #[inline]
    fn fold_out_ahead<T: Copy, A: Fn(Vertex), F: FnMut(T, Vertex, W) -> T>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        init: T,
        f: F,
    ) -> T {
        match self.out_tree(v) {
            Some(t) => t.fold_ahead(v, dist, &ahead, init, f),
            None => init,
        }
    }

    #[inline]
    fn fold_out_weights<T: Copy, F: FnMut(T, W) -> T>(&self, v: Vertex, init: T, f: F) -> T {
        match self.out_tree(v) {
            Some(t) => t.fold_weights(v, init, f),
            None => init,
        }
    }

    #[inline]
    fn for_each_out_ahead<A: Fn(Vertex), F: FnMut(Vertex, W)>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        f: F,
    ) {
        if let Some(t) = self.out_tree(v) {
            t.for_each_ahead(v, dist, &ahead, f);
        }
    }

    fn par_for_each_out<F: Fn(Vertex, W) + Sync + Send>(&self, v: Vertex, f: F) {
        if let Some(t) = self.out_tree(v) {
            t.par_for_each(v, &f);
        }
    }

    fn par_for_each_out_ahead<A: Fn(Vertex) + Sync, F: Fn(Vertex, W) + Sync + Send>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        f: F,
    ) {
        if let Some(t) = self.out_tree(v) {
            t.par_for_each_ahead(v, dist, &ahead, &f);
        }
    }
}

impl<W: Weight> InGraph for CTreeGraph<W> {
    fn has_in_edges(&self) -> bool {
        !self.directed || self.inn.is_some()
    }

    fn in_degree(&self, v: Vertex) -> usize {
        assert!(
            self.has_in_edges(),
            "in-trees of a directed C-tree graph were not kept"
        );
        self.in_tree(v).map_or(0, CTree::len)
    }

    fn for_each_in<F: FnMut(Vertex, W) -> bool>(&self, v: Vertex, f: F) -> bool {
        assert!(
            self.has_in_edges(),
            "in-trees of a directed C-tree graph were not kept"
        );
        self.in_tree(v).is_none_or(|t| t.for_each(v, f))
    }

    fn fold_in<T: Copy, F: FnMut(T, Vertex, W) -> T>(&self, v: Vertex, init: T, f: F) -> T {
        assert!(
            self.has_in_edges(),
            "in-trees of a directed C-tree graph were not kept"
        );
        match self.in_tree(v) {
            Some(t) => t.fold(v, init, f),
            None => init,
        }
    }
}
