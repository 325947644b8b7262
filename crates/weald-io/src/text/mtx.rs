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
//!   otherwise): an extra column is an error, not ignored. Values are checked even when
//!   `weighted = Some(false)` drops them.
//! * A `symmetric` matrix holds one triangle: the lower (`i >= j`, the standard) or the upper
//!   (some writers). Entries on both sides of the diagonal are an error (the file holds both
//!   triangles, which would count each edge twice, or is not symmetric).
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
    let mut triangle: Option<Triangle> = None;
    while let Some(block) = br.next_block()? {
        let mut b = block;
        if head.is_none() {
            let h = header(path, b)?;
            // Values are parsed (and checked) even when they are dropped, so that every
            // entry must have exactly the banner's fields.
            let cfg = RecordCfg {
                want_w: h.field != Field::Pattern,
                wmode: if h.field == Field::Integer {
                    WeightMode::Int
                } else {
                    WeightMode::Float
                },
                want_t: false,
                one_based: true,
                limits: Some((h.rows, h.cols)),
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
        let (h, cfg) = head.as_ref().unwrap();
        let parsed = parse_chunks(b, &mut lines, |ch| parse_records(ch, cfg))?;
        if h.symmetric {
            one_triangle(path, &parsed, &mut triangle)?;
        }
        cols.append(parsed.parts, read.get());
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
    let directed = opts.directed.unwrap_or(!h.symmetric);
    let weighted = opts.weighted.unwrap_or(h.field != Field::Pattern);
    let mut mode = cfg.wmode;
    if !weighted {
        cols.w = Vec::new();
    } else if !cfg.want_w {
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

/// The side of the diagonal of a symmetric matrix's first off-diagonal entry, and its line.
struct Triangle {
    above: bool,
    line: u64,
}

/// A `symmetric` matrix stores one triangle: the lower one (`i >= j`) by the standard, the
/// upper one as some writers do. Entries on both sides mean the file holds both triangles (or
/// is not symmetric at all), and reading it would count every such edge twice: the entry that
/// crosses over first is an error naming the line of the first entry on the other side.
fn one_triangle(path: &Path, parsed: &Parsed, first: &mut Option<Triangle>) -> Result<()> {
    let sides: Vec<[Option<usize>; 2]> = parsed
        .parts
        .par_iter()
        .map(|p| {
            let at = |above: bool| {
                p.src
                    .iter()
                    .zip(&p.dst)
                    .position(|(u, v)| if above { u < v } else { u > v })
            };
            [at(false), at(true)]
        })
        .collect();
    for (k, firsts) in sides.iter().enumerate() {
        let mut events: Vec<(usize, bool)> = [false, true]
            .into_iter()
            .filter_map(|above| firsts[above as usize].map(|idx| (idx, above)))
            .collect();
        events.sort_unstable();
        for (idx, above) in events {
            let line = parsed.block_base + parsed.bases[k] + record_line(parsed.chunks[k], idx) + 1;
            match first {
                None => *first = Some(Triangle { above, line }),
                Some(t) if t.above != above => {
                    let p = &parsed.parts[k];
                    let side = |a: bool| if a { "above" } else { "below" };
                    return Err(WealdError::parse(
                        path,
                        line,
                        format!(
                            "entry ({}, {}) lies {} the diagonal, but the entry on line {} lies {} it: \
                             a `symmetric` matrix stores one triangle (the lower, i >= j), and \
                             this file holds entries of both",
                            p.src[idx] as u64 + 1,
                            p.dst[idx] as u64 + 1,
                            side(above),
                            t.line,
                            side(t.above)
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// The 0-based line (within `chunk`) of the chunk's `idx`-th record, counting the lines the
/// record parser skips (blank, comment).
fn record_line(chunk: &[u8], idx: usize) -> u64 {
    let mut seen = 0;
    for (k, (_, line)) in lines_with_offsets(chunk).enumerate() {
        let t = line.trim_ascii_start();
        if t.is_empty() || matches!(t[0], b'#' | b'%' | b'\r') {
            continue;
        }
        if seen == idx {
            return k as u64;
        }
        seen += 1;
    }
    count_newlines(chunk)
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
