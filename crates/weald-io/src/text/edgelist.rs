//! Edge lists: SNAP/plain text (`edgelist`), CSV (`csv`) and timestamped lists (`temporal`).
//!
//! * One record per line: `u v [w] [more columns, ignored]`. Fields are separated by any run of
//!   spaces, tabs or commas (so TSV, CSV and SNAP files all parse the same way), holding at
//!   most one comma (`1,,5` has an empty field: an error, not the edge 1-5); `\r\n` line
//!   endings, blank lines and comment lines starting with `#` or `%` are skipped anywhere.
//! * Ids are non-negative integers up to `u32::MAX - 1`; by default they are relabelled to
//!   `0..n` by the builder (the user's ids are kept in the CSR's id map).
//! * **Header line**: if neither of the first two fields of the first non-comment line is a
//!   number, the line is a header (`source target`, `id_1,id_2`, `Source,Target,Rating,Time`, ...) and is skipped.
//!   This applies to all three variants (CSV files without a header are fine too). A header
//!   must be text: one holding an ASCII control character other than a tab (a binary file) is
//!   an error, not a header followed by an empty graph. So is a carriage return inside any
//!   line, comments included (anywhere but just before the `\n`): `\r`-only line endings
//!   make the whole file one line, a comment hiding every record or a record hiding the rest.
//! * **Count line**: some files replace the SNAP comment header by a line `n m` (CA-GrQc.txt
//!   starts with `5242\t28980`). A first data line with exactly two integer fields `a b` is
//!   dropped when `b` equals the number of records that follow it and `a` equals the number of
//!   distinct ids in them (or their largest id + 1); otherwise it is an ordinary edge. The rule
//!   can only misfire on a file whose first edge `a b` happens to match both counts.
//! * **KONECT** headers: a first line `% sym|asym <weights>` declares the graph undirected or
//!   directed; a weight tag `posweighted`, `weighted`, `multiweighted`, `signed`,
//!   `multisigned` or `multiposweighted` declares a weight column. A bipartite file
//!   (`% bip`), whose two columns are separate id spaces, is refused, as is a Matrix Market
//!   banner (`%%MatrixMarket`: a file in another format). Other first lines (`% 2137 128 128`) are
//!   comments.
//! * Default: undirected and unweighted (like networkx). With `weighted = true` the third
//!   column is the weight: `i32` if every weight is an integer in range, otherwise `f64`;
//!   NaN and infinite weights are errors.
//! * `temporal`: `u v t` or, weighted, `u v w t`; the times (integers or floats) are returned in
//!   [`crate::RawEdges::times`], in record order.

use super::*;
use crate::{Format, RawEdges};

/// What the record parser extracts from each line.
#[derive(Clone, Debug)]
pub struct RecordCfg {
    pub want_w: bool,
    pub wmode: WeightMode,
    pub want_t: bool,
    /// Ids in the file are 1-based (Matrix Market).
    pub one_based: bool,
    /// Largest allowed (1-based) row and column index, if declared.
    pub limits: Option<(u64, u64)>,
    /// A value column that is there but not wanted (Matrix Market read unweighted): it must
    /// hold a number, which is dropped.
    pub skip_w: bool,
    /// The records have exactly the fields parsed (Matrix Market): more is an error, whose
    /// message names the record's form. Edge lists ignore extra columns (`None`).
    pub exact: Option<&'static str>,
}

#[inline(always)]
fn id_at(
    c: &[u8],
    i: &mut usize,
    field: usize,
    cfg: &RecordCfg,
) -> std::result::Result<u32, String> {
    let start = *i;
    let v = parse_id(c, i, field)?;
    if cfg.one_based {
        if v == 0 {
            return Err(format!(
                "field {field} (\"0\"): expected a 1-based index (indices start at 1)"
            ));
        }
        if let Some((r, k)) = cfg.limits {
            let (lim, what) = if field == 1 {
                (r, "rows")
            } else {
                (k, "columns")
            };
            if v > lim {
                return Err(format!(
                    "field {field} (\"{}\"): index exceeds the {lim} {what} declared by the size line",
                    field_text(c, start)
                ));
            }
        }
        return Ok((v - 1) as u32);
    }
    Ok(v as u32)
}

