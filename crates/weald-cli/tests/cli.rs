//! End-to-end tests of the `weald` binary: outputs, JSON keys, exit codes, error messages.

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
    assert!(v["median_s"].as_f64().unwrap() >= 0.0);
    assert_eq!(v["trials"].as_array().unwrap().len(), 1);
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

#[test]
fn run_list_names_every_algorithm() {
    let o = weald(&["run", "--list"]);
    let s = stdout(&o);
    for a in [
        "bfs",
        "bc",
        "pagerank",
        "cc",
        "sssp",
        "bellman-ford",
        "tc",
        "kcore",
        "mis",
    ] {
        assert!(
            s.lines().any(|l| l.starts_with(a)),
            "{a} missing from --list"
        );
    }
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
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
}
