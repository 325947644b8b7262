//! The static CSR backend: `offsets[v]..offsets[v+1]` indexes the sorted neighbours of `v` in
//! `targets` (and their weights in `weights`). Directed graphs may also store in-arcs.
//!
//! Built in parallel from an [`EdgeList`](weald_graph::EdgeList) by [`Csr::build`]: optional
//! relabelling of sparse ids, symmetrisation, self-loop removal, and merging of duplicate arcs
//! by a [`Combine`](weald_graph::batch::Combine) rule.

mod build;

pub use build::{BuildOptions, BuildStats};

use rayon::prelude::*;
use weald_graph::fingerprint::ArcFingerprint;
use weald_graph::{Graph, InGraph, Vertex, Weight, WeightSummary};

/// One direction of adjacency: offsets, sorted targets, and weights alongside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjacency<W: Weight> {
    /// `n + 1` entries; `offsets[0] == 0`, `offsets[n] == targets.len()`.
    pub offsets: Vec<u64>,
    pub targets: Vec<Vertex>,
    /// Same length as `targets` (zero bytes when `W = ()`).
    pub weights: Vec<W>,
}

impl<W: Weight> Adjacency<W> {
    #[inline]
    fn range(&self, v: Vertex) -> std::ops::Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }

    #[inline]
    fn for_each<F: FnMut(Vertex, W) -> bool>(&self, v: Vertex, mut f: F) -> bool {
        let r = self.range(v);
        if W::WEIGHTED {
            for (&u, &w) in self.targets[r.clone()].iter().zip(&self.weights[r]) {
                if !f(u, w) {
                    return false;
                }
            }
        } else {
            for &u in &self.targets[r] {
                if !f(u, W::default()) {
                    return false;
                }
            }
        }
        true
    }

    /// Prefetch the start of `v`'s neighbours (and weights); `v` out of range is ignored.
    #[inline(always)]
    fn prefetch(&self, v: Vertex) {
        if let Some(&o) = self.offsets.get(v as usize) {
            crate::prefetch_at(&self.targets, o as usize);
            if W::WEIGHTED {
                crate::prefetch_at(&self.weights, o as usize);
            }
        }
    }

    /// Bytes held by the three arrays.
    pub fn memory_bytes(&self) -> usize {
        self.offsets.len() * 8 + self.targets.len() * 4 + self.weights.len() * W::BYTES
    }

    /// Check the structural invariants (used when loading untrusted files).
    pub fn validate(&self, n: usize) -> Result<(), String> {
        self.validate_summing(n, |_, _, _| 0).map(|_| ())
    }

    /// [`Self::validate`], and in the same pass the wrapping sum of `f(v, u, w)` over every arc
    /// `v → u` of weight `w` (fingerprints, counts).
    fn validate_summing(
        &self,
        n: usize,
        f: impl Fn(Vertex, Vertex, W) -> u64 + Sync,
    ) -> Result<u64, String> {
        if self.offsets.len() != n + 1 {
            return Err(format!(
                "offsets has {} entries, expected {}",
                self.offsets.len(),
                n + 1
            ));
        }
        if self.offsets[0] != 0 || self.offsets[n] as usize != self.targets.len() {
            return Err("offsets do not span the target array".into());
        }
        if W::WEIGHTED && self.weights.len() != self.targets.len() {
            return Err("weights and targets differ in length".into());
        }
        let bad_offsets = self.offsets.par_windows(2).any(|w| w[0] > w[1]);
        if bad_offsets {
            return Err("offsets are not non-decreasing".into());
        }
        (0..n)
            .into_par_iter()
            .with_min_len(1024)
            .map(|v| {
                let r = self.offsets[v] as usize..self.offsets[v + 1] as usize;
                let s = &self.targets[r.clone()];
                let (mut ok, mut finite) = (true, true);
                let mut prev = 0;
                let mut acc = 0u64;
                for (k, &u) in s.iter().enumerate() {
                    ok &= (u as usize) < n && prev <= u;
                    prev = u;
                    let w = if W::WEIGHTED {
                        let w = self.weights[r.start + k];
                        // As the text readers: a weight is a finite number (NaN or an
                        // infinity would be written out as no reader reads it back).
                        finite &= w.to_f64().is_finite();
                        w
                    } else {
                        W::default()
                    };
                    acc = acc.wrapping_add(f(v as Vertex, u, w));
                }
                match (ok, finite) {
                    (true, true) => Ok(acc),
                    (false, _) => Err((v, "holds an id out of range or is not sorted")),
                    (true, false) => Err((v, "holds a weight that is not a finite number")),
                }
            })
            .try_reduce(|| 0, |a, b| Ok(a.wrapping_add(b)))
            .map_err(|(v, what)| format!("adjacency of vertex {v} {what}"))
    }
}