/// Move `*i` past the separators before field `field`. Spaces and tabs may run (aligned
/// columns), but two commas in a run leave a field empty: a CSV's missing value, which
/// would otherwise shift the next column into its place (`1,,5` read as the edge 1-5).
#[inline(always)]
fn next_field(c: &[u8], i: &mut usize, field: usize) -> std::result::Result<(), String> {
    let start = *i;
    skip_seps(c, i);
    if *i - start > 1 && c[start..*i].iter().filter(|&&b| b == b',').count() > 1 {
        return Err(format!(
            "field {field}: an empty field (two commas with nothing between them); expected a value"
        ));
    }
    Ok(())
}

/// Parse the records of one chunk: `u v [w] [t] [ignored...]` per line.
pub fn parse_records(c: &[u8], cfg: &RecordCfg) -> Part {
    let mut p = Part::new(c.len() / 12 + 16);
    if cfg.want_w {
        p.w.reserve(c.len() / 12 + 16);
    }
    if cfg.want_t {
        p.t.reserve(c.len() / 12 + 16);
    }
    let n = c.len();
    let mut i = 0;
    while i < n {
        let line_start = i;
        skip_blanks(c, &mut i);
        if i >= n {
            break;
        }
        let b = c[i];
        if b == b'\n' {
            i += 1;
            p.lines += 1;
            continue;
        }
        if b == b'\r' || b == b'#' || b == b'%' {
            match end_line(c, &mut i, line_start) {
                Ok(nl) => p.lines += nl as u64,
                Err(msg) => {
                    p.err = Some((line_start, msg));
                    return p;
                }
            }
            continue;
        }
        let r = (|| -> std::result::Result<(), String> {
            let u = id_at(c, &mut i, 1, cfg)?;
            next_field(c, &mut i, 2)?;
            if at_eol(c, i) {
                return Err(missing(
                    2,
                    "the target vertex id (each line needs at least: source target)",
                ));
            }
            let v = id_at(c, &mut i, 2, cfg)?;
            let mut field = 3;
            if cfg.want_w {
                next_field(c, &mut i, field)?;
                if at_eol(c, i) {
                    return Err(missing(
                        field,
                        "the edge weight (the file is read as weighted)",
                    ));
                }
                let w = parse_weight(c, &mut i, field, cfg.wmode, &mut p.all_int)?;
                p.w.push(w);
                field += 1;
            } else if cfg.skip_w {
                next_field(c, &mut i, field)?;
                if at_eol(c, i) {
                    return Err(missing(
                        field,
                        "the entry's value (the banner declares one)",
                    ));
                }
                let start = i;
                while i < n && !is_sep(c[i]) && !is_eol(c[i]) {
                    i += 1;
                }
                let text = std::str::from_utf8(&c[start..i]).ok();
                if text.and_then(|t| t.parse::<f64>().ok()).is_none() {
                    return Err(format!(
                        "field {field} (\"{}\"): expected a number",
                        field_text(c, start)
                    ));
                }
                field += 1;
            }
            if cfg.want_t {
                next_field(c, &mut i, field)?;
                if at_eol(c, i) {
                    return Err(missing(
                        field,
                        "the timestamp (the file is read as temporal)",
                    ));
                }
                let t = parse_time(c, &mut i, field)?;
                p.t.push(t);
                field += 1;
            }
            if let Some(form) = cfg.exact {
                expect_line_end(c, &mut i, line_start, field, form)?;
            }
            p.src.push(u);
            p.dst.push(v);
            Ok(())
        })();
        match r.and_then(|()| end_line(c, &mut i, line_start)) {
            Ok(nl) => p.lines += nl as u64,
            Err(msg) => {
                p.err = Some((line_start, msg));
                return p;
            }
        }
    }
    p
}

