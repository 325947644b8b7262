//! Ligra adjacency graphs (`.adj`).
//!
//! ```text
//! AdjacencyGraph            (or WeightedAdjacencyGraph)
//! <n>
//! <m>
//! <o0> ... <o(n-1)>         offsets into the target list, o0 = 0, non-decreasing, <= m
//! <t0> ... <t(m-1)>         targets, 0-based
//! [<w0> ... <w(m-1)>]       weights, for the weighted variant
//! ```
//! Values are separated by any whitespace (usually one per line). The file stores out-arcs, so
//! the graph is directed by default (`directed = Some(false)` symmetrises it). The number of
//! values must match the header exactly.
//!
//! Parsing is parallel too: a first pass counts the values in each chunk, so the second pass
//! knows the global index (and hence the array) of every value it parses.

use super::*;

#[inline(always)]
fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n' || b == b'\r'
}

fn count_tokens(c: &[u8]) -> (u64, u64) {
    let mut toks = 0;
    let mut nl = 0;
    let mut prev_ws = true;
    for &b in c {
        let ws = is_ws(b);
        toks += (prev_ws && !ws) as u64;
        nl += (b == b'\n') as u64;
        prev_ws = ws;
    }
    (toks, nl)
}

struct Head {
    weighted: bool,
    n: u64,
    m: u64,
}

fn parse_chunk(c: &[u8], first: u64, h: &Head) -> Part {
    let mut p = Part::new(0);
    let (n, m) = (h.n, h.m);
    let total = n + m + if h.weighted { m } else { 0 };
    let mut g = first;
    let mut i = 0;
    let mut prev_off = 0u64;
    while i < c.len() {
        while i < c.len() && is_ws(c[i]) {
            i += 1;
        }
        if i >= c.len() {
            break;
        }
        let start = i;
        let r = (|| -> std::result::Result<(), String> {
            if g >= total {
                return Err(format!(
                    "value {} (\"{}\"): more values than the header declares (n = {n}, m = {m}{})",
                    g + 4,
                    field_text(c, start),
                    if h.weighted { ", weighted" } else { "" }
                ));
            }
            if g < n {
                let o = parse_id(c, &mut i, (g + 4) as usize).map_err(|_| {
                    format!(
                        "value {} (\"{}\"): expected a non-negative integer offset",
                        g + 4,
                        field_text(c, start)
                    )
                })?;
                if o > m || (g == 0 && o != 0) || (!p.offs.is_empty() && o < prev_off) {
                    return Err(offset_order(c, start, g, m));
                }
                prev_off = o;
                p.offs.push(o);
            } else if g < n + m {
                let v = parse_id(c, &mut i, (g + 4) as usize)
                    .map_err(|e| e.replacen("field", "value", 1))?;
                if v >= n {
                    return Err(format!(
                        "value {} (\"{}\"): target vertex id must be below n = {n}",
                        g + 4,
                        field_text(c, start)
                    ));
                }
                p.dst.push(v as u32);
            } else {
                let w = parse_weight(
                    c,
                    &mut i,
                    (g + 4) as usize,
                    WeightMode::Infer,
                    &mut p.all_int,
                )
                .map_err(|e| e.replacen("field", "value", 1))?;
                p.w.push(w);
            }
            if i < c.len() && !is_ws(c[i]) {
                return Err(format!(
                    "value {} (\"{}\"): values must be separated by whitespace",
                    g + 4,
                    field_text(c, start)
                ));
            }
            Ok(())
        })();
        if let Err(msg) = r {
            p.err = Some((start, msg));
            return p;
        }
        g += 1;
    }
    p
}

/// The message for the offset of vertex `g` (value `g + 4`, at `start` of `c`) out of order.
fn offset_order(c: &[u8], start: usize, g: u64, m: u64) -> String {
    format!(
        "value {} (\"{}\"): offset of vertex {g} must be {}",
        g + 4,
        field_text(c, start),
        if g == 0 {
            "0".to_string()
        } else {
            format!("non-decreasing and at most m = {m}")
        }
    )
}

