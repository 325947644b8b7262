//! One update of a stream, its text form (`+ u v [w]`, `- u v`, `+v u`, `-v u`) and its log
//! encoding.

use weald_graph::codec::{get_varint, put_varint, varint_len};
use weald_graph::{UpdateBatch, Vertex, Weight, MAX_VERTEX};

/// One change to the graph.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Update<W: Weight = ()> {
    /// Insert edge `u → v` (both directions in a symmetric graph) with a weight; an edge already
    /// present has its weight combined by the store's rule.
    InsertEdge(Vertex, Vertex, W),
    /// Delete edge `u → v`; a no-op (counted as absent) if it is not there.
    DeleteEdge(Vertex, Vertex),
    /// Make vertex `u` present (isolated if new).
    InsertVertex(Vertex),
    /// Delete vertex `u` and every edge incident to it.
    DeleteVertex(Vertex),
}

const OP_INSERT_EDGE: u8 = 0;
const OP_DELETE_EDGE: u8 = 1;
const OP_INSERT_VERTEX: u8 = 2;
const OP_DELETE_VERTEX: u8 = 3;

/// A vertex id of an update line (or a temporal file): an integer `0..=MAX_VERTEX`.
pub fn parse_vertex(s: &str) -> Result<Vertex, String> {
    s.parse::<Vertex>()
        .ok()
        .filter(|&v| v <= MAX_VERTEX)
        .ok_or_else(|| format!("`{s}` is not a vertex id (an integer 0..={MAX_VERTEX})"))
}

impl<W: Weight> Update<W> {
    /// Parse one line of an update file. `Ok(None)` for a blank line or a `#`/`%` comment.
    /// A missing weight in a weighted store is 1.
    pub fn parse(line: &str) -> Result<Option<Self>, String> {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('%') {
            return Ok(None);
        }
        let mut it = line.split_ascii_whitespace();
        let op = it.next().unwrap_or("");
        let fields: Vec<&str> = it.collect();
        let arity = |want: &str, ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "`{op}` takes {want}, found {} field(s)",
                    fields.len()
                ))
            }
        };
        let u = match op {
            "+" => {
                arity("`u v` or `u v w`", fields.len() == 2 || fields.len() == 3)?;
                let w = match fields.get(2) {
                    None if W::WEIGHTED => W::parse("1").unwrap_or_default(),
                    None => W::default(),
                    Some(t) if !W::WEIGHTED => {
                        return Err(format!("weight `{t}` given but the graph is unweighted"))
                    }
                    Some(t) => W::parse(t)
                        .ok_or_else(|| format!("`{t}` is not a valid {} weight", W::NAME))?,
                };
                Update::InsertEdge(parse_vertex(fields[0])?, parse_vertex(fields[1])?, w)
            }
            "-" => {
                arity("`u v`", fields.len() == 2)?;
                Update::DeleteEdge(parse_vertex(fields[0])?, parse_vertex(fields[1])?)
            }
            "+v" => {
                arity("one vertex id", fields.len() == 1)?;
                Update::InsertVertex(parse_vertex(fields[0])?)
            }
            "-v" => {
                arity("one vertex id", fields.len() == 1)?;
                Update::DeleteVertex(parse_vertex(fields[0])?)
            }
            _ => {
                return Err(format!(
                    "unknown operation `{op}` (expected `+ u v [w]`, `- u v`, `+v u` or `-v u`)"
                ))
            }
        };
        Ok(Some(u))
    }

    /// The largest vertex id the update names.
    pub fn max_id(&self) -> Vertex {
        match *self {
            Update::InsertEdge(u, v, _) | Update::DeleteEdge(u, v) => u.max(v),
            Update::InsertVertex(u) | Update::DeleteVertex(u) => u,
        }
    }

    /// Append the log encoding: an op byte, varint ids, the weight's little-endian bytes.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        match *self {
            Update::InsertEdge(u, v, w) => {
                out.push(OP_INSERT_EDGE);
                put_varint(out, u as u64);
                put_varint(out, v as u64);
                w.write_le(out);
            }
            Update::DeleteEdge(u, v) => {
                out.push(OP_DELETE_EDGE);
                put_varint(out, u as u64);
                put_varint(out, v as u64);
            }
            Update::InsertVertex(u) => {
                out.push(OP_INSERT_VERTEX);
                put_varint(out, u as u64);
            }
            Update::DeleteVertex(u) => {
                out.push(OP_DELETE_VERTEX);
                put_varint(out, u as u64);
            }
        }
    }

    /// The number of bytes [`Update::encode`] appends.
    pub(crate) fn encoded_len(&self) -> usize {
        let id = |x: Vertex| varint_len(x as u64);
        match *self {
            Update::InsertEdge(u, v, _) => 1 + id(u) + id(v) + W::BYTES,
            Update::DeleteEdge(u, v) => 1 + id(u) + id(v),
            Update::InsertVertex(u) | Update::DeleteVertex(u) => 1 + id(u),
        }
    }

    /// Decode one update at `*pos`; `None` if the bytes are not a valid update.
    pub(crate) fn decode(b: &[u8], pos: &mut usize) -> Option<Self> {
        let op = *b.get(*pos)?;
        *pos += 1;
        // An id above MAX_VERTEX is refused on entry, so a record holding one is damaged (or
        // was written before the limit, when such an id broke every checkpoint).
        let mut id = || -> Option<Vertex> {
            u32::try_from(get_varint(b, pos)?)
                .ok()
                .filter(|&v| v <= MAX_VERTEX)
        };
        Some(match op {
            OP_INSERT_EDGE => {
                let (u, v) = (id()?, id()?);
                let wb = b.get(*pos..*pos + W::BYTES)?;
                *pos += W::BYTES;
                Update::InsertEdge(u, v, W::read_le(wb))
            }
            OP_DELETE_EDGE => Update::DeleteEdge(id()?, id()?),
            OP_INSERT_VERTEX => Update::InsertVertex(id()?),
            OP_DELETE_VERTEX => Update::DeleteVertex(id()?),
            _ => return None,
        })
    }
}