/// What the first lines of an edge list declare.
#[derive(Debug, Default)]
struct Preamble {
    /// Byte offset in the first block where record parsing starts.
    start: usize,
    /// Newlines before `start`.
    start_lines: u64,
    konect_directed: Option<bool>,
    konect_weighted: bool,
    /// A first data line with exactly two integer fields: `(a, b, 1-based line)`.
    count_line: Option<(u64, u64, u64)>,
}

/// The preamble of the first block, or the 1-based line and message of a first line that is
/// neither data nor a header.
fn preamble(block: &[u8]) -> std::result::Result<Preamble, (u64, String)> {
    let mut pre = Preamble::default();
    for (k, (off, line)) in lines_with_offsets(block).enumerate() {
        let trimmed = line.trim_ascii_start();
        if let Some(p) = line.iter().position(|&b| b == b'\r') {
            // `\r`-only line endings make the whole file one line: a comment that hides every
            // record, or a first record after which nothing is read.
            return Err((k as u64 + 1, carriage_return(p)));
        }
        if trimmed.is_empty() {
            continue;
        }
        if trimmed[0] == b'#' || trimmed[0] == b'%' {
            if k == 0 && trimmed[0] == b'%' {
                if trimmed.len() >= 14 && trimmed[..14].eq_ignore_ascii_case(b"%%MatrixMarket") {
                    return Err((
                        1,
                        "a Matrix Market banner: read this file as `mtx` (name it .mtx, or \
                         --format mtx), not as an edge list"
                            .into(),
                    ));
                }
                let f = fields(&trimmed[1..]);
                let tag = |i: usize| f.get(i).map(|x| x.to_ascii_lowercase());
                match tag(0).as_deref() {
                    Some(b"asym") => pre.konect_directed = Some(true),
                    Some(b"sym") => pre.konect_directed = Some(false),
                    Some(b"bip") => {
                        return Err((
                            1,
                            "a KONECT bipartite file (`% bip`): its two columns number two \
                             separate vertex sets, which an edge list cannot say; renumber one \
                             side (add the other side's size to its ids) and drop the `bip` line"
                                .into(),
                        ))
                    }
                    _ => {}
                }
                if pre.konect_directed.is_some() {
                    pre.konect_weighted = matches!(
                        tag(1).as_deref(),
                        Some(
                            b"posweighted"
                                | b"weighted"
                                | b"multiweighted"
                                | b"signed"
                                | b"multisigned"
                                | b"multiposweighted"
                        )
                    );
                }
            }
            continue;
        }
        let f = fields(line);
        // A header has no number among its first two fields (`source target`, `id_1,id_2`);
        // a line with one (`1 2a`: a typo) is a record, whose error then says what is wrong,
        // and a lone number is one too (an error for the missing target).
        let header = !f.iter().take(2).any(|x| field_is_number(x));
        if header {
            // A header line: skip it, if it is text. A binary file (or the wrong format) would
            // otherwise be one long "header" and load as an empty graph.
            if let Some(msg) = not_text(line) {
                return Err((k as u64 + 1, msg));
            }
            pre.start = (off + line.len()).min(block.len());
            pre.start_lines = k as u64;
            if let Some(p) = block[pre.start..].iter().position(|&b| b == b'\n') {
                pre.start += p + 1;
                pre.start_lines += 1;
            } else {
                pre.start = block.len();
            }
            return Ok(pre);
        }
        pre.start = off;
        pre.start_lines = k as u64;
        if f.len() == 2 {
            if let (Some(a), Some(b)) = (field_u64(f[0]), field_u64(f[1])) {
                pre.count_line = Some((a, b, k as u64 + 1));
            }
        }
        return Ok(pre);
    }
    pre.start = block.len();
    pre.start_lines = count_newlines(block);
    Ok(pre)
}

