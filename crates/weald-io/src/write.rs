//! Text writers: edge lists and Ligra adjacency graphs.
//!
//! Both format ranges of vertices (about [`BATCH_ARCS`] arcs each) into byte buffers in
//! parallel and write the buffers in order. A path ending in `.gz` is gzip-compressed.
//!
//! * **Edge list**: one line per stored arc, `u\tv` or `u\tv\tw`, in the user's ids when the
//!   graph has an id map. A symmetric graph is written with every arc (both directions), so
//!   reading the file back as undirected (with dedup) gives the identical graph. Vertices
//!   without edges cannot be represented. Float weights always carry a `.` or an exponent
//!   (`1.0`, not `1`) so that they read back as floats; they are printed in the shortest form
//!   that reads back to the same `f64`.
//! * **Ligra**: `AdjacencyGraph` (or `WeightedAdjacencyGraph`), `n`, `m`, the `n` out-offsets,
//!   the `m` targets (and the `m` weights), one value per line, in internal ids (Ligra has no id
//!   map). A symmetric graph is written with both arcs of each edge; read it back with
//!   `directed = Some(false)`.

use flate2::write::GzEncoder;
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use weald_graph::{Graph, Result, WealdError, Weight};
use weald_storage::{AnyCsr, Csr};

/// Arcs per formatting batch.
pub const BATCH_ARCS: usize = 1 << 18;

/// An output file, gzip-compressed when its name ends in `.gz`.
enum Out {
    Plain(BufWriter<File>),
    Gz(GzEncoder<BufWriter<File>>),
}

impl Out {
    fn create(path: &Path) -> Result<Out> {
        let f = File::create(path).map_err(|e| WealdError::io(path, e))?;
        let w = BufWriter::with_capacity(1 << 20, f);
        let gz = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
        Ok(if gz {
            Out::Gz(GzEncoder::new(w, flate2::Compression::fast()))
        } else {
            Out::Plain(w)
        })
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Out::Plain(w) => w,
            Out::Gz(w) => w,
        }
    }

    fn finish(self, path: &Path) -> Result<()> {
        let io = |e| WealdError::io(path, e);
        match self {
            Out::Plain(mut w) => w.flush().map_err(io),
            Out::Gz(w) => w.finish().map_err(io)?.flush().map_err(io),
        }
    }
}

