//! METIS / DIMACS-10 adjacency files (`.graph`).
//!
//! * `%` comment lines anywhere (they are not vertices);
//! * header `n m [fmt [ncon]]`: `fmt` has up to three digits `abc`: `c = 1` edge weights,
//!   `b = 1` vertex weights (`ncon` of them per line, default 1; skipped), `a = 1` vertex sizes
//!   (one per line; skipped);
//! * then line `i + 1` (counting non-comment lines after the header) lists the neighbours of
//!   vertex `i`, 1-based, each followed by its weight when `c = 1`. An empty line is an isolated
//!   vertex. Extra empty rows after the `n`-th (a trailing empty row is common: karate,
//!   polblogs) are accepted; a non-empty row beyond the `n`-th is an error; missing trailing
//!   rows are isolated vertices.
//! * The graph is undirected and each edge is listed from both ends, with the same weight;
//!   `m` counts undirected edges (a self loop, listed once, counts once). A count that
//!   disagrees with `m` is an error, and so is an entry without its mirror: `u` lists `v` (a
//!   times, with weight `w`) but `v` does not list `u` as often with that weight. The error
//!   names the line of the unmatched entry's row. A fingerprint of each side decides in one
//!   pass; only lists that fail it are sorted, to find the entry.
//! * Read as undirected (the default), each edge is returned once (`u <= v`);
//!   `directed = Some(true)` returns every listed entry as an arc.

use super::*;
use weald_graph::fingerprint::ArcFingerprint;

struct Header {
    n: u64,
    m: u64,
    edge_w: bool,
    vsize: bool,
    ncon: usize,
    line: u64,
    start: usize,
}

fn header(path: &Path, block: &[u8]) -> Result<Header> {
    for (k, (off, line)) in lines_with_offsets(block).enumerate() {
        let t = line.trim_ascii_start();
        if t.is_empty() || t[0] == b'%' {
            continue;
        }
        let lineno = k as u64 + 1;
        let f = fields(t);
        let bad = |msg: String| WealdError::parse(path, lineno, msg);
        if f.len() < 2 || f.len() > 4 {
            return Err(bad(format!(
                "header (\"{}\"): expected `n m [fmt [ncon]]`",
                shown(t, 60)
            )));
        }
        let names = ["n", "m", "fmt", "ncon"];
        let mut nums = [0u64; 4];
        for (j, x) in f.iter().enumerate() {
            nums[j] = field_u64(x).ok_or_else(|| {
                bad(format!(
                    "header field {} (\"{}\"): expected a non-negative integer {}",
                    j + 1,
                    shown(x, 40),
                    names[j]
                ))
            })?;
        }
        let fmt = f.get(2).map(|x| x.to_vec()).unwrap_or_default();
        if fmt.len() > 3 || fmt.iter().any(|&d| d != b'0' && d != b'1') {
            return Err(bad(format!(
                "header field 3 (\"{}\"): expected fmt of up to three 0/1 digits (e.g. 1, 10, 11, 100)",
                shown(&fmt, 40)
            )));
        }
        let digit =
            |from_right: usize| fmt.len() > from_right && fmt[fmt.len() - 1 - from_right] == b'1';
        let vweights = digit(1);
        let ncon = if f.len() == 4 {
            nums[3] as usize
        } else {
            vweights as usize
        };
        if nums[0] > MAX_ID + 1 {
            return Err(bad(format!(
                "header: n = {} exceeds the u32 id space",
                nums[0]
            )));
        }
        let start = match block[off..].iter().position(|&b| b == b'\n') {
            Some(p) => off + p + 1,
            None => block.len(),
        };
        return Ok(Header {
            n: nums[0],
            m: nums[1],
            edge_w: digit(0),
            vsize: digit(2),
            ncon: if vweights { ncon.min(1 << 16) } else { 0 },
            line: lineno,
            start,
        });
    }
    Err(WealdError::parse(
        path,
        count_newlines(block) + 1,
        "missing header line `n m [fmt [ncon]]`",
    ))
}

