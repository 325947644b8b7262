//! The text-reading pipeline shared by every text format.
//!
//! 1. [`Source`] opens the file; a gzip stream (recognised by its magic bytes `1f 8b`, whatever
//!    the extension) is decompressed with [`flate2::read::MultiGzDecoder`] on the fly.
//! 2. [`BlockReader`] (which drops a leading UTF-8 byte-order mark) reads it in large blocks ([`BLOCK`] bytes, reusing one buffer, so peak memory
//!    stays at one block plus the parsed arrays). Every block ends at a newline; the partial last
//!    line is carried over to the next block.
//! 3. [`split_chunks`] cuts a block at newline boundaries into a few chunks per thread, which the
//!    format's chunk parser handles in parallel (rayon), each into its own [`Part`].
//! 4. The block's parts are appended in order to the growing [`Columns`] and dropped before the
//!    next block is read, so the records are never held twice. The columns reserve their
//!    capacity from an estimate of the file's record count ([`ReadFraction`]), so they are
//!    allocated about once instead of doubling (a doubling copy holds the old and the new array
//!    at once).
//!
//! Numbers are parsed by hand ([`parse_id`], [`parse_weight`]): ids never go through
//! `str::parse`. Line numbers are not tracked per record: each chunk only counts its lines, and
//! when a chunk reports an error at a byte offset the exact line is recomputed by counting the
//! newlines before it ([`Lines::error`]).

pub mod dimacs;
pub mod edgelist;
pub mod ligra;
pub mod metis;
pub mod mtx;

use crate::{Edges, LoadOptions, Progress, RawEdges};
use flate2::read::MultiGzDecoder;
use rayon::prelude::*;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use weald_graph::EdgeList;
use weald_graph::{Result, WealdError};

/// Size of one read block (64 MiB).
pub const BLOCK: usize = 64 << 20;

static BLOCK_SIZE: AtomicUsize = AtomicUsize::new(BLOCK);

/// Change the read block size (for tests of block boundaries; results never depend on it).
#[doc(hidden)]
pub fn set_block_size(bytes: usize) {
    BLOCK_SIZE.store(bytes.max(64), Ordering::Relaxed);
}

/// The largest vertex id a file may use ([`weald_graph::MAX_VERTEX`]).
pub const MAX_ID: u64 = weald_graph::MAX_VERTEX as u64;

/// A `Read` that counts the bytes it hands out (compressed bytes for a gzip file).
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.count.fetch_add(k as u64, Ordering::Relaxed);
        Ok(k)
    }
}

/// An opened input file (decompressed if gzip).
pub struct Source {
    pub path: PathBuf,
    reader: Box<dyn Read + Send>,
    /// File size in bytes (compressed size for gzip).
    pub total: u64,
    done: Arc<AtomicU64>,
    pub gzip: bool,
}

impl Source {
    pub fn open(path: &Path) -> Result<Source> {
        let mut f = File::open(path).map_err(|e| WealdError::io(path, e))?;
        let total = f.metadata().map_err(|e| WealdError::io(path, e))?.len();
        let mut magic = [0u8; 2];
        let mut got = 0;
        while got < 2 {
            match f.read(&mut magic[got..]) {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(WealdError::io(path, e)),
            }
        }
        let head = io::Cursor::new(magic[..got].to_vec());
        let done = Arc::new(AtomicU64::new(0));
        let counted = Counting {
            inner: head.chain(f),
            count: done.clone(),
        };
        let gzip = got == 2 && magic == [0x1f, 0x8b];
        let reader: Box<dyn Read + Send> = if gzip {
            Box::new(MultiGzDecoder::new(counted))
        } else {
            Box::new(counted)
        };
        Ok(Source {
            path: path.to_path_buf(),
            reader,
            total,
            done,
            gzip,
        })
    }
}

impl Source {
    /// The decompressed bytes, for a reader of its own.
    pub fn into_reader(self) -> Box<dyn Read + Send> {
        self.reader
    }
}

/// The fraction of an input's bytes read so far (of the compressed bytes for gzip).
#[derive(Clone)]
pub struct ReadFraction {
    done: Arc<AtomicU64>,
    total: u64,
}

