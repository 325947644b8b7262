//! End-to-end tests of the `weald` binary: outputs, JSON keys, exit codes, error messages.

use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn weald(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_weald"))
        .args(args)
        .output()
        .expect("run weald")
}

fn data(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/graphs")
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "weald failed: {}", stderr(o));
    serde_json::from_str(stdout(o).trim()).expect("one JSON object on stdout")
}

#[test]
fn info_json_has_the_documented_keys() {
    let v = json(&weald(&[
        "-q",
        "info",
        &data("static/CA-GrQc.txt"),
        "--json",
    ]));
    assert_eq!(v["vertices"], 5242);
    assert_eq!(v["edges"], 14496);
    assert_eq!(v["directed"], false);
    assert_eq!(v["weighted"], false);
    for key in [
        "arcs",
        "self_loops",
        "duplicates_removed",
        "min_degree",
        "max_degree",
        "mean_degree",
        "load_time_s",
        "memory_bytes",
        "bytes_per_edge",
    ] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
    let d = json(&weald(&[
        "-q",
        "info",
        &data("static/wiki-Vote.txt"),
        "--directed",
        "--json",
    ]));
    assert_eq!(d["directed"], true);
    assert_eq!(d["vertices"], 7115);
    // wiki-Vote's ids run from 3 to 8297: 7115 of them are vertices.
    assert_eq!(
        (&d["ids_relabelled"], &d["max_id"]),
        (&true.into(), &8297.into())
    );
    assert_eq!(d["edges"], 103689);
    let c = json(&weald(&[
        "-q",
        "info",
        &data("static/CA-GrQc.txt"),
        "--backend",
        "ctree",
        "--json",
    ]));
    assert_eq!(c["backend"], "ctree");
    assert_eq!(c["edges"], 14496);
    assert!(c["memory_chunk_bytes"].as_u64().unwrap() > 0);
}

