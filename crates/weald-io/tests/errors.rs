//! Bad input: each gives the right error kind with the line and field in the message.

use std::io::Write;
use std::path::{Path, PathBuf};
use weald_graph::{EdgeList, WealdError};
use weald_io::{binary, gen, load, read_edges, save, Format, LoadOptions};
use weald_storage::{BuildOptions, Csr};

fn file(dir: &tempfile::TempDir, name: &str, text: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::File::create(&p).unwrap().write_all(text).unwrap();
    p
}

/// Parse `text` (as file `name`) and return the (line, message) of the expected parse error.
fn parse_err(name: &str, text: impl AsRef<[u8]>, opts: LoadOptions) -> (u64, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, name, text.as_ref());
    match read_edges(&p, &opts) {
        Err(WealdError::Parse {
            line,
            message,
            path,
        }) => {
            assert_eq!(path, p);
            (line, message)
        }
        Ok(raw) => panic!(
            "expected a parse error for {name}, got a graph of {} edges",
            raw.edges.len()
        ),
        Err(e) => panic!("expected a parse error for {name}, got {e:?}"),
    }
}

/// Parse with the read block size set to `block` (tests that change it hold a lock, so they do
/// not reset each other's size; the size is restored even if the parse panics).
fn parse_err_with_block(block: usize, name: &str, text: &str) -> (u64, String) {
    static BLOCK_SIZE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            weald_io::text::set_block_size(weald_io::text::BLOCK);
        }
    }
    let _lock = BLOCK_SIZE.lock().unwrap_or_else(|e| e.into_inner());
    let _restore = Restore;
    weald_io::text::set_block_size(block);
    parse_err(name, text, LoadOptions::default())
}

fn weighted() -> LoadOptions {
    LoadOptions {
        weighted: Some(true),
        ..Default::default()
    }
}

#[test]
fn non_numeric_id() {
    let (line, msg) = parse_err("a.txt", "# c\n1 2\n3 abc\n", LoadOptions::default());
    assert_eq!(line, 3);
    assert!(
        msg.contains("field 2 (\"abc\")") && msg.contains("vertex id"),
        "{msg}"
    );
}

#[test]
fn negative_id() {
    let (line, msg) = parse_err("a.txt", "1 2\r\n-3 4\r\n", LoadOptions::default());
    assert_eq!(line, 2);
    assert!(
        msg.contains("field 1 (\"-3\")") && msg.contains("negative"),
        "{msg}"
    );
}

#[test]
fn id_beyond_u32() {
    let (line, msg) = parse_err("a.txt", "1 2\n\n5 4294967295\n", LoadOptions::default());
    assert_eq!(line, 3);
    assert!(
        msg.contains("field 2 (\"4294967295\")") && msg.contains("exceeds"),
        "{msg}"
    );
    // The largest allowed id is fine.
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "ok.txt", b"0 4294967294\n");
    let raw = read_edges(&p, &LoadOptions::default()).unwrap();
    assert_eq!(raw.edges.num_vertices(), u32::MAX as usize);
    // and a graph of it has two vertices (ids relabelled), not 2^32 of them.
    let g = load(&p, &LoadOptions::default()).unwrap().graph;
    assert_eq!(g.original_ids(), Some(&[0, 4294967294][..]));
}

#[test]
fn missing_column() {
    let (line, msg) = parse_err("a.txt", "1 2\n3\n", LoadOptions::default());
    assert_eq!(line, 2);
    assert!(msg.contains("field 2") && msg.contains("missing"), "{msg}");
    let (line, msg) = parse_err("a.tsv", "1\t2\t5\n3\t4\n", weighted());
    assert_eq!(line, 2);
    assert!(msg.contains("field 3") && msg.contains("weight"), "{msg}");
    let (line, msg) = parse_err(
        "t.txt",
        "1 2 10\n3 4\n",
        LoadOptions {
            format: Some(Format::Temporal),
            ..Default::default()
        },
    );
    assert_eq!(line, 2);
    assert!(
        msg.contains("field 3") && msg.contains("timestamp"),
        "{msg}"
    );
}

#[test]
fn nan_and_inf_weights() {
    for bad in ["nan", "NaN", "inf", "-inf", "infinity"] {
        let (line, msg) = parse_err("w.txt", format!("1 2 1.5\n2 3 {bad}\n"), weighted());
        assert_eq!(line, 2, "{bad}");
        assert!(
            msg.contains(&format!("field 3 (\"{bad}\")")) && msg.contains("finite"),
            "{msg}"
        );
    }
}