impl ReadFraction {
    /// `done / total` in `(0, 1]`, or `None` before the first byte or for an input of
    /// unknown size.
    pub fn get(&self) -> Option<f64> {
        let done = self.done.load(Ordering::Relaxed);
        (self.total > 0 && done > 0).then(|| (done as f64 / self.total as f64).min(1.0))
    }
}

/// Reads a [`Source`] block by block; every block but the last ends with `\n`.
pub struct BlockReader {
    src: Source,
    buf: Vec<u8>,
    /// `buf[..filled]` holds data; `buf[start..filled]` is the carried-over partial line.
    filled: usize,
    start: usize,
    eof: bool,
    started: bool,
    block: usize,
    progress: Option<Progress>,
}

impl BlockReader {
    pub fn new(src: Source, progress: Option<Progress>) -> Self {
        Self::with_block(src, progress, BLOCK_SIZE.load(Ordering::Relaxed))
    }

    pub fn with_block(src: Source, progress: Option<Progress>, block: usize) -> Self {
        let initial = if src.gzip {
            block.min(4 * src.total as usize + 4096)
        } else {
            block.min(src.total as usize + 1)
        };
        BlockReader {
            src,
            buf: vec![0; initial.max(16)],
            filled: 0,
            start: 0,
            eof: false,
            started: false,
            block,
            progress,
        }
    }

    pub fn path(&self) -> &Path {
        &self.src.path
    }

    /// A handle that tells how much of the input has been read so far.
    pub fn read_fraction(&self) -> ReadFraction {
        ReadFraction {
            done: self.src.done.clone(),
            total: self.src.total,
        }
    }

    /// The next block, or `None` at the end of the input.
    pub fn next_block(&mut self) -> Result<Option<&[u8]>> {
        // Move the carried partial line to the front.
        if self.start > 0 {
            self.buf.copy_within(self.start..self.filled, 0);
            self.filled -= self.start;
            self.start = 0;
        }
        if self.eof && self.filled == 0 {
            return Ok(None);
        }
        loop {
            // Fill up to the block size (or the buffer's end).
            while !self.eof && self.filled < self.buf.len() {
                match self.src.reader.read(&mut self.buf[self.filled..]) {
                    Ok(0) => self.eof = true,
                    Ok(k) => self.filled += k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(WealdError::io(&self.src.path, e)),
                }
            }
            if self.eof {
                break;
            }
            if self.buf[..self.filled].contains(&b'\n') {
                break;
            }
            // One line longer than the buffer: grow it.
            let grow = self.buf.len().max(self.block.min(1 << 20));
            self.buf.resize(self.buf.len() + grow, 0);
        }
        if let Some(p) = &self.progress {
            p(self.src.done.load(Ordering::Relaxed), self.src.total);
        }
        let end = if self.eof {
            self.filled
        } else {
            match self.buf[..self.filled].iter().rposition(|&b| b == b'\n') {
                Some(i) => i + 1,
                None => self.filled,
            }
        };
        if end == 0 {
            return Ok(None);
        }
        // The next call moves `buf[end..filled]` to the front.
        self.start = end;
        let first = !self.started;
        self.started = true;
        if first && self.buf[..end].starts_with(b"\xEF\xBB\xBF") {
            // A UTF-8 byte-order mark (common in CSV exports): not part of the first line.
            return Ok(Some(&self.buf[3..end]));
        }
        if !self.eof && self.buf.len() < self.block {
            // Small initial guess (gzip): let the buffer grow towards a full block.
            let target = (self.buf.len() * 2).min(self.block);
            self.buf.resize(target, 0);
        }
        Ok(Some(&self.buf[..end]))
    }
}

/// Cut `block` into about `rayon::current_num_threads() * 4` chunks at newline boundaries.
pub fn split_chunks(block: &[u8]) -> Vec<&[u8]> {
    let pieces = rayon::current_num_threads().max(1) * 4;
    let target = (block.len() / pieces).max(1 << 18);
    let mut out = Vec::with_capacity(pieces + 1);
    let mut a = 0;
    while a < block.len() {
        let mut b = (a + target).min(block.len());
        if b < block.len() {
            b = match block[b..].iter().position(|&c| c == b'\n') {
                Some(i) => b + i + 1,
                None => block.len(),
            };
        }
        out.push(&block[a..b]);
        a = b;
    }
    out
}

/// Number of `\n` bytes in `s`.
pub fn count_newlines(s: &[u8]) -> u64 {
    s.iter().filter(|&&b| b == b'\n').count() as u64
}

