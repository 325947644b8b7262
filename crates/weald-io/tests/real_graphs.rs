//! Every graph under `shared/data/graphs` loads, and its counts match the data README.
//!
//! README conventions: `n` = distinct vertex ids seen in edges (METIS/Matrix Market: declared
//! n), `m` = edge records (checked with `read_edges`), `und` = unique undirected pairs. The
//! README's `und` **includes self loops** (a loop `{v, v}` is one pair): e.g. CA-CondMat stores
//! each of its edges twice plus 58 loops once, (186,936 − 58) / 2 + 58 = 93,497 = und. That is
//! exactly `num_edges()` of the undirected, deduplicated CSR, which counts a loop once.

use std::path::PathBuf;
use weald_io::{load, read_edges, Format, LoadOptions};

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/graphs")
}

struct Case {
    file: &'static str,
    format: Option<Format>,
    weighted: Option<bool>,
    /// Vertices: distinct ids (edge lists) or declared n.
    n: usize,
    /// Records as parsed.
    m: usize,
    /// Unique undirected pairs, where the README gives them.
    und: Option<usize>,
    /// Distinct directed arcs, where the README gives them.
    arcs: Option<usize>,
    /// Expected weight type when loaded (None: unweighted).
    weight: &'static str,
    /// The README says "directed".
    directed: bool,
    /// Load with `relabel = Some(false)`: the README's n is the largest id + 1.
    dense: bool,
}

const fn c(file: &'static str, n: usize, m: usize) -> Case {
    Case {
        file,
        format: None,
        weighted: None,
        n,
        m,
        und: None,
        arcs: None,
        weight: "none",
        directed: false,
        dense: false,
    }
}

impl Case {
    const fn und(mut self, u: usize) -> Self {
        self.und = Some(u);
        self
    }
    const fn directed(mut self) -> Self {
        self.directed = true;
        self
    }
    const fn arcs(mut self, a: usize) -> Self {
        self.arcs = Some(a);
        self
    }
    const fn fmt(mut self, f: Format) -> Self {
        self.format = Some(f);
        self
    }
    const fn weighted(mut self, w: &'static str) -> Self {
        self.weighted = Some(true);
        self.weight = w;
        self
    }
    const fn dense(mut self) -> Self {
        self.dense = true;
        self
    }
    const fn declared_weight(mut self, w: &'static str) -> Self {
        self.weight = w;
        self
    }
}