/// Why `line` cannot be a header line (it holds an ASCII control character other than a tab, as
/// binary data does), or `None` if it can. Bytes above 0x7f are allowed: a header may be in
/// UTF-8 or in a legacy 8-bit encoding.
fn not_text(line: &[u8]) -> Option<String> {
    let bad = line
        .iter()
        .position(|&b| (b < 0x20 && b != b'\t') || b == 0x7f)?;
    Some(format!(
        "byte {} ({:#04x}) is not text: expected an edge `u v` or a header line (is this file \
         in the format it was read as?)",
        bad + 1,
        line[bad]
    ))
}

/// `true` if a first line `a b` counts the records that follow: `b` of them, over `a` vertices
/// (`a` = the number of distinct ids, or the largest id + 1).
fn is_count_line(a: u64, b: u64, src: &[u32], dst: &[u32]) -> bool {
    if src.len() as u64 != b {
        return false;
    }
    let bound = id_bound(src, dst);
    if a == bound as u64 {
        return true;
    }
    let mut seen = vec![0u64; bound.div_ceil(64)];
    for &v in src.iter().chain(dst) {
        seen[v as usize >> 6] |= 1 << (v & 63);
    }
    a == seen.iter().map(|w| w.count_ones() as u64).sum::<u64>()
}

/// Read an edge list, CSV or temporal file.
pub fn read(path: &Path, opts: &LoadOptions, format: Format) -> Result<RawEdges> {
    let src = Source::open(path)?;
    let mut br = BlockReader::new(src, opts.progress.clone());
    let mut lines = Lines {
        path: path.to_path_buf(),
        base: 0,
    };
    let temporal = format == Format::Temporal;
    let read = br.read_fraction();
    let mut cols = Columns::default();
    let mut cfg: Option<RecordCfg> = None;
    let mut pre = Preamble::default();
    // A count line held back because the records need more than two fields.
    let mut held: Option<(u64, u64, u64)> = None;
    while let Some(block) = br.next_block()? {
        let mut b = block;
        if cfg.is_none() {
            pre = preamble(b).map_err(|(line, msg)| WealdError::parse(path, line, msg))?;
            let c = RecordCfg {
                want_w: opts.weighted.unwrap_or(pre.konect_weighted),
                wmode: WeightMode::Infer,
                want_t: temporal,
                one_based: false,
                limits: None,
                skip_w: false,
                exact: None,
            };
            b = &b[pre.start..];
            lines.base = pre.start_lines;
            if (c.want_w || c.want_t) && pre.count_line.is_some() {
                held = pre.count_line;
                let skip = match b.iter().position(|&x| x == b'\n') {
                    Some(p) => p + 1,
                    None => b.len(),
                };
                b = &b[skip..];
                lines.base += 1;
            }
            cfg = Some(c);
        }
        let c = cfg.as_ref().unwrap();
        let parts = parse_block(b, &mut lines, |ch| parse_records(ch, c))?;
        cols.append(parts, read.get());
    }
    let cfg = cfg.unwrap_or(RecordCfg {
        want_w: opts.weighted.unwrap_or(false),
        wmode: WeightMode::Infer,
        want_t: temporal,
        one_based: false,
        limits: None,
        skip_w: false,
        exact: None,
    });
    if let Some((a, b, line)) = held {
        if !is_count_line(a, b, &cols.src, &cols.dst) {
            let what = if cfg.want_w {
                "the edge weight (the file is read as weighted)"
            } else {
                "the timestamp (the file is read as temporal)"
            };
            return Err(WealdError::parse(path, line, missing(3, what)));
        }
    } else if let Some((a, b, _)) = pre.count_line {
        if !cols.src.is_empty() && is_count_line(a, b, &cols.src[1..], &cols.dst[1..]) {
            cols.src.remove(0);
            cols.dst.remove(0);
        }
    }
    let n = id_bound(&cols.src, &cols.dst);
    let directed = opts
        .directed
        .unwrap_or(pre.konect_directed.unwrap_or(false));
    Ok(finish(cols, n, directed, cfg.want_w, cfg.wmode, cfg.want_t))
}