pub fn read(path: &Path, opts: &LoadOptions) -> Result<RawEdges> {
    let src = Source::open(path)?;
    let mut br = BlockReader::new(src, opts.progress.clone());
    let mut lines = Lines {
        path: path.to_path_buf(),
        base: 0,
    };
    let mut head: Option<Head> = None;
    let mut parts: Vec<Part> = Vec::new();
    let mut tokens: u64 = 0;
    // The last offset parsed so far.
    let mut last_off: Option<u64> = None;
    while let Some(block) = br.next_block()? {
        let mut b = block;
        if head.is_none() {
            // The first three values: kind, n, m.
            let mut vals: Vec<&[u8]> = Vec::new();
            let mut i = 0;
            while vals.len() < 3 && i < b.len() {
                while i < b.len() && is_ws(b[i]) {
                    i += 1;
                }
                let s = i;
                while i < b.len() && !is_ws(b[i]) {
                    i += 1;
                }
                if i > s {
                    vals.push(&b[s..i]);
                }
            }
            let line = count_newlines(&b[..i]) + 1;
            let weighted = match vals.first() {
                Some(&b"AdjacencyGraph") => false,
                Some(&b"WeightedAdjacencyGraph") => true,
                _ => {
                    return Err(WealdError::parse(
                        path,
                        1,
                        "expected the header `AdjacencyGraph` or `WeightedAdjacencyGraph`",
                    ))
                }
            };
            let n = vals.get(1).and_then(|x| field_u64(x));
            let m = vals.get(2).and_then(|x| field_u64(x));
            let (Some(n), Some(m)) = (n, m) else {
                return Err(WealdError::parse(
                    path,
                    line,
                    "expected the vertex count n and the edge count m after the header",
                ));
            };
            if n > MAX_ID + 1 {
                return Err(WealdError::parse(
                    path,
                    line,
                    format!("n = {n} exceeds the u32 id space"),
                ));
            }
            // Each value takes at least two bytes of a file, so no file holds more than
            // u64::MAX / 2 of them; this also keeps n + m (+ m) from wrapping.
            let values = n as u128 + m as u128 * if weighted { 2 } else { 1 };
            if values > (u64::MAX / 2) as u128 {
                return Err(WealdError::parse(
                    path,
                    line,
                    format!(
                        "m = {m}: the header declares {values} values, more than a file can hold"
                    ),
                ));
            }
            lines.base = count_newlines(&b[..i]);
            b = &b[i..];
            head = Some(Head { weighted, n, m });
        }
        let h = head.as_ref().unwrap();
        let chunks = split_chunks(b);
        let counts: Vec<(u64, u64)> = chunks.par_iter().map(|c| count_tokens(c)).collect();
        let mut firsts = Vec::with_capacity(chunks.len());
        for c in &counts {
            firsts.push(tokens);
            tokens += c.0;
        }
        let ps: Vec<Part> = chunks
            .par_iter()
            .zip(&firsts)
            .map(|(c, &f)| parse_chunk(c, f, h))
            .collect();
        let mut base = 0;
        for (((c, p), cnt), &first) in chunks.iter().zip(&ps).zip(&counts).zip(&firsts) {
            // A chunk checks its own offsets; its first against the one before it here, before
            // the chunk's own error (which comes later in the file).
            if let (Some(&o), Some(prev)) = (p.offs.first(), last_off) {
                if o < prev {
                    let off = c.iter().position(|&b| !is_ws(b)).unwrap_or(0);
                    return Err(lines.error(base, c, off, offset_order(c, off, first, h.m)));
                }
            }
            if let Some((off, msg)) = &p.err {
                return Err(lines.error(base, c, *off, msg.clone()));
            }
            last_off = p.offs.last().copied().or(last_off);
            base += cnt.1;
        }
        lines.base += base;
        parts.extend(ps);
    }
    let Some(h) = head else {
        return Err(WealdError::parse(
            path,
            1,
            "empty file: expected the header `AdjacencyGraph` or `WeightedAdjacencyGraph`",
        ));
    };
    let expected = h.n + h.m + if h.weighted { h.m } else { 0 };
    if tokens != expected {
        return Err(WealdError::parse(
            path,
            lines.base + 1,
            format!(
                "the file ends after {tokens} values but the header (n = {}, m = {}) declares {expected}",
                h.n, h.m
            ),
        ));
    }
    let all_int = parts.iter().all(|p| p.all_int);
    let mut offs = Vec::new();
    let mut dsts = Vec::new();
    let mut ws = Vec::new();
    for p in parts {
        offs.push(p.offs);
        dsts.push(p.dst);
        ws.push(p.w);
    }
    use weald_graph::parallel::concat;
    let mut offs = concat(offs);
    let dst = concat(dsts);
    let w = concat(ws);
    offs.push(h.m);
    let src: Vec<u32> = (0..h.n as usize)
        .into_par_iter()
        .flat_map_iter(|v| std::iter::repeat_n(v as u32, (offs[v + 1] - offs[v]) as usize))
        .collect();
    let weighted = opts.weighted.unwrap_or(h.weighted);
    let w = if weighted && !h.weighted {
        vec![1.0; dst.len()]
    } else {
        w
    };
    let cols = Columns {
        src,
        dst,
        w,
        t: Vec::new(),
        all_int: all_int || !h.weighted,
    };
    Ok(finish(
        cols,
        h.n as usize,
        opts.directed.unwrap_or(true),
        weighted,
        WeightMode::Infer,
        false,
    ))
}