/// Builds [`UpdateBatch`]es whose effect equals applying their updates one by one, in order.
///
/// A batch applies vertex insertions, edge insertions, edge deletions, then vertex deletions,
/// so `- e` followed by `+ e` in one batch would leave `e` absent. The builder refuses
/// (`push` returns `false`) every update whose position would matter: an edge insertion after
/// a deletion of that edge or of one of its endpoints, and a vertex insertion after that
/// vertex's deletion. The caller then applies the batch so far and starts a new one.
pub(crate) struct BatchBuilder<W: Weight> {
    pub(crate) batch: UpdateBatch<W>,
    directed: bool,
    deleted_edges: std::collections::HashSet<(Vertex, Vertex)>,
    deleted_vertices: std::collections::HashSet<Vertex>,
}

impl<W: Weight> BatchBuilder<W> {
    pub(crate) fn new(directed: bool) -> Self {
        BatchBuilder {
            batch: UpdateBatch::new(),
            directed,
            deleted_edges: Default::default(),
            deleted_vertices: Default::default(),
        }
    }

    fn key(&self, u: Vertex, v: Vertex) -> (Vertex, Vertex) {
        if self.directed || u <= v {
            (u, v)
        } else {
            (v, u)
        }
    }

    /// Add `up` unless its effect would depend on its position in the batch.
    pub(crate) fn push(&mut self, up: Update<W>) -> bool {
        match up {
            Update::InsertEdge(u, v, w) => {
                if self.deleted_vertices.contains(&u)
                    || self.deleted_vertices.contains(&v)
                    || self.deleted_edges.contains(&self.key(u, v))
                {
                    return false;
                }
                self.batch.insert_edges.push((u, v, w));
            }
            Update::DeleteEdge(u, v) => {
                let k = self.key(u, v);
                self.deleted_edges.insert(k);
                self.batch.delete_edges.push((u, v));
            }
            Update::InsertVertex(u) => {
                if self.deleted_vertices.contains(&u) {
                    return false;
                }
                self.batch.insert_vertices.push(u);
            }
            Update::DeleteVertex(u) => {
                self.deleted_vertices.insert(u);
                self.batch.delete_vertices.push(u);
            }
        }
        true
    }

    pub(crate) fn len(&self) -> usize {
        self.batch.len()
    }

