//! [`AnyGraph`]: the single type-erasure point over backends and weight types.

use std::sync::Arc;
use weald_graph::batch::Combine;
use weald_graph::{Graph, InGraph, Vertex, Weight};
use weald_storage::csr::{AnyCsr, Csr};
use weald_storage::ctree::{CTreeGraph, FlatSnapshot, MemoryReport};

/// The user's ids of a relabelled graph's vertices (`ids[v]` is vertex `v`'s id).
pub type IdMap = Arc<[u32]>;

/// A graph of any backend and weight type, chosen at run time.
pub enum AnyGraph {
    /// The static CSR backend.
    Csr(AnyCsr),
    /// A C-tree snapshot (flattened for O(1) vertex access), with the user's ids if relabelled.
    CTree(AnyFlat, Option<IdMap>),
}

/// A flat C-tree snapshot of any weight type.
pub enum AnyFlat {
    Unweighted(FlatSnapshot<()>),
    Int(FlatSnapshot<i32>),
    Float(FlatSnapshot<f64>),
}

impl std::fmt::Debug for AnyGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "AnyGraph({}, {}, n={}, arcs={})",
            self.backend(),
            self.weight_name(),
            self.num_vertices(),
            self.num_arcs()
        )
    }
}

/// The backends a graph can be loaded into.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    Csr,
    CTree,
}

impl std::str::FromStr for Backend {
    type Err = weald_graph::WealdError;
    fn from_str(s: &str) -> weald_graph::Result<Self> {
        match s {
            "csr" => Ok(Backend::Csr),
            "ctree" => Ok(Backend::CTree),
            _ => Err(weald_graph::WealdError::Invalid(format!(
                "unknown backend `{s}` (expected csr or ctree)"
            ))),
        }
    }
}

/// The C-trees of `csr`, flattened; [`weald_graph::WealdError::OutOfMemory`] if their
/// per-vertex arrays certainly cannot fit (the vertex count comes from a file).
fn flat_of<W: Weight>(csr: &Csr<W>, b: u32) -> weald_graph::Result<FlatSnapshot<W>> {
    FlatSnapshot::try_new(&CTreeGraph::try_from_csr_merging(csr, b, Combine::Min)?)
}

/// Run `$body` with `$g` bound to the concrete graph (a `&Csr<W>`, ...) inside an [`AnyGraph`].
/// `$body` must type-check for every backend and weight type.
#[macro_export]
macro_rules! with_graph {
    ($any:expr, $g:ident => $body:expr) => {
        match $any {
            $crate::AnyGraph::Csr(c) => weald_storage::with_csr!(c, $g => $body),
            $crate::AnyGraph::CTree($crate::any::AnyFlat::Unweighted($g), _) => $body,
            $crate::AnyGraph::CTree($crate::any::AnyFlat::Int($g), _) => $body,
            $crate::AnyGraph::CTree($crate::any::AnyFlat::Float($g), _) => $body,
        }
    };
}

impl Clone for AnyGraph {
    fn clone(&self) -> Self {
        match self {
            AnyGraph::Csr(c) => AnyGraph::Csr(c.clone()),
            AnyGraph::CTree(f, ids) => {
                let f = match f {
                    AnyFlat::Unweighted(x) => AnyFlat::Unweighted(FlatSnapshot::new(x.graph())),
                    AnyFlat::Int(x) => AnyFlat::Int(FlatSnapshot::new(x.graph())),
                    AnyFlat::Float(x) => AnyFlat::Float(FlatSnapshot::new(x.graph())),
                };
                AnyGraph::CTree(f, ids.clone())
            }
        }
    }
}

impl AnyFlat {
    /// Whether `v` is a vertex present (an id below the largest may have been deleted or
    /// never inserted).
    pub fn has_vertex(&self, v: Vertex) -> bool {
        match self {
            AnyFlat::Unweighted(f) => f.has_vertex(v),
            AnyFlat::Int(f) => f.has_vertex(v),
            AnyFlat::Float(f) => f.has_vertex(v),
        }
    }

