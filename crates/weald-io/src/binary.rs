//! Weald's binary graph format (`.wgb`), version 1.
//!
//! A snapshot of a [`Csr`] that loads without parsing and can later be memory-mapped: every
//! array is stored as little-endian values in its own 64-byte-aligned section.
//!
//! ```text
//! offset  size  field
//!      0     8  magic "WEALDGRB"
//!      8     4  format version (u32) = 1; files of a newer version are rejected
//!     12     4  flags (u32): bit 0 directed; bits 1-2 weight type (0 none, 1 i32, 2 f64);
//!               bit 3 has in-arcs; bit 4 has an id map; other bits must be 0
//!     16     8  n: number of vertices (u64)
//!     24     8  m: number of stored out-arcs (u64)
//!     32     4  number of sections k (u32, at most 16)
//!     36     4  CRC-32 of bytes 0..36 followed by the section table
//!     40    24  reserved (zero)
//!     64  32*k  section table, one entry per section:
//!                 kind u32, element size u32, offset u64, length in bytes u64, CRC-32 u32,
//!                 reserved u32
//!   ...         sections, each starting at a multiple of 64 (zero padding between)
//! ```
//!
//! Section kinds: 1 out-offsets (`u64 × (n+1)`), 2 out-targets (`u32 × m`), 3 out-weights
//! (`i32`/`f64 × m`), 4 in-offsets, 5 in-targets, 6 in-weights, 7 id map (`u32 × n`: the user's
//! id of each vertex), 8 metadata (opaque bytes, flag bit 5; a Weald data directory's
//! checkpoints keep their version, commit time and vertex set there). Sections appear in the
//! table in this order; which ones are present follows from the flags.
//!
//! Loading checks everything before trusting it: the magic, the version, the flags, the header
//! checksum, that every section has exactly the length `n` and `m` imply and lies inside the
//! file (all **before** allocating, so a header declaring 2^40 edges in a 200-byte file fails
//! without allocating), then each section's CRC-32 (computed in parallel and combined), then
//! the CSR invariants via [`Csr::from_parts`]. Any failure is a `WealdError::Format` naming the
//! fault. Sections are read straight into the destination vectors (`pread` in parallel chunks
//! on Unix); big-endian machines decode value by value.

use crate::{Edges, Progress, RawEdges};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use weald_graph::{EdgeList, Graph, Result, WealdError, Weight};
use weald_storage::csr::Adjacency;
use weald_storage::{AnyCsr, Csr};

/// The 8 magic bytes at the start of every file.
pub const MAGIC: [u8; 8] = *b"WEALDGRB";
/// The version this build writes (and the newest it reads).
pub const VERSION: u32 = 1;

const HEADER: usize = 64;
const ENTRY: usize = 32;
const MAX_SECTIONS: u32 = 16;
const ALIGN: u64 = 64;

const F_DIRECTED: u32 = 1;
const F_IN: u32 = 1 << 3;
const F_IDS: u32 = 1 << 4;
const F_META: u32 = 1 << 5;
const F_KNOWN: u32 = 0b111111;

const K_OUT_OFF: u32 = 1;
const K_OUT_TGT: u32 = 2;
const K_OUT_W: u32 = 3;
const K_IN_OFF: u32 = 4;
const K_IN_TGT: u32 = 5;
const K_IN_W: u32 = 6;
const K_IDS: u32 = 7;
const K_META: u32 = 8;

fn kind_name(k: u32) -> &'static str {
    match k {
        K_OUT_OFF => "out-offsets",
        K_OUT_TGT => "out-targets",
        K_OUT_W => "out-weights",
        K_IN_OFF => "in-offsets",
        K_IN_TGT => "in-targets",
        K_IN_W => "in-weights",
        K_IDS => "id map",
        K_META => "metadata",
        _ => "unknown",
    }
}

/// Plain little-endian numbers that can be read from and written to the file.
trait Pod: Copy + Default + Send + Sync + 'static {
    const SIZE: usize;
    fn from_le(b: &[u8]) -> Self;
    fn to_le(self, out: &mut Vec<u8>);
}

