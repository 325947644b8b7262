use super::*;
use proptest::prelude::*;
use weald_graph::EdgeList;
use weald_storage::{BuildOptions, Csr};

const INF: i64 = i64::MAX;
const NONE: u32 = u32::MAX;

fn graph<W: Weight>(directed: bool, n: usize, arcs: &[(Vertex, Vertex, W)]) -> Csr<W> {
    let mut e = EdgeList::from_triples(arcs.iter().copied());
    e.num_vertices = e.num_vertices.max(n);
    let opts = BuildOptions {
        directed,
        in_edges: false,
        ..Default::default()
    };
    Csr::build(e, &opts).unwrap().0
}

fn ds<G: Graph>(g: &G, s: Vertex) -> Output<DistOf<G>> {
    let out = delta_stepping::run(g, s, &delta_stepping::Params::default()).unwrap();
    verify(g, s, &out).unwrap();
    out
}

fn bf<G: Graph>(g: &G, s: Vertex) -> Output<DistOf<G>> {
    let out = bellman_ford::run(g, s, &bellman_ford::Params::default()).unwrap();
    verify(g, s, &out).unwrap();
    out
}

/// ```text
///        4        1
///   0 ------> 1 ------> 3        4 (isolated)
///   |         ^         ^
///  1|        2|         |5
///   v         |         |
///   2 --------+---------+
/// ```
/// Arcs 0→1 (4), 0→2 (1), 2→1 (2), 2→3 (5), 1→3 (1).
fn directed_i32() -> Csr<i32> {
    graph(
        true,
        5,
        &[(0, 1, 4), (0, 2, 1), (2, 1, 2), (2, 3, 5), (1, 3, 1)],
    )
}

#[test]
fn directed_integer_distances() {
    let g = directed_i32();
    for out in [ds(&g, 0), bf(&g, 0)] {
        assert_eq!(out.dist, vec![0, 3, 1, 4, INF]);
        assert_eq!(out.parent, vec![0, 2, 0, 1, NONE]);
    }
    // Against the arcs: from 3 nothing else is reachable.
    let out = ds(&g, 3);
    assert_eq!(out.dist, vec![INF, INF, INF, 0, INF]);
    assert_eq!(out.parent, vec![NONE, NONE, NONE, 3, NONE]);
    // Every delta gives the same answer.
    for delta in [0.1, 1.0, 2.0, 3.5, 1000.0] {
        let p = delta_stepping::Params { delta: Some(delta) };
        assert_eq!(
            delta_stepping::run(&g, 0, &p).unwrap().dist,
            vec![0, 3, 1, 4, INF]
        );
    }
}

/// Paths whose longest distance is just below the 4-byte slots' limit (`(n − 1) · w` just
/// under `2³¹ − 2`: 31-bit codes, the queued mark in bit 0) and just above it (8-byte slots):
/// arcs `v − 1 → v` and back `v → v − 1` (none into 0). Every distance is exact, `INF` (vertex
/// 0 from any other source) stays apart from the largest finite distance, and the relaxations
/// back along the path (sums up to `n · w`) lower nothing.
#[test]
fn distances_at_the_narrow_limit() {
    for n in [3usize, 4, 9] {
        let limit = (HALF_INF - 1) as i64; // (n − 1) · w must stay below this
        let w = (limit - 1) / (n as i64 - 1);
        for (w, narrow) in [(w, true), (w + 1, false)] {
            assert_eq!(Narrow::fits::<i64>(w as f64, n), narrow, "n {n}, w {w}");
            let w32 = i32::try_from(w).unwrap();
            let mut arcs: Vec<(Vertex, Vertex, i32)> =
                (1..n as Vertex).map(|v| (v - 1, v, w32)).collect();
            arcs.extend((2..n as Vertex).map(|v| (v, v - 1, w32)));
            let g = graph(true, n, &arcs);
            for s in [0, 1, n as Vertex - 1] {
                let want: Vec<i64> = (0..n as i64)
                    .map(|v| match (s, v) {
                        (0, v) => v * w,
                        (_, 0) => INF,
                        (s, v) => (v - s as i64).abs() * w,
                    })
                    .collect();
                assert_eq!(ds(&g, s).dist, want, "n {n}, w {w}, source {s}");
                assert_eq!(bf(&g, s).dist, want, "n {n}, w {w}, source {s}");
            }
        }
    }
    // One vertex: no path has an arc, but a self loop still gets relaxed, and the 32-bit sum
    // of a code and a weight needs every weight below 2³¹ − 1.
    assert!(!Narrow::fits::<i64>(i32::MAX as f64, 1));
    assert!(Narrow::fits::<i64>((i32::MAX - 1) as f64, 1));
    for w in [i32::MAX, i32::MAX - 1] {
        let g = graph(true, 1, &[(0, 0, w)]);
        assert_eq!(ds(&g, 0).dist, vec![0], "self loop of weight {w}");
    }
}