/// Parse rows; `src` holds the row index local to the chunk, `count_a` the number of rows.
fn parse_chunk(c: &[u8], h: &Header) -> Part {
    let mut p = Part::new(c.len() / 6 + 16);
    let mut i = 0;
    let mut row: u32 = 0;
    while i < c.len() {
        let line_start = i;
        skip_blanks(c, &mut i);
        if i < c.len() && c[i] == b'%' {
            // Where the comment lies among the rows, to find a row's line later.
            p.offs.push(row as u64);
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
            let mut field = 1;
            let skip_vals = h.vsize as usize + h.ncon;
            for _ in 0..skip_vals {
                skip_blanks(c, &mut i);
                if at_eol(c, i) {
                    return Err(missing(
                        field,
                        "a vertex size/weight (declared by the header's fmt)",
                    ));
                }
                let start = i;
                if parse_number(c, &mut i).is_none() {
                    return Err(format!(
                        "field {field} (\"{}\"): expected a number (vertex size/weight)",
                        field_text(c, start)
                    ));
                }
                field += 1;
            }
            loop {
                skip_blanks(c, &mut i);
                if at_eol(c, i) {
                    return Ok(());
                }
                let start = i;
                let v = parse_id(c, &mut i, field)?;
                if v == 0 || v > h.n {
                    return Err(format!(
                        "field {field} (\"{}\"): expected a neighbour id in 1..={}",
                        field_text(c, start),
                        h.n
                    ));
                }
                field += 1;
                if h.edge_w {
                    skip_blanks(c, &mut i);
                    if at_eol(c, i) {
                        return Err(missing(
                            field,
                            "the edge weight after each neighbour (fmt declares edge weights)",
                        ));
                    }
                    let w = parse_weight(c, &mut i, field, WeightMode::Infer, &mut p.all_int)?;
                    p.w.push(w);
                    field += 1;
                }
                p.src.push(row);
                p.dst.push((v - 1) as u32);
            }
        })();
        // Only a `\r\n` (not a lone `\r` hiding the rest of the line) ends a row.
        match r.and_then(|()| end_line(c, &mut i, line_start)) {
            Ok(nl) => p.lines += nl as u64,
            Err(msg) => {
                p.err = Some((line_start, msg));
                return p;
            }
        }
        row += 1;
    }
    p.count_a = row as u64;
    p
}

/// Byte offset of local row `r` in chunk `c`.
fn row_offset(c: &[u8], r: u64) -> usize {
    let mut row = 0;
    for (off, line) in lines_with_offsets(c) {
        if line.trim_ascii_start().first() == Some(&b'%') {
            continue;
        }
        if row == r {
            return off;
        }
        row += 1;
    }
    c.len()
}

pub fn read(path: &Path, opts: &LoadOptions) -> Result<RawEdges> {
    let src = Source::open(path)?;
    let mut br = BlockReader::new(src, opts.progress.clone());
    let mut lines = Lines {
        path: path.to_path_buf(),
        base: 0,
    };
    let mut head: Option<Header> = None;
    let read = br.read_fraction();
    let mut cols = Columns::default();
    let mut rows: u64 = 0;
    let mut spans: Vec<RowSpan> = Vec::new();
    while let Some(block) = br.next_block()? {
        let mut b = block;
        if head.is_none() {
            let h = header(path, b)?;
            lines.base = count_newlines(&b[..h.start]);
            b = &b[h.start..];
            head = Some(h);
        }
        let h = head.as_ref().unwrap();
        let mut parsed = parse_chunks(b, &mut lines, |ch| parse_chunk(ch, h))?;
        // Turn local rows into vertex ids.
        let mut bases = Vec::with_capacity(parsed.parts.len());
        for p in &parsed.parts {
            bases.push(rows);
            rows += p.count_a;
        }
        for (k, p) in parsed.parts.iter_mut().enumerate() {
            spans.push(RowSpan {
                row: bases[k],
                line: parsed.block_base + parsed.bases[k] + 1,
                comments: std::mem::take(&mut p.offs),
            });
            if bases[k] + p.count_a > h.n {
                // Rows beyond the n-th must be empty.
                let first_bad = h.n.saturating_sub(bases[k]);
                if let Some(&r) = p.src.iter().find(|&&r| r as u64 >= first_bad) {
                    let off = row_offset(parsed.chunks[k], r as u64);
                    let l = Lines {
                        path: path.to_path_buf(),
                        base: parsed.block_base,
                    };
                    let e = l.error(
                        parsed.bases[k],
                        parsed.chunks[k],
                        off,
                        format!(
                            "adjacency row {} is beyond the n = {} vertices declared by the header",
                            bases[k] + r as u64 + 1,
                            h.n
                        ),
                    );
                    return Err(e);
                }
            }
        }
        parsed
            .parts
            .par_iter_mut()
            .zip(bases)
            .for_each(|(p, base)| p.src.iter_mut().for_each(|r| *r += base as u32));
        cols.append(parsed.parts, read.get());
    }
    let Some(h) = head else {
        return Err(WealdError::parse(
            path,
            1,
            "empty file: missing header line `n m [fmt [ncon]]`",
        ));
    };
    let (lt, loops) = match unmatched(&cols, h.edge_w) {
        Ok(counts) => counts,
        Err(e) => return Err(e.error(path, &spans)),
    };
    if lt + loops != h.m {
        return Err(WealdError::parse(
            path,
            h.line,
            format!(
                "header declares m = {} edges (field 2) but the adjacency lists hold {} ({} entries)",
                h.m,
                lt + loops,
                cols.src.len()
            ),
        ));
    }
    let directed = opts.directed.unwrap_or(false);
    if !directed {
        keep_lower(&mut cols, h.edge_w);
    }
    let weighted = h.edge_w && opts.weighted != Some(false);
    if opts.weighted == Some(true) && !h.edge_w {
        cols.w = vec![1.0; cols.src.len()];
        cols.all_int = true;
    }
    Ok(finish(
        cols,
        h.n as usize,
        directed,
        weighted || opts.weighted == Some(true),
        WeightMode::Infer,
        false,
    ))
}