/// An id map of `n` vertices: `n` user ids, strictly increasing (ids are looked up by binary
/// search, and two vertices with one id would merge in any output), each at most
/// [`weald_graph::MAX_VERTEX`].
fn check_id_map(ids: &[u32], n: usize) -> Result<(), String> {
    if ids.len() != n {
        return Err(format!("id map has {} entries, expected {n}", ids.len()));
    }
    if let Some(i) = ids.par_windows(2).position_first(|w| w[0] >= w[1]) {
        return Err(format!(
            "id map is not strictly increasing: vertex {} has id {}, vertex {} id {}",
            i,
            ids[i],
            i + 1,
            ids[i + 1]
        ));
    }
    match ids.last() {
        Some(&id) if id > weald_graph::MAX_VERTEX => Err(format!(
            "id map holds the id {id}, above the largest supported id {}",
            weald_graph::MAX_VERTEX
        )),
        _ => Ok(()),
    }
}

/// Calls its second argument once per neighbour of its first.
type NeighbourFn<'a, W> = dyn Fn(Vertex, &mut dyn FnMut(Vertex, W)) + Sync + 'a;

fn sort_lists<W: Weight>(adj: &mut Adjacency<W>, n: usize) {
    for v in 0..n {
        let r = adj.offsets[v] as usize..adj.offsets[v + 1] as usize;
        let mut pairs: Vec<(Vertex, W)> = adj.targets[r.clone()]
            .iter()
            .enumerate()
            .map(|(i, &u)| {
                (
                    u,
                    if W::WEIGHTED {
                        adj.weights[r.start + i]
                    } else {
                        W::default()
                    },
                )
            })
            .collect();
        pairs.sort_by_key(|p| p.0);
        for (i, (u, w)) in pairs.into_iter().enumerate() {
            adj.targets[r.start + i] = u;
            if W::WEIGHTED {
                adj.weights[r.start + i] = w;
            }
        }
    }
}

/// A static graph in compressed-sparse-row form.
#[derive(Clone, Debug)]
pub struct Csr<W: Weight = ()> {
    n: usize,
    directed: bool,
    out: Adjacency<W>,
    /// In-arcs of a directed graph, if built.
    inn: Option<Adjacency<W>>,
    /// `orig_ids[v]` is the user's id of vertex `v`, when ids were relabelled.
    orig_ids: Option<Vec<u32>>,
    self_loops: usize,
    /// The summary of the out-arcs' weights, gathered when built (weighted graphs only).
    /// Derived from `out`, so left out of equality (its sum may be NaN with infinite weights).
    weights: Option<WeightSummary>,
}

impl<W: Weight> PartialEq for Csr<W> {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
            && self.directed == other.directed
            && self.out == other.out
            && self.inn == other.inn
            && self.orig_ids == other.orig_ids
            && self.self_loops == other.self_loops
    }
}

impl<W: Weight> Csr<W> {
    /// Assemble from parts, checking every invariant (for loaders of untrusted files).
    pub fn from_parts(
        n: usize,
        directed: bool,
        out: Adjacency<W>,
        inn: Option<Adjacency<W>>,
        orig_ids: Option<Vec<u32>>,
    ) -> Result<Self, String> {
        if inn.is_some() && !directed {
            return Err("a symmetric graph cannot have separate in-arcs".into());
        }
        // Every edge's two directions (or every arc as an out- and an in-arc) hold the same
        // weight, checked by fingerprints of both sides, summed as the lists are validated.
        let fp = ArcFingerprint::new();
        match &inn {
            None if !directed => {
                let f = out.validate_summing(n, |v, u, w| fp.mirror_term(v, u, w))?;
                if f != 0 {
                    let count = |up: bool| {
                        out.validate_summing(n, |v, u, _| (v != u && (v < u) == up) as u64)
                            .unwrap_or_default()
                    };
                    return Err(format!(
                        "the graph is undirected but its adjacency is not symmetric ({} arcs \
                         to a higher vertex, {} to a lower one; an arc without its reverse, \
                         or with another weight)",
                        count(true),
                        count(false)
                    ));
                }
            }
            Some(i) => {
                let f_out = out.validate_summing(n, |v, u, w| fp.arc(v, u, w))?;
                let f_in = i.validate_summing(n, |v, u, w| fp.arc(u, v, w))?;
                if i.targets.len() != out.targets.len() {
                    return Err("in-arcs and out-arcs differ in number".into());
                }
                if f_out != f_in {
                    return Err(
                        "the in-arcs are not the out-arcs reversed (an arc missing from one \
                         side, or with another weight)"
                            .into(),
                    );
                }
            }
            None => {
                out.validate(n)?;
            }
        }
        if let Some(ids) = &orig_ids {
            check_id_map(ids, n)?;
        }
        Ok(Self::from_parts_unchecked(n, directed, out, inn, orig_ids))
    }