/// ```text
///   0 --0.5-- 1 --0.25-- 2
///    \                  /
///     +------1.0-------+        (symmetric)
/// ```
#[test]
fn symmetric_float_distances() {
    let g = graph(false, 3, &[(0, 1, 0.5), (1, 2, 0.25), (0, 2, 1.0)]);
    for out in [ds(&g, 0), bf(&g, 0)] {
        assert_eq!(out.dist, vec![0.0, 0.5, 0.75]);
        assert_eq!(out.parent, vec![0, 0, 1]);
    }
    for out in [ds(&g, 2), bf(&g, 2)] {
        assert_eq!(out.dist, vec![0.75, 0.25, 0.0]);
        assert_eq!(out.parent, vec![1, 2, 2]);
    }
}

/// A path whose length overflows `f64` is still a path: its end is at `f64::MAX`, not
/// unreachable (`INF`), for both solvers, and the verifier agrees.
#[test]
fn float_path_lengths_saturate_instead_of_becoming_unreachable() {
    let g = graph(true, 5, &[(0, 1, 0.5), (1, 2, 1e308), (2, 3, 1e308)]);
    for out in [ds(&g, 0), bf(&g, 0)] {
        assert_eq!(out.dist[..4], [0.0, 0.5, 1e308 + 0.5, f64::MAX]);
        assert_eq!(out.dist[4], f64::INFINITY, "vertex 4 is unreachable");
        assert_eq!(out.parent[..4], [0, 0, 1, 2]);
    }
}

/// Zero weights, including a zero-weight cycle 1→2→3→1 hanging off the source:
/// ```text
///   0 --1--> 1 --0--> 2 --0--> 3
///            ^                 |
///            +--------0--------+
/// ```
/// "Smallest tight predecessor" alone would give 1 the parent 0 (fine) but here all of 1, 2, 3
/// are at distance 1; the tree must still reach the source.
#[test]
fn zero_weight_cycle_gives_a_tree() {
    let g = graph(true, 4, &[(0, 1, 1), (1, 2, 0), (2, 3, 0), (3, 1, 0)]);
    for out in [ds(&g, 0), bf(&g, 0)] {
        assert_eq!(out.dist, vec![0, 1, 1, 1]);
        assert_eq!(out.parent, vec![0, 0, 1, 2]);
    }
    // Entering the cycle at 3 instead: 3 has the strict parent, 1 and 2 follow around.
    let g = graph(true, 4, &[(0, 3, 1), (1, 2, 0), (2, 3, 0), (3, 1, 0)]);
    for out in [ds(&g, 0), bf(&g, 0)] {
        assert_eq!(out.dist, vec![0, 1, 1, 1]);
        assert_eq!(out.parent, vec![0, 3, 1, 0]);
    }
}

/// ```text
///   0 --4--> 1 --(-3)--> 2 --1--> 3
///   |                    ^        |
///   +---------2----------+        |
///            ^                    |
///            1 <-------5----------+
/// ```
/// Arcs 0→1 (4), 1→2 (-3), 0→2 (2), 2→3 (1), 3→1 (5); the cycle 1→2→3→1 weighs 3.
#[test]
fn bellman_ford_negative_weights() {
    let g = graph(
        true,
        4,
        &[(0, 1, 4), (1, 2, -3), (0, 2, 2), (2, 3, 1), (3, 1, 5)],
    );
    let out = bf(&g, 0);
    assert_eq!(out.dist, vec![0, 4, 1, 2]);
    assert_eq!(out.parent, vec![0, 0, 1, 2]);
    let gf = graph(
        true,
        4,
        &[
            (0, 1, 4.0),
            (1, 2, -3.5),
            (0, 2, 2.0),
            (2, 3, 1.0),
            (3, 1, 5.0),
        ],
    );
    let out = bf(&gf, 0);
    assert_eq!(out.dist, vec![0.0, 4.0, 0.5, 1.5]);
    // Delta-stepping refuses and points to Bellman-Ford.
    let err = delta_stepping::run(&g, 0, &Default::default()).unwrap_err();
    assert!(
        matches!(&err, WealdError::Invalid(m) if m.contains("bellman-ford") && m.contains("1→2")),
        "{err}"
    );
}

