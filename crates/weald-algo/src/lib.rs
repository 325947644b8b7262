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

pub mod bc;
pub mod bfs;
pub mod cc;
pub mod kcore;
pub mod mis;
pub mod pagerank;
pub mod sssp;
pub mod tc;
pub mod traverse;
