//! The runner's contract: which options each algorithm reads, and which results have a name.
//! (Integration tests: the crate has no unit-test target, see its Cargo.toml.)

use weald_runner::runner::{run, Algorithm, RunParams};
use weald_runner::AnyGraph;

#[test]
fn options_an_algorithm_does_not_read_are_refused() {
    assert!(Algorithm::Bfs.check_options(&["source"]).is_ok());
    assert!(Algorithm::PageRank
        .check_options(&["tol", "max-iter", "damping"])
        .is_ok());
    assert!(Algorithm::Mis.check_options(&["seed"]).is_ok());
    assert!(Algorithm::Cc.check_options(&[]).is_ok());
    let e = Algorithm::PageRank
        .check_options(&["source"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--source does not apply to pagerank")
            && e.contains("bfs, bc, sssp, bellman-ford, twohop, nibble"),
        "{e}"
    );
    let e = Algorithm::Bfs
        .check_options(&["tol"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("(it is read by pagerank)"), "{e}");
    assert!(Algorithm::Sssp.check_options(&["delta"]).is_ok());
    assert!(Algorithm::BellmanFord.check_options(&["delta"]).is_err());
    assert!(Algorithm::Tc.check_options(&["seed"]).is_err());
    // A source leaves nothing random to seed, but MIS's priorities are seeded anyway.
    let e = Algorithm::Bfs
        .check_options(&["source", "seed"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("--seed picks random sources"), "{e}");
    assert!(Algorithm::Bfs.check_options(&["seed"]).is_ok());
    // Each option alone: accepted exactly by the algorithms that read it.
    let all = [
        "source", "seed", "tol", "max-iter", "damping", "delta", "epsilon", "steps",
    ];
    for a in Algorithm::ALL {
        for o in all {
            let ok = a.check_options(&[o]).is_ok();
            assert_eq!(ok, a.options().contains(&o), "{} --{o}", a.name());
        }
    }
}

/// Every algorithm that reports a single number names what it counts, and only those.
//   0 --- 1        a triangle 0-1-2 with a tail 2-3 (weights 1)
//    \   /
//      2 --- 3
#[test]
fn a_result_has_a_name_exactly_when_there_is_one() {
    use weald_graph::batch::EdgeList;
    use weald_storage::csr::{BuildOptions, Csr};
    let (src, dst) = (vec![0, 1, 0, 2], vec![1, 2, 2, 3]);
    let el = EdgeList {
        num_vertices: 4,
        weights: vec![1i32; src.len()],
        src,
        dst,
    };
    let (csr, _) = Csr::build(el, &BuildOptions::default()).unwrap();
    let g = AnyGraph::from(weald_storage::csr::AnyCsr::from(csr));
    for a in Algorithm::ALL {
        let r = run(&g, a, &RunParams::default()).unwrap();
        assert_eq!(
            r.result.is_some(),
            a.result_name().is_some(),
            "{}: result {:?}",
            a.name(),
            r.result
        );
    }
}