    /// Take the batch, leaving the builder empty.
    pub(crate) fn take(&mut self) -> UpdateBatch<W> {
        self.deleted_edges.clear();
        self.deleted_vertices.clear();
        std::mem::take(&mut self.batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_every_form() {
        assert_eq!(
            Update::<()>::parse("+ 1 2").unwrap(),
            Some(Update::InsertEdge(1, 2, ()))
        );
        assert_eq!(
            Update::<i32>::parse("+ 1 2 -7").unwrap(),
            Some(Update::InsertEdge(1, 2, -7))
        );
        assert_eq!(
            Update::<i32>::parse("+ 1 2").unwrap(),
            Some(Update::InsertEdge(1, 2, 1))
        );
        assert_eq!(
            Update::<()>::parse("-\t3 4").unwrap(),
            Some(Update::DeleteEdge(3, 4))
        );
        assert_eq!(
            Update::<()>::parse("+v 9").unwrap(),
            Some(Update::InsertVertex(9))
        );
        assert_eq!(
            Update::<()>::parse("-v 9").unwrap(),
            Some(Update::DeleteVertex(9))
        );
        assert_eq!(Update::<()>::parse("  # c").unwrap(), None);
        assert_eq!(Update::<()>::parse("").unwrap(), None);
        // The largest id is MAX_VERTEX (2^32 - 2) on every update.
        assert_eq!(
            Update::<()>::parse("- 4294967294 0").unwrap(),
            Some(Update::DeleteEdge(MAX_VERTEX, 0))
        );
        for bad in [
            "+ 1",
            "* 1 2",
            "- 1 2 3",
            "+v",
            "+ 1 x",
            "+ 1 2 3",
            "+ -1 2",
            "+ 4294967295 1",
            "- 1 4294967295",
            "+v 4294967295",
            "-v 4294967296",
        ] {
            assert!(Update::<()>::parse(bad).is_err(), "{bad}");
        }
        assert!(Update::<i32>::parse("+ 1 2 1.5").is_err());
    }

    #[test]
    fn encode_decode_round_trip() {
        let ups = [
            Update::InsertEdge(0, MAX_VERTEX, 2.5f64),
            Update::DeleteEdge(7, 3),
            Update::InsertVertex(1 << 20),
            Update::DeleteVertex(0),
        ];
        let mut b = Vec::new();
        for u in &ups {
            let before = b.len();
            u.encode(&mut b);
            assert_eq!(b.len() - before, u.encoded_len(), "{u:?}");
        }
        for x in [0, 1, 127, 128, 16_383, 16_384, 1 << 21, 1 << 28, u32::MAX] {
            let u = Update::<()>::DeleteVertex(x);
            let mut b = Vec::new();
            u.encode(&mut b);
            assert_eq!(b.len(), u.encoded_len(), "{x}");
        }
        let mut pos = 0;
        for u in &ups {
            assert_eq!(Update::<f64>::decode(&b, &mut pos).as_ref(), Some(u));
        }
        assert_eq!(pos, b.len());
        assert_eq!(Update::<f64>::decode(&[9], &mut 0), None);
        assert_eq!(Update::<f64>::decode(&[0, 1], &mut 0), None);
        // A record naming an id above MAX_VERTEX does not decode.
        let mut b = Vec::new();
        Update::<()>::InsertVertex(u32::MAX).encode(&mut b);
        assert_eq!(Update::<()>::decode(&b, &mut 0), None);
    }

    #[test]
    fn builder_refuses_order_dependent_updates() {
        let mut b = BatchBuilder::<()>::new(false);
        assert!(b.push(Update::InsertEdge(1, 2, ())));
        assert!(b.push(Update::DeleteEdge(2, 1)));
        assert!(!b.push(Update::InsertEdge(1, 2, ())));
        assert!(b.push(Update::InsertEdge(1, 3, ())));
        assert!(b.push(Update::DeleteVertex(5)));
        assert!(!b.push(Update::InsertEdge(5, 6, ())));
        assert!(!b.push(Update::InsertVertex(5)));
        assert_eq!(b.len(), 4);
        b.take();
        assert!(b.push(Update::InsertEdge(1, 2, ())));
        let mut d = BatchBuilder::<()>::new(true);
        assert!(d.push(Update::DeleteEdge(2, 1)));
        assert!(d.push(Update::InsertEdge(1, 2, ())));
    }
}