/// ```text
///   0 --1--> 1 --(-2)--> 2        4 --(-1)--> 5
///            ^           |        ^           |
///            +-----1-----+        +----(-1)---+
/// ```
/// The cycle 1→2→1 weighs -1 and is reachable from 0; the cycle 4→5→4 is not reachable from 3.
#[test]
fn negative_cycle_is_an_error() {
    let g = graph(
        true,
        6,
        &[(0, 1, 1), (1, 2, -2), (2, 1, 1), (4, 5, -1), (5, 4, -1)],
    );
    let err = bellman_ford::run(&g, 0, &Default::default()).unwrap_err();
    assert!(
        matches!(err, WealdError::NegativeCycle { source_vertex: 0 }),
        "{err}"
    );
    let err = bellman_ford::run(&g, 4, &Default::default()).unwrap_err();
    assert!(
        matches!(err, WealdError::NegativeCycle { source_vertex: 4 }),
        "{err}"
    );
    // Unreachable negative cycle: fine.
    let out = bf(&g, 3);
    assert_eq!(out.dist, vec![INF, INF, INF, 0, INF, INF]);
    // A negative self loop is a negative cycle, even on one vertex.
    let g = graph(true, 1, &[(0, 0, -1)]);
    assert!(matches!(
        bellman_ford::run(&g, 0, &Default::default()),
        Err(WealdError::NegativeCycle { .. })
    ));
    // The verifier refuses any output when a negative cycle is reachable.
    let g = graph(true, 3, &[(0, 1, 1), (1, 2, -2), (2, 1, 1)]);
    let fake = Output {
        dist: vec![0, 1, -1],
        parent: vec![0, 0, 1],
    };
    assert!(verify(&g, 0, &fake).is_err());
}

#[test]
fn argument_errors() {
    let g = graph(true, 3, &[(0, 1, ()), (1, 2, ())]);
    let err = delta_stepping::run(&g, 0, &Default::default()).unwrap_err();
    assert!(
        matches!(&err, WealdError::WeightMismatch(m) if m.contains("weighted")),
        "{err}"
    );
    let err = bellman_ford::run(&g, 0, &Default::default()).unwrap_err();
    assert!(matches!(err, WealdError::WeightMismatch(_)), "{err}");
    let g = directed_i32();
    for err in [
        delta_stepping::run(&g, 5, &Default::default()).unwrap_err(),
        bellman_ford::run(&g, 7, &Default::default()).unwrap_err(),
    ] {
        assert!(
            matches!(
                err,
                WealdError::VertexOutOfRange {
                    num_vertices: 5,
                    ..
                }
            ),
            "{err}"
        );
    }
    for delta in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let p = delta_stepping::Params { delta: Some(delta) };
        assert!(matches!(
            delta_stepping::run(&g, 0, &p),
            Err(WealdError::Invalid(_))
        ));
    }
    let empty = graph::<i32>(true, 0, &[]);
    assert!(matches!(
        delta_stepping::run(&empty, 0, &Default::default()),
        Err(WealdError::VertexOutOfRange { .. })
    ));
}

#[test]
fn verifier_rejects_wrong_outputs() {
    let g = directed_i32();
    let good = ds(&g, 0);
    let mut bad = Vec::new();
    let mut o = good.clone();
    o.dist[3] = 5; // too long: arc 1→3 not relaxed
    bad.push(o);
    let mut o = good.clone();
    o.dist[3] = 3; // too short: not attained by its parent
    bad.push(o);
    let mut o = good.clone();
    o.parent[3] = 2; // 2→3 exists but does not attain 4
    bad.push(o);
    let mut o = good.clone();
    o.parent[1] = 1; // a loop
    bad.push(o);
    let mut o = good.clone();
    o.dist[4] = 7; // reached but unreachable (and no parent)
    bad.push(o);
    let mut o = good.clone();
    o.dist[0] = 1;
    bad.push(o);
    let mut o = good.clone();
    o.parent[0] = NONE;
    bad.push(o);
    let mut o = good.clone();
    o.dist.pop();
    bad.push(o);
    for o in bad {
        assert!(verify(&g, 0, &o).is_err(), "{o:?} accepted");
    }
    // Consistent but wrong everywhere: all distances doubled and consistent with nothing.
    let mut o = good.clone();
    o.dist
        .iter_mut()
        .filter(|d| **d != INF)
        .for_each(|d| *d *= 2);
    assert!(verify(&g, 0, &o).is_err());
}

