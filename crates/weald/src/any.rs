//! [`AnyGraph`]: the single type-erasure point over backends and weight types.

use weald_graph::{Graph, Vertex};
use weald_storage::csr::AnyCsr;

/// A graph of any backend and weight type, chosen at run time.
#[derive(Clone, Debug)]
pub enum AnyGraph {
    /// The static CSR backend.
    Csr(AnyCsr),
}

/// Run `$body` with `$g` bound to the concrete graph (a `&Csr<W>`, ...) inside an [`AnyGraph`].
/// `$body` must type-check for every backend and weight type.
#[macro_export]
macro_rules! with_graph {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::AnyGraph::Csr(c) => weald_storage::with_csr!(c, $g => $body),
        }
    };
}

impl From<AnyCsr> for AnyGraph {
    fn from(c: AnyCsr) -> Self {
        AnyGraph::Csr(c)
    }
}

impl AnyGraph {
    /// The backend's name (`csr`, ...).
    pub fn backend(&self) -> &'static str {
        match self {
            AnyGraph::Csr(_) => "csr",
        }
    }

    /// The weight type's name (`none`, `i32`, `f64`).
    pub fn weight_name(&self) -> &'static str {
        match self {
            AnyGraph::Csr(c) => c.weight_name(),
        }
    }

    pub fn is_weighted(&self) -> bool {
        self.weight_name() != "none"
    }

    pub fn num_vertices(&self) -> usize {
        with_graph!(self, g => g.num_vertices())
    }

    pub fn num_arcs(&self) -> usize {
        with_graph!(self, g => g.num_arcs())
    }

    pub fn num_edges(&self) -> usize {
        with_graph!(self, g => g.num_edges())
    }

    pub fn num_self_loops(&self) -> usize {
        with_graph!(self, g => g.num_self_loops())
    }

    pub fn is_directed(&self) -> bool {
        with_graph!(self, g => g.is_directed())
    }

    /// Bytes held by the graph's arrays.
    pub fn memory_bytes(&self) -> usize {
        match self {
            AnyGraph::Csr(c) => c.memory_bytes(),
        }
    }

    /// The user's id of every internal vertex, if ids were relabelled.
    pub fn original_ids(&self) -> Option<&[u32]> {
        match self {
            AnyGraph::Csr(c) => c.original_ids(),
        }
    }

    /// The user's id of internal vertex `v`.
    pub fn original_id(&self, v: Vertex) -> u64 {
        match self.original_ids() {
            Some(ids) => ids[v as usize] as u64,
            None => v as u64,
        }
    }

    /// The internal id of the user's vertex `id`, or an error naming it.
    pub fn internal_id(&self, id: u64) -> weald_graph::Result<Vertex> {
        let found = match self.original_ids() {
            Some(ids) => u32::try_from(id)
                .ok()
                .and_then(|x| ids.binary_search(&x).ok())
                .map(|i| i as Vertex),
            None => (id < self.num_vertices() as u64).then_some(id as Vertex),
        };
        found.ok_or(weald_graph::WealdError::VertexOutOfRange {
            vertex: id,
            num_vertices: self.num_vertices() as u64,
        })
    }

    /// Out-degrees of all vertices.
    pub fn degrees(&self) -> Vec<usize> {
        use rayon::prelude::*;
        with_graph!(self, g => (0..g.num_vertices() as Vertex)
            .into_par_iter()
            .map(|v| g.out_degree(v))
            .collect())
    }
}
