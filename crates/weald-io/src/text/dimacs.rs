//! DIMACS-9 shortest-path graphs (`.gr`).
//!
//! * `c ...` comment lines (and blank lines) anywhere;
//! * exactly one problem line `p sp n m` before the first arc (any problem word is accepted);
//! * arc lines `a u v w`, 1-based ids in `1..=n`, integer (`i32`) weights.
//! * The problem line and the arc lines have exactly these fields: an extra one is an error.
//!
//! The graph is directed. The number of arc lines must equal `m` (an error names the `p` line);
//! any other line is an error. `weighted = Some(false)` drops the weights.

use super::*;

struct Problem {
    n: u64,
    m: u64,
    line: u64,
    start: usize,
}

fn problem(path: &Path, block: &[u8]) -> Result<Problem> {
    for (k, (off, line)) in lines_with_offsets(block).enumerate() {
        let t = line.trim_ascii_start();
        if t.is_empty() || t[0] == b'c' {
            continue;
        }
        let lineno = k as u64 + 1;
        if t[0] != b'p' {
            return Err(WealdError::parse(
                path,
                lineno,
                "expected the problem line `p sp <n> <m>` before the first arc",
            ));
        }
        let f = fields(t);
        let n = f.get(2).and_then(|x| field_u64(x));
        let m = f.get(3).and_then(|x| field_u64(x));
        let (Some(n), Some(m), 4) = (n, m, f.len()) else {
            return Err(WealdError::parse(
                path,
                lineno,
                "problem line: expected exactly `p sp <n> <m>`, with non-negative integers n (field 3) and m (field 4)",
            ));
        };
        if n > MAX_ID + 1 {
            return Err(WealdError::parse(
                path,
                lineno,
                format!("problem line: n = {n} exceeds the u32 id space"),
            ));
        }
        let start = match block[off..].iter().position(|&b| b == b'\n') {
            Some(p) => off + p + 1,
            None => block.len(),
        };
        return Ok(Problem {
            n,
            m,
            line: lineno,
            start,
        });
    }
    Err(WealdError::parse(
        path,
        count_newlines(block) + 1,
        "missing problem line `p sp <n> <m>`",
    ))
}

fn parse_chunk(c: &[u8], n: u64, want_w: bool) -> Part {
    let mut p = Part::new(c.len() / 16 + 16);
    if want_w {
        p.w.reserve(c.len() / 16 + 16);
    }
    let mut i = 0;
    while i < c.len() {
        let line_start = i;
        skip_blanks(c, &mut i);
        if i >= c.len() {
            break;
        }
        match c[i] {
            b'\n' => {
                i += 1;
                p.lines += 1;
                continue;
            }
            b'\r' | b'c' => {
                // A lone `\r` inside a comment would hide the lines after it.
                match end_line(c, &mut i, line_start) {
                    Ok(nl) => p.lines += nl as u64,
                    Err(msg) => {
                        p.err = Some((line_start, msg));
                        return p;
                    }
                }
                continue;
            }
            b'a' if i + 1 < c.len() && (c[i + 1] == b' ' || c[i + 1] == b'\t') => {}
            b'p' => {
                p.err = Some((line_start, "a second problem line `p ...`".into()));
                return p;
            }
            _ => {
                p.err = Some((
                    line_start,
                    format!(
                        "field 1 (\"{}\"): expected an arc line `a <u> <v> <w>` or a comment `c ...`",
                        field_text(c, i)
                    ),
                ));
                return p;
            }
        }
        i += 1;
        let r = (|| -> std::result::Result<(), String> {
            let mut ids = [0u32; 2];
            for (k, id) in ids.iter_mut().enumerate() {
                let field = k + 2;
                skip_blanks(c, &mut i);
                if at_eol(c, i) {
                    return Err(missing(
                        field,
                        "a vertex id (arc lines are `a <u> <v> <w>`)",
                    ));
                }
                let start = i;
                let v = parse_id(c, &mut i, field)?;
                if v == 0 || v > n {
                    return Err(format!(
                        "field {field} (\"{}\"): expected a vertex id in 1..={n}",
                        field_text(c, start)
                    ));
                }
                *id = (v - 1) as u32;
            }
            skip_blanks(c, &mut i);
            if at_eol(c, i) {
                return Err(missing(4, "the arc weight (arc lines are `a <u> <v> <w>`)"));
            }
            let w = parse_weight(c, &mut i, 4, WeightMode::Int, &mut p.all_int)?;
            expect_line_end(c, &mut i, line_start, 5, "arc lines are `a <u> <v> <w>`")?;
            if want_w {
                p.w.push(w);
            }
            p.src.push(ids[0]);
            p.dst.push(ids[1]);
            Ok(())
        })();
        if let Err(msg) = r {
            p.err = Some((line_start, msg));
            return p;
        }
        if skip_line(c, &mut i) {
            p.lines += 1;
        }
    }
    p
}

pub fn read(path: &Path, opts: &LoadOptions) -> Result<RawEdges> {
    let src = Source::open(path)?;
    let mut br = BlockReader::new(src, opts.progress.clone());
    let mut lines = Lines {
        path: path.to_path_buf(),
        base: 0,
    };
    let want_w = opts.weighted != Some(false);
    let mut prob: Option<Problem> = None;
    let read = br.read_fraction();
    let mut cols = Columns::default();
    while let Some(block) = br.next_block()? {
        let mut b = block;
        if prob.is_none() {
            let p = problem(path, b)?;
            lines.base = count_newlines(&b[..p.start]);
            b = &b[p.start..];
            prob = Some(p);
        }
        let n = prob.as_ref().unwrap().n;
        let parts = parse_block(b, &mut lines, |ch| parse_chunk(ch, n, want_w))?;
        cols.append(parts, read.get());
    }
    let Some(prob) = prob else {
        return Err(WealdError::parse(
            path,
            1,
            "empty file: missing problem line `p sp <n> <m>`",
        ));
    };
    if cols.src.len() as u64 != prob.m {
        return Err(WealdError::parse(
            path,
            prob.line,
            format!(
                "problem line declares m = {} arcs (field 4) but the file holds {}",
                prob.m,
                cols.src.len()
            ),
        ));
    }
    let directed = opts.directed.unwrap_or(true);
    Ok(finish(
        cols,
        prob.n as usize,
        directed,
        want_w,
        WeightMode::Int,
        false,
    ))
}