macro_rules! pod {
    ($($t:ty),*) => {$(
        impl Pod for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn from_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b[..Self::SIZE].try_into().unwrap())
            }
            fn to_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
pod!(u8, u32, u64, i32, f64);

/// A weight type with a binary code.
trait BinWeight: Weight {
    const CODE: u32;
    fn read(f: &File, path: &Path, s: &Entry) -> Result<Vec<Self>>;
    fn bytes(ws: &[Self]) -> std::borrow::Cow<'_, [u8]>;
}

impl BinWeight for () {
    const CODE: u32 = 0;
    fn read(_: &File, _: &Path, _: &Entry) -> Result<Vec<()>> {
        Ok(Vec::new())
    }
    fn bytes(_: &[()]) -> std::borrow::Cow<'_, [u8]> {
        std::borrow::Cow::Borrowed(&[])
    }
}
impl BinWeight for i32 {
    const CODE: u32 = 1;
    fn read(f: &File, path: &Path, s: &Entry) -> Result<Vec<i32>> {
        read_section(f, path, s)
    }
    fn bytes(ws: &[i32]) -> std::borrow::Cow<'_, [u8]> {
        le_bytes(ws)
    }
}
impl BinWeight for f64 {
    const CODE: u32 = 2;
    fn read(f: &File, path: &Path, s: &Entry) -> Result<Vec<f64>> {
        read_section(f, path, s)
    }
    fn bytes(ws: &[f64]) -> std::borrow::Cow<'_, [u8]> {
        le_bytes(ws)
    }
}

/// The little-endian bytes of a slice (borrowed on little-endian machines).
fn le_bytes<T: Pod>(xs: &[T]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        // SAFETY: T is a plain number type (no padding); any initialised value is valid bytes.
        std::borrow::Cow::Borrowed(unsafe {
            std::slice::from_raw_parts(xs.as_ptr() as *const u8, std::mem::size_of_val(xs))
        })
    } else {
        let mut out = Vec::with_capacity(xs.len() * T::SIZE);
        for &x in xs {
            x.to_le(&mut out);
        }
        std::borrow::Cow::Owned(out)
    }
}

/// One section table entry.
#[derive(Clone, Debug, Default)]
struct Entry {
    kind: u32,
    elem: u32,
    offset: u64,
    len: u64,
    crc: u32,
}

/// CRC-32 of `bytes`, computed in parallel chunks and combined.
fn crc_parallel(bytes: &[u8]) -> u32 {
    const CH: usize = 4 << 20;
    if bytes.len() <= CH {
        return crc32fast::hash(bytes);
    }
    let parts: Vec<crc32fast::Hasher> = bytes
        .par_chunks(CH)
        .map(|c| {
            let mut h = crc32fast::Hasher::new();
            h.update(c);
            h
        })
        .collect();
    let mut it = parts.into_iter();
    let mut h = it.next().unwrap();
    for p in it {
        h.combine(&p);
    }
    h.finalize()
}

fn fmt_err(path: &Path, msg: impl Into<String>) -> WealdError {
    WealdError::format(path, msg)
}

/// Read `s.len` bytes at `s.offset` into `buf`.
fn read_at(f: &File, path: &Path, offset: u64, buf: &mut [u8]) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        const CH: usize = 16 << 20;
        buf.par_chunks_mut(CH)
            .enumerate()
            .try_for_each(|(k, c)| f.read_exact_at(c, offset + (k * CH) as u64))
            .map_err(|e| WealdError::io(path, e))
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = f;
        f.seek(SeekFrom::Start(offset))
            .and_then(|_| f.read_exact(buf))
            .map_err(|e| WealdError::io(path, e))
    }
}