/// Line bookkeeping across blocks and chunks, used to turn a byte offset into a line number.
pub struct Lines {
    pub path: PathBuf,
    /// Lines before the current block.
    pub base: u64,
}

impl Lines {
    /// The error for a fault at byte `offset` of `chunk`, whose first line is `chunk_base + 1`.
    pub fn error(&self, chunk_base: u64, chunk: &[u8], offset: usize, msg: String) -> WealdError {
        let line = self.base + chunk_base + count_newlines(&chunk[..offset.min(chunk.len())]) + 1;
        WealdError::parse(&self.path, line, msg)
    }
}

/// How a weight column is interpreted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WeightMode {
    /// Integers if every weight is an `i32`, else floats.
    Infer,
    /// Integers only (DIMACS, Matrix Market `integer`).
    Int,
    /// Floats (Matrix Market `real`).
    Float,
}

/// What one chunk produced.
#[derive(Default)]
pub struct Part {
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    /// Weights as f64 (exact for i32).
    pub w: Vec<f64>,
    pub t: Vec<f64>,
    /// Ligra: the offsets. METIS: the row index before each comment line.
    pub offs: Vec<u64>,
    /// Newlines in the chunk (up to the error, if any).
    pub lines: u64,
    /// Every weight so far parsed as an i32.
    pub all_int: bool,
    /// Format-specific counters.
    pub count_a: u64,
    pub count_b: u64,
    /// First error: byte offset (start of the line) and message.
    pub err: Option<(usize, String)>,
}

impl Part {
    pub fn new(len_hint: usize) -> Part {
        Part {
            src: Vec::with_capacity(len_hint),
            dst: Vec::with_capacity(len_hint),
            all_int: true,
            ..Default::default()
        }
    }
}

/// Parse every chunk of `block` in parallel with `f`; return the parts (and an error, if any
/// chunk failed, with its exact line). Advances `lines.base` past the block.
pub fn parse_block<F>(block: &[u8], lines: &mut Lines, f: F) -> Result<Vec<Part>>
where
    F: Fn(&[u8]) -> Part + Sync,
{
    Ok(parse_chunks(block, lines, f)?.parts)
}

/// The chunks of a block, their parts, and the line base of each chunk within the block.
pub struct Parsed<'a> {
    pub chunks: Vec<&'a [u8]>,
    pub parts: Vec<Part>,
    pub bases: Vec<u64>,
    /// Lines before the block.
    pub block_base: u64,
}

/// Like [`parse_block`], keeping the chunks (for checks that need to find a line later).
pub fn parse_chunks<'a, F>(block: &'a [u8], lines: &mut Lines, f: F) -> Result<Parsed<'a>>
where
    F: Fn(&[u8]) -> Part + Sync,
{
    let chunks = split_chunks(block);
    let parts: Vec<Part> = chunks.par_iter().map(|c| f(c)).collect();
    let mut base = 0;
    let mut bases = Vec::with_capacity(chunks.len());
    for (c, p) in chunks.iter().zip(&parts) {
        if let Some((off, msg)) = &p.err {
            return Err(lines.error(base, c, *off, msg.clone()));
        }
        bases.push(base);
        base += p.lines;
    }
    let block_base = lines.base;
    lines.base += base;
    Ok(Parsed {
        chunks,
        parts,
        bases,
        block_base,
    })
}

/// The records parsed so far, column by column, in file order.
pub struct Columns {
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub w: Vec<f64>,
    pub t: Vec<f64>,
    /// Every weight so far parsed as an i32.
    pub all_int: bool,
}

impl Default for Columns {
    fn default() -> Self {
        Columns {
            src: Vec::new(),
            dst: Vec::new(),
            w: Vec::new(),
            t: Vec::new(),
            all_int: true,
        }
    }
}

