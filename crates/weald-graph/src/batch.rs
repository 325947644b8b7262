//! Edge lists (the input of builders) and update batches (the input of dynamic stores).

use crate::{Vertex, Weight};

/// How to combine the weights of duplicate edges.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Combine {
    /// Keep the smallest weight (the default: shortest-path semantics).
    #[default]
    Min,
    /// Keep the largest weight.
    Max,
    /// Add the weights (saturating: integers at their range, floats at ±`f64::MAX`).
    Sum,
    /// Keep the weight of the first occurrence (in input order).
    First,
    /// Keep the weight of the last occurrence (in input order).
    Last,
}

impl std::str::FromStr for Combine {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "min" => Combine::Min,
            "max" => Combine::Max,
            "sum" => Combine::Sum,
            "first" => Combine::First,
            "last" => Combine::Last,
            _ => {
                return Err(format!(
                    "unknown combine rule `{s}` (expected min, max, sum, first or last)"
                ))
            }
        })
    }
}

/// A list of arcs in input order, as parsed from a file or generated.
/// `weights.len() == src.len() == dst.len()` always (a `Vec<()>` takes no memory).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EdgeList<W: Weight> {
    /// Vertex ids are `0..num_vertices`.
    pub num_vertices: usize,
    pub src: Vec<Vertex>,
    pub dst: Vec<Vertex>,
    pub weights: Vec<W>,
}

impl<W: Weight> EdgeList<W> {
    /// An empty list over `n` vertices.
    pub fn new(num_vertices: usize) -> Self {
        EdgeList {
            num_vertices,
            src: Vec::new(),
            dst: Vec::new(),
            weights: Vec::new(),
        }
    }

    /// Number of arcs.
    pub fn len(&self) -> usize {
        self.src.len()
    }

    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    /// Append an arc.
    pub fn push(&mut self, u: Vertex, v: Vertex, w: W) {
        self.src.push(u);
        self.dst.push(v);
        self.weights.push(w);
    }

    /// Build from `(u, v, w)` triples; `n` is one more than the largest id.
    pub fn from_triples(triples: impl IntoIterator<Item = (Vertex, Vertex, W)>) -> Self {
        let mut e = EdgeList::new(0);
        for (u, v, w) in triples {
            e.push(u, v, w);
            e.num_vertices = e.num_vertices.max(u.max(v) as usize + 1);
        }
        e
    }

    /// Iterate `(u, v, w)`.
    pub fn iter(&self) -> impl Iterator<Item = (Vertex, Vertex, W)> + '_ {
        self.src
            .iter()
            .zip(&self.dst)
            .zip(&self.weights)
            .map(|((&u, &v), &w)| (u, v, w))
    }
}

/// One batch of updates for a dynamic store. Applied atomically: a reader sees all of it or
/// none of it. Within a batch, vertex deletions apply after edge insertions, and edge deletions
/// after edge insertions (so `+e, -e` in one batch leaves `e` absent).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateBatch<W: Weight> {
    pub insert_edges: Vec<(Vertex, Vertex, W)>,
    pub delete_edges: Vec<(Vertex, Vertex)>,
    pub insert_vertices: Vec<Vertex>,
    pub delete_vertices: Vec<Vertex>,
}

impl<W: Weight> UpdateBatch<W> {
    pub fn new() -> Self {
        UpdateBatch {
            insert_edges: Vec::new(),
            delete_edges: Vec::new(),
            insert_vertices: Vec::new(),
            delete_vertices: Vec::new(),
        }
    }

    /// Total number of updates in the batch.
    pub fn len(&self) -> usize {
        self.insert_edges.len()
            + self.delete_edges.len()
            + self.insert_vertices.len()
            + self.delete_vertices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What applying a batch did. Deleting something absent is not an error: it is counted here.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct BatchResult {
    /// Edges that were not present and now are.
    pub inserted: u64,
    /// Edges that were present and had their weight combined with the new one.
    pub updated: u64,
    /// Edges (or vertices) that were present and were removed.
    pub deleted: u64,
    /// Deletions of edges or vertices that were not present.
    pub absent: u64,
}