#[test]
fn missing_file_and_parse_errors_exit_nonzero_with_context() {
    let o = weald(&["-q", "info", "/nonexistent/graph.txt"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("/nonexistent/graph.txt"),
        "{}",
        stderr(&o)
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "0 1\n1 2\n2 x\n").unwrap();
    let o = weald(&["-q", "info", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("bad.txt:3") && e.contains("field 2"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn run_verifies_and_writes_values_in_user_ids() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bfs.tsv");
    // wiki-Vote's ids are sparse (3..8297): --out must use them, not internal ids.
    let o = weald(&[
        "-q",
        "run",
        "bfs",
        &data("static/wiki-Vote.txt"),
        "--directed",
        "--source",
        "3",
        "--verify",
        "--trials",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(
        s.contains("verification: PASS") && s.contains("median:"),
        "{s}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7115);
    assert_eq!(lines[0], "3\t0", "the source has depth 0");
    assert!(lines.iter().all(|l| l.split('\t').count() == 2));
    // An id the file does not use is named as such (it was "out of range" of 7115 vertices).
    let o = weald(&[
        "-q",
        "run",
        "bfs",
        &data("static/wiki-Vote.txt"),
        "--source",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("vertex 0 does not occur in the graph (its 7115 vertices have ids from 3 to 8297, not every id between)"),
        "{}",
        stderr(&o)
    );
    let v = json(&weald(&[
        "-q",
        "run",
        "cc",
        &data("static/CA-GrQc.txt"),
        "--json",
        "--verify",
    ]));
    assert_eq!(v["algorithm"], "cc");
    assert_eq!(v["verified"], true);
    assert_eq!(v["result"].as_f64(), Some(355.0));
    assert_eq!(v["result_name"], "components");
    assert!(v["median_s"].as_f64().unwrap() >= 0.0);
    // The text report says what the result counts.
    let o = weald(&["-q", "run", "cc", &data("static/CA-GrQc.txt")]);
    assert!(
        stdout(&o).contains("result: 355 (components)"),
        "{}",
        stdout(&o)
    );
    let v = json(&weald(&[
        "-q",
        "run",
        "bc",
        &data("static/CA-GrQc.txt"),
        "--json",
    ]));
    assert!(v["result"].is_null() && v["result_name"].is_null(), "{v}");
    assert_eq!(v["trials"].as_array().unwrap().len(), 1);
}

/// The README's first command, `weald demo`, on a small graph: every algorithm runs and is
/// verified, each single-number result says what it counts, and the streamed store recovers
/// to the streamed graph; the text report has a PASS per algorithm.
#[test]
fn demo_runs_every_algorithm_verified_and_recovers_its_stream() {
    let v = json(&weald(&["-q", "demo", "--scale", "10", "--json"]));
    let rows = v["algorithms"].as_array().unwrap();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["algorithm"].as_str().unwrap())
        .collect();
    assert_eq!(names, ALGORITHMS);
    for r in rows {
        assert_eq!(r["verified"], true, "{r}");
        assert_eq!(r["result"].is_null(), r["result_name"].is_null(), "{r}");
    }
    assert_eq!(v["vertices"], 1024, "{v}");
    assert!(v["edges"].as_u64().unwrap() > 0, "{v}");
    let st = &v["stream"];
    assert_eq!(st["recovered_matches"], true, "{st}");
    assert!(st["updates"].as_u64().unwrap() > 0, "{st}");
    let o = weald(&["-q", "demo", "--scale", "10"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.matches("  PASS").count(), names.len(), "{text}");
    assert!(
        text.contains("vertices reached = ") && !text.contains("FAIL"),
        "{text}"
    );
}

#[test]
fn weighted_algorithm_on_unweighted_graph_is_a_clear_error() {
    let o = weald(&["-q", "run", "sssp", &data("static/CA-GrQc.txt")]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("weighted"), "{}", stderr(&o));
    let o = weald(&["-q", "run", "nosuch", &data("static/CA-GrQc.txt")]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("unknown algorithm"));
}

/// PageRank that stops at its iteration limit before its tolerance fails the command (the
/// ranks are still written), and says so; `--json` reports `converged`. It exited 0 with
/// ranks that did not meet `--tol`, even with `--max-iter 0` (uniform ranks).
#[test]
fn pagerank_that_does_not_converge_fails() {
    let t = tempfile::tempdir().unwrap();
    let f = write_file(t.path(), "path.txt", &["0 1", "1 2", "2 3"]);
    let out = t.path().join("pr.tsv");
    for iters in ["0", "2"] {
        let o = weald(&[
            "-q",
            "run",
            "pagerank",
            &f,
            "--max-iter",
            iters,
            "--json",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{iters}: {}", stderr(&o));
        assert!(stderr(&o).contains("did not converge"), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        assert_eq!(v["converged"], false, "{v}");
        assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 4);
    }
    let v = json(&weald(&["-q", "run", "pagerank", &f, "--json", "--verify"]));
    assert_eq!(
        (&v["converged"], &v["verified"]),
        (&true.into(), &true.into()),
        "{v}"
    );
    for (opt, says) in [
        ("--tol=0", "--tol must be a finite number above 0 (got 0)"),
        (
            "--tol=inf",
            "--tol must be a finite number above 0 (got inf)",
        ),
        ("--damping=1", "--damping must be in (0, 1) (got 1)"),
    ] {
        let o = weald(&["-q", "run", "pagerank", &f, opt]);
        assert_eq!(o.status.code(), Some(1), "{opt}");
        assert!(stderr(&o).contains(says), "{opt}: {}", stderr(&o));
    }
}

/// `--threads` is at least 1 and at most 1024 (5000 threads on 2 cores had not finished a
/// 3-edge graph after a minute).
/// Converting a graph whose ids were relabelled to Ligra (no id map) warns that the ids
/// change; with --keep-ids, or to an edge list, nothing is lost and nothing is said.
#[test]
fn converting_relabelled_ids_to_ligra_warns() {
    let t = tempfile::tempdir().unwrap();
    let f = write_file(t.path(), "ids.txt", &["10 20", "20 30"]);
    let adj = t.path().join("ids.adj");
    let o = weald(&["-q", "convert", &f, adj.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("numbered 0 to 2 instead of the input's ids (10 to 30)"),
        "{}",
        stderr(&o)
    );
    let el = t.path().join("ids.el");
    for (out, extra) in [(&adj, "--keep-ids"), (&el, "-q")] {
        let o = weald(&["-q", "convert", &f, out.to_str().unwrap(), extra]);
        assert!(
            o.status.success() && stderr(&o).is_empty(),
            "{}",
            stderr(&o)
        );
    }
}

/// A data directory's graph keeps the id space up to its largest id, so a deleted vertex
/// below it is an id without a vertex: `info` reports `present_vertices` beside `vertices`,
/// and a query from it is refused (BFS had run from the deleted vertex).
#[test]
fn a_deleted_vertex_is_not_a_source() {
    let t = tempfile::tempdir().unwrap();
    let base = write_file(t.path(), "base.txt", &["0 1", "1 2", "2 3"]);
    let ups = write_file(t.path(), "u.txt", &["-v 1"]);
    let d = t.path().join("d");
    let ds = d.to_str().unwrap();
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        ds,
        "--base",
        &base,
        "--updates",
        &ups,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&weald(&["-q", "info", "--data", ds, "--json"]));
    assert_eq!(
        (&v["vertices"], &v["present_vertices"]),
        (&4.into(), &3.into()),
        "{v}"
    );
    assert_eq!(v["edges"], 1, "{v}");
    let o = weald(&["-q", "run", "bfs", "--data", ds, "--source", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("vertex 1 is not in the graph (deleted, or never inserted)"),
        "{}",
        stderr(&o)
    );
    let v = json(&weald(&[
        "-q", "run", "bfs", "--data", ds, "--source", "2", "--json",
    ]));
    assert_eq!(v["result"], 2.0, "{v}");
}

/// A data directory holding ids near 2^32 is read relabelled (its flat snapshot over the id
/// space would need 96 GiB): every command works, in the store's ids, and sees only the
/// present vertices. Its edge count had taken 14 s (a scan of every id).
#[test]
fn a_store_with_ids_near_2_pow_32_is_read_relabelled() {
    let t = tempfile::tempdir().unwrap();
    let ups = write_file(
        t.path(),
        "u.txt",
        &["+ 0 1", "+ 1 4294967294", "+ 4294967294 4294967294", "+v 7"],
    );
    let d = t.path().join("d");
    let ds = d.to_str().unwrap();
    let o = weald(&["-q", "stream", "--data", ds, "--updates", &ups, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["edges"], 3);
    let v = json(&weald(&["-q", "info", "--data", ds, "--json"]));
    for (k, want) in [
        ("vertices", json!(4)),
        ("present_vertices", json!(4)),
        ("edges", json!(3)),
        ("self_loops", json!(1)),
        ("ids_relabelled", json!(true)),
        ("max_id", json!(4294967294u64)),
    ] {
        assert_eq!(v[k], want, "{k}: {v}");
    }
    let out = t.path().join("depth.txt");
    let o = weald(&[
        "-q",
        "run",
        "bfs",
        "--data",
        ds,
        "--source",
        "4294967294",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "0\t2\n1\t1\n7\t-1\n4294967294\t0\n"
    );
    let o = weald(&["-q", "run", "bfs", "--data", ds, "--source", "5"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "vertex 5 does not occur in the graph (its 4 vertices have ids from 0 to 4294967294"
        ),
        "{}",
        stderr(&o)
    );
    let el = t.path().join("g.el");
    let o = weald(&["-q", "export", "--data", ds, "--out", el.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Each edge as its smaller id first (`edge_set`).
    let want = [(0, 1), (1, 4294967294), (4294967294, 4294967294)];
    assert_eq!(edge_set(&el), want.into());
}

/// A base file is stored in its own ids: a binary file's id map had been dropped (the store
/// named the file's vertices 10, 20, 30 as 0, 1, 2, so later updates in the file's ids hit
/// other vertices), and an edge list whose ids spread to 4294967294 had needed 31 GiB. Only
/// the ids the file uses become vertices, unless `--keep-ids`.
#[test]
fn a_base_file_is_stored_in_its_own_ids() {
    let t = tempfile::tempdir().unwrap();
    let el = write_file(t.path(), "s.el", &["10 20", "20 30"]);
    let wgb = t.path().join("s.wgb");
    let o = weald(&["-q", "convert", &el, wgb.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ups = write_file(t.path(), "u.txt", &["+ 30 40"]);
    for (i, base) in [el.as_str(), wgb.to_str().unwrap()].into_iter().enumerate() {
        let d = t.path().join(format!("d{i}"));
        let ds = d.to_str().unwrap();
        let o = weald(&[
            "-q",
            "stream",
            "--data",
            ds,
            "--base",
            base,
            "--updates",
            &ups,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = t.path().join(format!("e{i}.el"));
        let o = weald(&["-q", "export", "--data", ds, "--out", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            edge_set(&out),
            [(10, 20), (20, 30), (30, 40)].into(),
            "{base}"
        );
        let v = json(&weald(&["-q", "info", "--data", ds, "--json"]));
        assert_eq!(
            (&v["vertices"], &v["present_vertices"]),
            (&41.into(), &4.into())
        );
    }
    let d = t.path().join("keep");
    let ds = d.to_str().unwrap();
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        ds,
        "--base",
        &el,
        "--keep-ids",
        "--updates",
        &ups,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&weald(&["-q", "info", "--data", ds, "--json"]));
    assert_eq!(
        (&v["vertices"], &v["present_vertices"]),
        (&41.into(), &32.into())
    );
    let far = write_file(t.path(), "far.el", &["0 4294967294", "4294967294 7"]);
    let d = t.path().join("far");
    let ds = d.to_str().unwrap();
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        ds,
        "--base",
        &far,
        "--updates",
        &ups,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&weald(&[
        "-q", "run", "bfs", "--data", ds, "--source", "7", "--json",
    ]));
    assert_eq!(v["result"], 3.0, "{v}");
}

/// A directory given as the graph file, and a fractional weight in a temporal file read into
/// an i32 store, get errors that say what to do.
#[test]
fn errors_point_to_the_option_that_fixes_them() {
    let t = tempfile::tempdir().unwrap();
    let o = weald(&["-q", "info", t.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("a directory, not a graph file (a data directory is read with --data)"),
        "{}",
        stderr(&o)
    );
    let g = write_file(t.path(), "g.txt", &["0 1"]);
    for cmd in ["info", "run"] {
        let mut args = vec!["-q", cmd];
        if cmd == "run" {
            args.push("bfs");
        }
        args.extend([g.as_str(), "--version", "3"]);
        let o = weald(&args);
        assert_eq!(o.status.code(), Some(1), "{cmd}");
        assert!(
            stderr(&o).contains("--version picks a version of a data directory"),
            "{}",
            stderr(&o)
        );
    }
    let tf = write_file(t.path(), "t.txt", &["0 1 2.5 10"]);
    let d = t.path().join("d");
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        d.to_str().unwrap(),
        "--temporal",
        &tf,
        "--weighted",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("t.txt:1")
            && stderr(&o).contains("a new store takes --weight-type f64"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn threads_out_of_range_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let f = write_file(t.path(), "tri.txt", &["0 1", "1 2", "2 0"]);
    for n in ["0", "1025", "5000"] {
        let o = weald(&["--threads", n, "info", &f]);
        assert_eq!(o.status.code(), Some(2), "{n}");
        assert!(
            stderr(&o).contains(&format!("--threads must be in 1..=1024 (got {n})")),
            "{}",
            stderr(&o)
        );
    }
    let v = json(&weald(&["--threads", "64", "-q", "info", &f, "--json"]));
    assert_eq!(v["edges"], 3);
}

/// Every algorithm of `weald run`, in `--list` order.
const ALGORITHMS: [&str; 11] = [
    "bfs",
    "bc",
    "pagerank",
    "cc",
    "sssp",
    "bellman-ford",
    "tc",
    "kcore",
    "mis",
    "twohop",
    "nibble",
];

#[test]
fn run_list_names_every_algorithm() {
    let o = weald(&["run", "--list"]);
    let s = stdout(&o);
    for a in ALGORITHMS {
        assert!(
            s.lines().any(|l| l.starts_with(a)),
            "{a} missing from --list"
        );
    }
}

/// The local queries run on the C-tree backend with the same answer as on the CSR; Nibble
/// refuses a directed graph and checks its parameters.
#[test]
fn local_queries_on_both_backends() {
    let f = data("static/CA-GrQc.txt");
    for alg in ["twohop", "nibble"] {
        let mut results = Vec::new();
        for backend in ["csr", "ctree"] {
            let o = weald(&[
                "-q",
                "run",
                alg,
                &f,
                "--source",
                "3466",
                "--verify",
                "--json",
                "--backend",
                backend,
            ]);
            assert!(o.status.success(), "{alg} {backend}: {}", stderr(&o));
            let j = json(&o);
            assert_eq!(j["verified"], true, "{alg} {backend}: {j}");
            results.push(j["result"].clone());
        }
        assert_eq!(results[0], results[1], "{alg}: csr and ctree differ");
        assert!(
            results[0].as_f64().unwrap() > 0.0,
            "{alg}: {:?}",
            results[0]
        );
    }
    let o = weald(&["-q", "run", "nibble", &f, "--source", "3466", "--directed"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--undirected"), "{}", stderr(&o));
    let o = weald(&[
        "-q",
        "run",
        "nibble",
        &f,
        "--source",
        "3466",
        "--epsilon",
        "0",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("epsilon"), "{}", stderr(&o));
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

#[test]
fn generate_refuses_a_graph_that_cannot_fit_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("huge.el");
    // 2^31 vertices and 2^37 edges: over a TiB for the edge list alone.
    let o = weald(&[
        "-q",
        "generate",
        "rmat",
        "--scale",
        "31",
        "--edge-factor",
        "64",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("memory"), "{}", stderr(&o));
    assert!(!out.exists());
}

/// A weight range whose weights cannot be drawn (reversed, too wide for a float, integers
/// beyond i32) is refused before anything is generated or written.
#[test]
fn generate_refuses_bad_weight_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.el");
    for (range, why) in [
        ("-1e308..1e308", "width"),
        ("5..1", "above"),
        ("0..3000000000", "i32"),
    ] {
        let o = weald(&[
            "-q",
            "generate",
            "rmat",
            "--scale",
            "4",
            &format!("--weights={range}"),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{range}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{range}: {}", stderr(&o));
        assert!(!out.exists());
    }
}

#[test]
fn generate_is_deterministic_and_convert_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.el");
    let b = dir.path().join("b.el");
    for (p, threads) in [(&a, "1"), (&b, "2")] {
        let o = weald(&[
            "-q",
            "--threads",
            threads,
            "generate",
            "rmat",
            "--scale",
            "10",
            "--seed",
            "7",
            "--out",
            p.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(read(&a), read(&b), "same seed, different thread counts");
    let bin = dir.path().join("a.wgb");
    let back = dir.path().join("back.el");
    assert!(
        weald(&["-q", "convert", a.to_str().unwrap(), bin.to_str().unwrap()])
            .status
            .success()
    );
    assert!(weald(&[
        "-q",
        "convert",
        bin.to_str().unwrap(),
        back.to_str().unwrap()
    ])
    .status
    .success());
    assert_eq!(read(&a), read(&back));
    let info = json(&weald(&["-q", "info", bin.to_str().unwrap(), "--json"]));
    let text = json(&weald(&["-q", "info", a.to_str().unwrap(), "--json"]));
    assert_eq!(info["edges"], text["edges"]);
    assert_eq!(info["vertices"], text["vertices"]);
}

#[test]
fn bench_updates_reports_every_batch_size() {
    let v = json(&weald(&[
        "-q",
        "bench",
        "updates",
        &data("static/facebook_combined.txt.gz"),
        "--batch-sizes",
        "10,1000",
        "--trials",
        "2",
        "--json",
    ]));
    let b = v["batches"].as_array().unwrap();
    assert_eq!(b.len(), 2);
    assert_eq!(b[0]["size"], 10);
    assert!(
        b[1]["insert_eps"].as_f64().unwrap() > 0.0 && b[1]["delete_eps"].as_f64().unwrap() > 0.0
    );
    assert_eq!(v["in_place"], false);
    // A line of versions keeps what each batch's settling freed for the next batch's copy.
    assert!(b[1]["held_bytes"].as_u64().unwrap() > 0);
    // In place: the same report, on the loaded graph itself.
    let w = json(&weald(&[
        "-q",
        "bench",
        "updates",
        &data("static/facebook_combined.txt.gz"),
        "--batch-sizes",
        "100",
        "--trials",
        "3",
        "--in-place",
        "--json",
    ]));
    assert_eq!(w["in_place"], true);
    assert_eq!(w["edges"], v["edges"]);
    let b = w["batches"].as_array().unwrap();
    assert_eq!(b.len(), 1);
    assert_eq!(b[0]["insert_s"].as_array().unwrap().len(), 3);
    assert!(
        b[0]["insert_eps"].as_f64().unwrap() > 0.0 && b[0]["delete_eps"].as_f64().unwrap() > 0.0
    );
    assert_eq!(b[0]["held_bytes"], 0);
    // Aspen's tool's protocol: one batch repeated, every trial timed, means reported too.
    let a = json(&weald(&[
        "-q",
        "bench",
        "updates",
        &data("static/facebook_combined.txt.gz"),
        "--batch-sizes",
        "10,100",
        "--trials",
        "4",
        "--aspen-tool",
        "--json",
    ]));
    assert_eq!(a["sampling"], "aspen-tool");
    let b = a["batches"].as_array().unwrap();
    assert_eq!(b.len(), 2);
    for r in b {
        assert_eq!(r["insert_s"].as_array().unwrap().len(), 4);
        assert!(r["insert_eps_mean"].as_f64().unwrap() > 0.0);
        assert!(r["delete_eps_mean"].as_f64().unwrap() > 0.0);
    }
    // It draws its own batches, so it cannot continue the graph's stream.
    let out = weald(&[
        "-q",
        "bench",
        "updates",
        &data("static/facebook_combined.txt.gz"),
        "--aspen-tool",
        "--graph-seed",
        "1",
    ]);
    assert!(!out.status.success());
}

/// Writes `lines` to a file in `dir` and returns its path as a string.
fn write_file(dir: &Path, name: &str, lines: &[&str]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p.to_string_lossy().into_owned()
}

/// The edge set of an edge-list file written by `weald export` (each undirected edge once).
fn edge_set(path: &Path) -> std::collections::BTreeSet<(u32, u32)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split_whitespace().map(|x| x.parse::<u32>().unwrap());
            let (a, b) = (f.next().unwrap(), f.next().unwrap());
            (a.min(b), a.max(b))
        })
        .collect()
}

#[test]
fn stream_then_recover_versions_export_info_and_run_on_the_data_directory() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let d = dir.to_str().unwrap();
    // Batches of 2 updates: versions 1..=4 after the stream.
    let ups = write_file(
        t.path(),
        "ups.txt",
        &[
            "# a triangle, then a tail, then deletions",
            "+ 0 1",
            "+ 1 2",
            "+ 2 0",
            "+ 2 3",
            "- 0 1",
            "+ 3 4",
            "-v 2",
            "+ 4 5",
        ],
    );
    let v = json(&weald(&[
        "-q",
        "stream",
        "--data",
        d,
        "--updates",
        &ups,
        "--batch",
        "2",
        "--fsync",
        "always",
        "--json",
    ]));
    assert_eq!(v["updates"], 8);
    assert_eq!(v["created"], true);
    assert_eq!(v["version"], 4);
    // After all updates: {3-4, 4-5} (vertex 2 and its edges are gone, 0-1 deleted).
    assert_eq!(v["edges"], 2);
    for k in [
        "updates_per_s",
        "visibility_latency_us",
        "query_latency_s",
        "batches",
    ] {
        assert!(
            !v[k].is_null() || k == "query_latency_s",
            "missing {k}: {v}"
        );
    }
    assert!(v["visibility_latency_us"]["p50"].as_f64().unwrap() >= 0.0);

    let r = json(&weald(&["-q", "recover", "--data", d, "--json"]));
    assert_eq!(r["version"], 4);
    assert_eq!(
        r["tag"], 9,
        "the input line of the last acknowledged update"
    );
    assert!(r["dropped"].is_null());

    let vs = json(&weald(&["-q", "versions", "--data", d, "--json"]));
    let vs = vs.as_array().unwrap();
    assert!(
        vs.iter().any(|x| x["version"] == 4 && x["edges"] == 2),
        "{vs:?}"
    );

    // Reading by time: the newest retained version committed at or before it, given as
    // nanoseconds or as the RFC 3339 time `versions` lists (every digit, so either form of a
    // version's commit time reads that version). `run` reports the version it read.
    let v2 = vs
        .iter()
        .find(|x| x["version"] == 2)
        .expect("version 2 is kept");
    let t2 = v2["time_ns"].as_u64().unwrap();
    for at in [t2.to_string(), v2["time"].as_str().unwrap().to_string()] {
        let i = json(&weald(&[
            "-q",
            "info",
            "--data",
            d,
            "--at-time",
            &at,
            "--json",
        ]));
        assert_eq!((&i["version"], &i["edges"]), (&json!(2), &json!(4)), "{at}");
        let r = json(&weald(&[
            "-q",
            "run",
            "cc",
            "--data",
            d,
            "--at-time",
            &at,
            "--json",
        ]));
        assert_eq!(r["version"], 2, "{at}");
    }
    // A nanosecond before version 2's commit is version 1 (or older, if 1 committed in
    // that same nanosecond).
    let before = json(&weald(&[
        "-q",
        "info",
        "--data",
        d,
        "--at-time",
        &(t2 - 1).to_string(),
        "--json",
    ]));
    assert!(before["version"].as_u64().unwrap() < 2, "{before}");
    let t0 = vs[0]["time_ns"].as_u64().unwrap();
    refused(
        &["info", "--data", d, "--at-time", &(t0 - 1).to_string()],
        "no retained version was committed at or before",
    );
    refused(
        &["info", "--data", d, "--at-time", "yesterday"],
        "--at-time `yesterday`: expected a UTC time",
    );
    refused(
        &["info", "--data", d, "--at-time", "1", "--version", "2"],
        "cannot be used with",
    );
    refused(
        &["info", &ups, "--at-time", "1"],
        "--at-time picks a version",
    );
    let table = weald(&["-q", "versions", "--data", d]);
    assert!(
        stdout(&table).contains(v2["time"].as_str().unwrap()),
        "the table lists commit times in UTC: {}",
        stdout(&table)
    );

    // Version 2 is the triangle plus 2-3: 4 edges.
    let out = t.path().join("v2.el");
    let o = weald(&[
        "-q",
        "export",
        "--data",
        d,
        "--version",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let want: std::collections::BTreeSet<(u32, u32)> =
        [(0, 1), (1, 2), (0, 2), (2, 3)].into_iter().collect();
    assert_eq!(edge_set(&out), want);

    let i = json(&weald(&["-q", "info", "--data", d, "--json"]));
    assert_eq!(i["edges"], 2);
    let i = json(&weald(&[
        "-q",
        "info",
        "--data",
        d,
        "--version",
        "2",
        "--json",
    ]));
    assert_eq!(i["edges"], 4);
    let c = json(&weald(&[
        "-q",
        "run",
        "cc",
        "--data",
        d,
        "--version",
        "2",
        "--verify",
        "--json",
    ]));
    assert_eq!(c["verified"], true);

    // Pins survive reopening; an unknown version cannot be pinned.
    assert!(weald(&["-q", "versions", "--data", d, "--pin", "before=4"])
        .status
        .success());
    let vs = json(&weald(&["-q", "versions", "--data", d, "--json"]));
    assert!(vs
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["pins"][0] == "before"));
    let o = weald(&["-q", "versions", "--data", d, "--pin", "x=999"]);
    assert!(!o.status.success());

    // A second stream continues from the recovered version.
    let more = write_file(t.path(), "more.txt", &["+ 5 6", "+ 6 7"]);
    let v = json(&weald(&[
        "-q",
        "stream",
        "--data",
        d,
        "--updates",
        &more,
        "--json",
    ]));
    assert_eq!(v["created"], false);
    assert_eq!(v["recovered_version"], 4);
    assert_eq!(v["edges"], 4);
}

/// Update and temporal files may be gzipped, as every graph file may (they were read as
/// text, and failed with "stream did not contain valid UTF-8" and no line); a line that is
/// not UTF-8 is an error naming its line.
#[test]
fn stream_reads_gzipped_inputs_and_names_a_non_utf8_line() {
    use std::io::Write;
    let t = tempfile::tempdir().unwrap();
    let gz = |name: &str, text: &[u8]| {
        let p = t.path().join(name);
        let mut e = flate2::write::GzEncoder::new(
            std::fs::File::create(&p).unwrap(),
            flate2::Compression::default(),
        );
        e.write_all(text).unwrap();
        e.finish().unwrap();
        p.to_string_lossy().into_owned()
    };
    let ups = gz("u.txt.gz", b"+ 0 1\r\n+ 1 2\n- 0 1\n+ 2 3\n");
    let tf = gz("t.csv.gz", b"src,dst,time\n0,1,5\n1,2,6\n");
    for (i, input) in [("--updates", &ups), ("--temporal", &tf)]
        .into_iter()
        .enumerate()
    {
        let d = t.path().join(format!("d{i}"));
        let o = weald(&[
            "-q",
            "stream",
            "--data",
            d.to_str().unwrap(),
            input.0,
            input.1,
        ]);
        assert!(o.status.success(), "{input:?}: {}", stderr(&o));
        let v = json(&weald(&[
            "-q",
            "info",
            "--data",
            d.to_str().unwrap(),
            "--json",
        ]));
        assert_eq!(v["edges"], 2, "{input:?}: {v}");
    }
    let bad = t.path().join("bad.txt");
    std::fs::write(&bad, b"+ 0 1\n+ 1 \xff2\n").unwrap();
    let d = t.path().join("bad.d");
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        d.to_str().unwrap(),
        "--updates",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("bad.txt:2") && stderr(&o).contains("byte 5 of the line is not UTF-8"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn stream_bad_input_is_a_clear_error_with_file_and_line() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("data");
    let d = dir.to_str().unwrap();
    let ups = write_file(t.path(), "bad.txt", &["+ 0 1", "+ 1 2", "+ 2 x"]);
    let o = weald(&["-q", "stream", "--data", d, "--updates", &ups]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("bad.txt") && e.contains('3'), "{e}");
    assert!(e.contains("committed"), "says what was kept: {e}");
    // The updates before the bad line were acknowledged, so they are durable.
    let i = json(&weald(&["-q", "info", "--data", d, "--json"]));
    assert_eq!(i["edges"], 2);
    // Read from standard input, the error names it as such (it said `-:2`).
    let mut child = Command::new(env!("CARGO_BIN_EXE_weald"))
        .args(["-q", "stream", "--data", d, "--updates", "-"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"+ 5 6\n+ 6 y\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("<stdin>:2:"), "{}", stderr(&o));

    // Not a Weald directory, and a graph file given as --data.
    let foreign = t.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "hello").unwrap();
    let o = weald(&["-q", "recover", "--data", foreign.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("not a Weald data directory"),
        "{}",
        stderr(&o)
    );
    let o = weald(&["-q", "info", "--data", &ups]);
    assert!(!o.status.success());
    // Unknown fsync policy.
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        d,
        "--updates",
        &ups,
        "--fsync",
        "sometimes",
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("fsync"), "{}", stderr(&o));
}

#[test]
fn stream_refuses_bad_options_and_ids_before_committing_anything() {
    let t = tempfile::tempdir().unwrap();
    let ups = write_file(t.path(), "u.txt", &["+ 1 2", "+ 2 3"]);
    // Numbers that no duration holds, a chunk parameter below 2, an input that is missing:
    // refused before the data directory is created (each had panicked, or left a directory
    // nothing could open).
    for (i, (opts, says)) in [
        (&["--max-wait", "inf"][..], "--max-wait"),
        (&["--keep-seconds", "nan"], "--keep-seconds"),
        (&["--rate", "1e-300"], "--rate"),
        (&["--rate", "0"], "--rate"),
        (
            &["--query", "bfs", "--query-every", "1e300"],
            "--query-every",
        ),
        (&["--chunk-b", "0"], "--chunk-b"),
        (
            &["--window", "5"],
            "--window slides over a --temporal file's times",
        ),
        (&["--max-wait=-1"], "--max-wait"),
    ]
    .into_iter()
    .enumerate()
    {
        let dir = t.path().join(format!("d{i}"));
        let mut args = vec![
            "-q",
            "stream",
            "--data",
            dir.to_str().unwrap(),
            "--updates",
            &ups,
        ];
        args.extend_from_slice(opts);
        let o = weald(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{opts:?}: {e}");
        assert!(e.contains(says) && !e.contains("panicked"), "{opts:?}: {e}");
        assert!(!dir.exists(), "{opts:?} created the data directory");
    }
    let missing = t.path().join("typo.txt");
    let dir = t.path().join("dm");
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        dir.to_str().unwrap(),
        "--updates",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!dir.exists(), "a missing input created the data directory");
    let tf = write_file(t.path(), "t.txt", &["1 2 10", "4294967295 1 11"]);
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        dir.to_str().unwrap(),
        "--temporal",
        &tf,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("t.txt:2"), "{}", stderr(&o));
    // The temporal file is read whole before any update is sent, once the store is made (its
    // weights are parsed as the store's): the directory made for it is removed again, with
    // `--base` too, so the same command with the file fixed starts afresh; an empty
    // directory that existed is left empty.
    assert!(!dir.exists(), "a bad temporal file left a data directory");
    let base = write_file(t.path(), "base.el", &["0 1", "1 2"]);
    let good = write_file(t.path(), "good.txt", &["1 2 10", "3 1 11"]);
    std::fs::create_dir(&dir).unwrap();
    for (input, code) in [(&tf, 1), (&good, 0)] {
        let o = weald(&[
            "-q",
            "stream",
            "--data",
            dir.to_str().unwrap(),
            "--base",
            &base,
            "--temporal",
            input,
        ]);
        assert_eq!(o.status.code(), Some(code), "{input}: {}", stderr(&o));
    }
    let v = json(&weald(&[
        "-q",
        "info",
        "--data",
        dir.to_str().unwrap(),
        "--json",
    ]));
    // 0-1 and 1-2 from the base, 1-2 again and 3-1 from the file.
    assert_eq!(v["edges"], 3, "base and the fixed file: {v}");
    // On a directory that holds a graph, a bad file leaves it as it was.
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        dir.to_str().unwrap(),
        "--temporal",
        &tf,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let w = json(&weald(&[
        "-q",
        "info",
        "--data",
        dir.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(w["edges"], 3, "a bad file changed the store: {w}");
    assert_eq!(
        w["version"], v["version"],
        "a bad file committed updates: {w}"
    );
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        dir.to_str().unwrap(),
        "--temporal",
        &tf,
        "--window",
        "nan",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("--window"), "{}", stderr(&o));

    // A query the store's graph cannot answer is refused before the directory is created
    // (with --base too, which would then block a corrected re-run), and on an existing
    // directory before any update is sent.
    let d = t.path().join("q");
    let dq = d.to_str().unwrap();
    for extra in [&[][..], &["--base", &base]] {
        let mut args = vec![
            "-q",
            "stream",
            "--data",
            dq,
            "--updates",
            &ups,
            "--query",
            "sssp",
        ];
        args.extend_from_slice(extra);
        let o = weald(&args);
        assert_eq!(o.status.code(), Some(1));
        assert!(stderr(&o).contains("--query sssp"), "{}", stderr(&o));
        assert!(!d.exists(), "{extra:?}: the data directory was created");
    }
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        dq,
        "--updates",
        &ups,
        "--batch",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        dq,
        "--updates",
        &ups,
        "--query",
        "sssp",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = json(&weald(&["-q", "recover", "--data", dq, "--json"]));
    assert_eq!(
        v["version"], 2,
        "updates were committed before the query was refused: {v}"
    );

    // The largest id is 2^32 - 2, as for graph files: 2^32 - 1 would make n overflow.
    let big = write_file(t.path(), "big.txt", &["+ 0 1", "+ 4294967295 1"]);
    let d = t.path().join("big");
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        d.to_str().unwrap(),
        "--updates",
        &big,
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("big.txt:2") && e.contains("4294967294"), "{e}");
}

#[test]
fn options_that_contradict_an_existing_data_directory_or_ask_for_nothing_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let ups = write_file(t.path(), "u.txt", &["+ 1 2", "+ 2 3"]);
    let d = t.path().join("data");
    let dd = d.to_str().unwrap();
    let o = weald(&["-q", "stream", "--data", dd, "--updates", &ups]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The directory holds an undirected, unweighted graph: options saying otherwise are
    // refused (they had been ignored), options that agree are accepted.
    for opt in [
        &["--directed"][..],
        &["--weighted"],
        &["--weight-type", "f64"],
        &["--chunk-b", "4"],
        &["--combine", "sum"],
    ] {
        let mut args = vec!["-q", "stream", "--data", dd, "--updates", &ups];
        args.extend_from_slice(opt);
        let o = weald(&args);
        assert_eq!(o.status.code(), Some(1), "{opt:?}");
        assert!(
            stderr(&o).contains("contradicts"),
            "{opt:?}: {}",
            stderr(&o)
        );
    }
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        dd,
        "--updates",
        &ups,
        "--undirected",
        "--weight-type",
        "none",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A version after the newest, a file given as --data, no trials.
    let o = weald(&["-q", "run", "bfs", "--data", dd, "--version", "9"]);
    assert!(stderr(&o).contains("does not exist yet"), "{}", stderr(&o));
    let o = weald(&["-q", "info", "--data", &ups]);
    assert!(
        stderr(&o).contains("a file, not a data directory"),
        "{}",
        stderr(&o)
    );
    let g = data("static/CA-GrQc.txt");
    for cmd in [&["run", "bfs"][..], &["bench", "updates"]] {
        let mut args = vec!["-q"];
        args.extend_from_slice(cmd);
        args.extend_from_slice(&[&g, "--trials", "0"]);
        let o = weald(&args);
        assert_eq!(o.status.code(), Some(1), "{cmd:?}");
        assert!(stderr(&o).contains("--trials"), "{cmd:?}: {}", stderr(&o));
    }
}

#[test]
fn stream_window_on_an_undirected_store_renews_an_edge_inserted_either_way() {
    let t = tempfile::tempdir().unwrap();
    // `2 1` at 12 renews the edge {1, 2} of time 10: at 13, with a window of 2.5, it is
    // 1 old and stays. Directed, `1 2` (10) leaves and `2 1` (12) stays.
    let tf = write_file(t.path(), "t.txt", &["1 2 10", "2 1 12", "3 4 13"]);
    for (directed, want) in [(false, 2), (true, 2)] {
        let d = t.path().join(format!("d{directed}"));
        let mut args = vec![
            "-q",
            "stream",
            "--data",
            d.to_str().unwrap(),
            "--temporal",
            &tf,
            "--window",
            "2.5",
            "--json",
        ];
        if directed {
            args.push("--directed");
        }
        let v = json(&weald(&args));
        assert_eq!(v["edges"], want, "directed {directed}: {v}");
        let out = t.path().join(format!("e{directed}.el"));
        let o = weald(&[
            "-q",
            "export",
            "--data",
            d.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(&out).unwrap();
        let has = |a: &str| {
            text.lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") == a)
        };
        if directed {
            assert!(has("2 1") && !has("1 2") && has("3 4"), "{text}");
        } else {
            assert!(has("1 2") && has("2 1") && has("3 4"), "{text}");
        }
    }
}

#[test]
fn a_damaged_log_tail_is_reported_by_every_command_that_opens_the_directory() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("data");
    let dd = d.to_str().unwrap();
    let ups = write_file(t.path(), "u.txt", &["+ 0 1", "+ 1 2", "+ 2 3"]);
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        dd,
        "--updates",
        &ups,
        "--batch",
        "1",
        "--fsync",
        "always",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Flip a byte of the last record.
    let seg = std::fs::read_dir(d.join("wal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "wal"))
        .unwrap();
    let mut b = std::fs::read(&seg).unwrap();
    let n = b.len();
    b[n - 2] ^= 0xff;
    std::fs::write(&seg, &b).unwrap();
    let o = weald(&["-q", "info", "--data", dd, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("warning") && e.contains("dropped") && e.contains(".damaged"),
        "{e}"
    );
    assert_eq!(json(&o)["edges"], 2);
    // The cut bytes are kept beside the log; the log itself is cut.
    let aside: Vec<PathBuf> = std::fs::read_dir(d.join("wal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".damaged"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    let kept = std::fs::read(&aside[0]).unwrap();
    assert!(
        !kept.is_empty() && b.ends_with(&kept),
        "the copy holds the bytes cut"
    );
    assert_eq!(
        std::fs::metadata(&seg).unwrap().len() as usize,
        n - kept.len()
    );
}

#[test]
fn stream_temporal_window_and_concurrent_query() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("data");
    // Out of time order on purpose: the replay sorts by time.
    let tf = write_file(
        t.path(),
        "temporal.txt",
        &["0 1 10", "1 2 20", "2 3 30", "3 4 40", "0 4 5"],
    );
    let v = json(&weald(&[
        "-q",
        "stream",
        "--data",
        d.to_str().unwrap(),
        "--temporal",
        &tf,
        "--window",
        "15",
        "--query",
        "bfs",
        "--json",
    ]));
    // With a window of 15, at time 40 only edges with t > 25 remain: 2-3 and 3-4.
    assert_eq!(v["edges"], 2, "{v}");
    // The final version has edges, so the isolated queries ran and took time.
    assert!(
        v["query_latency_s"]["isolated"].as_f64().unwrap() > 0.0,
        "{v}"
    );
    // The first query holds version 0 (no edge yet) while ingest starts: it is counted apart,
    // not timed. Only queries that ran are in `queries` and the concurrent latency.
    let (ran, empty) = (
        v["queries"].as_u64().unwrap(),
        v["queries_on_empty"].as_u64().unwrap(),
    );
    assert!(empty >= 1, "{v}");
    match v["query_latency_s"]["concurrent"].as_f64() {
        Some(s) => assert!(ran >= 1 && s > 0.0, "{v}"),
        None => assert_eq!(ran, 0, "{v}"),
    }
}

/// Queries that find the newest version without an edge are not run: they are counted in
/// `queries_on_empty`, and no latency is reported for them (it had been reported as 0 s).
#[test]
fn stream_queries_on_a_graph_without_edges_report_no_latency() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("data");
    let u = write_file(t.path(), "ups.txt", &["+v 1", "+v 2", "+v 3"]);
    let v = json(&weald(&[
        "-q",
        "stream",
        "--data",
        d.to_str().unwrap(),
        "--updates",
        &u,
        "--query",
        "bfs",
        "--json",
    ]));
    assert_eq!(v["updates"], 3, "{v}");
    assert_eq!(v["edges"], 0, "{v}");
    assert_eq!(v["queries"], 0, "{v}");
    assert!(v["queries_on_empty"].as_u64().unwrap() >= 1, "{v}");
    assert!(v["query_latency_s"]["concurrent"].is_null(), "{v}");
    assert!(v["query_latency_s"]["isolated"].is_null(), "{v}");
}

#[test]
#[cfg(unix)]
fn a_closed_output_pipe_ends_the_command_without_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    // `weald ... | head -c 0`: the reader is gone before the JSON is printed.
    let mut child = Command::new(env!("CARGO_BIN_EXE_weald"))
        .args(["-q", "run", "--list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run weald");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for weald");
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "weald panicked: {err}");
    assert!(
        out.status.success() || out.status.signal() == Some(13),
        "expected success or death by SIGPIPE, got {:?}: {err}",
        out.status
    );
}

/// `weald` with `args` fails, saying `expected` on stderr, without panicking.
fn refused(args: &[&str], expected: &str) {
    let o = weald(args);
    let e = stderr(&o);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(
        e.contains(expected) && !e.contains("panicked"),
        "{args:?}: {e}"
    );
}

#[test]
fn options_a_command_would_not_read_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let el = write_file(t.path(), "g.el", &["0 1 3", "1 2 4", "2 0 5"]);
    // Algorithm options another algorithm reads.
    refused(
        &["-q", "run", "pagerank", &el, "--source", "1"],
        "--source does not apply to pagerank (it is read by bfs, bc, sssp",
    );
    refused(
        &["-q", "run", "bfs", &el, "--tol", "1e-3"],
        "--tol does not apply to bfs (it is read by pagerank)",
    );
    refused(
        &[
            "-q",
            "run",
            "bellman-ford",
            &el,
            "--weighted",
            "--delta",
            "2",
        ],
        "--delta does not apply to bellman-ford (it is read by sssp)",
    );
    refused(
        &["-q", "run", "cc", &el, "--seed", "2"],
        "--seed does not apply to cc",
    );
    refused(
        &["-q", "run", "bfs", &el, "--source", "0", "--seed", "2"],
        "--seed picks random sources for bfs, and --source gives one",
    );
    // ... and the ones they read.
    for args in [
        &["run", "mis", &el, "--seed", "7"][..],
        &[
            "run",
            "sssp",
            &el,
            "--weighted",
            "--source",
            "0",
            "--delta",
            "2",
        ],
        &[
            "run",
            "pagerank",
            &el,
            "--tol",
            "1e-9",
            "--max-iter",
            "500",
            "--damping",
            "0.8",
        ],
        &[
            "run",
            "nibble",
            &el,
            "--source",
            "0",
            "--epsilon",
            "1e-4",
            "--steps",
            "5",
        ],
        &["run", "bfs", &el, "--seed", "3"],
        &["run", "bfs", &el, "--backend", "ctree", "--chunk-b", "4"],
    ] {
        let o = weald(&[&["-q"][..], args].concat());
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    // Loading options that would shape nothing.
    refused(
        &["-q", "run", "bfs", &el, "--chunk-b", "4"],
        "--chunk-b shapes C-trees: it needs --backend ctree",
    );
    refused(
        &["-q", "info", &el, "--backend", "csr", "--chunk-b", "4"],
        "--chunk-b shapes C-trees",
    );
    let out = t.path().join("g2.el");
    refused(
        &[
            "-q",
            "convert",
            &el,
            out.to_str().unwrap(),
            "--backend",
            "ctree",
        ],
        "--backend does not apply to convert",
    );
    assert!(!out.exists());
    refused(
        &["-q", "bench", "updates", &el, "--backend", "csr"],
        "--backend csr: this command updates the graph",
    );
    // A stream without a base file has no file to read; a data directory is C-trees.
    let ups = write_file(t.path(), "u.txt", &["+ 0 1", "+ 1 2"]);
    let d = t.path().join("d");
    let ds = d.to_str().unwrap();
    for (opt, expected) in [
        (
            &["--drop-self-loops"][..],
            "--drop-self-loops says how to read the --base file",
        ),
        (
            &["--dedup", "sum"],
            "--dedup says how to read the --base file",
        ),
        (
            &["--keep-ids"],
            "--keep-ids says how to read the --base file",
        ),
        (
            &["--format", "mtx"],
            "--format says how to read the --base file",
        ),
        (
            &["--backend", "ctree"],
            "--backend does not apply to a data directory",
        ),
    ] {
        refused(
            &[&["-q", "stream", "--data", ds, "--updates", &ups][..], opt].concat(),
            expected,
        );
        assert!(!d.exists(), "{opt:?} made the data directory");
    }
    let o = weald(&["-q", "stream", "--data", ds, "--updates", &ups]);
    assert!(o.status.success(), "{}", stderr(&o));
    // --chunk-b given equal to the directory's own is no contradiction; another is.
    let o = weald(&[
        "-q",
        "stream",
        "--data",
        ds,
        "--updates",
        &ups,
        "--chunk-b",
        "256",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    refused(
        &[
            "-q",
            "stream",
            "--data",
            ds,
            "--updates",
            &ups,
            "--chunk-b",
            "64",
        ],
        "--chunk-b 64 contradicts the data directory",
    );
    // A directory built with another b: --chunk-b 256, the default, given, contradicts it
    // (it had passed for being the default); its own b does not.
    let d64 = t.path().join("d64");
    let d64s = d64.to_str().unwrap();
    let with_b = |b: &str| {
        weald(&[
            "-q",
            "stream",
            "--data",
            d64s,
            "--updates",
            &ups,
            "--chunk-b",
            b,
        ])
    };
    for b in ["64", "64"] {
        let o = with_b(b);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = with_b("256");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--chunk-b 256 contradicts the data directory"),
        "{}",
        stderr(&o)
    );
    // The stored graph is read as it was stored.
    for args in [
        &["info", "--data", ds, "--directed"][..],
        &["info", "--data", ds, "--backend", "csr"],
        &["run", "bfs", "--data", ds, "--keep-ids"],
        &["run", "cc", "--data", ds, "--drop-self-loops"],
    ] {
        refused(
            &[&["-q"][..], args].concat(),
            "--data reads the stored graph as it was stored",
        );
    }
    let v = json(&weald(&["-q", "info", "--data", ds, "--json"]));
    assert_eq!(v["edges"], 2);
    // A stream of no updates has no latencies: null, not 0.
    let none = t.path().join("none.txt");
    std::fs::write(&none, "").unwrap();
    let v = json(&weald(&[
        "-q",
        "stream",
        "--data",
        ds,
        "--updates",
        none.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(v["updates"], 0);
    for k in ["p50", "p99", "max"] {
        assert!(v["visibility_latency_us"][k].is_null(), "{k}: {v}");
    }
    // The largest id: that of the store's vertex 2, and none in an empty graph.
    let v = json(&weald(&["-q", "info", "--data", ds, "--json"]));
    assert_eq!(v["max_id"], 2);
    let v = json(&weald(&[
        "-q",
        "info",
        none.to_str().unwrap(),
        "--format",
        "edgelist",
        "--json",
    ]));
    assert_eq!(
        (&v["vertices"], &v["max_id"]),
        (&0.into(), &serde_json::Value::Null)
    );
}