impl Columns {
    /// Append one block's parts (in order) and drop them. `read` is the fraction of the input
    /// read once this block was: when a column must grow, it reserves for the whole file as
    /// extrapolated from the records so far (plus 5%), so a well-estimated file allocates each
    /// column once; without an estimate it doubles. Reserved but unwritten capacity is address
    /// space only (untouched pages are not resident).
    pub fn append(&mut self, parts: Vec<Part>, read: Option<f64>) {
        self.all_int &= parts.iter().all(|p| p.all_int);
        fn grow<T: Copy + Send + Sync>(col: &mut Vec<T>, parts: Vec<Vec<T>>, read: Option<f64>) {
            let incoming: usize = parts.iter().map(Vec::len).sum();
            let need = col.len() + incoming;
            if need > col.capacity() {
                let target = match read {
                    Some(f) => ((need as f64 / f) * 1.05) as usize + 1024,
                    None => 2 * need,
                };
                col.reserve_exact(target.max(need) - col.len());
            }
            weald_graph::parallel::extend_concat(col, &parts);
        }
        let (mut src, mut dst, mut w, mut t) = (vec![], vec![], vec![], vec![]);
        for p in parts {
            src.push(p.src);
            dst.push(p.dst);
            w.push(p.w);
            t.push(p.t);
        }
        grow(&mut self.src, src, read);
        grow(&mut self.dst, dst, read);
        grow(&mut self.w, w, read);
        grow(&mut self.t, t, read);
    }
}

/// Largest id in both columns plus one (0 when empty).
pub fn id_bound(src: &[u32], dst: &[u32]) -> usize {
    src.par_iter()
        .chain(dst.par_iter())
        .max()
        .map_or(0, |&m| m as usize + 1)
}

// ---------------------------------------------------------------------------------------------
// Field scanning and number parsing.

#[inline(always)]
pub fn is_sep(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b','
}