/// Read a section (already checked to lie inside the file) and verify its checksum.
fn read_section<T: Pod>(f: &File, path: &Path, s: &Entry) -> Result<Vec<T>> {
    let count = s.len as usize / T::SIZE;
    let (out, crc) = if cfg!(target_endian = "little") {
        let mut v: Vec<T> = vec![T::default(); count];
        // SAFETY: T is a plain number type for which every bit pattern is valid.
        let bytes =
            unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, count * T::SIZE) };
        read_at(f, path, s.offset, bytes)?;
        let crc = crc_parallel(bytes);
        (v, crc)
    } else {
        let mut bytes = vec![0u8; s.len as usize];
        read_at(f, path, s.offset, &mut bytes)?;
        let crc = crc_parallel(&bytes);
        (bytes.chunks_exact(T::SIZE).map(T::from_le).collect(), crc)
    };
    if crc != s.crc {
        return Err(fmt_err(
            path,
            format!(
                "checksum mismatch in section {} ({}): stored {:08x}, computed {:08x}; the file is corrupt",
                s.kind,
                kind_name(s.kind),
                s.crc,
                crc
            ),
        ));
    }
    Ok(out)
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[i..i + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().unwrap())
}

/// Load a binary graph file.
pub fn read(path: &Path, progress: Option<Progress>) -> Result<AnyCsr> {
    read_with_meta(path, progress).map(|(g, _)| g)
}