/// An empty CSV field shifted the next column into its place (`1,,5` loaded as the edge
/// 1-5), and a first line with a number and a typo (`1 2a`) was skipped as a header.
#[test]
fn empty_csv_fields_and_a_mistyped_first_line_are_errors() {
    for (name, text, opts, at, field) in [
        (
            "q.csv",
            "src,dst,w\n1,,5\n2,3,2\n",
            LoadOptions::default(),
            2,
            "field 2",
        ),
        ("q.csv", "1,2,,4\n", weighted(), 1, "field 3"),
        ("q.csv", "1, ,5\n", LoadOptions::default(), 1, "field 2"),
        (
            "t.txt",
            "1 2a\n2 3\n3 4\n",
            LoadOptions::default(),
            1,
            "field 2 (\"2a\")",
        ),
    ] {
        let (line, msg) = parse_err(name, text, opts);
        assert_eq!(line, at, "{text:?}: {msg}");
        assert!(msg.contains(field), "{text:?}: {msg}");
    }
    // Runs of spaces and tabs (aligned columns) and one comma with spaces still parse.
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "a.tsv", b"1\t\t2\n3  ,  4\n5 ,6\n");
    assert_eq!(
        read_edges(&p, &LoadOptions::default()).unwrap().edges.len(),
        3
    );
}

#[test]
fn csv_header_and_bad_weight() {
    let (line, msg) = parse_err("w.csv", "src,dst,w\n1,2,3\n2,3,x\n", weighted());
    assert_eq!(line, 3);
    assert!(msg.contains("field 3 (\"x\")"), "{msg}");
}