/// A random graph: `(n, directed, arcs)` with small weights drawn by `w`.
fn arb_graph<W: std::fmt::Debug + Clone + 'static>(
    max_n: u32,
    w: impl Strategy<Value = W> + Clone + 'static,
) -> impl Strategy<Value = (u32, bool, Vec<(u32, u32, W)>)> {
    (1..max_n, any::<bool>()).prop_flat_map(move |(n, directed)| {
        let arcs = proptest::collection::vec((0..n, 0..n, w.clone()), 0..(4 * n as usize));
        (Just(n), Just(directed), arcs)
    })
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The CSR's weight summary (gathered from its weight array when built, and again when
    /// rebuilt by `from_graph`) equals the walk over its out-arcs, for symmetric graphs and for
    /// directed ones with and without in-arcs (integer weights: the sums are exact, so equal
    /// whatever their grouping).
    #[test]
    fn csr_weight_summary_matches_the_walk(
        n in 1usize..300,
        arcs in proptest::collection::vec((0u32..300, 0u32..300, -50i32..1000), 0..3000),
        kind in 0usize..3,
    ) {
        let arcs: Vec<(Vertex, Vertex, i32)> =
            arcs.into_iter().map(|(u, v, w)| (u % n as u32, v % n as u32, w)).collect();
        let mut e = EdgeList::from_triples(arcs.iter().copied());
        e.num_vertices = e.num_vertices.max(n);
        let opts = BuildOptions { directed: kind > 0, in_edges: kind == 2, ..Default::default() };
        let g = Csr::build(e, &opts).unwrap().0;
        let s = g.weight_summary();
        prop_assert_eq!(s, weald_graph::WeightSummary::of_graph(&g));
        prop_assert_eq!(s.arcs, g.num_arcs());
        prop_assert_eq!(Csr::from_graph(&g).weight_summary(), s);
    }

    /// Small weights (delta-stepping keeps 4-byte distances) and, in some graphs, weights of
    /// 2^29 and more, where `(n − 1) · max weight` does not fit in 32 bits (8-byte distances);
    /// directed graphs find parents by pushing, symmetric ones by pulling.
    #[test]
    fn random_integer_graphs(
        (n, directed, arcs) in prop_oneof![
            3 => arb_graph(200, 0i32..20),
            1 => arb_graph(200, prop_oneof![0i32..20, (1i32 << 29)..(1 << 30)]),
        ],
        s in any::<u32>(),
        delta in prop_oneof![Just(None), (0.5f64..30.0).prop_map(Some)],
    ) {
        let g = graph(directed, n as usize, &arcs);
        let s = s % n;
        let p = delta_stepping::Params { delta };
        let a = in_pool(1, || delta_stepping::run(&g, s, &p).unwrap());
        let b = in_pool(2, || delta_stepping::run(&g, s, &p).unwrap());
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(verify(&g, s, &a), Ok(()));
        let c = in_pool(1, || bellman_ford::run(&g, s, &Default::default()).unwrap());
        let d = in_pool(2, || bellman_ford::run(&g, s, &Default::default()).unwrap());
        prop_assert_eq!(&c, &d);
        prop_assert_eq!(verify(&g, s, &c), Ok(()));
        prop_assert_eq!(&a.dist, &c.dist);
        // Mutating one reached distance (other than the source's) must be caught.
        if let Some(v) = (0..n).find(|&v| v != s && a.dist[v as usize] != INF) {
            let mut m = a.clone();
            m.dist[v as usize] += 1;
            prop_assert!(verify(&g, s, &m).is_err());
            let mut m = a.clone();
            m.dist[v as usize] -= 1;
            prop_assert!(verify(&g, s, &m).is_err());
            let mut m = a.clone();
            m.parent[v as usize] = v;
            prop_assert!(verify(&g, s, &m).is_err());
        }
        if let Some(v) = (0..n).find(|&v| a.dist[v as usize] == INF) {
            let mut m = a.clone();
            m.dist[v as usize] = 0;
            prop_assert!(verify(&g, s, &m).is_err());
        }
    }

    #[test]
    fn random_float_graphs(
        (n, directed, arcs) in arb_graph(200, prop_oneof![1 => Just(0.0f64), 4 => 0.0f64..10.0]),
        s in any::<u32>(),
    ) {
        let g = graph(directed, n as usize, &arcs);
        let s = s % n;
        let a = in_pool(1, || delta_stepping::run(&g, s, &Default::default()).unwrap());
        let b = in_pool(2, || delta_stepping::run(&g, s, &Default::default()).unwrap());
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(verify(&g, s, &a), Ok(()));
        let c = in_pool(2, || bellman_ford::run(&g, s, &Default::default()).unwrap());
        prop_assert_eq!(verify(&g, s, &c), Ok(()));
        if let Some(v) = (0..n).find(|&v| v != s && a.dist[v as usize] != f64::INFINITY) {
            let mut m = a.clone();
            m.dist[v as usize] = m.dist[v as usize] * 1.001 + 0.001;
            prop_assert!(verify(&g, s, &m).is_err());
        }
    }

    /// Directed graphs with negative weights: Bellman-Ford either verifies or reports a
    /// negative cycle exactly when the sequential Bellman-Ford finds one.
    #[test]
    fn random_negative_weights(
        (n, _directed, arcs) in arb_graph(120, -6i32..20),
        s in any::<u32>(),
    ) {
        // Negative weights only on arcs to higher ids, so that some graphs have no negative
        // cycle.
        let arcs: Vec<_> = arcs.into_iter().map(|(u, v, w)| (u, v, if u < v { w } else { w.abs() })).collect();
        let g = graph(true, n as usize, &arcs);
        let s = s % n;
        let seq = bellman_ford_seq(&g, s);
        let a = in_pool(1, || bellman_ford::run(&g, s, &Default::default()));
        let b = in_pool(2, || bellman_ford::run(&g, s, &Default::default()));
        match (a, b, seq) {
            (Ok(a), Ok(b), Some(d)) => {
                prop_assert_eq!(&a, &b);
                prop_assert_eq!(&a.dist, &d);
                prop_assert_eq!(verify(&g, s, &a), Ok(()));
            }
            (Err(WealdError::NegativeCycle { source_vertex }), Err(WealdError::NegativeCycle { .. }), None) => {
                prop_assert_eq!(source_vertex, s as u64);
            }
            (a, b, seq) => prop_assert!(false, "{:?} / {:?} / sequential {:?}", a, b, seq),
        }
    }
}