/// Load a binary graph file and its metadata section, if it has one.
pub fn read_with_meta(
    path: &Path,
    progress: Option<Progress>,
) -> Result<(AnyCsr, Option<Vec<u8>>)> {
    let f = File::open(path).map_err(|e| WealdError::io(path, e))?;
    let file_len = f.metadata().map_err(|e| WealdError::io(path, e))?.len();
    if file_len < 8 {
        return Err(fmt_err(
            path,
            format!("truncated: the file has {file_len} bytes, too few for a Weald binary graph"),
        ));
    }
    let mut head = [0u8; HEADER];
    let hl = (file_len as usize).min(HEADER);
    read_at(&f, path, 0, &mut head[..hl])?;
    if head[..2] == [0x1f, 0x8b] {
        return Err(fmt_err(
            path,
            "gzip-compressed: decompress it first (binary graphs are read as they lie on disk)",
        ));
    }
    if head[..8] != MAGIC {
        return Err(fmt_err(
            path,
            format!(
                "not a Weald binary graph: the magic bytes are {:?}, expected {:?}",
                String::from_utf8_lossy(&head[..8]),
                std::str::from_utf8(&MAGIC).unwrap()
            ),
        ));
    }
    if file_len < HEADER as u64 {
        return Err(fmt_err(
            path,
            format!("truncated: the file has {file_len} bytes, the header alone needs {HEADER}"),
        ));
    }
    let version = u32_at(&head, 8);
    if version > VERSION {
        return Err(fmt_err(
            path,
            format!("format version {version} is newer than this build of Weald reads (up to version {VERSION}); upgrade Weald"),
        ));
    }
    if version == 0 {
        return Err(fmt_err(path, "format version 0 is not valid"));
    }
    let flags = u32_at(&head, 12);
    let n = u64_at(&head, 16);
    let m = u64_at(&head, 24);
    let k = u32_at(&head, 32);
    let stored_crc = u32_at(&head, 36);
    if k > MAX_SECTIONS {
        return Err(fmt_err(
            path,
            format!("the header declares {k} sections (at most {MAX_SECTIONS})"),
        ));
    }
    let table_end = HEADER as u64 + ENTRY as u64 * k as u64;
    if table_end > file_len {
        return Err(fmt_err(
            path,
            format!("truncated: the section table ends at byte {table_end} but the file has {file_len} bytes"),
        ));
    }
    let mut table = vec![0u8; table_end as usize - HEADER];
    read_at(&f, path, HEADER as u64, &mut table)?;
    let mut h = crc32fast::Hasher::new();
    h.update(&head[..36]);
    h.update(&table);
    let crc = h.finalize();
    if crc != stored_crc {
        return Err(fmt_err(
            path,
            format!("header checksum mismatch: stored {stored_crc:08x}, computed {crc:08x}; the file is corrupt"),
        ));
    }
    if flags & !F_KNOWN != 0 {
        return Err(fmt_err(
            path,
            format!("unknown flag bits {:#x}", flags & !F_KNOWN),
        ));
    }
    let directed = flags & F_DIRECTED != 0;
    let wcode = (flags >> 1) & 3;
    let has_in = flags & F_IN != 0;
    let has_ids = flags & F_IDS != 0;
    let has_meta = flags & F_META != 0;
    if wcode == 3 {
        return Err(fmt_err(path, "unknown weight type code 3"));
    }
    if has_in && !directed {
        return Err(fmt_err(
            path,
            "flags: a symmetric graph cannot have in-arcs",
        ));
    }
    if n > u32::MAX as u64 {
        return Err(fmt_err(path, format!("n = {n} exceeds the u32 id space")));
    }
    let wsize: u64 = [0, 4, 8][wcode as usize];
    // The sections the flags call for, with their exact sizes.
    let mut want: Vec<(u32, u64, Option<u64>)> = vec![
        (K_OUT_OFF, 8, (n + 1).checked_mul(8)),
        (K_OUT_TGT, 4, m.checked_mul(4)),
    ];
    if wsize > 0 {
        want.push((K_OUT_W, wsize, m.checked_mul(wsize)));
    }
    if has_in {
        want.push((K_IN_OFF, 8, (n + 1).checked_mul(8)));
        want.push((K_IN_TGT, 4, m.checked_mul(4)));
        if wsize > 0 {
            want.push((K_IN_W, wsize, m.checked_mul(wsize)));
        }
    }
    if has_ids {
        want.push((K_IDS, 4, n.checked_mul(4)));
    }
    if has_meta {
        // Its length is free; it must lie inside the file (checked below).
        let e = (want.len() < k as usize).then(|| {
            let i = want.len() * ENTRY;
            u64_at(&table[i..i + ENTRY], 16)
        });
        want.push((K_META, 1, e.filter(|&l| l <= file_len)));
    }
    if want.len() != k as usize {
        return Err(fmt_err(
            path,
            format!(
                "the flags call for {} sections but the table lists {k}",
                want.len()
            ),
        ));
    }
    let mut entries = Vec::with_capacity(want.len());
    for (i, &(kind, elem, len)) in want.iter().enumerate() {
        let b = &table[i * ENTRY..(i + 1) * ENTRY];
        let e = Entry {
            kind: u32_at(b, 0),
            elem: u32_at(b, 4),
            offset: u64_at(b, 8),
            len: u64_at(b, 16),
            crc: u32_at(b, 24),
        };
        if e.kind != kind || e.elem as u64 != elem {
            return Err(fmt_err(
                path,
                format!(
                    "section {i}: expected kind {kind} ({}) with {elem}-byte elements, found kind {} with {}-byte elements",
                    kind_name(kind),
                    e.kind,
                    e.elem
                ),
            ));
        }
        let Some(len) = len.filter(|&l| l <= file_len) else {
            return Err(fmt_err(
                path,
                format!(
                    "truncated or corrupt: section {} ({}) must hold {} bytes for n = {n}, m = {m}, but the file has only {file_len} bytes",
                    kind,
                    kind_name(kind),
                    len.map_or("more than 2^64".to_string(), |l| l.to_string())
                ),
            ));
        };
        if e.len != len {
            return Err(fmt_err(
                path,
                format!(
                    "section {kind} ({}) has length {} bytes, expected {len} for n = {n}, m = {m}",
                    kind_name(kind),
                    e.len
                ),
            ));
        }
        if !e.offset.is_multiple_of(ALIGN) || e.offset < table_end {
            return Err(fmt_err(
                path,
                format!(
                    "section {kind} ({}) starts at byte {}, which is not a 64-byte-aligned offset after the table",
                    kind_name(kind),
                    e.offset
                ),
            ));
        }
        match e.offset.checked_add(e.len) {
            Some(end) if end <= file_len => {}
            _ => {
                return Err(fmt_err(
                    path,
                    format!(
                        "truncated: section {kind} ({}) spans bytes {}..{} but the file has {file_len} bytes",
                        kind_name(kind),
                        e.offset,
                        e.offset as u128 + e.len as u128
                    ),
                ))
            }
        }
        entries.push(e);
    }
    // The sections lie one after another, and the last one ends the file.
    let mut spans: Vec<(u64, u64, u32)> = entries
        .iter()
        .map(|e| (e.offset, e.offset + e.len, e.kind))
        .collect();
    spans.sort_unstable();
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(fmt_err(
                path,
                format!(
                    "corrupt: section {} ({}) starts at byte {}, inside section {} ({}), which ends at byte {}",
                    w[1].2,
                    kind_name(w[1].2),
                    w[1].0,
                    w[0].2,
                    kind_name(w[0].2),
                    w[0].1
                ),
            ));
        }
    }
    let end = spans.last().map_or(table_end, |s| s.1);
    if end != file_len {
        return Err(fmt_err(
            path,
            format!(
                "{} bytes follow the last section, which ends at byte {end}: the file is not \
                 one Weald graph (appended to, or concatenated with another file)",
                file_len - end
            ),
        ));
    }
    let get = |kind: u32| entries.iter().find(|e| e.kind == kind);
    let parts = Parts {
        f: &f,
        path,
        n: n as usize,
        directed,
        get: &get,
        has_in,
        ids: match get(K_IDS) {
            Some(e) => Some(read_section::<u32>(&f, path, e)?),
            None => None,
        },
    };
    let meta = match get(K_META) {
        Some(e) => Some(read_section::<u8>(&f, path, e)?),
        None => None,
    };
    let g = match wcode {
        0 => AnyCsr::Unweighted(parts.build::<()>()?),
        1 => AnyCsr::Int(parts.build::<i32>()?),
        _ => AnyCsr::Float(parts.build::<f64>()?),
    };
    if let Some(p) = progress {
        p(file_len, file_len);
    }
    Ok((g, meta))
}