    /// The number of vertices present.
    pub fn num_present_vertices(&self) -> usize {
        match self {
            AnyFlat::Unweighted(f) => f.graph().num_present_vertices(),
            AnyFlat::Int(f) => f.graph().num_present_vertices(),
            AnyFlat::Float(f) => f.graph().num_present_vertices(),
        }
    }
}

/// A stored version as algorithms read it: flattened with its own ids, so that an id below
/// the largest that holds no vertex is an isolated vertex (as in a graph file read with
/// `--keep-ids`) — unless fewer than one id in 64 holds a vertex
/// ([`CTreeGraph::ids_are_sparse`]). Then the present vertices are renumbered `0..k` in id
/// order, as a graph file's are, and their ids are returned with the snapshot: reading costs
/// memory for the vertices, not for the id space (ids reach 2^32 - 2), and absent ids are not
/// vertices.
pub fn flat_of_version<W: Weight>(
    g: &CTreeGraph<W>,
) -> weald_graph::Result<(FlatSnapshot<W>, Option<IdMap>)> {
    if g.ids_are_sparse() {
        let (r, ids) = g.relabelled();
        Ok((FlatSnapshot::try_new(&r)?, Some(ids.into())))
    } else {
        Ok((FlatSnapshot::try_new(g)?, None))
    }
}

/// A copy of `g` as a CSR ([`Csr::from_graph`]), with `ids` as its id map: the copy of a
/// relabelled graph keeps its user ids.
pub fn csr_with_ids<G: InGraph>(g: &G, ids: Option<&[u32]>) -> Csr<G::W> {
    let mut c = Csr::from_graph(g);
    if let Some(ids) = ids {
        c.set_original_ids(ids.to_vec())
            .expect("a relabelled graph's id map has one increasing id per vertex");
    }
    c
}

impl AnyGraph {
    /// [`flat_of_version`] as an [`AnyGraph`] (the ids, if renumbered, as its id map).
    pub fn of_version<W: Weight>(g: &CTreeGraph<W>) -> weald_graph::Result<Self>
    where
        AnyFlat: From<FlatSnapshot<W>>,
    {
        let (f, ids) = flat_of_version(g)?;
        Ok(AnyGraph::CTree(AnyFlat::from(f), ids))
    }
}

impl From<FlatSnapshot<()>> for AnyFlat {
    fn from(f: FlatSnapshot<()>) -> Self {
        AnyFlat::Unweighted(f)
    }
}
impl From<FlatSnapshot<i32>> for AnyFlat {
    fn from(f: FlatSnapshot<i32>) -> Self {
        AnyFlat::Int(f)
    }
}
impl From<FlatSnapshot<f64>> for AnyFlat {
    fn from(f: FlatSnapshot<f64>) -> Self {
        AnyFlat::Float(f)
    }
}

impl From<AnyCsr> for AnyGraph {
    fn from(c: AnyCsr) -> Self {
        AnyGraph::Csr(c)
    }
}

impl AnyGraph {
    /// Move the graph into `backend` (C-trees with chunk parameter `b`); the id map is kept.
    /// [`weald_graph::WealdError::OutOfMemory`] if the C-trees' per-vertex arrays certainly
    /// cannot fit.
    pub fn into_backend(self, backend: Backend, b: u32) -> weald_graph::Result<Self> {
        Ok(match (self, backend) {
            (AnyGraph::Csr(c), Backend::CTree) => {
                let ids: Option<Arc<[u32]>> = c.original_ids().map(Arc::from);
                let flat = match &c {
                    AnyCsr::Unweighted(g) => AnyFlat::Unweighted(flat_of(g, b)?),
                    AnyCsr::Int(g) => AnyFlat::Int(flat_of(g, b)?),
                    AnyCsr::Float(g) => AnyFlat::Float(flat_of(g, b)?),
                };
                AnyGraph::CTree(flat, ids)
            }
            (g, _) => g,
        })
    }