fn cases() -> Vec<Case> {
    use Format::*;
    vec![
        // static/
        c("static/facebook_combined.txt.gz", 4039, 88234),
        c("static/soc-Slashdot0902.txt.gz", 82168, 948464).directed(),
        c("static/wiki-Vote.txt", 7115, 103689)
            .directed()
            .und(100762),
        c("static/p2p-Gnutella05.txt", 8846, 31839).directed(),
        c("static/p2p-Gnutella06.txt", 8717, 31525).directed(),
        c("static/CA-CondMat.txt", 23133, 186936).und(93497),
        // The README counts exclude the `5242\t28980` line: it is dropped as a count line.
        c("static/CA-GrQc.txt", 5242, 28980).und(14496),
        c("static/email-Enron.minus-vertex0.txt", 36691, 367660),
        c("static/email-Eu-core.txt.gz", 1005, 25571).directed(),
        c("static/as20graph.txt", 6474, 26467).und(13895),
        c("static/C-elegans-frontal.txt", 131, 764).directed(),
        c("static/MIT8.edgelist", 6440, 251252),
        c("static/musae/git_edges.csv", 37700, 289003),
        c("static/musae/facebook_edges.csv", 22470, 171002),
        c("static/musae/deezer_europe_edges.csv", 28281, 92752),
        c("static/musae/lastfm_asia_edges.csv", 7624, 27806),
        c("static/musae/twitch_DE_edges.csv", 9498, 153138),
        c("static/musae/twitch_ENGB_edges.csv", 7126, 35324),
        // METIS: n declared, m = undirected edges (each returned once by read_edges).
        c("static/dimacs10/PGPgiantcompo.graph", 10680, 24316).und(24316),
        c("static/dimacs10/astro-ph.graph", 16706, 121251).und(121251),
        c("static/dimacs10/hep-th.graph", 8361, 15751).und(15751),
        c("static/dimacs10/polblogs.graph", 1490, 16715).und(16715),
        c("static/dimacs10/power.graph", 4941, 6594).und(6594),
        c("static/dimacs10/jazz.graph", 198, 2742).und(2742),
        c("static/dimacs10/celegans_metabolic.graph", 453, 2025).und(2025),
        c("static/dimacs10/karate.graph", 34, 78).und(78),
        c("static/dimacs10/lesmis.graph", 77, 254)
            .und(254)
            .declared_weight("i32"),
        c("static/mtx/Lederberg.mtx", 8843, 41601)
            .directed()
            .declared_weight("i32"),
        c("static/mtx/chesapeake.mtx", 39, 170).und(170),
        c("static/hartford_drug.edgelist", 212, 337).directed(),
        // temporal/ (events = records; read as temporal edge lists)
        c("temporal/CollegeMsg.txt", 1899, 59835)
            .fmt(Temporal)
            .directed()
            .arcs(20296),
        c("temporal/soc-sign-bitcoinotc.csv.gz", 5881, 35592)
            .fmt(Temporal)
            .weighted("i32"),
        c("temporal/soc-sign-bitcoinalpha.csv", 3783, 24186)
            .fmt(Temporal)
            .weighted("i32"),
        c("temporal/dnc-temporalGraph.tsv", 1891, 39264).fmt(Temporal),
        c("temporal/reality-mining-calls.txt", 431, 45480).fmt(Temporal),
        c("temporal/pubmed-edges.csv.gz", 19717, 44335).fmt(Temporal),
        c(
            "temporal/partial/email-Eu-core-temporal.first83083.relabeled.txt",
            816,
            83083,
        )
        .fmt(Temporal),
        c(
            "temporal/partial/email-Eu-core-temporal-Dept1.first10000.txt",
            101,
            10000,
        )
        .fmt(Temporal),
        // Snapshots: the README gives n only approximately (~3,015) for the CSVs; n = 0 skips.
        c("temporal/snapshots/as19971108.csv", 0, 0).und(5539),
        c("temporal/snapshots/as19971109.csv", 0, 0).und(5537),
        c("temporal/snapshots/as19971110.csv", 0, 0).und(5581),
        c("temporal/snapshots/as19980201.txt", 3311, 0).und(6371),
        c("temporal/snapshots/as19980202.txt", 3315, 0).und(6334),
        c("temporal/snapshots/as-caida20040105.txt", 16301, 0).und(32955),
        c("temporal/snapshots/as-caida20050307.txt", 19090, 0).und(38562),
        // weighted/
        // The street graphs come from NetworKit binaries whose node count includes ids without
        // edges (malta: ids 0..34713, 34,674 of them used). The README's n is that node count
        // (the largest id + 1), not the number of distinct ids its header describes, so these
        // are loaded without relabelling.
        c("weighted/rome99.gr", 3353, 8870)
            .directed()
            .declared_weight("i32"),
        c("weighted/street/malta.tsv", 34714, 43468)
            .weighted("i32")
            .dense(),
        c("weighted/street/isle-of-man.tsv", 11641, 13073)
            .weighted("i32")
            .dense(),
        c("weighted/street/liechtenstein.tsv", 6743, 7399)
            .weighted("i32")
            .dense(),
        c("weighted/street/andorra.tsv", 4442, 5129)
            .weighted("i32")
            .dense(),
        c("weighted/street/monaco.tsv", 989, 1179)
            .weighted("i32")
            .dense(),
        c("weighted/minnesota_road.tsv", 2642, 3303).weighted("f64"),
        c("weighted/lanl_routes.edgelist", 1358, 1363).weighted("f64"),
        c("weighted/foodweb-baydry.konect", 128, 2137)
            .directed()
            .declared_weight("f64"),
    ]
}