/// The weight statistics behind the default delta and the weight check, exactly, for integer
/// and float weights (negative zero is not negative, NaN is reported and left out); and the
/// errors for a negative or NaN weight name the arc.
#[test]
fn weight_stats_and_bad_weights() {
    use weald_graph::WeightSummary;
    // The CSR's summary (gathered from its weight array when built) equals the walk's.
    fn weight_stats<W: Weight>(g: &Csr<W>) -> WeightSummary {
        let s = g.weight_summary();
        assert_eq!(s, WeightSummary::of_graph(g));
        s
    }
    // Directed: 0 →(5) 1, 1 →(0) 2, 2 →(12) 0, 0 →(3) 2.
    let g = graph::<i32>(true, 3, &[(0, 1, 5), (1, 2, 0), (2, 0, 12), (0, 2, 3)]);
    let s = weight_stats(&g);
    assert!(!s.nan);
    assert_eq!(
        (s.min, s.min_positive, s.max, s.sum, s.arcs),
        (0.0, 3.0, 12.0, 20.0, 4)
    );
    let g = graph::<f64>(true, 3, &[(0, 1, 2.5), (1, 2, -0.0), (2, 0, 0.25)]);
    let s = weight_stats(&g);
    assert!(!s.nan);
    assert_eq!(
        (s.min, s.min_positive, s.max, s.sum, s.arcs),
        (0.0, 0.25, 2.5, 2.75, 3)
    );
    assert!(delta_stepping::run(&g, 0, &Default::default()).is_ok());
    let g = graph::<f64>(true, 3, &[(0, 1, 2.5), (1, 2, f64::NAN), (2, 0, 1.0)]);
    let s = weight_stats(&g);
    assert!(s.nan);
    assert_eq!(
        (s.min, s.min_positive, s.max, s.sum, s.arcs),
        (1.0, 1.0, 2.5, 3.5, 3)
    );
    let err = delta_stepping::run(&g, 0, &Default::default()).unwrap_err();
    assert!(
        matches!(&err, WealdError::Invalid(m) if m.contains("1→2")),
        "{err}"
    );
    let err = bellman_ford::run(&g, 0, &Default::default()).unwrap_err();
    assert!(
        matches!(&err, WealdError::Invalid(m) if m.contains("1→2") && m.contains("NaN")),
        "{err}"
    );
    let g = graph::<i32>(false, 3, &[(0, 1, 4), (1, 2, -7)]);
    let s = weight_stats(&g);
    assert_eq!((s.min, s.max, s.arcs), (-7.0, 4.0, 4));
    let err = delta_stepping::run(&g, 0, &Default::default()).unwrap_err();
    assert!(
        matches!(&err, WealdError::Invalid(m) if m.contains("bellman-ford")),
        "{err}"
    );
}