/// A first line that is not numeric is a header only if it is text: a binary file (here a
/// Weald binary graph read as an edge list, whose bytes hold no newline) had been skipped as
/// one long header line and loaded as an empty graph.
#[test]
fn binary_first_line_is_not_a_header() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(binary_file(&dir)).unwrap();
    for (name, text) in [
        ("g.txt", bytes.clone()),
        ("g.csv", bytes[..40].to_vec()),
        ("z.txt", b"src dst\x00\x01\n1 2\n".to_vec()),
        ("t.txt", b"id1 id2\x1b[31m\n".to_vec()),
    ] {
        let (line, msg) = parse_err(name, &text, LoadOptions::default());
        assert_eq!(line, 1, "{name}: {msg}");
        assert!(msg.contains("is not text"), "{name}: {msg}");
    }
    // Classic Mac line endings: the whole file is one line, a header, a comment (which hid
    // every record) or a first record (after which nothing was read).
    for (text, at) in [
        ("source target\r1 2\r2 3\r", 1),
        ("# Nodes: 4\r1 2\r2 3\r", 1),
        ("% c\n1 2\r3 4\r5 6\r", 2),
    ] {
        let (line, msg) = parse_err("cr.txt", text, LoadOptions::default());
        assert_eq!(line, at, "{text:?}");
        assert!(msg.contains("carriage return"), "{msg}");
    }
    // A bare \r after the first record hid the records after it on its "line" (they were
    // skipped as the record's ignored columns, or the line as a comment): now an error there.
    for (text, opts, at) in [
        ("0 1\n1 2\r2 3\r3 4\r4 5\n5 6\n", LoadOptions::default(), 2),
        ("0 1\n\r2 3\n", LoadOptions::default(), 2),
        ("0 1 5\n1 2 6\r2 3 7\r3 4 8\n", weighted(), 2),
        ("0 1\n# c\r2 3\n", LoadOptions::default(), 2),
    ] {
        let (line, msg) = parse_err("cr.txt", text, opts);
        assert_eq!(line, at, "{text:?}");
        assert!(msg.contains("carriage return"), "{text:?}: {msg}");
    }
    // CRLF endings (doubled too) and blank CRLF lines still load.
    let p = file(&dir, "crlf.txt", b"# c\r\n0 1\r\n\r\n1 2 x\r\r\n");
    assert_eq!(
        read_edges(&p, &LoadOptions::default()).unwrap().edges.len(),
        2
    );
    // Another format's first line: a Matrix Market banner; a KONECT bipartite file.
    let (line, msg) = parse_err(
        "m.txt",
        "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 0.5\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 1);
    assert!(msg.contains("Matrix Market"), "{msg}");
    let (line, msg) = parse_err(
        "out.b.konect",
        "% bip unweighted\n% 3 2 2\n1 1\n1 2\n2 1\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 1);
    assert!(msg.contains("bipartite"), "{msg}");
    let p = file(&dir, "mw.konect", b"% sym multiweighted\n1 2 5\n2 3 7\n");
    assert_eq!(
        read_edges(&p, &LoadOptions::default())
            .unwrap()
            .edges
            .weight_name(),
        "i32"
    );
    // Headers that are text still load: tabs, CRLF, UTF-8 and an 8-bit encoding (Latin-1).
    for head in [
        &b"source\ttarget\r\n"[..],
        "Quelle,Ziel,Gewicht\n".as_bytes(),
        b"Gr\xf6\xdfe x\n",
    ] {
        let p = file(&dir, "h.txt", &[head, b"1 2\n2 3\n"].concat());
        assert_eq!(
            read_edges(&p, &LoadOptions::default()).unwrap().edges.len(),
            2
        );
    }
    // A header alone is an empty graph, as before.
    let p = file(&dir, "e.csv", b"src,dst\n");
    assert_eq!(
        read_edges(&p, &LoadOptions::default()).unwrap().edges.len(),
        0
    );
}

#[test]
fn mtx_size_line_disagrees() {
    let head = "%%MatrixMarket matrix coordinate pattern general\n% comment\n3 3 4\n";
    let (line, msg) = parse_err(
        "m.mtx",
        format!("{head}1 2\n2 3\n3 1\n"),
        LoadOptions::default(),
    );
    assert_eq!(line, 3, "the size line");
    assert!(
        msg.contains("size line") && msg.contains("4") && msg.contains("3"),
        "{msg}"
    );
    // An index beyond the declared rows: error on the entry's line.
    let (line, msg) = parse_err(
        "m.mtx",
        format!("{head}1 2\n4 3\n3 1\n1 1\n"),
        LoadOptions::default(),
    );
    assert_eq!(line, 5);
    assert!(
        msg.contains("field 1 (\"4\")") && msg.contains("3 rows"),
        "{msg}"
    );
    let (line, msg) = parse_err(
        "m.mtx",
        format!("{head}1 2\n0 3\n3 1\n1 1\n"),
        LoadOptions::default(),
    );
    assert_eq!(line, 5);
    assert!(
        msg.contains("field 1 (\"0\")") && msg.contains("1-based"),
        "{msg}"
    );
    let (line, msg) = parse_err(
        "m.mtx",
        "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 x\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 3);
    assert!(msg.contains("field 3 (\"x\")"), "{msg}");
}

#[test]
fn dimacs_errors() {
    let (line, msg) = parse_err("d.gr", "c x\np sp 3 2\na 1 2 5\n", LoadOptions::default());
    assert_eq!(line, 2);
    assert!(msg.contains("m = 2") && msg.contains("holds 1"), "{msg}");
    let (line, msg) = parse_err(
        "d.gr",
        "p sp 3 2\na 1 2 5\na 1 4 5\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 3);
    assert!(msg.contains("field 3 (\"4\")"), "{msg}");
    let (line, msg) = parse_err(
        "d.gr",
        "p sp 3 2\na 1 2 5\na 1 3 2.5\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 3);
    assert!(
        msg.contains("field 4 (\"2.5\")") && msg.contains("integer"),
        "{msg}"
    );
    let (line, _) = parse_err("d.gr", "a 1 2 5\n", LoadOptions::default());
    assert_eq!(line, 1);
    // Exactly four fields per arc (and in the problem line): extra ones were ignored.
    let (line, msg) = parse_err(
        "d.gr",
        "p sp 3 2\na 1 2 5\na 1 3 2 8\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 3);
    assert!(msg.contains("field 5 (\"8\")"), "{msg}");
    let (line, msg) = parse_err(
        "d.gr",
        "p sp 3 2\na 1 2 5\ra 1 3 2\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 2);
    assert!(msg.contains("carriage return"), "{msg}");
    let (line, msg) = parse_err(
        "d.gr",
        "p sp 3 2\nc x\ra 1 2 5\na 1 3 2\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 2);
    assert!(msg.contains("carriage return"), "{msg}");
    let (line, msg) = parse_err("d.gr", "p sp 3 2 9\na 1 2 5\n", LoadOptions::default());
    assert_eq!(line, 1);
    assert!(msg.contains("exactly"), "{msg}");
}

#[test]
fn metis_errors() {
    // m disagrees with the lists.
    let (line, msg) = parse_err("g.graph", "% c\n3 3\n2 3\n1\n1\n", LoadOptions::default());
    assert_eq!(line, 2);
    assert!(msg.contains("m = 3") && msg.contains("field 2"), "{msg}");
    // A neighbour beyond n.
    let (line, msg) = parse_err("g.graph", "3 2\n2 3\n1 4\n1\n", LoadOptions::default());
    assert_eq!(line, 3);
    assert!(msg.contains("field 2 (\"4\")"), "{msg}");
    // A non-empty row beyond n.
    let (line, msg) = parse_err("g.graph", "2 1\n2\n1\n1\n", LoadOptions::default());
    assert_eq!(line, 4);
    assert!(msg.contains("row 3"), "{msg}");
    // Missing edge weight with fmt 1.
    let (line, msg) = parse_err("g.graph", "2 1 1\n2 5\n1\n", LoadOptions::default());
    assert_eq!(line, 3);
    assert!(msg.contains("field 2") && msg.contains("weight"), "{msg}");
    // A lone carriage return hid the rest of its row; `\r\n` endings are fine.
    let (line, msg) = parse_err("g.graph", "3 2\n2 3\r1\n1\n", LoadOptions::default());
    assert_eq!(line, 2);
    assert!(msg.contains("carriage return"), "{msg}");
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "crlf.graph", b"3 2\r\n2 3\r\n1\r\n1\r\n");
    assert_eq!(
        read_edges(&p, &LoadOptions::default()).unwrap().edges.len(),
        2
    );
}

/// METIS lists must mirror each other entry for entry (and weight for weight); only the counts
/// were compared, so lists that disagreed loaded the wrong edges with exit 0. The error names
/// the line of the row holding the entry without its mirror.
#[test]
fn metis_lists_must_mirror_each_other() {
    // Counts agree (3 above, 3 below the diagonal), edges do not: 3 lists 2, 2 does not list 3.
    let (line, msg) = parse_err("g.graph", "4 3\n2\n1 4\n2 4\n3\n", LoadOptions::default());
    assert_eq!(line, 4, "{msg}");
    assert!(
        msg.contains("vertex 3 lists neighbour 2") && msg.contains("vertex 2's list"),
        "{msg}"
    );
    // Comment lines before and among the rows count as lines, not rows.
    let (line, msg) = parse_err(
        "g.graph",
        "% c\n4 2\n\n% mid\n\n1 4\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 6, "{msg}");
    assert!(msg.contains("vertex 3 lists neighbour 1"), "{msg}");
    // The same weight both ways.
    let (line, msg) = parse_err("g.graph", "2 1 1\n2 5\n1 7\n", LoadOptions::default());
    assert_eq!(line, 2, "{msg}");
    assert!(
        msg.contains("vertex 1 lists neighbour 2 with weight 5")
            && msg.contains("vertex 2 lists 1 with weight 7"),
        "{msg}"
    );
    // The mirror's weight named is one that this side lacks (2 is on both sides).
    let (line, msg) = parse_err(
        "g.graph",
        "2 2 1\n2 1 2 2\n1 2 1 3\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 2, "{msg}");
    assert!(
        msg.contains("vertex 1 lists neighbour 2 with weight 1")
            && msg.contains("vertex 2 lists 1 with weight 3"),
        "{msg}"
    );
    // A lone carriage return in a comment hid the row after it.
    let (line, msg) = parse_err("g.graph", "2 1\n% c\r2\n1\n", LoadOptions::default());
    assert_eq!(line, 2, "{msg}");
    assert!(msg.contains("carriage return"), "{msg}");
    // A repeated entry needs a repeated mirror.
    let (line, msg) = parse_err("g.graph", "2 1\n2 2\n1\n", LoadOptions::default());
    assert_eq!(line, 2, "{msg}");
    assert!(msg.contains("as often"), "{msg}");
    // Mirrored lists in any order, with self loops and weights, load.
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "ok.graph", b"3 4 1\n3 2 2 4\n3 4 1 4 2 9\n2 4 1 2\n");
    let raw = read_edges(&p, &LoadOptions::default()).unwrap();
    assert_eq!(raw.edges.len(), 4);
}

/// Deep in a large file, across chunks and blocks, the row's line is exact.
#[test]
fn metis_mirror_error_line_is_exact_across_blocks() {
    // A path 1 - 2 - ... - n, with a comment every 1000 rows; row `bad` lacks its lower
    // neighbour (and the header's m counts that).
    let (n, bad) = (200_000u64, 150_001u64);
    let mut text = format!("% path\n{n} {}\n", n - 1);
    let mut line = 2;
    let mut bad_line = 0;
    for v in 1..=n {
        if v % 1000 == 0 {
            text.push_str("% every thousand\n");
            line += 1;
        }
        line += 1;
        let mut row = Vec::new();
        if v > 1 && v != bad {
            row.push((v - 1).to_string());
        }
        if v < n {
            row.push((v + 1).to_string());
        }
        if v == bad - 1 {
            bad_line = line;
        }
        text.push_str(&row.join(" "));
        text.push('\n');
    }
    // Vertex bad - 1 lists bad, which does not list it back.
    for block in [weald_io::text::BLOCK, 100_000, 4096] {
        let (line, msg) = parse_err_with_block(block, "big.graph", &text);
        assert_eq!(line, bad_line, "block {block}: {msg}");
        assert!(
            msg.contains(&format!("vertex {} lists neighbour {bad}", bad - 1)),
            "{msg}"
        );
    }
}

/// Matrix Market entries have exactly the banner's fields, and a symmetric matrix holds one
/// triangle; extra columns were ignored and both triangles were merged.
#[test]
fn mtx_entries_are_exact_and_symmetric_files_hold_one_triangle() {
    let pattern = "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n";
    let (line, msg) = parse_err(
        "m.mtx",
        format!("{pattern}1 2\n2 3 7\n"),
        LoadOptions::default(),
    );
    assert_eq!(line, 4);
    assert!(
        msg.contains("field 3 (\"7\")") && msg.contains("`pattern` entry is `i j`"),
        "{msg}"
    );
    let int = "%%MatrixMarket matrix coordinate integer general\n3 3 1\n";
    let (line, msg) = parse_err("m.mtx", format!("{int}1 2 3 4\n"), LoadOptions::default());
    assert_eq!(line, 3);
    assert!(msg.contains("field 4 (\"4\")"), "{msg}");
    // Values are checked even when they are dropped.
    let unweighted = LoadOptions {
        weighted: Some(false),
        ..Default::default()
    };
    let (line, msg) = parse_err("m.mtx", format!("{int}1 2 x\n"), unweighted.clone());
    assert_eq!(line, 3);
    assert!(msg.contains("field 3 (\"x\")"), "{msg}");
    // A lone carriage return hides the rest of the line.
    let (line, msg) = parse_err(
        "m.mtx",
        format!("{pattern}1 2\r2 3\n"),
        LoadOptions::default(),
    );
    assert_eq!(line, 3);
    assert!(msg.contains("carriage return"), "{msg}");
    // Both triangles of a symmetric matrix: an entry whose mirror came before is the error.
    let sym = "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n3 3 4\n";
    let (line, msg) = parse_err(
        "m.mtx",
        format!("{sym}1 1\n2 1\n3 1\n% c\n\n1 3\n"),
        LoadOptions::default(),
    );
    assert_eq!(line, 9, "{msg}");
    assert!(
        msg.contains("entry (1, 3) mirrors (3, 1) on line 6"),
        "{msg}"
    );
    // A symmetric matrix is square: a 3 x 4 one is refused at its size line.
    let (line, msg) = parse_err(
        "m.mtx",
        "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n3 4 1\n4 1\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 3, "{msg}");
    assert!(
        msg.contains("a `symmetric` matrix is square, but this one has 3 rows and 4 columns"),
        "{msg}"
    );
    // Each entry once, in the lower triangle, the upper or both, loads the same graph.
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("l.mtx", "1 1\n2 1\n3 1\n3 2\n"),
        ("u.mtx", "1 1\n1 2\n1 3\n2 3\n"),
        ("x.mtx", "1 1\n1 2\n3 1\n2 3\n"),
    ];
    for (name, entries) in cases {
        let p = file(&dir, name, format!("{sym}{entries}").as_bytes());
        let g = load(&p, &LoadOptions::default()).unwrap().graph;
        assert_eq!(g.num_edges(), 4, "{name}");
    }
    // Values read unweighted are numbers (any, even beyond i32), not checked as weights.
    let big = format!("{int}1 2 99999999999\n");
    let p = file(&dir, "i.mtx", big.as_bytes());
    assert_eq!(read_edges(&p, &unweighted).unwrap().edges.len(), 1);
    let (line, _) = parse_err("i.mtx", &big, LoadOptions::default());
    assert_eq!(line, 3);
}

/// Deep in a large symmetric file, the line of the entry that crosses over is exact.
#[test]
fn mtx_triangle_error_line_is_exact_across_blocks() {
    let k = 200_000u64;
    let mut text = format!(
        "%%MatrixMarket matrix coordinate pattern symmetric\n{} {} {k}\n",
        k + 1,
        k + 1
    );
    // Entry `bad` mirrors the first one, `2 1` on line 3.
    let bad = 150_000u64;
    for i in 1..=k {
        if i == bad {
            text.push_str("1 2\n");
        } else {
            text.push_str(&format!("{} {}\n", i + 1, i));
        }
    }
    for block in [weald_io::text::BLOCK, 100_000] {
        let (line, msg) = parse_err_with_block(block, "big.mtx", &text);
        assert_eq!(line, bad + 2, "block {block}: {msg}");
        assert!(
            msg.contains("entry (1, 2) mirrors (2, 1) on line 3"),
            "{msg}"
        );
    }
}

/// Header lines quoted in METIS and Matrix Market messages show control bytes escaped, never
/// as they are (a binary file's bytes reached the terminal).
#[test]
fn header_messages_escape_control_bytes() {
    let mtx = "%%MatrixMarket matrix coordinate pattern general\n3 \x1b[2J 4\n";
    let cases = [
        ("g.graph", "3 2 \x07\x1b\n".to_string(), "\\u{7}\\u{1b}"),
        ("g.graph", "3 \x00 1 1 1\n".to_string(), "\\u{0}"),
        ("g.mtx", mtx.to_string(), "\\u{1b}[2J"),
    ];
    for (name, text, shown) in cases {
        let (line, msg) = parse_err(name, text, LoadOptions::default());
        assert!(line <= 2, "{name}: {line} {msg}");
        assert!(msg.contains(shown), "{name}: {msg}");
        assert!(!msg.chars().any(|c| c.is_control()), "{name}: {msg:?}");
    }
}

#[test]
fn ligra_errors() {
    // n + 2m wrapped past u64::MAX: the header declared 2^63 edges and the file loaded empty.
    let (line, msg) = parse_err(
        "g.adj",
        "WeightedAdjacencyGraph\n0\n9223372036854775808\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 3, "the line of m");
    assert!(msg.contains("more than a file can hold"), "{msg}");
    let (line, msg) = parse_err(
        "g.adj",
        "AdjacencyGraph\n2\n2\n0\n1\n1\n",
        LoadOptions::default(),
    );
    assert!(msg.contains("declares 4") && line >= 6, "{line} {msg}");
    let (line, msg) = parse_err(
        "g.adj",
        "AdjacencyGraph\n2\n2\n0\n1\n1\n7\n",
        LoadOptions::default(),
    );
    assert_eq!(line, 7);
    assert!(
        msg.contains("value 7 (\"7\")") && msg.contains("below n"),
        "{msg}"
    );
    let (line, _) = parse_err("g.adj", "Adjacency\n2\n2\n", LoadOptions::default());
    assert_eq!(line, 1);
}

/// An offset smaller than the one before it is an error on its line, also where the two lie
/// in different blocks (that case was reported at line 0).
#[test]
fn ligra_offset_order_error_line_is_exact_across_blocks() {
    let n = 3000u64;
    let bad = 2000u64;
    let mut text = format!("AdjacencyGraph\n{n}\n{n}\n");
    for v in 0..n {
        let o = if v == bad { v - 2 } else { v };
        text.push_str(&format!("{o}\n"));
    }
    for v in 0..n {
        text.push_str(&format!("{}\n", (v + 1) % n));
    }
    // Tiny blocks put the offset at the start of a block for some of these sizes (without the
    // check across blocks, the test overflowed computing a degree).
    for block in (64..80).chain([84, 102, 153, 154, 184, weald_io::text::BLOCK]) {
        let (line, msg) = parse_err_with_block(block, "g.adj", &text);
        assert_eq!(line, bad + 4, "block {block}: {msg}");
        assert!(
            msg.contains(&format!("value {} (\"{}\")", bad + 4, bad - 2))
                && msg.contains("non-decreasing"),
            "block {block}: {msg}"
        );
    }
}

fn binary_file(dir: &tempfile::TempDir) -> PathBuf {
    let (g, _) = Csr::build(
        gen::add_weights_int(&gen::uniform(50, 400, 1), 1, 9, 1),
        &BuildOptions {
            directed: true,
            ..Default::default()
        },
    )
    .unwrap();
    let p = dir.path().join("g.wgb");
    save(&g.into(), &p, None).unwrap();
    p
}

fn format_err(p: &Path) -> String {
    match load(p, &LoadOptions::default()) {
        Err(WealdError::Format { message, .. }) => message,
        other => panic!("expected a format error, got {other:?}"),
    }
}

#[test]
fn truncated_binary() {
    let dir = tempfile::tempdir().unwrap();
    let p = binary_file(&dir);
    let bytes = std::fs::read(&p).unwrap();
    for keep in [bytes.len() - 1, bytes.len() / 2, 100, 40, 7] {
        std::fs::write(&p, &bytes[..keep]).unwrap();
        let msg = format_err(&p);
        assert!(msg.contains("truncated"), "{keep}: {msg}");
    }
}

/// Apply `edit` to the bytes of section `kind` of a binary graph file and fix its checksums,
/// as a crafted (not a damaged) file would be.
fn reseal(bytes: &mut [u8], kind: u32, edit: impl FnOnce(&mut [u8])) {
    let u32_at = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    let k = u32_at(bytes, 32) as usize;
    let e = (0..k)
        .map(|i| 64 + 32 * i)
        .find(|&e| u32_at(bytes, e) == kind)
        .expect("the section is present");
    let (off, len) = (
        u64_at(bytes, e + 8) as usize,
        u64_at(bytes, e + 16) as usize,
    );
    edit(&mut bytes[off..off + len]);
    let crc = crc32fast::hash(&bytes[off..off + len]);
    bytes[e + 24..e + 28].copy_from_slice(&crc.to_le_bytes());
    let mut h = crc32fast::Hasher::new();
    h.update(&bytes[..36]);
    h.update(&bytes[64..64 + 32 * k]);
    let head = h.finalize();
    bytes[36..40].copy_from_slice(&head.to_le_bytes());
}

/// A binary graph whose checksums hold but whose sides disagree, or with bytes after its last
/// section, is refused: it had loaded (an "undirected" graph with one-way arcs, in-arcs that
/// are not the out-arcs reversed).
#[test]
fn binary_sides_must_agree_and_nothing_may_follow() {
    let dir = tempfile::tempdir().unwrap();
    let p = binary_file(&dir);
    let bytes = std::fs::read(&p).unwrap();
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 10]);
    std::fs::write(&p, &longer).unwrap();
    let msg = format_err(&p);
    assert!(msg.contains("10 bytes follow the last section"), "{msg}");
    // Directed, with in-arcs: change the weight of one in-arc (section 6, i32 weights).
    let mut b = bytes.clone();
    reseal(&mut b, 6, |w| w[0] = w[0].wrapping_add(1));
    std::fs::write(&p, &b).unwrap();
    let msg = format_err(&p);
    assert!(
        msg.contains("in-arcs are not the out-arcs reversed"),
        "{msg}"
    );
    // The unchanged file loads, and so does one resealed without a change.
    let mut b = bytes.clone();
    reseal(&mut b, 6, |_| {});
    std::fs::write(&p, &b).unwrap();
    load(&p, &LoadOptions::default()).unwrap();
    // Undirected: the reverse of one arc gets another weight (section 3).
    let (g, _) = Csr::build(
        gen::add_weights_int(&gen::uniform(50, 400, 1), 1, 9, 1),
        &BuildOptions::default(),
    )
    .unwrap();
    let q = dir.path().join("u.wgb");
    save(&g.into(), &q, None).unwrap();
    let bytes = std::fs::read(&q).unwrap();
    let mut b = bytes.clone();
    reseal(&mut b, 3, |w| w[0] = w[0].wrapping_add(1));
    std::fs::write(&q, &b).unwrap();
    let msg = format_err(&q);
    assert!(msg.contains("not symmetric"), "{msg}");
    // A target moved to another vertex (still sorted and in range): vertex 0's first
    // neighbour becomes 0, a self loop, and the arc back to 0 loses its reverse.
    let mut b = bytes.clone();
    reseal(&mut b, 2, |t| {
        assert_ne!(t[..4], [0; 4], "vertex 0 has no self loop to begin with");
        t[..4].copy_from_slice(&0u32.to_le_bytes())
    });
    std::fs::write(&q, &b).unwrap();
    let msg = format_err(&q);
    assert!(msg.contains("not symmetric"), "{msg}");
}

/// A binary graph's id map must be strictly increasing and within the supported ids, and its
/// f64 weights finite, as every text reader requires: a map with one id twice had loaded (two
/// vertices then written as one), so had the id 2^32 - 1 and NaN weights, each written out as
/// no reader reads back.
#[test]
fn binary_id_map_and_weights_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let sparse = |el: EdgeList<f64>| EdgeList {
        num_vertices: el.num_vertices * 5 + 2,
        src: el.src.iter().map(|&v| v * 5 + 2).collect(),
        dst: el.dst.iter().map(|&v| v * 5 + 2).collect(),
        weights: el.weights,
    };
    let (g, _) = Csr::build(
        sparse(gen::add_weights_float(
            &gen::uniform(50, 400, 1),
            0.5,
            2.0,
            1,
        )),
        &BuildOptions {
            relabel: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(g.original_ids().unwrap()[..5], [2, 7, 12, 17, 22]);
    let p = dir.path().join("ids.wgb");
    save(&g.into(), &p, None).unwrap();
    let bytes = std::fs::read(&p).unwrap();
    load(&p, &LoadOptions::default()).unwrap();
    type Edit = Box<dyn Fn(&mut [u8])>;
    let cases: [(&str, Edit, u32); 4] = [
        (
            "not strictly increasing: vertex 3 has id 17, vertex 4 id 17",
            Box::new(|ids| {
                let third = ids[12..16].to_vec();
                ids[16..20].copy_from_slice(&third)
            }),
            7,
        ),
        (
            "not strictly increasing: vertex 0 has id 12",
            Box::new(|ids| ids[..4].copy_from_slice(&12u32.to_le_bytes())),
            7,
        ),
        (
            "the id 4294967295, above the largest supported id 4294967294",
            Box::new(|ids| {
                let k = ids.len();
                ids[k - 4..].copy_from_slice(&u32::MAX.to_le_bytes())
            }),
            7,
        ),
        (
            "holds a weight that is not a finite number",
            Box::new(|w| w[..8].copy_from_slice(&f64::NAN.to_le_bytes())),
            3,
        ),
    ];
    for (says, edit, kind) in cases {
        let mut b = bytes.clone();
        reseal(&mut b, kind, |s| edit(s));
        std::fs::write(&p, &b).unwrap();
        let msg = format_err(&p);
        assert!(msg.contains(says), "{says}: {msg}");
    }
}

#[test]
fn wrong_magic() {
    let dir = tempfile::tempdir().unwrap();
    let p = binary_file(&dir);
    let mut bytes = std::fs::read(&p).unwrap();
    bytes[0] = b'X';
    std::fs::write(&p, &bytes).unwrap();
    assert!(format_err(&p).contains("magic"));
    // A text file named .wgb.
    std::fs::write(&p, b"1 2\n2 3\n").unwrap();
    assert!(format_err(&p).contains("magic"));
    // A gzipped binary graph says so (the magic bytes it named were gzip's).
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(&std::fs::read(binary_file(&dir)).unwrap())
        .unwrap();
    std::fs::write(&p, z.finish().unwrap()).unwrap();
    let msg = format_err(&p);
    assert!(
        msg.contains("gzip-compressed: decompress it first"),
        "{msg}"
    );
}

#[test]
fn wrong_version() {
    let dir = tempfile::tempdir().unwrap();
    let p = binary_file(&dir);
    let mut bytes = std::fs::read(&p).unwrap();
    bytes[8..12].copy_from_slice(&(binary::VERSION + 1).to_le_bytes());
    std::fs::write(&p, &bytes).unwrap();
    let msg = format_err(&p);
    assert!(msg.contains("version 2") && msg.contains("newer"), "{msg}");
}

#[test]
fn bad_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let p = binary_file(&dir);
    let mut bytes = std::fs::read(&p).unwrap();
    let last = bytes.len() - 3;
    bytes[last] ^= 0x40;
    std::fs::write(&p, &bytes).unwrap();
    let msg = format_err(&p);
    assert!(msg.contains("checksum mismatch"), "{msg}");
    // The header is protected too.
    let mut bytes = std::fs::read(&p).unwrap();
    bytes[17] ^= 1;
    std::fs::write(&p, &bytes).unwrap();
    let msg = format_err(&p);
    assert!(msg.contains("header checksum"), "{msg}");
}

/// A valid-looking header claiming 2^40 edges in a 200-byte file must fail before allocating.
#[test]
fn huge_declared_sizes_do_not_allocate() {
    let dir = tempfile::tempdir().unwrap();
    let n: u64 = 10;
    let m: u64 = 1 << 40;
    let mut head = Vec::new();
    head.extend_from_slice(&binary::MAGIC);
    head.extend_from_slice(&1u32.to_le_bytes());
    head.extend_from_slice(&1u32.to_le_bytes()); // directed, unweighted
    head.extend_from_slice(&n.to_le_bytes());
    head.extend_from_slice(&m.to_le_bytes());
    head.extend_from_slice(&2u32.to_le_bytes());
    let mut table = Vec::new();
    for (kind, elem, off, len) in [(1u32, 8u32, 128u64, (n + 1) * 8), (2, 4, 192, m * 4)] {
        table.extend_from_slice(&kind.to_le_bytes());
        table.extend_from_slice(&elem.to_le_bytes());
        table.extend_from_slice(&off.to_le_bytes());
        table.extend_from_slice(&len.to_le_bytes());
        table.extend_from_slice(&0u32.to_le_bytes());
        table.extend_from_slice(&0u32.to_le_bytes());
    }
    let mut h = crc32fast::Hasher::new();
    h.update(&head);
    h.update(&table);
    head.extend_from_slice(&h.finalize().to_le_bytes());
    head.resize(64, 0);
    let mut bytes = head;
    bytes.extend_from_slice(&table);
    bytes.resize(200, 0);
    let p = file(&dir, "huge.wgb", &bytes);
    let msg = format_err(&p);
    assert!(
        msg.contains("truncated") && msg.contains("200 bytes"),
        "{msg}"
    );
}

#[test]
fn empty_file_is_an_empty_graph() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["e.txt", "e.csv", "e.tsv"] {
        let p = file(&dir, name, b"");
        let g = load(&p, &LoadOptions::default()).unwrap().graph;
        assert_eq!(g.num_vertices(), 0);
        assert_eq!(g.num_arcs(), 0);
    }
    // Comments only.
    let p = file(&dir, "c.txt", b"# nothing\n% here\n\n");
    assert_eq!(
        load(&p, &LoadOptions::default())
            .unwrap()
            .graph
            .num_vertices(),
        0
    );
}

#[test]
fn missing_file_is_not_found() {
    let e = load(
        Path::new("/nonexistent/dir/graph.txt"),
        &LoadOptions::default(),
    )
    .unwrap_err();
    match e {
        WealdError::Io { source, path } => {
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
            assert_eq!(path, Path::new("/nonexistent/dir/graph.txt"));
        }
        other => panic!("{other:?}"),
    }
    let e = load(Path::new("/nonexistent.wgb"), &LoadOptions::default()).unwrap_err();
    assert!(
        matches!(e, WealdError::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    );
}

#[test]
fn unknown_extension_is_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "g.xyz", b"1 2\n");
    assert!(matches!(
        load(&p, &LoadOptions::default()),
        Err(WealdError::Unsupported(_))
    ));
    // Naming the format works.
    let opts = LoadOptions {
        format: Some("snap".parse().unwrap()),
        ..Default::default()
    };
    assert_eq!(load(&p, &opts).unwrap().graph.num_vertices(), 2);
}

#[test]
fn error_lines_are_exact_across_chunks_and_blocks() {
    // Many lines, so the file is split into many chunks; the fault is deep inside.
    let mut text = String::from("# header\n");
    for i in 0..300_000u32 {
        text.push_str(&format!("{i}\t{}\r\n", i + 1));
    }
    text.push_str("7 x\n");
    let (line, msg) = parse_err("big.txt", &text, LoadOptions::default());
    assert_eq!(line, 300_002);
    assert!(msg.contains("field 2 (\"x\")"), "{msg}");
    // Small blocks: the same line across block boundaries (results never depend on the block
    // size, so changing it while other tests run is harmless).
    let (line2, _) = parse_err_with_block(100_000, "big.txt", &text);
    assert_eq!(line2, 300_002);
}

/// A header declaring far more vertices than the file can describe is refused before any
/// per-vertex array is allocated.
#[test]
fn declared_vertex_count_is_bounded_by_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "huge.mtx",
            "%%MatrixMarket matrix coordinate pattern general\n4000000000 4000000000 1\n1 2\n",
        ),
        ("huge.gr", "p sp 4000000000 1\na 1 2 5\n"),
    ];
    for (name, text) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let err = weald_io::load(&p, &weald_io::LoadOptions::default()).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("declares 4000000000 vertices"),
            "{name}: {msg}"
        );
    }
}