/// Keep entries with `u <= v` (each undirected edge once), in order.
fn keep_lower(cols: &mut Columns, weighted: bool) {
    let idx = weald_graph::parallel::pack_index(cols.src.len(), |i| cols.src[i] <= cols.dst[i]);
    cols.src = idx.par_iter().map(|&i| cols.src[i as usize]).collect();
    cols.dst = idx.par_iter().map(|&i| cols.dst[i as usize]).collect();
    if weighted {
        cols.w = idx.par_iter().map(|&i| cols.w[i as usize]).collect();
    }
}

/// Where the rows of one chunk lie: the chunk's first row and line (1-based), and the row
/// index before each comment line in it.
struct RowSpan {
    row: u64,
    line: u64,
    comments: Vec<u64>,
}

/// The line of (0-based) row `r`.
fn row_line(spans: &[RowSpan], r: u64) -> u64 {
    let k = spans.partition_point(|s| s.row <= r).saturating_sub(1);
    let Some(s) = spans.get(k) else { return 0 };
    let local = r - s.row;
    s.line + local + s.comments.partition_point(|&c| c <= local) as u64
}

/// An entry whose mirror is missing: row `row` lists `nbr` (0-based) with weight `w`;
/// `mirror_w` is the weight of a mirror entry that is there with another weight.
struct Unmatched {
    row: u32,
    nbr: u32,
    w: Option<f64>,
    mirror_w: Option<f64>,
}

impl Unmatched {
    fn error(&self, path: &Path, spans: &[RowSpan]) -> WealdError {
        let (u, v) = (self.row as u64 + 1, self.nbr as u64 + 1);
        let msg = match (self.w, self.mirror_w) {
            (Some(w), Some(x)) => format!(
                "vertex {u} lists neighbour {v} with weight {w}, but vertex {v} lists {u} with \
                 weight {x}: each edge must appear in both lists with the same weight"
            ),
            (Some(w), None) => format!(
                "vertex {u} lists neighbour {v} with weight {w}, but vertex {v}'s list does not \
                 hold {u} (as often) with that weight: each edge must appear in both lists"
            ),
            _ => format!(
                "vertex {u} lists neighbour {v}, but vertex {v}'s list does not hold {u} (as \
                 often): each edge must appear in both lists"
            ),
        };
        WealdError::parse(path, row_line(spans, self.row as u64), msg)
    }
}

