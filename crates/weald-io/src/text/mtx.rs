//! Matrix Market coordinate files (`.mtx`, `.mm`).
//!
//! * Banner `%%MatrixMarket matrix coordinate <field> <symmetry>` (case-insensitive), with field
//!   `pattern` (unweighted), `integer` (`i32` weights) or `real` (`f64` weights), and symmetry
//!   `general` (a directed graph) or `symmetric` (undirected; only one triangle is stored).
//!   `array` matrices, `complex` values and `skew-symmetric`/`hermitian` are unsupported.
//! * `%` comment lines, then the size line `rows cols nnz`, then `nnz` entries `i j [value]`,
//!   1-based. `n = max(rows, cols)`.
//! * The size line must agree with the entries: an index above `rows`/`cols` is an error on the
//!   entry's line, and a count other than `nnz` is an error naming the size line.
//! * An entry has exactly the fields of its field type (`i j` for `pattern`, `i j value`
//!   otherwise): an extra column is an error, not ignored. With `weighted = Some(false)` the
//!   values must still be numbers, and are dropped.
//! * A `symmetric` matrix stores each off-diagonal entry once: in the lower triangle
//!   (`i >= j`, the standard), the upper, or either. An entry whose mirror is also stored is
//!   an error (a file holding both triangles: their values could differ, and readers disagree
//!   on whether to add them, as scipy does, or to merge them).
//! * With `weighted = Some(true)` a pattern matrix gets unit (`i32`) weights; with
//!   `Some(false)` the values are ignored. Forcing `directed = Some(true)` on a symmetric matrix
//!   mirrors every off-diagonal entry, so the directed graph has both arcs.

use super::edgelist::{parse_records, RecordCfg};
use super::*;

