//! [`FlatSnapshot`]: one version flattened into an array of per-vertex handles, so global
//! algorithms look a vertex up in O(1) instead of O(log n).

use super::graph::CTreeGraph;
use super::tree::CTree;
use super::vtree::{self, VLink};
use weald_graph::parallel::SendPtr;
use weald_graph::{Graph, InGraph, Vertex, Weight};

/// An `n`-element array of handles to the edge trees of one version (null = vertex absent),
/// plus the version itself, which keeps every tree alive. Building it is O(n) and parallel.
pub struct FlatSnapshot<W: Weight = ()> {
    graph: CTreeGraph<W>,
    out: Vec<*const CTree<W>>,
    inn: Option<Vec<*const CTree<W>>>,
}

// SAFETY: the pointers point into immutable `Arc`-owned vertex nodes of `graph`, which this
// struct owns (so they outlive it), and `CTree<W>` is `Send + Sync` for `W: Weight`.
unsafe impl<W: Weight> Send for FlatSnapshot<W> {}
// SAFETY: as above; nothing is ever written through the pointers.
unsafe impl<W: Weight> Sync for FlatSnapshot<W> {}

fn flatten<W: Weight>(t: &VLink<W>, n: usize) -> Vec<*const CTree<W>> {
    let mut v: Vec<*const CTree<W>> = vec![std::ptr::null(); n];
    let p = SendPtr(v.as_mut_ptr());
    vtree::par_for_each_node(t, &|node| {
        let p = &p;
        debug_assert!((node.key as usize) < n);
        // SAFETY: keys are distinct and < n, so each slot is written by one node only.
        unsafe {
            p.0.add(node.key as usize)
                .write(&node.tree as *const CTree<W>)
        };
    });
    v
}

impl<W: Weight> FlatSnapshot<W> {
    /// Flatten `graph` (an O(1) clone of it is kept).
    pub fn new(graph: &CTreeGraph<W>) -> Self {
        let n = graph.num_vertices();
        let (out, inn) = graph.vertex_roots();
        FlatSnapshot {
            out: flatten(out, n),
            inn: inn.map(|i| flatten(i, n)),
            graph: graph.clone(),
        }
    }

    /// The version this snapshot flattens.
    pub fn graph(&self) -> &CTreeGraph<W> {
        &self.graph
    }

    #[inline]
    fn out_tree(&self, v: Vertex) -> Option<&CTree<W>> {
        // SAFETY: non-null pointers point into nodes kept alive by `self.graph`.
        self.out.get(v as usize).and_then(|p| unsafe { p.as_ref() })
    }

    #[inline]
    fn in_tree(&self, v: Vertex) -> Option<&CTree<W>> {
        match &self.inn {
            // SAFETY: as in `out_tree`.
            Some(i) => i.get(v as usize).and_then(|p| unsafe { p.as_ref() }),
            None => self.out_tree(v),
        }
    }

    /// Is vertex `v` present?
    pub fn has_vertex(&self, v: Vertex) -> bool {
        self.out_tree(v).is_some()
    }
}

impl<W: Weight> Graph for FlatSnapshot<W> {
    type W = W;

    #[inline]
    fn num_vertices(&self) -> usize {
        self.out.len()
    }

    #[inline]
    fn num_arcs(&self) -> usize {
        self.graph.num_arcs()
    }

    #[inline]
    fn is_directed(&self) -> bool {
        self.graph.is_directed()
    }

    #[inline]
    fn out_degree(&self, v: Vertex) -> usize {
        self.out_tree(v).map_or(0, CTree::len)
    }

    #[inline]
    fn for_each_out<F: FnMut(Vertex, W) -> bool>(&self, v: Vertex, f: F) -> bool {
        self.out_tree(v).is_none_or(|t| t.for_each(v, f))
    }

    fn par_for_each_out<F: Fn(Vertex, W) + Sync + Send>(&self, v: Vertex, f: F) {
        if let Some(t) = self.out_tree(v) {
            t.par_for_each(v, &f);
        }
    }
}

impl<W: Weight> InGraph for FlatSnapshot<W> {
    fn has_in_edges(&self) -> bool {
        self.graph.has_in_edges()
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
}