/// Check that the entries above the diagonal (`u < v`) and below it (`u > v`) mirror each
/// other exactly, as multisets of `(min, max[, weight])`; return their number (the undirected
/// edges that are not self loops) and the number of self loops, or an entry without its mirror.
/// A fingerprint of each side decides in one pass; only lists that differ are sorted (a `u64`
/// key and the weight's bits per entry) to find the first entry without its mirror.
fn unmatched(cols: &Columns, weighted: bool) -> std::result::Result<(u64, u64), Unmatched> {
    let (src, dst) = (&cols.src[..], &cols.dst[..]);
    let fp = ArcFingerprint::new();
    // The mirror terms sum to 0 if every entry has its mirror; with them, the entries above
    // the diagonal and the self loops.
    let each = |u: u32, v: u32, h: u64| (h, (u < v) as u64, (u == v) as u64);
    let add =
        |a: (u64, u64, u64), b: (u64, u64, u64)| (a.0.wrapping_add(b.0), a.1 + b.1, a.2 + b.2);
    // Plain loops over slices of 64 Ki entries (rayon per entry costs more than the hash).
    const SLICE: usize = 1 << 16;
    let (sum, lt, loops) = src
        .par_chunks(SLICE)
        .zip(dst.par_chunks(SLICE))
        .enumerate()
        .map(|(k, (s, d))| {
            let mut acc = (0, 0, 0);
            if weighted {
                let w = &cols.w[k * SLICE..k * SLICE + s.len()];
                for ((&u, &v), &w) in s.iter().zip(d).zip(w) {
                    acc = add(acc, each(u, v, fp.mirror_term(u, v, w)));
                }
            } else {
                for (&u, &v) in s.iter().zip(d) {
                    acc = add(acc, each(u, v, fp.mirror_term(u, v, ())));
                }
            }
            acc
        })
        .reduce(|| (0, 0, 0), add);
    if sum == 0 {
        return Ok((lt, loops));
    }
    let key = |u: u32, v: u32| ((u.min(v) as u64) << 32) | u.max(v) as u64;
    let row_of = |k: u64, below: bool| {
        let (lo, hi) = ((k >> 32) as u32, k as u32);
        if below {
            (hi, lo)
        } else {
            (lo, hi)
        }
    };
    // `+ 0.0` makes -0 and 0 the same weight.
    let wbits = |i: usize| (cols.w[i] + 0.0).to_bits();
    let on_side = |i: usize, below: bool| {
        if below {
            src[i] > dst[i]
        } else {
            src[i] < dst[i]
        }
    };
    // The first entry, in sorted order, of one side that the other lacks. Entries sort by
    // edge, then weight (0 unweighted).
    let sorted = |below: bool| {
        let mut s: Vec<(u64, u64)> = (0..src.len())
            .into_par_iter()
            .filter(|&i| on_side(i, below))
            .map(|i| (key(src[i], dst[i]), if weighted { wbits(i) } else { 0 }))
            .collect();
        s.par_sort_unstable();
        s
    };
    let (a, b) = (sorted(false), sorted(true));
    let odd = first_odd(&a, &b).map(|(below, i)| {
        let (mine, other) = if below { (&b, &a) } else { (&a, &b) };
        let (k, w) = mine[i];
        let (row, nbr) = row_of(k, below);
        Unmatched {
            row,
            nbr,
            w: weighted.then(|| f64::from_bits(w)),
            // The other side's entries of this edge that this side lacks: their first is the
            // mirror with another weight.
            mirror_w: lacking(run(mine, k), run(other, k))
                .filter(|_| weighted)
                .map(|e| f64::from_bits(e.1)),
        }
    });
    match odd {
        None => Ok((lt, loops)),
        Some(u) => Err(u),
    }
}

/// The first index, in order, at which sorted `a` and `b` differ as multisets: the element
/// there of one that the other lacks is `a[i]` (`(false, i)`) or `b[i]` (`(true, i)`).
fn first_odd<T: Ord + Sync>(a: &[T], b: &[T]) -> Option<(bool, usize)> {
    let common = a.len().min(b.len());
    let i = (0..common)
        .into_par_iter()
        .find_first(|&i| a[i] != b[i])
        .unwrap_or(common);
    match (a.get(i), b.get(i)) {
        (Some(x), Some(y)) => Some((y < x, i)),
        (Some(_), None) => Some((false, i)),
        (None, Some(_)) => Some((true, i)),
        (None, None) => None,
    }
}

/// The entries of sorted `x` for edge key `k`.
fn run(x: &[(u64, u64)], k: u64) -> &[(u64, u64)] {
    &x[x.partition_point(|e| e.0 < k)..x.partition_point(|e| e.0 <= k)]
}

/// The first element of sorted `y` that sorted `x` lacks (as multisets).
fn lacking<'a, T: Ord>(x: &[T], y: &'a [T]) -> Option<&'a T> {
    let mut i = 0;
    for e in y {
        while i < x.len() && x[i] < *e {
            i += 1;
        }
        if i < x.len() && x[i] == *e {
            i += 1;
        } else {
            return Some(e);
        }
    }
    None
}