    /// Copy any graph into CSR form (in parallel): the same `n`, the same sorted neighbour lists
    /// and, for a directed graph whose in-arcs are stored (`has_in_edges`), the in-arcs too.
    /// Used to write a version of a dynamic store to a file.
    pub fn from_graph<G: InGraph<W = W>>(g: &G) -> Self {
        fn side<W: Weight>(n: usize, each: &NeighbourFn<'_, W>) -> Adjacency<W> {
            let degrees: Vec<u64> = (0..n as Vertex)
                .into_par_iter()
                .map(|v| {
                    let mut d = 0u64;
                    each(v, &mut |_, _| d += 1);
                    d
                })
                .collect();
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0u64);
            let mut acc = 0;
            for d in degrees {
                acc += d;
                offsets.push(acc);
            }
            let m = acc as usize;
            let mut targets = vec![0 as Vertex; m];
            let mut weights = vec![W::default(); if W::WEIGHTED { m } else { 0 }];
            let tp = weald_graph::parallel::SendPtr(targets.as_mut_ptr());
            let wp = weald_graph::parallel::SendPtr(weights.as_mut_ptr());
            (0..n as Vertex).into_par_iter().for_each(|v| {
                let (tp, wp) = (&tp, &wp);
                let mut at = offsets[v as usize] as usize;
                let end = offsets[v as usize + 1] as usize;
                each(v, &mut |u, w| {
                    assert!(at < end, "neighbour count changed between passes");
                    // SAFETY: [offsets[v], offsets[v+1]) is written by this task only, and
                    // the assertion keeps every write inside it.
                    unsafe {
                        *tp.0.add(at) = u;
                        if W::WEIGHTED {
                            *wp.0.add(at) = w;
                        }
                    }
                    at += 1;
                });
            });
            let mut adj = Adjacency {
                offsets,
                targets,
                weights,
            };
            // Backends hand out sorted lists; sort anyway if one does not.
            let unsorted = (0..n).into_par_iter().any(|v| {
                adj.targets[adj.offsets[v] as usize..adj.offsets[v + 1] as usize]
                    .windows(2)
                    .any(|p| p[0] > p[1])
            });
            if unsorted {
                sort_lists(&mut adj, n);
            }
            adj
        }
        let n = g.num_vertices();
        let out = side(n, &|v, f| {
            g.for_each_out(v, |u, w| {
                f(u, w);
                true
            });
        });
        let inn = (g.is_directed() && g.has_in_edges()).then(|| {
            side(n, &|v, f| {
                g.for_each_in(v, |u, w| {
                    f(u, w);
                    true
                });
            })
        });
        Self::from_parts_unchecked(n, g.is_directed(), out, inn, None)
    }

    pub(crate) fn from_parts_unchecked(
        n: usize,
        directed: bool,
        out: Adjacency<W>,
        inn: Option<Adjacency<W>>,
        orig_ids: Option<Vec<u32>>,
    ) -> Self {
        let self_loops = (0..n as Vertex)
            .into_par_iter()
            .with_min_len(1024)
            .map(|v| out.targets[out.range(v)].binary_search(&v).is_ok() as usize)
            .sum();
        let weights = W::WEIGHTED.then(|| WeightSummary::of_weights(&out.weights));
        Csr {
            n,
            directed,
            out,
            inn,
            orig_ids,
            self_loops,
            weights,
        }
    }

    /// The out-adjacency arrays.
    pub fn out_adjacency(&self) -> &Adjacency<W> {
        &self.out
    }

    /// The in-adjacency arrays of a directed graph, if stored.
    pub fn in_adjacency(&self) -> Option<&Adjacency<W>> {
        self.inn.as_ref()
    }

    /// The user's id of every vertex, if ids were relabelled (`None`: ids are the user's).
    pub fn original_ids(&self) -> Option<&[u32]> {
        self.orig_ids.as_deref()
    }

    /// The user's id of vertex `v`.
    pub fn original_id(&self, v: Vertex) -> u64 {
        match &self.orig_ids {
            Some(ids) => ids[v as usize] as u64,
            None => v as u64,
        }
    }

    /// The internal id of the user's vertex `id`, if present.
    pub fn internal_id(&self, id: u64) -> Option<Vertex> {
        match &self.orig_ids {
            Some(ids) => u32::try_from(id)
                .ok()
                .and_then(|id| ids.binary_search(&id).ok())
                .map(|i| i as Vertex),
            None => (id < self.n as u64).then_some(id as Vertex),
        }
    }

    /// Out-neighbour weights of `v` as a slice (empty for unweighted graphs).
    pub fn out_weights(&self, v: Vertex) -> &[W] {
        if W::WEIGHTED {
            &self.out.weights[self.out.range(v)]
        } else {
            &[]
        }
    }

    /// Total bytes of the arrays (offsets, targets, weights, in-arcs, id map).
    pub fn memory_bytes(&self) -> usize {
        self.out.memory_bytes()
            + self.inn.as_ref().map_or(0, Adjacency::memory_bytes)
            + self.orig_ids.as_ref().map_or(0, |i| i.len() * 4)
    }

    /// Drop the id map (results are then reported in internal ids).
    pub fn forget_original_ids(&mut self) {
        self.orig_ids = None;
    }

    /// Give the vertices the user's ids `ids` (`n` of them, strictly increasing, each at most
    /// [`weald_graph::MAX_VERTEX`]): for a graph rebuilt from another's arcs in its internal
    /// ids.
    pub fn set_original_ids(&mut self, ids: Vec<u32>) -> Result<(), String> {
        check_id_map(&ids, self.n)?;
        self.orig_ids = Some(ids);
        Ok(())
    }

    /// Every arc `(u, v, w)` in order of `u` then `v`.
    pub fn arcs(&self) -> impl Iterator<Item = (Vertex, Vertex, W)> + '_ {
        (0..self.n as Vertex).flat_map(move |u| {
            let r = self.out.range(u);
            let ws = self.out_weights(u);
            self.out.targets[r]
                .iter()
                .enumerate()
                .map(move |(i, &v)| (u, v, if W::WEIGHTED { ws[i] } else { W::default() }))
        })
    }
}