/// Append the decimal digits of `x`.
#[inline]
pub fn push_u64(out: &mut Vec<u8>, mut x: u64) {
    let mut buf = [0u8; 20];
    let mut i = 20;
    loop {
        i -= 1;
        buf[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// A weight as text.
pub trait WriteWeight: Weight {
    fn push(self, out: &mut Vec<u8>);
}
impl WriteWeight for () {
    fn push(self, _: &mut Vec<u8>) {}
}
impl WriteWeight for i32 {
    fn push(self, out: &mut Vec<u8>) {
        if self < 0 {
            out.push(b'-');
        }
        push_u64(out, self.unsigned_abs() as u64);
    }
}
impl WriteWeight for f64 {
    fn push(self, out: &mut Vec<u8>) {
        let s = format!("{self}");
        out.extend_from_slice(s.as_bytes());
        if !s.contains(['.', 'e', 'E', 'i', 'N']) {
            out.extend_from_slice(b".0");
        }
    }
}

/// Vertex ranges holding about `BATCH_ARCS` arcs each.
fn batches(offsets: &[u64]) -> Vec<(usize, usize)> {
    let n = offsets.len() - 1;
    let mut out = Vec::new();
    let mut v = 0;
    while v < n {
        let goal = offsets[v] + BATCH_ARCS as u64;
        let mut e = offsets.partition_point(|&o| o <= goal).saturating_sub(1);
        e = e.clamp(v + 1, n);
        // Bound the number of vertices per batch too (many isolated vertices).
        e = e.min(v + (BATCH_ARCS * 4));
        out.push((v, e));
        v = e;
    }
    out
}

/// Format batches in parallel (a few per thread at a time) and write them in order.
fn write_batches(
    path: &Path,
    w: &mut dyn Write,
    ranges: &[(usize, usize)],
    f: impl Fn(usize, usize, &mut Vec<u8>) + Sync,
) -> Result<()> {
    let group = rayon::current_num_threads().max(1) * 2;
    for g in ranges.chunks(group) {
        let bufs: Vec<Vec<u8>> = g
            .par_iter()
            .map(|&(a, b)| {
                let mut out = Vec::with_capacity(BATCH_ARCS * 12);
                f(a, b, &mut out);
                out
            })
            .collect();
        for b in bufs {
            w.write_all(&b).map_err(|e| WealdError::io(path, e))?;
        }
    }
    Ok(())
}

/// Write an edge list (see the module docs).
pub fn edgelist(graph: &AnyCsr, path: &Path) -> Result<()> {
    match graph {
        AnyCsr::Unweighted(g) => edgelist_csr(g, path),
        AnyCsr::Int(g) => edgelist_csr(g, path),
        AnyCsr::Float(g) => edgelist_csr(g, path),
    }
}

fn edgelist_csr<W: WriteWeight>(g: &Csr<W>, path: &Path) -> Result<()> {
    let mut out_file = Out::create(path)?;
    let w = out_file.writer();
    let adj = g.out_adjacency();
    let ids = g.original_ids();
    let id = |v: u32| ids.map_or(v as u64, |m| m[v as usize] as u64);
    let ranges = batches(&adj.offsets);
    write_batches(path, w, &ranges, |a, b, out| {
        for u in a..b {
            let (s, e) = (adj.offsets[u] as usize, adj.offsets[u + 1] as usize);
            let uid = id(u as u32);
            for k in s..e {
                push_u64(out, uid);
                out.push(b'\t');
                push_u64(out, id(adj.targets[k]));
                if W::WEIGHTED {
                    out.push(b'\t');
                    adj.weights[k].push(out);
                }
                out.push(b'\n');
            }
        }
    })?;
    out_file.finish(path)
}

/// Write a Ligra adjacency graph (see the module docs).
pub fn ligra(graph: &AnyCsr, path: &Path) -> Result<()> {
    match graph {
        AnyCsr::Unweighted(g) => ligra_csr(g, path),
        AnyCsr::Int(g) => ligra_csr(g, path),
        AnyCsr::Float(g) => ligra_csr(g, path),
    }
}

fn ligra_csr<W: WriteWeight>(g: &Csr<W>, path: &Path) -> Result<()> {
    let mut out_file = Out::create(path)?;
    let w = out_file.writer();
    let io = |e| WealdError::io(path, e);
    let adj = g.out_adjacency();
    let n = g.num_vertices();
    let m = g.num_arcs();
    let mut head = Vec::new();
    head.extend_from_slice(if W::WEIGHTED {
        b"WeightedAdjacencyGraph\n"
    } else {
        b"AdjacencyGraph\n"
    });
    push_u64(&mut head, n as u64);
    head.push(b'\n');
    push_u64(&mut head, m as u64);
    head.push(b'\n');
    w.write_all(&head).map_err(io)?;
    let chunk = |len: usize| -> Vec<(usize, usize)> {
        (0..len)
            .step_by(BATCH_ARCS)
            .map(|a| (a, (a + BATCH_ARCS).min(len)))
            .collect()
    };
    write_batches(path, w, &chunk(n), |a, b, out| {
        for &o in &adj.offsets[a..b] {
            push_u64(out, o);
            out.push(b'\n');
        }
    })?;
    write_batches(path, w, &chunk(m), |a, b, out| {
        for &t in &adj.targets[a..b] {
            push_u64(out, t as u64);
            out.push(b'\n');
        }
    })?;
    if W::WEIGHTED {
        write_batches(path, w, &chunk(m), |a, b, out| {
            for &x in &adj.weights[a..b] {
                x.push(out);
                out.push(b'\n');
            }
        })?;
    }
    out_file.finish(path)
}