#[test]
fn every_data_file_loads_with_readme_counts() {
    let root = data();
    if !root.exists() {
        eprintln!("skipping: {} not found", root.display());
        return;
    }
    let mut failures = Vec::new();
    for case in cases() {
        let path = root.join(case.file);
        let opts = LoadOptions {
            format: case.format,
            weighted: case.weighted,
            relabel: case.dense.then_some(false),
            ..Default::default()
        };
        let check = || -> Result<(), String> {
            let raw = read_edges(&path, &opts).map_err(|e| e.to_string())?;
            if case.m > 0 && raw.edges.len() != case.m {
                return Err(format!("records {} != {}", raw.edges.len(), case.m));
            }
            if raw.edges.weight_name() != case.weight {
                return Err(format!(
                    "weight {} != {}",
                    raw.edges.weight_name(),
                    case.weight
                ));
            }
            if case.format == Some(Format::Temporal) {
                let t = raw.times.as_ref().ok_or("no times")?;
                if t.len() != raw.edges.len() {
                    return Err("times and records differ in number".into());
                }
            }
            // Undirected, deduplicated (the defaults, except for formats that declare
            // directedness: force undirected for the `und` count).
            let und = load(
                &path,
                &LoadOptions {
                    directed: Some(false),
                    ..opts.clone()
                },
            )
            .map_err(|e| e.to_string())?;
            if case.n > 0 && und.graph.num_vertices() != case.n {
                return Err(format!("n {} != {}", und.graph.num_vertices(), case.n));
            }
            if let Some(u) = case.und {
                if und.graph.num_edges() != u {
                    return Err(format!("und {} != {u}", und.graph.num_edges()));
                }
            }
            if und.graph.is_directed() {
                return Err("forced undirected load is directed".into());
            }
            if case.directed {
                let d = load(
                    &path,
                    &LoadOptions {
                        directed: Some(true),
                        ..opts.clone()
                    },
                )
                .map_err(|e| e.to_string())?;
                if !d.graph.is_directed() || d.graph.num_vertices() != und.graph.num_vertices() {
                    return Err("directed load differs in n or is not directed".into());
                }
                if let Some(a) = case.arcs {
                    if d.graph.num_arcs() != a {
                        return Err(format!("distinct arcs {} != {a}", d.graph.num_arcs()));
                    }
                }
            }
            // Default load works too.
            load(&path, &opts).map_err(|e| e.to_string())?;
            Ok(())
        };
        if let Err(e) = check() {
            failures.push(format!("{}: {e}", case.file));
        }
    }
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
}

/// The GraphStream `.dgs` event stream is not a graph format Weald reads: it must be refused
/// cleanly (Unsupported), not misparsed.
#[test]
fn dgs_stream_is_refused() {
    let path = data().join("temporal/arxiv-qfin-author.dgs");
    if !path.exists() {
        return;
    }
    let e = load(&path, &LoadOptions::default()).unwrap_err();
    assert!(matches!(e, weald_graph::WealdError::Unsupported(_)), "{e}");
}

/// Defaults declared by the formats: KONECT `% asym posweighted` is directed and weighted,
/// DIMACS is directed, Matrix Market `general` is directed and `symmetric` undirected.
#[test]
fn declared_directedness() {
    let root = data();
    if !root.exists() {
        return;
    }
    let d = |f: &str| {
        load(&root.join(f), &LoadOptions::default())
            .unwrap()
            .graph
            .is_directed()
    };
    assert!(d("weighted/foodweb-baydry.konect"));
    assert!(d("weighted/rome99.gr"));
    assert!(d("static/mtx/Lederberg.mtx"));
    assert!(!d("static/mtx/chesapeake.mtx"));
    assert!(!d("static/dimacs10/karate.graph"));
    assert!(!d("static/facebook_combined.txt.gz"));
}