impl<W: Weight> Graph for Csr<W> {
    type W = W;

    #[inline]
    fn num_vertices(&self) -> usize {
        self.n
    }

    #[inline]
    fn num_arcs(&self) -> usize {
        self.out.targets.len()
    }

    #[inline]
    fn is_directed(&self) -> bool {
        self.directed
    }

    #[inline]
    fn out_degree(&self, v: Vertex) -> usize {
        (self.out.offsets[v as usize + 1] - self.out.offsets[v as usize]) as usize
    }

    #[inline]
    fn for_each_out<F: FnMut(Vertex, W) -> bool>(&self, v: Vertex, f: F) -> bool {
        self.out.for_each(v, f)
    }

    /// Worth it where the scan is not sequential: a frontier's vertices, or a pull that skips
    /// visited vertices and stops early (the hardware prefetcher follows neither).
    #[inline(always)]
    fn prefetch_out(&self, v: Vertex) {
        self.out.prefetch(v);
    }

    #[inline(always)]
    fn prefetch_out_index(&self, v: Vertex) {
        crate::prefetch_at(&self.out.offsets, v as usize);
    }

    /// [`par_for_each_out_ahead`](Graph::par_for_each_out_ahead) with nothing handed ahead.
    fn par_for_each_out<F: Fn(Vertex, W) + Sync + Send>(&self, v: Vertex, f: F) {
        self.par_for_each_out_ahead(v, 1, |_| {}, f);
    }