struct Header {
    field: Field,
    symmetric: bool,
    rows: u64,
    cols: u64,
    nnz: u64,
    size_line: u64,
    start: usize,
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Field {
    Pattern,
    Integer,
    Real,
}

fn header(path: &Path, block: &[u8]) -> Result<Header> {
    let mut it = lines_with_offsets(block).enumerate();
    let banner = match it.next() {
        Some((_, (_, l))) => l,
        None => return Err(WealdError::parse(
            path,
            1,
            "empty file: expected the banner `%%MatrixMarket matrix coordinate <field> <symmetry>`",
        )),
    };
    let toks: Vec<String> = banner
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .map(|t| shown(t, 40).to_ascii_lowercase())
        .collect();
    if toks.first().map(String::as_str) != Some("%%matrixmarket") {
        return Err(WealdError::parse(
            path,
            1,
            "expected the banner `%%MatrixMarket matrix coordinate <field> <symmetry>`",
        ));
    }
    let tok = |i: usize| toks.get(i).map(String::as_str).unwrap_or("");
    if tok(1) != "matrix" || tok(2) != "coordinate" {
        return Err(WealdError::Unsupported(format!(
            "{}: only `matrix coordinate` Matrix Market files hold graphs (found `{} {}`)",
            path.display(),
            tok(1),
            tok(2)
        )));
    }
    let field = match tok(3) {
        "pattern" => Field::Pattern,
        "integer" => Field::Integer,
        "real" | "double" => Field::Real,
        other => {
            return Err(WealdError::Unsupported(format!(
                "{}: Matrix Market field `{other}` (expected pattern, integer or real)",
                path.display()
            )))
        }
    };
    let symmetric = match tok(4) {
        "general" => false,
        "symmetric" => true,
        other => {
            return Err(WealdError::Unsupported(format!(
                "{}: Matrix Market symmetry `{other}` (expected general or symmetric)",
                path.display()
            )))
        }
    };
    for (k, (off, line)) in it {
        let t = line.trim_ascii_start();
        if t.is_empty() || t[0] == b'%' {
            continue;
        }
        let f = fields(line);
        let nums: Vec<Option<u64>> = f.iter().map(|x| field_u64(x)).collect();
        if f.len() != 3 || nums.iter().any(Option::is_none) {
            return Err(WealdError::parse(
                path,
                k as u64 + 1,
                format!(
                    "size line (\"{}\"): expected three non-negative integers `rows cols nnz`",
                    shown(line, 60)
                ),
            ));
        }
        let (rows, cols, nnz) = (nums[0].unwrap(), nums[1].unwrap(), nums[2].unwrap());
        if rows.max(cols) > MAX_ID + 1 {
            return Err(WealdError::parse(
                path,
                k as u64 + 1,
                format!(
                    "size line: {} rows/columns exceed the u32 id space",
                    rows.max(cols)
                ),
            ));
        }
        if symmetric && rows != cols {
            // A symmetric matrix equals its transpose, so it is square (as the format's
            // specification says); a 3 x 4 one is a mislabelled general matrix.
            return Err(WealdError::parse(
                path,
                k as u64 + 1,
                format!(
                    "size line: a `symmetric` matrix is square, but this one has {rows} rows \
                     and {cols} columns (a rectangular matrix is `general`)"
                ),
            ));
        }
        let start = match block[off..].iter().position(|&b| b == b'\n') {
            Some(p) => off + p + 1,
            None => block.len(),
        };
        return Ok(Header {
            field,
            symmetric,
            rows,
            cols,
            nnz,
            size_line: k as u64 + 1,
            start,
        });
    }
    Err(WealdError::parse(
        path,
        count_newlines(block) + 1,
        "missing size line `rows cols nnz`",
    ))
}

pub fn read(path: &Path, opts: &LoadOptions) -> Result<RawEdges> {
    let src = Source::open(path)?;
    let mut br = BlockReader::new(src, opts.progress.clone());
    let mut lines = Lines {
        path: path.to_path_buf(),
        base: 0,
    };
    let mut head: Option<(Header, RecordCfg)> = None;
    let read = br.read_fraction();
    let mut cols = Columns::default();
    while let Some(block) = br.next_block()? {
        let mut b = block;
        if head.is_none() {
            let h = header(path, b)?;
            let valued = h.field != Field::Pattern;
            let cfg = RecordCfg {
                want_w: valued && opts.weighted != Some(false),
                wmode: if h.field == Field::Integer {
                    WeightMode::Int
                } else {
                    WeightMode::Float
                },
                want_t: false,
                one_based: true,
                limits: Some((h.rows, h.cols)),
                // Read unweighted, the values must still be there (and numbers).
                skip_w: valued && opts.weighted == Some(false),
                exact: Some(match h.field {
                    Field::Pattern => "a `pattern` entry is `i j`",
                    Field::Integer => "an `integer` entry is `i j value`",
                    Field::Real => "a `real` entry is `i j value`",
                }),
            };
            lines.base = count_newlines(&b[..h.start]);
            b = &b[h.start..];
            head = Some((h, cfg));
        }
        let cfg = &head.as_ref().unwrap().1;
        let parts = parse_block(b, &mut lines, |ch| parse_records(ch, cfg))?;
        cols.append(parts, read.get());
    }
    let Some((h, cfg)) = head else {
        return Err(WealdError::parse(
            path,
            1,
            "empty file: expected the banner `%%MatrixMarket matrix coordinate <field> <symmetry>`",
        ));
    };
    if cols.src.len() as u64 != h.nnz {
        return Err(WealdError::parse(
            path,
            h.size_line,
            format!(
                "size line declares {} entries (field 3) but the file holds {}",
                h.nnz,
                cols.src.len()
            ),
        ));
    }
    if h.symmetric {
        if let Some((first, second)) = mirrored_pair(&cols) {
            let (i, j) = (cols.src[second] as u64 + 1, cols.dst[second] as u64 + 1);
            let lines = record_lines(path, &h, &[first, second]);
            let (line, earlier) = match lines.as_deref() {
                Some(&[a, b]) => (b, format!("line {a}")),
                _ => (h.size_line, format!("entry {}", first + 1)),
            };
            return Err(WealdError::parse(
                path,
                line,
                format!(
                    "entry ({i}, {j}) mirrors ({j}, {i}) on {earlier}: a `symmetric` matrix \
                     stores each off-diagonal entry once, on either side of the diagonal (to \
                     read both directions, declare the matrix `general` and read it as \
                     undirected)"
                ),
            ));
        }
    }
    let directed = opts.directed.unwrap_or(!h.symmetric);
    let weighted = opts.weighted.unwrap_or(h.field != Field::Pattern);
    let mut mode = cfg.wmode;
    if weighted && !cfg.want_w {
        // Pattern matrix read as weighted: unit weights.
        cols.w = vec![1.0; cols.src.len()];
        mode = WeightMode::Int;
    }
    if h.symmetric && directed {
        mirror(&mut cols, weighted);
    }
    let n = h.rows.max(h.cols) as usize;
    Ok(finish(cols, n, directed, weighted, mode, false))
}

/// In a symmetric matrix, the first entry (in file order) whose mirror came before it:
/// `(mirror's index, entry's index)`. Entries all in one triangle (the standard's lower, or
/// the upper) have none, which one pass finds; only a file with entries on both sides of the
/// diagonal is sorted (16 bytes per entry) to look for a pair.
fn mirrored_pair(cols: &Columns) -> Option<(usize, usize)> {
    let (src, dst) = (&cols.src, &cols.dst);
    let (above, below) = src
        .par_iter()
        .zip(dst.par_iter())
        .map(|(u, v)| ((u < v) as u64, (u > v) as u64))
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    if above == 0 || below == 0 {
        return None;
    }
    let mut keyed: Vec<(u64, usize)> = (0..src.len())
        .into_par_iter()
        .filter(|&i| src[i] != dst[i])
        .map(|i| {
            let (u, v) = (src[i] as u64, dst[i] as u64);
            ((u.min(v) << 32) | u.max(v), i)
        })
        .collect();
    keyed.par_sort_unstable();
    // Within a key, entries in file order: the first of one direction, and the first of the
    // other after it.
    keyed
        .par_chunk_by(|a, b| a.0 == b.0)
        .filter_map(|run| {
            let up = |i: usize| src[i] < dst[i];
            let first = run[0].1;
            run.iter()
                .find(|e| up(e.1) != up(first))
                .map(|e| (first, e.1))
        })
        .min_by_key(|&(_, second)| second)
}

/// The lines of records `idx` (0-based, in file order, sorted), found by reading the file
/// again (an error path only); `None` for standard input or if it cannot be read.
fn record_lines(path: &Path, h: &Header, idx: &[usize]) -> Option<Vec<u64>> {
    if path == Path::new("-") {
        return None;
    }
    let mut br = BlockReader::new(Source::open(path).ok()?, None);
    let mut out = Vec::with_capacity(idx.len());
    let (mut line, mut record) = (0u64, 0usize);
    while let Some(block) = br.next_block().ok()? {
        for (_, l) in lines_with_offsets(block) {
            line += 1;
            let t = l.trim_ascii_start();
            if line <= h.size_line || t.is_empty() || matches!(t[0], b'#' | b'%') {
                continue;
            }
            if idx.get(out.len()) == Some(&record) {
                out.push(line);
                if out.len() == idx.len() {
                    return Some(out);
                }
            }
            record += 1;
        }
    }
    None
}

/// Append the reverse of every off-diagonal entry.
fn mirror(cols: &mut Columns, weighted: bool) {
    let keep: Vec<usize> = (0..cols.src.len())
        .filter(|&i| cols.src[i] != cols.dst[i])
        .collect();
    for &i in &keep {
        let (u, v) = (cols.src[i], cols.dst[i]);
        cols.src.push(v);
        cols.dst.push(u);
        if weighted {
            let w = cols.w[i];
            cols.w.push(w);
        }
    }
}