struct Parts<'a, G: Fn(u32) -> Option<&'a Entry>> {
    f: &'a File,
    path: &'a Path,
    n: usize,
    directed: bool,
    get: &'a G,
    has_in: bool,
    ids: Option<Vec<u32>>,
}

impl<'a, G: Fn(u32) -> Option<&'a Entry>> Parts<'a, G> {
    fn adjacency<W: BinWeight>(&self, off: u32, tgt: u32, w: u32) -> Result<Adjacency<W>> {
        let (f, path) = (self.f, self.path);
        let offsets = read_section::<u64>(f, path, (self.get)(off).unwrap())?;
        let targets = read_section::<u32>(f, path, (self.get)(tgt).unwrap())?;
        let weights = match (self.get)(w) {
            Some(e) => W::read(f, path, e)?,
            None => Vec::new(),
        };
        Ok(Adjacency {
            offsets,
            targets,
            weights,
        })
    }

    fn build<W: BinWeight>(self) -> Result<Csr<W>> {
        let out = self.adjacency::<W>(K_OUT_OFF, K_OUT_TGT, K_OUT_W)?;
        let inn = if self.has_in {
            Some(self.adjacency::<W>(K_IN_OFF, K_IN_TGT, K_IN_W)?)
        } else {
            None
        };
        Csr::from_parts(self.n, self.directed, out, inn, self.ids)
            .map_err(|e| fmt_err(self.path, format!("invalid graph structure: {e}")))
    }
}

/// Write `graph` in the binary format.
pub fn write(graph: &AnyCsr, path: &Path) -> Result<()> {
    write_with_meta(graph, path, None, false)
}

/// Write `graph` in the binary format with an optional metadata section; with `sync` the file
/// is flushed to stable storage (`fsync`) before returning.
pub fn write_with_meta(graph: &AnyCsr, path: &Path, meta: Option<&[u8]>, sync: bool) -> Result<()> {
    match graph {
        AnyCsr::Unweighted(g) => write_csr(g, path, meta, sync),
        AnyCsr::Int(g) => write_csr(g, path, meta, sync),
        AnyCsr::Float(g) => write_csr(g, path, meta, sync),
    }
}

