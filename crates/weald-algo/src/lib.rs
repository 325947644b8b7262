//! # weald-algo — the traversal layer and the verified algorithm library
//!
//! Algorithms never name a storage backend: they are generic over the traits of `weald-graph`
//! and compiled per backend. Each problem has a folder with its algorithms (one file each) and
//! the problem's `verify` in `mod.rs`, at least as strict as GAPBS's verifiers.
//!
//! | problem | module | algorithm |
//! |---|---|---|
//! | breadth-first search | [`bfs`] | direction-optimising BFS (Beamer et al.) |
//! | betweenness (single source) | [`bc`] | Brandes dependencies via edge_map |
//! | PageRank | [`pagerank`] | power iteration, pull |
//! | connected components | [`cc`] | Afforest / union-find |
//! | single-source shortest paths | [`sssp`] | delta-stepping, Bellman-Ford |
//! | triangle counting | [`tc`] | degree-ordered sorted intersection |
//! | k-core decomposition | [`kcore`] | bucketed peeling (Julienne) |
//! | maximal independent set | [`mis`] | deterministic random-priority MIS |
//! | two-hop neighbourhood (local) | [`twohop`] | gather, sort, deduplicate |
//! | local clustering (local) | [`localcluster`] | Nibble-Serial: truncated walk + sweep cut |

pub mod bc;
pub mod bfs;
pub mod cc;
pub mod kcore;
pub mod localcluster;
pub mod mis;
pub mod pagerank;
pub mod sssp;
pub mod tc;
pub mod traverse;
pub mod twohop;

use weald_graph::{Graph, Result, Vertex, WealdError};

/// `WealdError::VertexOutOfRange` unless `source` is a vertex of `g` (the
/// check every single-source algorithm starts with).
pub(crate) fn require_vertex<G: Graph>(g: &G, source: Vertex) -> Result<()> {
    if (source as usize) < g.num_vertices() {
        Ok(())
    } else {
        Err(WealdError::VertexOutOfRange {
            vertex: source as u64,
            num_vertices: g.num_vertices() as u64,
        })
    }
}