    /// The graph as a CSR (a copy for other backends), e.g. to write it to a file; a
    /// relabelled graph keeps its id map.
    pub fn to_csr(&self) -> AnyCsr {
        match self {
            AnyGraph::Csr(c) => c.clone(),
            AnyGraph::CTree(f, ids) => {
                let ids = ids.as_deref();
                match f {
                    AnyFlat::Unweighted(x) => AnyCsr::from(csr_with_ids(x, ids)),
                    AnyFlat::Int(x) => AnyCsr::from(csr_with_ids(x, ids)),
                    AnyFlat::Float(x) => AnyCsr::from(csr_with_ids(x, ids)),
                }
            }
        }
    }

    /// The backend's name (`csr`, `ctree`).
    pub fn backend(&self) -> &'static str {
        match self {
            AnyGraph::Csr(_) => "csr",
            AnyGraph::CTree(..) => "ctree",
        }
    }

    /// The weight type's name (`none`, `i32`, `f64`).
    pub fn weight_name(&self) -> &'static str {
        with_graph!(self, g => weight_name_of(g))
    }

    /// The C-tree memory breakdown (`None` for other backends).
    pub fn ctree_memory(&self) -> Option<MemoryReport> {
        match self {
            AnyGraph::CTree(AnyFlat::Unweighted(f), _) => Some(f.graph().memory_bytes()),
            AnyGraph::CTree(AnyFlat::Int(f), _) => Some(f.graph().memory_bytes()),
            AnyGraph::CTree(AnyFlat::Float(f), _) => Some(f.graph().memory_bytes()),
            AnyGraph::Csr(_) => None,
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

    /// Bytes held by the graph's structure (CSR arrays; C-tree nodes and chunks).
    pub fn memory_bytes(&self) -> usize {
        match self {
            AnyGraph::Csr(c) => c.memory_bytes(),
            AnyGraph::CTree(..) => self.ctree_memory().map_or(0, |m| m.total),
        }
    }

    /// The vertices present: all `num_vertices()` ids of a CSR; a C-tree snapshot's id space
    /// (`1 +` the largest id present) may hold ids deleted or never inserted.
    pub fn num_present_vertices(&self) -> usize {
        match self {
            AnyGraph::Csr(c) => c.num_vertices(),
            AnyGraph::CTree(f, _) => f.num_present_vertices(),
        }
    }

    /// Whether internal id `v` is a vertex present (see [`AnyGraph::num_present_vertices`]).
    pub fn has_vertex(&self, v: Vertex) -> bool {
        match self {
            AnyGraph::Csr(c) => (v as usize) < c.num_vertices(),
            AnyGraph::CTree(f, _) => f.has_vertex(v),
        }
    }

    /// The user's id of every internal vertex, if ids were relabelled.
    pub fn original_ids(&self) -> Option<&[u32]> {
        match self {
            AnyGraph::Csr(c) => c.original_ids(),
            AnyGraph::CTree(_, ids) => ids.as_deref(),
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
        match self.original_ids() {
            Some(ids) => u32::try_from(id)
                .ok()
                .and_then(|x| ids.binary_search(&x).ok())
                .map(|i| i as Vertex)
                .ok_or(weald_graph::WealdError::NoSuchVertex {
                    vertex: id,
                    num_vertices: ids.len() as u64,
                    first: ids.first().map_or(0, |&x| x as u64),
                    last: ids.last().map_or(0, |&x| x as u64),
                }),
            None if id >= self.num_vertices() as u64 => {
                Err(weald_graph::WealdError::VertexOutOfRange {
                    vertex: id,
                    num_vertices: self.num_vertices() as u64,
                })
            }
            None if self.has_vertex(id as Vertex) => Ok(id as Vertex),
            None => Err(weald_graph::WealdError::VertexAbsent { vertex: id }),
        }
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

fn weight_name_of<G: Graph>(_: &G) -> &'static str {
    <G::W as Weight>::NAME
}