#[inline(always)]
pub fn is_eol(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// Skip separators (spaces, tabs, commas) from `*i`.
#[inline(always)]
pub fn skip_seps(c: &[u8], i: &mut usize) {
    while *i < c.len() && is_sep(c[*i]) {
        *i += 1;
    }
}

/// Skip spaces and tabs (not commas).
#[inline(always)]
pub fn skip_blanks(c: &[u8], i: &mut usize) {
    while *i < c.len() && (c[*i] == b' ' || c[*i] == b'\t') {
        *i += 1;
    }
}

/// `true` if `*i` is at the end of the line (or of the chunk).
#[inline(always)]
pub fn at_eol(c: &[u8], i: usize) -> bool {
    i >= c.len() || is_eol(c[i])
}

/// Move `*i` past the next `\n` (or to the end); returns `true` if a newline was consumed.
#[inline(always)]
pub fn skip_line(c: &[u8], i: &mut usize) -> bool {
    match c[*i..].iter().position(|&b| b == b'\n') {
        Some(k) => {
            *i += k + 1;
            true
        }
        None => {
            *i = c.len();
            false
        }
    }
}

/// The text of the field starting at `i` (up to a separator or the end of line), for messages,
/// as [`shown`] makes it.
pub fn field_text(c: &[u8], i: usize) -> String {
    let mut j = i;
    while j < c.len() && !is_sep(c[j]) && !is_eol(c[j]) {
        j += 1;
    }
    shown(&c[i..j], 40)
}

/// `bytes` as text for a message: invalid UTF-8 shown as U+FFFD and control characters escaped
/// (`\u{1}`), so that a binary file's bytes never reach the terminal as they are; longer than
/// `max` characters, its first `max - 3` characters and `...` (an escape is never cut).
pub fn shown(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let long = text.chars().count() > max;
    let keep = if long { max.saturating_sub(3) } else { max };
    let mut s = String::new();
    for ch in text.chars().take(keep) {
        if ch.is_control() {
            s.extend(ch.escape_default());
        } else {
            s.push(ch);
        }
    }
    if long {
        s.push_str("...");
    }
    s
}

/// The message for a carriage return at byte `p` (0-based) inside a line.
pub fn carriage_return(p: usize) -> String {
    format!(
        "byte {}: a carriage return inside the line: expected `\\n` or `\\r\\n` line endings",
        p + 1
    )
}

/// Move `*i` past the rest of the line that starts at `line_start` (ignored columns, or a
/// comment) and its `\n`; `Ok(true)` if a newline was consumed. A carriage return not at the
/// line's end is an error: with `\r`-only line endings the records after it on the same
/// "line" would be skipped unseen.
#[inline(always)]
pub fn end_line(c: &[u8], i: &mut usize, line_start: usize) -> std::result::Result<bool, String> {
    if c.get(*i) == Some(&b'\n') {
        // The common case: the record ends the line.
        *i += 1;
        return Ok(true);
    }
    let start = *i;
    let nl = skip_line(c, i);
    let mut rest = &c[start..*i - nl as usize];
    while let [r @ .., b'\r'] = rest {
        rest = r;
    }
    match rest.iter().position(|&b| b == b'\r') {
        None => Ok(nl),
        Some(k) => Err(carriage_return(start + k - line_start)),
    }
}

/// Check that a record whose last field ended at `*i` ends its line there: only spaces, tabs
/// and a `\r` before the `\n` may follow, in formats whose records have a fixed number of
/// fields (`form` names the record for the message, `field` numbers the first extra one).
/// Leaves `*i` past the blanks.
pub fn expect_line_end(
    c: &[u8],
    i: &mut usize,
    line_start: usize,
    field: usize,
    form: &str,
) -> std::result::Result<(), String> {
    skip_blanks(c, i);
    let mut j = *i;
    while j < c.len() && c[j] == b'\r' {
        j += 1;
    }
    if j >= c.len() || c[j] == b'\n' {
        return Ok(());
    }
    if j > *i {
        return Err(carriage_return(*i - line_start));
    }
    let end = c[j..]
        .iter()
        .position(|&b| is_eol(b))
        .map_or(c.len(), |k| j + k);
    Err(format!(
        "field {field} (\"{}\"): expected the end of the line ({form})",
        shown(&c[j..end], 40)
    ))
}

/// Parse a non-negative integer vertex id at `*i` (field number `field`, 1-based, for messages).
/// On success `*i` is just past the digits.
#[inline(always)]
pub fn parse_id(c: &[u8], i: &mut usize, field: usize) -> std::result::Result<u64, String> {
    let start = *i;
    let mut j = start;
    let mut v: u64 = 0;
    while j < c.len() {
        let d = c[j].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v.wrapping_mul(10).wrapping_add(d as u64);
        j += 1;
    }
    if j == start || (j < c.len() && !is_sep(c[j]) && !is_eol(c[j])) {
        return Err(bad_id(c, start, field));
    }
    if j - start > 19 {
        // Up to 19 digits cannot overflow a u64; longer ones may have leading zeros.
        v = long_digits(&c[start..j]);
    }
    if v > MAX_ID {
        return Err(format!(
            "field {field} (\"{}\"): vertex id exceeds the largest supported id {MAX_ID}",
            field_text(c, start)
        ));
    }
    *i = j;
    Ok(v)
}

/// The value of a long digit string, saturated at `u64::MAX`.
#[cold]
fn long_digits(ds: &[u8]) -> u64 {
    ds.iter().fold(0u64, |v, &d| {
        v.saturating_mul(10).saturating_add((d - b'0') as u64)
    })
}

#[cold]
fn bad_id(c: &[u8], start: usize, field: usize) -> String {
    let text = field_text(c, start);
    if text.starts_with('-') {
        format!("field {field} (\"{text}\"): expected a non-negative integer vertex id (ids cannot be negative)")
    } else {
        format!("field {field} (\"{text}\"): expected a non-negative integer vertex id")
    }
}

/// The message for a missing field.
#[cold]
pub fn missing(field: usize, what: &str) -> String {
    format!("field {field}: missing; expected {what}")
}

/// Parse a plain integer (optional sign, digits) that fits in i64 at `*i`, if the whole field
/// is one. Does not move `*i` on failure.
#[inline(always)]
fn parse_int_field(c: &[u8], i: &mut usize) -> Option<i64> {
    let mut j = *i;
    let neg = j < c.len() && c[j] == b'-';
    if neg || (j < c.len() && c[j] == b'+') {
        j += 1;
    }
    let ds = j;
    let mut v: i64 = 0;
    while j < c.len() {
        let d = c[j].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v.saturating_mul(10).saturating_add(d as i64);
        j += 1;
    }
    if j == ds || (j < c.len() && !is_sep(c[j]) && !is_eol(c[j])) || j - ds > 18 {
        return None;
    }
    *i = j;
    Some(if neg { -v } else { v })
}

/// Parse a numeric field at `*i` as f64 (finite). Returns the value and whether it was an
/// integer literal within i32.
#[inline(always)]
pub fn parse_number(c: &[u8], i: &mut usize) -> Option<(f64, bool)> {
    if let Some(v) = parse_int_field(c, i) {
        return Some((v as f64, v >= i32::MIN as i64 && v <= i32::MAX as i64));
    }
    let start = *i;
    let mut j = start;
    while j < c.len() && !is_sep(c[j]) && !is_eol(c[j]) {
        j += 1;
    }
    let s = std::str::from_utf8(&c[start..j]).ok()?;
    let v: f64 = s.parse().ok()?;
    if !v.is_finite() {
        return None;
    }
    *i = j;
    Some((v, false))
}

/// Parse a weight field (number `field`) under `mode`; updates `all_int`.
#[inline(always)]
pub fn parse_weight(
    c: &[u8],
    i: &mut usize,
    field: usize,
    mode: WeightMode,
    all_int: &mut bool,
) -> std::result::Result<f64, String> {
    let start = *i;
    match parse_number(c, i) {
        Some((v, is_int)) => {
            if mode == WeightMode::Int && !is_int {
                *i = start;
                return Err(format!(
                    "field {field} (\"{}\"): expected an integer weight (32-bit)",
                    field_text(c, start)
                ));
            }
            *all_int &= is_int;
            Ok(v)
        }
        None => Err(format!(
            "field {field} (\"{}\"): expected a finite number as the edge weight",
            field_text(c, start)
        )),
    }
}

/// Parse a timestamp field (int or float).
#[inline(always)]
pub fn parse_time(c: &[u8], i: &mut usize, field: usize) -> std::result::Result<f64, String> {
    let start = *i;
    parse_number(c, i).map(|x| x.0).ok_or_else(|| {
        format!(
            "field {field} (\"{}\"): expected a finite number as the timestamp",
            field_text(c, start)
        )
    })
}

/// Split a line into fields (for the sequential preamble code).
pub fn fields(line: &[u8]) -> Vec<&[u8]> {
    line.split(|&b| is_sep(b) || is_eol(b))
        .filter(|f| !f.is_empty())
        .collect()
}

/// Lines of `block` with their byte offsets (for preambles), without the trailing `\r\n`.
pub fn lines_with_offsets(block: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= block.len() {
            return None;
        }
        let start = pos;
        let end = match block[pos..].iter().position(|&b| b == b'\n') {
            Some(k) => pos + k,
            None => block.len(),
        };
        pos = end + 1;
        let mut line = &block[start..end];
        while let [rest @ .., b'\r'] = line {
            line = rest;
        }
        Some((start, line))
    })
}