fn write_csr<W: BinWeight>(g: &Csr<W>, path: &Path, meta: Option<&[u8]>, sync: bool) -> Result<()> {
    let n = g.num_vertices() as u64;
    let out = g.out_adjacency();
    let m = out.targets.len() as u64;
    let inn = g.in_adjacency();
    let ids = g.original_ids();
    let mut flags = W::CODE << 1;
    if g.is_directed() {
        flags |= F_DIRECTED;
    }
    if inn.is_some() {
        flags |= F_IN;
    }
    if ids.is_some() {
        flags |= F_IDS;
    }
    let wsize = W::BYTES as u32;
    let mut secs: Vec<(u32, u32, std::borrow::Cow<'_, [u8]>)> = vec![
        (K_OUT_OFF, 8, le_bytes(&out.offsets)),
        (K_OUT_TGT, 4, le_bytes(&out.targets)),
    ];
    if W::WEIGHTED {
        secs.push((K_OUT_W, wsize, W::bytes(&out.weights)));
    }
    if let Some(i) = inn {
        secs.push((K_IN_OFF, 8, le_bytes(&i.offsets)));
        secs.push((K_IN_TGT, 4, le_bytes(&i.targets)));
        if W::WEIGHTED {
            secs.push((K_IN_W, wsize, W::bytes(&i.weights)));
        }
    }
    if let Some(ids) = ids {
        secs.push((K_IDS, 4, le_bytes(ids)));
    }
    if let Some(meta) = meta {
        flags |= F_META;
        secs.push((K_META, 1, std::borrow::Cow::Borrowed(meta)));
    }
    let crcs: Vec<u32> = secs.iter().map(|s| crc_parallel(&s.2)).collect();
    let align = |x: u64| x.div_ceil(ALIGN) * ALIGN;
    let mut pos = align((HEADER + ENTRY * secs.len()) as u64);
    let mut table = Vec::with_capacity(ENTRY * secs.len());
    let mut offsets = Vec::new();
    for (s, &crc) in secs.iter().zip(&crcs) {
        offsets.push(pos);
        table.extend_from_slice(&s.0.to_le_bytes());
        table.extend_from_slice(&s.1.to_le_bytes());
        table.extend_from_slice(&pos.to_le_bytes());
        table.extend_from_slice(&(s.2.len() as u64).to_le_bytes());
        table.extend_from_slice(&crc.to_le_bytes());
        table.extend_from_slice(&0u32.to_le_bytes());
        pos = align(pos + s.2.len() as u64);
    }
    let mut head = Vec::with_capacity(HEADER);
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.extend_from_slice(&flags.to_le_bytes());
    head.extend_from_slice(&n.to_le_bytes());
    head.extend_from_slice(&m.to_le_bytes());
    head.extend_from_slice(&(secs.len() as u32).to_le_bytes());
    let mut h = crc32fast::Hasher::new();
    h.update(&head);
    h.update(&table);
    head.extend_from_slice(&h.finalize().to_le_bytes());
    head.resize(HEADER, 0);
    let file = File::create(path).map_err(|e| WealdError::io(path, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let io = |e| WealdError::io(path, e);
    w.write_all(&head).map_err(io)?;
    w.write_all(&table).map_err(io)?;
    let mut at = (HEADER + table.len()) as u64;
    for (s, &o) in secs.iter().zip(&offsets) {
        let pad = vec![0u8; (o - at) as usize];
        w.write_all(&pad).map_err(io)?;
        w.write_all(&s.2).map_err(io)?;
        at = o + s.2.len() as u64;
    }
    w.flush().map_err(io)?;
    if sync {
        w.get_ref().sync_all().map_err(io)?;
    }
    Ok(())
}

/// The arcs of a CSR as raw edges (each undirected edge once, `u <= v`).
pub fn to_raw_edges(g: &AnyCsr) -> RawEdges {
    fn arcs<W: Weight>(g: &Csr<W>) -> EdgeList<W> {
        let directed = g.is_directed();
        let mut e = EdgeList::new(g.num_vertices());
        for (u, v, w) in g.arcs() {
            if directed || u <= v {
                e.push(u, v, w);
            }
        }
        e
    }
    let (edges, directed) = match g {
        AnyCsr::Unweighted(g) => (Edges::Unweighted(arcs(g)), g.is_directed()),
        AnyCsr::Int(g) => (Edges::Int(arcs(g)), g.is_directed()),
        AnyCsr::Float(g) => (Edges::Float(arcs(g)), g.is_directed()),
    };
    RawEdges {
        edges,
        directed,
        times: None,
    }
}