    fn par_for_each_out_ahead<A: Fn(Vertex) + Sync, F: Fn(Vertex, W) + Sync + Send>(
        &self,
        v: Vertex,
        dist: usize,
        ahead: A,
        f: F,
    ) {
        let r = self.out.range(v);
        if r.len() < 4096 {
            self.for_each_out_ahead(v, dist, ahead, f);
            return;
        }
        let ts = &self.out.targets[r.clone()];
        let ws = W::WEIGHTED.then(|| &self.out.weights[r]);
        // Pieces of 1024 arcs, each looking ahead into the next piece's neighbours too.
        (0..ts.len().div_ceil(1024)).into_par_iter().for_each(|p| {
            for j in p * 1024..ts.len().min(p * 1024 + 1024) {
                if let Some(&a) = ts.get(j + dist) {
                    ahead(a);
                }
                f(ts[j], ws.map_or_else(W::default, |ws| ws[j]));
            }
        });
    }

    #[inline]
    fn out_neighbors_slice(&self, v: Vertex) -> Option<&[Vertex]> {
        Some(&self.out.targets[self.out.range(v)])
    }

    fn weight_summary(&self) -> WeightSummary {
        match self.weights {
            Some(s) => s,
            None => WeightSummary::of_graph(self),
        }
    }

    fn num_self_loops(&self) -> usize {
        self.self_loops
    }
}

impl<W: Weight> InGraph for Csr<W> {
    fn has_in_edges(&self) -> bool {
        !self.directed || self.inn.is_some()
    }

    #[inline]
    fn in_degree(&self, v: Vertex) -> usize {
        match &self.inn {
            Some(i) => (i.offsets[v as usize + 1] - i.offsets[v as usize]) as usize,
            None if !self.directed => self.out_degree(v),
            None => panic!("in-arcs of a directed CSR were not built (check has_in_edges)"),
        }
    }

    #[inline]
    fn for_each_in<F: FnMut(Vertex, W) -> bool>(&self, v: Vertex, f: F) -> bool {
        match &self.inn {
            Some(i) => i.for_each(v, f),
            None if !self.directed => self.out.for_each(v, f),
            None => panic!("in-arcs of a directed CSR were not built (check has_in_edges)"),
        }
    }

    #[inline(always)]
    fn prefetch_in(&self, v: Vertex) {
        self.inn.as_ref().unwrap_or(&self.out).prefetch(v);
    }
}

#[cfg(test)]
mod tests;

/// A CSR of any weight type, chosen at run time (what loaders return).
#[derive(Clone, Debug, PartialEq)]
pub enum AnyCsr {
    Unweighted(Csr<()>),
    Int(Csr<i32>),
    Float(Csr<f64>),
}

/// Run `$body` with `$g` bound to the concrete `Csr<W>` inside an [`AnyCsr`].
#[macro_export]
macro_rules! with_csr {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::csr::AnyCsr::Unweighted($g) => $body,
            $crate::csr::AnyCsr::Int($g) => $body,
            $crate::csr::AnyCsr::Float($g) => $body,
        }
    };
}

impl AnyCsr {
    /// The weight type's name: `none`, `i32` or `f64`.
    pub fn weight_name(&self) -> &'static str {
        match self {
            AnyCsr::Unweighted(_) => "none",
            AnyCsr::Int(_) => "i32",
            AnyCsr::Float(_) => "f64",
        }
    }

    pub fn is_weighted(&self) -> bool {
        !matches!(self, AnyCsr::Unweighted(_))
    }

    pub fn num_vertices(&self) -> usize {
        with_csr!(self, g => g.num_vertices())
    }

    pub fn num_arcs(&self) -> usize {
        with_csr!(self, g => g.num_arcs())
    }

    pub fn num_edges(&self) -> usize {
        with_csr!(self, g => g.num_edges())
    }

    pub fn is_directed(&self) -> bool {
        with_csr!(self, g => g.is_directed())
    }

    pub fn memory_bytes(&self) -> usize {
        with_csr!(self, g => g.memory_bytes())
    }

    pub fn original_ids(&self) -> Option<&[u32]> {
        with_csr!(self, g => g.original_ids())
    }

    /// See [`Csr::set_original_ids`].
    pub fn set_original_ids(&mut self, ids: Vec<u32>) -> Result<(), String> {
        with_csr!(self, g => g.set_original_ids(ids))
    }
}

impl From<Csr<()>> for AnyCsr {
    fn from(g: Csr<()>) -> Self {
        AnyCsr::Unweighted(g)
    }
}
impl From<Csr<i32>> for AnyCsr {
    fn from(g: Csr<i32>) -> Self {
        AnyCsr::Int(g)
    }
}
impl From<Csr<f64>> for AnyCsr {
    fn from(g: Csr<f64>) -> Self {
        AnyCsr::Float(g)
    }
}