/// Parse a whole field as an unsigned integer (preamble use).
pub fn field_u64(f: &[u8]) -> Option<u64> {
    if f.is_empty() || f.len() > 19 || !f.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(f).ok()?.parse().ok()
}

/// `true` if the whole field is a number.
pub fn field_is_number(f: &[u8]) -> bool {
    std::str::from_utf8(f)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .is_some()
}

/// Turn parsed columns into [`RawEdges`]: weights become `i32` under [`WeightMode::Int`], or
/// under [`WeightMode::Infer`] when every weight was an `i32`; `f64` otherwise.
pub fn finish(
    cols: Columns,
    n: usize,
    directed: bool,
    weighted: bool,
    mode: WeightMode,
    times: bool,
) -> RawEdges {
    let Columns {
        src,
        dst,
        w,
        t,
        all_int,
    } = cols;
    let m = src.len();
    let edges = if !weighted {
        Edges::Unweighted(EdgeList {
            num_vertices: n,
            src,
            dst,
            weights: vec![(); m],
        })
    } else if mode == WeightMode::Int || (mode == WeightMode::Infer && all_int) {
        Edges::Int(EdgeList {
            num_vertices: n,
            src,
            dst,
            weights: w.par_iter().map(|&x| x as i32).collect(),
        })
    } else {
        Edges::Float(EdgeList {
            num_vertices: n,
            src,
            dst,
            weights: w,
        })
    };
    RawEdges {
        edges,
        directed,
        times: times.then_some(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(range: std::ops::Range<u32>) -> Part {
        let mut p = Part::new(0);
        p.src = range.clone().collect();
        p.dst = range.map(|x| x + 1).collect();
        p
    }

    #[test]
    fn field_text_escapes_control_bytes_and_shows_invalid_utf8_as_replacement() {
        assert_eq!(
            field_text(b"ab\x01\xff\x1b[31m 2", 0),
            "ab\\u{1}\u{fffd}\\u{1b}[31m"
        );
        assert_eq!(field_text(b"x 12ab\n", 2), "12ab");
        let long = [b'7'; 50];
        assert_eq!(field_text(&long, 0), format!("{}...", "7".repeat(37)));
        // Cut by the text's characters, so an escape is never cut in half.
        assert_eq!(shown(&[1u8; 10], 5), "\\u{1}\\u{1}...");
        assert_eq!(shown(&[1u8; 5], 5), "\\u{1}".repeat(5));
    }

    #[test]
    fn columns_reserve_for_the_file_and_keep_order() {
        // Four blocks of 1000 records; after the first (a quarter of the input) the columns
        // reserve for the whole file and never move again.
        let mut cols = Columns::default();
        cols.append(vec![part(0..400), part(400..1000)], Some(0.25));
        let (ptr, cap) = (cols.src.as_ptr(), cols.src.capacity());
        assert!(cap >= 4000, "reserved {cap}");
        for b in 1..4u32 {
            let f = (b + 1) as f64 / 4.0;
            cols.append(
                vec![
                    part(b * 1000..b * 1000 + 700),
                    part(b * 1000 + 700..(b + 1) * 1000),
                ],
                Some(f),
            );
        }
        assert_eq!((cols.src.as_ptr(), cols.src.capacity()), (ptr, cap));
        assert_eq!(cols.src, (0..4000).collect::<Vec<u32>>());
        assert_eq!(cols.dst, (1..4001).collect::<Vec<u32>>());
        assert!(cols.w.is_empty() && cols.t.is_empty() && cols.all_int);
        // An estimate that falls short (or none at all) still appends everything.
        let mut cols = Columns::default();
        cols.append(vec![part(0..10)], Some(1.0));
        cols.append(vec![part(10..5000)], Some(1.0));
        cols.append(vec![part(5000..6000)], None);
        assert_eq!(cols.src, (0..6000).collect::<Vec<u32>>());
    }

    #[test]
    fn ids_parse_and_fail_precisely() {
        let c = b"12 x";
        let mut i = 0;
        assert_eq!(parse_id(c, &mut i, 1), Ok(12));
        assert_eq!(i, 2);
        let mut i = 3;
        assert!(parse_id(c, &mut i, 2)
            .unwrap_err()
            .contains("field 2 (\"x\")"));
        let c = b"-4\n";
        let mut i = 0;
        assert!(parse_id(c, &mut i, 1).unwrap_err().contains("negative"));
        let c = b"4294967295 1";
        let mut i = 0;
        assert!(parse_id(c, &mut i, 1).unwrap_err().contains("exceeds"));
        let c = b"4294967294\r\n";
        let mut i = 0;
        assert_eq!(parse_id(c, &mut i, 1), Ok(4294967294));
        let c = b"99999999999999999999999999999";
        let mut i = 0;
        assert!(parse_id(c, &mut i, 1).unwrap_err().contains("exceeds"));
        let c = b"18446744073709551617 1"; // 2^64 + 1 wraps to 1 without the long-digit check
        let mut i = 0;
        assert!(parse_id(c, &mut i, 1).unwrap_err().contains("exceeds"));
        let c = b"0000000000000000000000042\t1";
        let mut i = 0;
        assert_eq!(parse_id(c, &mut i, 1), Ok(42));
    }

    #[test]
    fn numbers() {
        let mut i = 0;
        assert_eq!(parse_number(b"-3 ", &mut i), Some((-3.0, true)));
        let mut i = 0;
        assert_eq!(parse_number(b"2.5\n", &mut i), Some((2.5, false)));
        let mut i = 0;
        assert_eq!(parse_number(b"3000000000", &mut i), Some((3e9, false)));
        let mut i = 0;
        assert_eq!(parse_number(b"nan", &mut i), None);
        let mut i = 0;
        assert_eq!(parse_number(b"inf", &mut i), None);
    }

    #[test]
    fn chunks_cover_block_at_newlines() {
        let mut block = Vec::new();
        for k in 0..200_000 {
            block.extend_from_slice(format!("{k} {}\n", k + 1).as_bytes());
        }
        let chunks = split_chunks(&block);
        assert_eq!(chunks.iter().map(|c| c.len()).sum::<usize>(), block.len());
        for c in &chunks {
            assert_eq!(*c.last().unwrap(), b'\n');
        }
    }
}
